#!/bin/sh
# Run once by the postgres image (deploy/compose.yaml mounts it into /docker-entrypoint-initdb.d/) when
# its data volume is empty, as the image's superuser: the two login roles of
# agent/db/migrations/postgres/0004_app_role.sql and the database.
#   coach_owner  owns the database `coach` and its schema; the one-shot `migrate` service runs
#                `interview db migrate` as it before the apps start
#   coach        the apps' role: a member of interview_app, owns nothing, so it cannot change the
#                schema nor disable the override log's triggers
# The passwords come from the service's environment (COACH_OWNER_PASSWORD, COACH_DB_PASSWORD), as psql
# variables (quoted by psql).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  --set=owner_pw="$COACH_OWNER_PASSWORD" --set=app_pw="$COACH_DB_PASSWORD" <<'SQL'
CREATE ROLE interview_app NOLOGIN;
CREATE ROLE coach_owner LOGIN PASSWORD :'owner_pw';
CREATE ROLE coach LOGIN PASSWORD :'app_pw' IN ROLE interview_app;
CREATE DATABASE coach OWNER coach_owner;
SQL
