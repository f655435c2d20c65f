-- Least privilege (issue 15). The role that runs these migrations owns the schema: the tables, the
-- override log's trigger functions and its triggers. The app does not connect as that role: a table's
-- owner may `ALTER TABLE overrides DISABLE TRIGGER ALL` and then rewrite the log. The app connects as
-- a login role that is a member of the group role `interview_app` (deploy/team.sh and
-- deploy/postgres-init.sh make `coach` one: `GRANT interview_app TO coach`), and `interview_app` gets
-- only what the app does with each table (agent/graph/store.py, agent/db/users.py,
-- agent/overrides/postgres.py), nothing else: it owns nothing, so ALTER (disabling a trigger), DROP and
-- CREATE TRIGGER are refused to it, and so are CREATE in the schema and TRUNCATE, UPDATE and DELETE
-- on the log's tables (by privilege, before any trigger is reached). The owner runs
-- `interview db migrate --url <owner URL>`; the app only checks that the schema is up to date
-- (agent/db/migrate.py), which needs no more than SELECT.

-- The group role. Roles belong to the whole cluster: an administrator may have created it already
-- (the deploy scripts do); else the migrating role creates it when it may (CREATEROLE).
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'interview_app') THEN
        CREATE ROLE interview_app NOLOGIN;
    END IF;
EXCEPTION
    WHEN insufficient_privilege THEN
        RAISE EXCEPTION 'the role interview_app does not exist and the role % may not create roles: '
            'as a superuser run `CREATE ROLE interview_app NOLOGIN;` (and `GRANT interview_app TO '
            '<the app''s login role>;`), then migrate again', current_user;
    WHEN duplicate_object OR unique_violation THEN
        NULL;  -- created meanwhile by the migration of another database in the same cluster
END
$$;

-- What the app reads and writes. Sessions and users are updated in place (a session's status; a
-- user's password and reviewer flag) but never deleted; a shared secret is written once (the first
-- replica's wins). LangGraph's checkpoint tables are created after these files by
-- `PostgresSaver.setup()`: agent/db/migrate.py grants them (SELECT, INSERT, UPDATE, DELETE; SELECT on
-- checkpoint_migrations) right after it, each time it migrates.
GRANT SELECT ON interview_schema_migrations TO interview_app;
GRANT SELECT, INSERT, UPDATE ON interview_sessions TO interview_app;
GRANT SELECT, INSERT, UPDATE ON interview_users TO interview_app;
GRANT SELECT, INSERT ON interview_secrets TO interview_app;

-- The override log: rows are appended, never changed. overrides_meta is written by this schema only
-- (the chain's description, 0003_overrides.sql), and overrides_head only by the trigger that advances
-- it: the app reads them. Writers serialize on a transaction-level advisory lock
-- (agent/overrides/postgres.py), which needs no UPDATE right, unlike SELECT … FOR UPDATE.
GRANT SELECT, INSERT ON overrides TO interview_app;
GRANT SELECT ON overrides_meta, overrides_head TO interview_app;

-- The trigger functions that read or write the log's tables run as their owner (SECURITY DEFINER):
-- overrides_advance() moves overrides_head, on which the app has no UPDATE; overrides_chain() checks a
-- new row against the last one. Each gets a fixed search_path (this schema, then pg_temp last), so a
-- temporary table the app's role creates cannot stand in for overrides or overrides_head. Their bodies
-- are those of 0003_overrides.sql; `interview override verify` checks both the bodies and these
-- settings (agent/overrides/postgres.py reads the ALTER FUNCTION lines below). No one needs to call
-- the log's functions outside its triggers (firing a trigger checks no EXECUTE right).
DO $$
BEGIN
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO interview_app', current_schema());
    -- PostgreSQL 14 and older let every role create objects in the public schema
    EXECUTE format('REVOKE CREATE ON SCHEMA %I FROM PUBLIC', current_schema());
    IF has_schema_privilege('interview_app', current_schema(), 'CREATE') THEN
        RAISE EXCEPTION 'the role interview_app may create objects in the schema % and the role % cannot '
            'take that away: as a superuser run `REVOKE CREATE ON SCHEMA % FROM PUBLIC, interview_app;`, '
            'then migrate again', current_schema(), current_user, quote_ident(current_schema());
    END IF;
    EXECUTE format('ALTER FUNCTION overrides_chain() SECURITY DEFINER SET search_path = %I, pg_temp', current_schema());
    EXECUTE format('ALTER FUNCTION overrides_advance() SECURITY DEFINER SET search_path = %I, pg_temp', current_schema());
END
$$;
REVOKE EXECUTE ON FUNCTION overrides_refuse(), overrides_chain(), overrides_advance(), overrides_head_guard()
    FROM PUBLIC;
