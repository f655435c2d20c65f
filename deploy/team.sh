#!/usr/bin/env bash
# The team setup on one machine, without containers (deploy/compose.yaml is the same in containers):
#
#   deploy/team.sh [--judge cpu|embedded] [--replicas N] [--no-index] [--no-proxy] [--import-from DIR]
#   deploy/team.sh --stop        # stop what a team.sh that was killed (SIGKILL) left running
#
# It starts, each as a child in its own process group, and stops them all on SIGTERM / Ctrl-C:
#   1. Postgres (Debian's postgresql binaries, /usr/lib/postgresql/*/bin): a cluster in
#      $TEAM_DIR/pg (initdb once; as root the cluster belongs to the postgres user, in PG_DIR or, when
#      it cannot reach $TEAM_DIR, in its home, one per TEAM_DIR), on 127.0.0.1:$PG_PORT, with two login roles
#      (agent/db/migrations/postgres/0004_app_role.sql): `coach_owner` owns the database `coach` and
#      its schema and runs `interview db migrate` (here, before the apps start); `coach`, the apps'
#      role, is a member of `interview_app`, owns nothing and cannot change the schema nor rewrite the
#      override log. Passwords in $TEAM_DIR/pg-password (coach) and $TEAM_DIR/pg-owner-password; the
#      owner's URL only in $TEAM_DIR/pg-owner-url (0600, never given to the apps nor in team.env), for
#      an admin: INTERVIEW_DATABASE_URL="$(cat $TEAM_DIR/pg-owner-url)" .venv/bin/interview db migrate.
#      A cluster made by an earlier team.sh, where `coach` owned everything, is converted on start.
#      --import-from DIR: then `interview db import --from-sqlite DIR` as coach_owner, before any app
#      replica starts, so the one-machine data dir's users, sessions, overrides and browser-id secret
#      are in the database when the replicas first read it (a replica makes a secret of its own when the
#      database has none; the import then keeps that one and refuses the machine's). Stop the
#      one-machine app first. When the import refuses anything (or fails) team.sh stops there and no
#      replica starts: its report is in $TEAM_DIR/logs/import.log. Run again, it imports nothing twice.
#   2. a Chroma server (`chroma run`) over $TEAM_DIR/chroma on 127.0.0.1:$CHROMA_PORT, and the vLLM
#      source index built into it once (`interview index build`; --no-index skips it)
#   3. the judge: --judge cpu, a pool of --replicas N (default 2) vLLM CPU servers behind vllm-router on
#      127.0.0.1:$JUDGE_PORT (python -m agent.judge.runtime --replicas N) serving JUDGE_MODEL, or without
#      it SmolLM2-135M, a demonstration model (its scores check the setup, not the answers: the reports
#      say so); --judge embedded starts none and the embedded judge scores. Default: cpu when
#      JUDGE_MODEL is set, else embedded.
#   4. two app replicas (python -m agent.ui) on 127.0.0.1:7861 and :7862 ($APP_PORTS), each with its own
#      data dir ($TEAM_DIR/app-K) as on two machines, sharing INTERVIEW_DATABASE_URL, CHROMA_URL and
#      JUDGE_BASE_URL
#   5. nginx, when installed, on $PROXY_HOST:$PROXY_PORT (127.0.0.1:7860) with sticky sessions
#      (deploy/nginx.conf: a cookie names the replica); without nginx (or --no-proxy) open a replica
#      directly: a browser must stay on one replica (Gradio's event stream), any replica resumes a
#      session.
# When everything answers it prints "team ready" and writes $TEAM_DIR/team.env (0600: the variables for
# `interview …` commands against the same database, as `coach`, and index). Logs: $TEAM_DIR/logs.
# Users: `set -a; . $TEAM_DIR/team.env; .venv/bin/python -m agent.ui --add-user NAME [--reviewer]`;
# once a user exists every replica asks for a login. A PROXY_HOST other than loopback is refused until
# then.
#
# Environment: TEAM_DIR (default <data dir>/team), PG_DIR, PG_PORT (55432), CHROMA_PORT (58000), JUDGE_PORT
# (58100), APP_PORTS ("7861 7862"), PROXY_HOST (127.0.0.1), PROXY_PORT (7860), STOP_GRACE_S (30).
set -euo pipefail
START_DIR="$PWD"
cd "$(dirname "$0")/.."
REPO="$PWD"

