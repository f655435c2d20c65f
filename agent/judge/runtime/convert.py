"""Inside the vLLM venv: find the packaged GGUF and turn it into an HF folder vLLM can load.

    python -m agent.judge.runtime.convert find-gguf PACKAGE FILE   # prints the version, then the path
    python -m agent.judge.runtime.convert convert GGUF OUT_DIR     # prints one JSON line: how it went

`model.ensure_small_model` runs this with the vLLM venv's python and a PYTHONPATH that holds only the
`agent` package, so importing it (and the package `__init__`s above it) needs nothing but the
standard library: torch and transformers are imported in `convert`, from the venv it runs in.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def find_gguf(package: str, filename: str) -> tuple[str, Path]:
    """The installed version of `package` and the path of its file named `filename`."""
    dist = importlib.metadata.distribution(package)
    for f in dist.files or ():
        if f.name == filename:
            return dist.version, Path(str(dist.locate_file(f)))
    raise SystemExit(f"{filename} not in {package} {dist.version}")


def convert(gguf_path: Path, out_dir: Path) -> dict[str, Any]:
    """Dequantize `gguf_path` to a bfloat16 HF model with its tokenizer and chat template in `out_dir`;
    return what was used (method, versions, dtype, parameter count, a rendered chat-template probe)."""
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    kwargs: dict[str, Any] = {"gguf_file": gguf_path.name}
    gguf_config: Any = getattr(transformers, "GgufConfig", None)
    if gguf_config is not None:
        kwargs["quantization_config"] = gguf_config(dequantize=True)
        method = "gguf_file + GgufConfig(dequantize=True)"
    else:
        method = "gguf_file"
    tokenizer: Any = AutoTokenizer.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name)
    model: Any = AutoModelForCausalLM.from_pretrained(gguf_path.parent, dtype=torch.bfloat16, **kwargs)
    if getattr(model.config, "quantization_config", None) is not None:
        del model.config.quantization_config
    if getattr(model, "hf_quantizer", None) is not None:
        model.hf_quantizer = None
    if not getattr(tokenizer, "chat_template", None):
        raise SystemExit("the GGUF carries no chat template")
    model.save_pretrained(out_dir)
    tokenizer.save_pretrained(out_dir)
    probe = tokenizer.apply_chat_template(
        [{"role": "user", "content": "hi"}], tokenize=False, add_generation_prompt=True
    )
    return {
        "method": method,
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "dtype": str(model.dtype),
        "parameters": sum(p.numel() for p in model.parameters()),
        "chat_template_probe": probe,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agent.judge.runtime.convert", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    find = sub.add_parser("find-gguf", help="print the package's version, then the GGUF's path")
    find.add_argument("package")
    find.add_argument("filename")
    conv = sub.add_parser("convert", help="GGUF to an HF folder; print one JSON line")
    conv.add_argument("gguf", type=Path)
    conv.add_argument("out_dir", type=Path)
    args = parser.parse_args(argv)
    if args.command == "find-gguf":
        version, path = find_gguf(args.package, args.filename)
        print(version)
        print(path)
    else:
        print(json.dumps(convert(args.gguf, args.out_dir)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
