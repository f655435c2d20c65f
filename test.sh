#!/usr/bin/env bash
# Sets up the venv (once) and runs lint, type-check and every test, the slow ones included.
# Extra arguments go to pytest, e.g. ./test.sh -m "not vllm" -x
set -euo pipefail
cd "$(dirname "$0")"
scripts/bootstrap.sh
# the vLLM CPU judge's venvs and model (minutes on a fresh machine, mostly downloads) are built beside
# the rest; the vLLM tests wait for the build through its file locks
judge_log=$(mktemp)
HF_HUB_OFFLINE=1 env -u JUDGE_MODEL .venv/bin/python -m agent.judge.runtime --prepare-only --replicas 2 >"$judge_log" 2>&1 &
judge_pid=$!
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
if [ "$#" -eq 0 ]; then
  # the whole suite: the tests that start real vLLM servers (mostly waiting on the server) run in a second
  # pytest beside the rest; its output follows this one's. With arguments, one pytest runs them as given.
  vllm_log=$(mktemp)
  .venv/bin/python -m pytest -m vllm -p no:cacheprovider >"$vllm_log" 2>&1 &
  vllm_pid=$!
  .venv/bin/python -m pytest -m "not vllm"
  tests_rc=$?
  wait "$vllm_pid"
  vllm_rc=$?
  echo "---- the vLLM tests (pytest -m vllm, run beside the others) ----"
  cat "$vllm_log"
  rm -f "$vllm_log"
  [ "$tests_rc" -eq 0 ] && tests_rc=$vllm_rc
else
  .venv/bin/python -m pytest "$@"
  tests_rc=$?
fi
wait "$mypy_pid"
mypy_rc=$?
wait "$judge_pid" || { echo "test.sh: preparing the vLLM judge failed:" >&2; tail -20 "$judge_log" >&2; }
set -e
rm -f "$judge_log"
cat "$mypy_log"
rm -f "$mypy_log"
if [ "$mypy_rc" -ne 0 ]; then
  echo "test.sh: mypy failed (exit $mypy_rc)" >&2
  exit 1
fi
exit "$tests_rc"
