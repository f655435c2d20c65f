#!/usr/bin/env bash
# Debian packages the voice, browser and Postgres tests use: espeak-ng (Chinese TTS, test audio), a CJK font and
# chromium (end-to-end UI tests, driven by Playwright with executable_path; never a downloaded browser), postgresql,
# nginx-light.
# Installs them when missing and we are root with apt-get; otherwise says what is missing and goes on.
set -u
need=()
command -v espeak-ng >/dev/null 2>&1 || need+=(espeak-ng)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# a CJK font, so Chinese renders in Chromium and in the radar chart instead of boxes
fc-list 2>/dev/null | grep -qi "wqy\|noto.*cjk" || need+=(fonts-wqy-microhei)
# a Postgres server (initdb, pg_ctl) for tests/postgres/, which start their own in a temporary folder
compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null || command -v pg_ctl >/dev/null 2>&1 || need+=(postgresql)
# nginx: deploy/team.sh's sticky proxy in front of the app replicas (tests/deploy/test_team.py)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "system_deps: installing ${need[*]}" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}") >/dev/null 2>&1 \
    || echo "system_deps: could not install ${need[*]}; the tests that need them will say so" >&2
else
  echo "system_deps: missing ${need[*]} (apt-get install ${need[*]}); the tests that need them will say so" >&2
fi
exit 0
