#!/usr/bin/env bash
# Sets up the venv (once) and runs lint, type-check and every test, the slow ones included.
# Extra arguments go to pytest, e.g. ./test.sh -m "not vllm" -x
set -euo pipefail
cd "$(dirname "$0")"
scripts/bootstrap.sh
scripts/system_deps.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
.venv/bin/ruff check agent tests bench
.venv/bin/lint-imports --no-cache --no-logo  # the import layers in pyproject.toml
# mypy (about 4 minutes on a fresh clone, one core) runs beside the index build and the tests; its verdict
# is printed and counted at the end
mypy_log=$(mktemp)
.venv/bin/mypy >"$mypy_log" 2>&1 &
mypy_pid=$!
# the index over the real vLLM source (the 0.26.0 wheel, fetched once): the slow knowledge tests use it
.venv/bin/interview index build -q || echo "test.sh: index build failed; tests over the real wheel will skip" >&2
set +e
.venv/bin/python -m pytest "$@"
tests_rc=$?
wait "$mypy_pid"
mypy_rc=$?
set -e
cat "$mypy_log"
rm -f "$mypy_log"
if [ "$mypy_rc" -ne 0 ]; then
  echo "test.sh: mypy failed (exit $mypy_rc)" >&2
  exit 1
fi
exit "$tests_rc"
