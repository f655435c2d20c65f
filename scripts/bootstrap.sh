#!/usr/bin/env bash
# Creates (or refreshes) the project venv in .venv with the product and test dependencies.
# Idempotent: reinstalls only when pyproject.toml or constraints.txt changed. Used by serve.sh and test.sh.
# Versions come from constraints.txt (scripts/lock.sh writes it), so a fresh machine installs what the tests passed with.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
VENV=".venv"
STAMP="$VENV/.bootstrap-$(cat pyproject.toml constraints.txt | sha256sum | cut -c1-16)"
if [ -f "$STAMP" ]; then exit 0; fi
echo "bootstrap: setting up $VENV (first run takes a few minutes)" >&2
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip >&2
# torch first, pinned to the CPU build this machine kind keeps as a local wheel (never a CUDA download).
"$VENV/bin/python" -m pip install -q "torch==2.13.0" >&2
"$VENV/bin/python" -m pip install -q -c constraints.txt -e ".[app,test]" >&2
rm -f "$VENV"/.bootstrap-*
touch "$STAMP"
echo "bootstrap: ready" >&2
