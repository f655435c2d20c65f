#!/usr/bin/env bash
# Creates (or refreshes) the project venv in .venv with the product and test dependencies.
# Idempotent: reinstalls only when pyproject.toml changed. Used by serve.sh and test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
VENV=".venv"
STAMP="$VENV/.bootstrap-$(sha256sum pyproject.toml | cut -c1-16)"
if [ -f "$STAMP" ]; then exit 0; fi
echo "bootstrap: setting up $VENV (first run takes a few minutes)" >&2
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip >&2
# torch first, pinned to the CPU build this machine kind keeps as a local wheel (never a CUDA download).
"$VENV/bin/python" -m pip install -q "torch==2.13.0" >&2
"$VENV/bin/python" -m pip install -q -e ".[app,test]" >&2
rm -f "$VENV"/.bootstrap-*
touch "$STAMP"
echo "bootstrap: ready" >&2
