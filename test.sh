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
.venv/bin/lint-imports --no-cache --no-logo  # the import layers in pyproject.toml
# the index over the real vLLM source (the 0.26.0 wheel, fetched once): the slow knowledge tests use it
.venv/bin/interview index build -q || echo "test.sh: index build failed; tests over the real wheel will skip" >&2
.venv/bin/python -m pytest "$@"
