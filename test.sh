#!/usr/bin/env bash
# Sets up the venv (once) and runs lint, type-check and every test, the slow ones included.
# Extra arguments go to pytest, e.g. ./test.sh -m "not vllm" -x
set -euo pipefail
cd "$(dirname "$0")"
scripts/bootstrap.sh
scripts/system_deps.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
.venv/bin/ruff check agent tests bench
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