JUDGE="${JUDGE:-}"
REPLICAS="${JUDGE_REPLICAS:-2}"
BUILD_INDEX=1
PROXY=1
STOP_ONLY=0
IMPORT_FROM=""
while [ $# -gt 0 ]; do
  case "$1" in
    --judge) JUDGE="$2"; shift 2 ;;
    --judge=*) JUDGE="${1#*=}"; shift ;;
    --replicas) REPLICAS="$2"; shift 2 ;;
    --replicas=*) REPLICAS="${1#*=}"; shift ;;
    --no-index) BUILD_INDEX=0; shift ;;
    --no-proxy) PROXY=0; shift ;;
    --import-from) IMPORT_FROM="${2:-}"; shift 2 || { echo "team.sh: --import-from needs a folder" >&2; exit 2; } ;;
    --import-from=*) IMPORT_FROM="${1#*=}"; shift ;;
    --stop) STOP_ONLY=1; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) echo "team.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
# without a model of the user's the pool would serve the demonstration model: the embedded judge grades
[ -n "$JUDGE" ] || { [ -n "${JUDGE_MODEL:-}" ] && JUDGE=cpu || JUDGE=embedded; }
case "$JUDGE" in cpu|embedded) ;; *) echo "team.sh: --judge must be cpu or embedded" >&2; exit 2 ;; esac
case "$REPLICAS" in ''|*[!0-9]*|0) echo "team.sh: --replicas must be a whole number >= 1" >&2; exit 2 ;; esac
if [ -n "$IMPORT_FROM" ]; then
  case "$IMPORT_FROM" in /*) ;; *) IMPORT_FROM="$START_DIR/$IMPORT_FROM" ;; esac
  [ -d "$IMPORT_FROM" ] || { echo "team.sh: --import-from: no folder $IMPORT_FROM" >&2; exit 2; }
fi

DATA_ROOT="${INTERVIEW_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/vllm-interview-coach}"
TEAM_DIR="${TEAM_DIR:-$DATA_ROOT/team}"
CACHE="${INTERVIEW_CACHE_DIR:-$DATA_ROOT/cache}"
PG_PORT="${PG_PORT:-55432}"
CHROMA_PORT="${CHROMA_PORT:-58000}"
JUDGE_PORT="${JUDGE_PORT:-58100}"
read -r -a APP_PORT_LIST <<<"${APP_PORTS:-7861 7862}"
PROXY_HOST="${PROXY_HOST:-127.0.0.1}"
PROXY_PORT="${PROXY_PORT:-7860}"
STOP_GRACE_S="${STOP_GRACE_S:-30}"
RUN="$TEAM_DIR/run"
LOGS="$TEAM_DIR/logs"

# ---- processes: each child leads its own process group; its group id is kept in $RUN for --stop
CHILDREN=()
stop_group() {  # stop_group PGID: SIGTERM, SIGKILL after STOP_GRACE_S
  local pid="$1" i
  kill -TERM -- "-$pid" 2>/dev/null || return 0
  for ((i = 0; i < STOP_GRACE_S * 10; i++)); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL -- "-$pid" 2>/dev/null || true
}
stop_children() {  # the last started first: apps and proxy before the judge, Postgres last
  local k pid
  for ((k = ${#CHILDREN[@]} - 1; k >= 0; k--)); do
    pid="${CHILDREN[$k]}"
    stop_group "$pid"
    wait "$pid" 2>/dev/null || true
    rm -f "$RUN/$pid.pgid"
  done
  CHILDREN=()
}
if [ "$STOP_ONLY" = 1 ]; then
  shopt -s nullglob
  files=("$RUN"/*.pgid)
  [ ${#files[@]} -gt 0 ] || { echo "team.sh: nothing recorded in $RUN"; exit 0; }
  for ((k = ${#files[@]} - 1; k >= 0; k--)); do
    f="${files[$k]}"; pid="$(basename "$f" .pgid)"
    echo "team.sh: stopping $(cat "$f") (process group $pid)"
    stop_group "$pid"; rm -f "$f"
  done
  exit 0
fi
on_signal() { trap - INT TERM; echo "team.sh: stopping" >&2; stop_children; exit "$1"; }
trap stop_children EXIT
trap 'on_signal 143' TERM
trap 'on_signal 130' INT
NAMES=()
start_child() {  # start_child NAME LOG CMD...: in the background, own process group; pid in CHILD_PID
  local name="$1" logf="$2"; shift 2
  set -m
  "$@" </dev/null >>"$logf" 2>&1 &
  CHILD_PID=$!
  set +m
  CHILDREN+=("$CHILD_PID")
  NAMES+=("$name")
  echo "$name" >"$RUN/$CHILD_PID.pgid"
}
fail() { echo "team.sh: $*" >&2; exit 1; }
wait_for() {  # wait_for WHAT PID SECONDS CMD...: until CMD succeeds; fail if PID exits first
  local what="$1" pid="$2" limit="$3" i; shift 3
  for ((i = 0; i < limit * 2; i++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    kill -0 "$pid" 2>/dev/null || fail "$what exited before it was ready (see $LOGS)"
    sleep 0.5
  done
  fail "$what not ready within $limit s (see $LOGS)"
}
http_ok() { .venv/bin/python -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=3)" "$1"; }

mkdir -p "$TEAM_DIR" "$RUN" "$LOGS"
chmod 700 "$TEAM_DIR"
scripts/bootstrap.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
# this machine's own addresses never through a proxy the environment names (see agent/util/loopback.py)
export NO_PROXY="${NO_PROXY:+$NO_PROXY,}127.0.0.1,localhost" no_proxy="${no_proxy:+$no_proxy,}127.0.0.1,localhost"
PY=.venv/bin/python

# ---- 1. Postgres
PG_BIN="${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n | tail -1)}"
[ -x "$PG_BIN/postgres" ] || fail "no Postgres server binaries (apt-get install postgresql, or PG_BIN=...)"
PG="${PG_DIR:-$TEAM_DIR/pg}"
AS=()
if [ "$(id -u)" = 0 ]; then  # initdb and postgres refuse root: the cluster belongs to the postgres user
  PG_USER="$(id -u postgres >/dev/null 2>&1 && echo postgres || echo nobody)"
  AS=(runuser -u "$PG_USER" --)
  mkdir -p "$PG"
  # the data dir (owner-only) is out of that user's reach: the cluster goes to its home instead, one per
  # TEAM_DIR (a cluster an earlier team.sh made there for every TEAM_DIR is kept by the one that has its
  # password)
  if [ -z "${PG_DIR:-}" ] && ! runuser -u "$PG_USER" -- test -x "$PG"; then
    legacy="/var/lib/postgresql/vllm-interview-coach-team"
    PG="$legacy-$(printf '%s' "$TEAM_DIR" | sha256sum | cut -c1-12)"
    if [ ! -d "$PG" ] && [ -f "$legacy/data/PG_VERSION" ] && [ -f "$TEAM_DIR/pg-password" ]; then
      PG="$legacy"
    fi
  fi
  mkdir -p "$PG/run"
  chown "$PG_USER" "$PG" "$PG/run"
fi
mkdir -p "$PG/run"
chmod 700 "$PG/run"
if [ -f "$PG/data/PG_VERSION" ] && [ ! -f "$TEAM_DIR/pg-password" ]; then
  fail "the Postgres cluster in $PG/data is not this TEAM_DIR's: $TEAM_DIR/pg-password, the apps' password \
that was made with it, is missing. Use the TEAM_DIR that made it, set PG_DIR to a new folder, or remove \
$PG/data to start an empty database"
fi
if [ ! -f "$PG/data/PG_VERSION" ]; then
  echo "team.sh: creating the Postgres cluster in $PG/data" >&2
  umask 077
  "$PY" -c "import secrets; print(secrets.token_urlsafe(24))" >"$TEAM_DIR/pg-password"
  umask 022
  "${AS[@]}" "$PG_BIN/initdb" -D "$PG/data" -U postgres -E UTF8 --auth-local=trust \
    --auth-host=scram-sha-256 >>"$LOGS/postgres.log" 2>&1 || fail "initdb failed (see $LOGS/postgres.log)"
  NEW_CLUSTER=1
else
  NEW_CLUSTER=0
fi
if [ ! -f "$TEAM_DIR/pg-owner-password" ]; then  # also for a cluster an earlier team.sh made
  umask 077
  "$PY" -c "import secrets; print(secrets.token_urlsafe(24))" >"$TEAM_DIR/pg-owner-password"
  umask 022
fi
PG_PASSWORD="$(cat "$TEAM_DIR/pg-password")"
PG_OWNER_PASSWORD="$(cat "$TEAM_DIR/pg-owner-password")"
start_child postgres "$LOGS/postgres.log" "${AS[@]}" "$PG_BIN/postgres" -D "$PG/data" -p "$PG_PORT" \
  -k "$PG/run" -c listen_addresses=127.0.0.1
PG_PID=$CHILD_PID
wait_for Postgres "$PG_PID" 60 "$PG_BIN/pg_isready" -h "$PG/run" -p "$PG_PORT"
# The roles and the database, on every start (each step is idempotent; the passwords go through stdin,
# not the command line). An earlier team.sh made `coach` the owner: ownership moves to coach_owner.
"${AS[@]}" "$PG_BIN/psql" -h "$PG/run" -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -q \
  >>"$LOGS/postgres.log" 2>&1 <<SQL || fail "could not create the coach and coach_owner roles and the database"
SELECT 'CREATE ROLE interview_app NOLOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'interview_app')
\gexec
SELECT 'CREATE ROLE coach_owner' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'coach_owner')
\gexec
SELECT 'CREATE ROLE coach' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'coach')
\gexec
ALTER ROLE coach_owner LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '$PG_OWNER_PASSWORD';
ALTER ROLE coach LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '$PG_PASSWORD';
GRANT interview_app TO coach;
SELECT 'CREATE DATABASE coach OWNER coach_owner' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'coach')
\gexec
ALTER DATABASE coach OWNER TO coach_owner;
\connect coach
REASSIGN OWNED BY coach TO coach_owner;
SQL
OWNER_URL="postgresql://coach_owner:$PG_OWNER_PASSWORD@127.0.0.1:$PG_PORT/coach"
(umask 077 && echo "$OWNER_URL" >"$TEAM_DIR/pg-owner-url")
INTERVIEW_DATABASE_URL="$OWNER_URL" .venv/bin/interview db migrate >>"$LOGS/migrate.log" 2>&1 \
  || fail "interview db migrate (as coach_owner) failed (see $LOGS/migrate.log)"
# a one-machine data dir goes in now, before any app replica has read (or made) the browser-id secret
if [ -n "$IMPORT_FROM" ]; then
  echo "team.sh: importing $IMPORT_FROM into the database (before the app replicas start)" >&2
  if ! INTERVIEW_DATABASE_URL="$OWNER_URL" .venv/bin/interview db import --from-sqlite "$IMPORT_FROM" \
    --url "$OWNER_URL" >>"$LOGS/import.log" 2>&1; then
    tail -n 25 "$LOGS/import.log" >&2
    fail "the import of $IMPORT_FROM refused something or failed (its report: $LOGS/import.log); no app replica was started"
  fi
  echo "team.sh: imported $IMPORT_FROM (its report: $LOGS/import.log)" >&2
fi
unset OWNER_URL PG_OWNER_PASSWORD
export INTERVIEW_DATABASE_URL="postgresql://coach:$PG_PASSWORD@127.0.0.1:$PG_PORT/coach"

# ---- 2. Chroma and the index
start_child chroma "$LOGS/chroma.log" .venv/bin/chroma run --path "$TEAM_DIR/chroma" --host 127.0.0.1 \
  --port "$CHROMA_PORT"
wait_for Chroma "$CHILD_PID" 60 http_ok "http://127.0.0.1:$CHROMA_PORT/api/v2/heartbeat"
export CHROMA_URL="http://127.0.0.1:$CHROMA_PORT"
if [ "$BUILD_INDEX" = 1 ] && ! .venv/bin/interview index status >/dev/null 2>&1; then
  echo "team.sh: building the vLLM source index into Chroma (once)" >&2
  .venv/bin/interview index build >>"$LOGS/index.log" 2>&1 \
    || echo "team.sh: index build failed (see $LOGS/index.log); the apps run without source snippets" >&2
fi

# ---- 3. the judge
unset JUDGE_BASE_URL JUDGE_REPLICAS
if [ "$JUDGE" = cpu ]; then
  echo "team.sh: starting the judge: $REPLICAS vLLM CPU server(s) (first run builds the venv: minutes)" >&2
  OUT="$RUN/judge.out"
  : >"$OUT"
  set -m
  INTERVIEW_CACHE_DIR="$CACHE" "$PY" -m agent.judge.runtime --judge-only --replicas "$REPLICAS" \
    --port "$JUDGE_PORT" </dev/null >"$OUT" 2>>"$LOGS/judge.log" &
  CHILD_PID=$!
  set +m
  CHILDREN+=("$CHILD_PID"); NAMES+=(judge); echo judge >"$RUN/$CHILD_PID.pgid"
  READY_LINE='^JUDGE_MODEL='
  [ "$REPLICAS" -gt 1 ] && READY_LINE='^JUDGE_ROUTER_METRICS='
  wait_for "the judge" "$CHILD_PID" 1800 grep -q "$READY_LINE" "$OUT"
  JUDGE_BASE_URL="$(grep '^JUDGE_BASE_URL=' "$OUT" | cut -d= -f2-)"
  export JUDGE_BASE_URL JUDGE_REPLICAS="$REPLICAS"
fi

# ---- 4. two app replicas
APP_URLS=()
for k in "${!APP_PORT_LIST[@]}"; do
  port="${APP_PORT_LIST[$k]}"
  dir="$TEAM_DIR/app-$((k + 1))"
  mkdir -p "$dir"
  INTERVIEW_DATA_DIR="$dir" INTERVIEW_CACHE_DIR="$CACHE" start_child "app-$((k + 1))" \
    "$LOGS/app-$((k + 1)).log" "$PY" -m agent.ui --host 127.0.0.1 --port "$port"
  APP_PIDS+=("$CHILD_PID")
  APP_URLS+=("http://127.0.0.1:$port")
done
for k in "${!APP_URLS[@]}"; do
  wait_for "app replica $((k + 1))" "${APP_PIDS[$k]}" 300 http_ok "${APP_URLS[$k]}/"
done

# ---- 5. the sticky proxy
PROXY_URL=""
if [ "$PROXY" = 1 ] && command -v nginx >/dev/null 2>&1; then
  if ! [[ "$PROXY_HOST" =~ ^(127\.|localhost$|::1$) ]] && ! "$PY" -c \
    "import sys; from agent.ui.auth import load_users; sys.exit(0 if load_users() else 1)" 2>/dev/null; then
    fail "PROXY_HOST=$PROXY_HOST needs users first (see --help); the apps have no login without them"
  fi
  NG="$TEAM_DIR/nginx"
  mkdir -p "$NG/tmp"
  {
    echo "pid $NG/nginx.pid;"
    echo "error_log $NG/error.log warn;"
    upstreams=""
    for port in "${APP_PORT_LIST[@]}"; do upstreams+="    server 127.0.0.1:$port max_fails=1 fail_timeout=10s;\n"; done
    # deploy/nginx.conf with this machine's addresses and writable paths
    sed -e "s|^http {|http {\n  access_log $NG/access.log;\n  client_body_temp_path $NG/tmp/body;\n  proxy_temp_path $NG/tmp/proxy;\n  fastcgi_temp_path $NG/tmp/fastcgi;\n  uwsgi_temp_path $NG/tmp/uwsgi;\n  scgi_temp_path $NG/tmp/scgi;|" \
      -e '/server app-[0-9]*:7860/d' \
      -e "s|hash \$coach_key consistent;|hash \$coach_key consistent;\n$upstreams|" \
      -e "s|listen 80;|listen $PROXY_HOST:$PROXY_PORT;|" deploy/nginx.conf
  } >"$NG/nginx.conf"
  start_child proxy "$LOGS/proxy.log" nginx -p "$NG" -c "$NG/nginx.conf" -e "$NG/error.log" -g "daemon off;"
  PROXY_URL="http://$PROXY_HOST:$PROXY_PORT"
  wait_for "nginx" "$CHILD_PID" 30 http_ok "$PROXY_URL/"
elif [ "$PROXY" = 1 ]; then
  echo "team.sh: no nginx here (apt-get install nginx-light): no sticky proxy; open a replica directly" >&2
fi

umask 077
cat >"$TEAM_DIR/team.env" <<EOF
INTERVIEW_DATABASE_URL=$INTERVIEW_DATABASE_URL
CHROMA_URL=$CHROMA_URL
${JUDGE_BASE_URL:+JUDGE_BASE_URL=$JUDGE_BASE_URL}
${JUDGE_BASE_URL:+JUDGE_REPLICAS=$REPLICAS}
EOF
umask 022
echo "team ready: ${PROXY_URL:+$PROXY_URL (sticky proxy) → }${APP_URLS[*]}"
echo "  Postgres 127.0.0.1:$PG_PORT, Chroma $CHROMA_URL, judge: ${JUDGE_BASE_URL:-embedded}${JUDGE_BASE_URL:+ ($REPLICAS behind vllm-router)}"
if [ "$JUDGE" = embedded ]; then
  echo "  the embedded judge scores (--judge cpu, or JUDGE_MODEL=<model folder>, starts a vLLM judge pool)"
elif [ -z "${JUDGE_MODEL:-}" ]; then
  echo "  the judge pool serves SmolLM2-135M, a demonstration model: its scores check the setup, not the answers"
fi
echo "  the same database and index from a shell: set -a; . $TEAM_DIR/team.env; set +a"

# ---- run until a signal; the database and the index are needed by everyone
declare -A GONE=()
while sleep 2; do
  for k in "${!CHILDREN[@]}"; do
    pid="${CHILDREN[$k]}"
    [ -n "${GONE[$pid]:-}" ] && continue
    if ! kill -0 "$pid" 2>/dev/null; then
      GONE[$pid]=1
      name="${NAMES[$k]}"
      case "$name" in
        postgres|chroma) echo "team.sh: $name exited (see $LOGS); stopping everything" >&2; exit 1 ;;
        *) echo "team.sh: $name exited (see $LOGS/$name.log); the others go on" >&2 ;;
      esac
    fi
  done
done
