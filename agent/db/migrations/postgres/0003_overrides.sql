-- The override log (agent/overrides/log.py, agent/overrides/postgres.py): append-only and hash-chained.
-- Each row carries prev_hash (the previous row's row_hash; 64 zeros for the first) and row_hash
-- (SHA-256 of the canonical JSON of its columns and prev_hash, computed by the log). Triggers refuse
-- UPDATE, DELETE and TRUNCATE, and an INSERT that does not continue the chain, reuses a number or is
-- dated before the last row. overrides_head holds the highest row number ever written (kept by a
-- trigger), so rows deleted from the end are seen. A superuser can disable the triggers; what they
-- then change is found by `interview override verify`, which also checks the triggers and the
-- functions below against this file.
CREATE TABLE overrides (
    id              BIGINT  PRIMARY KEY CHECK (id >= 1),
    transcript_id   TEXT    NOT NULL CHECK (length(transcript_id) BETWEEN 1 AND 200),
    round           TEXT    NOT NULL,
    dimension       TEXT    NOT NULL
                    CHECK (dimension IN ('accuracy','evidence','tradeoffs','validation','communication')),
    judge_score     INTEGER NOT NULL CHECK (judge_score BETWEEN 1 AND 5),
    human_score     INTEGER NOT NULL CHECK (human_score BETWEEN 1 AND 5),
    reason          TEXT    NOT NULL CHECK (length(btrim(reason)) > 0),
    reviewer        TEXT    NOT NULL CHECK (length(btrim(reviewer)) > 0),
    created_at      TEXT    NOT NULL,
    rubric_version  TEXT    NOT NULL,
    judge_model     TEXT    NOT NULL,
    judge_kind      TEXT    NOT NULL,
    prev_hash       TEXT    NOT NULL CHECK (prev_hash ~ '^[0-9a-f]{64}$'),
    row_hash        TEXT    NOT NULL CHECK (row_hash ~ '^[0-9a-f]{64}$')
);
CREATE INDEX overrides_target ON overrides (transcript_id, round, dimension, id);

CREATE TABLE overrides_meta (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE overrides_head (
    one      BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
    last_id  BIGINT  NOT NULL,
    row_hash TEXT    NOT NULL
);
INSERT INTO overrides_head (one, last_id, row_hash) VALUES (true, 0, repeat('0', 64));
INSERT INTO overrides_meta (key, value, created_at)
VALUES ('chain', 'sha256 over canonical JSON of the row''s columns and prev_hash, v1',
        to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"'));

CREATE FUNCTION overrides_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the override log is append-only: % is refused', TG_OP;
END
$$;

CREATE FUNCTION overrides_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    last_row overrides%ROWTYPE;
    head overrides_head%ROWTYPE;
BEGIN
    SELECT * INTO head FROM overrides_head WHERE one;
    SELECT * INTO last_row FROM overrides ORDER BY id DESC LIMIT 1;
    IF NEW.id <= coalesce(head.last_id, 0) OR NEW.id <= coalesce(last_row.id, 0) THEN
        RAISE EXCEPTION 'the override log is append-only: row % is not after the last row', NEW.id;
    END IF;
    IF NEW.prev_hash IS DISTINCT FROM coalesce(last_row.row_hash, repeat('0', 64)) THEN
        RAISE EXCEPTION 'the override log is append-only: a row must continue the hash chain';
    END IF;
    IF NEW.created_at < last_row.created_at THEN
        RAISE EXCEPTION 'the override log is append-only: created_at must not go backwards';
    END IF;
    RETURN NEW;
END
$$;

CREATE FUNCTION overrides_advance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE overrides_head SET last_id = NEW.id, row_hash = NEW.row_hash WHERE one;
    RETURN NULL;
END
$$;

CREATE FUNCTION overrides_head_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF pg_trigger_depth() < 2 THEN
        RAISE EXCEPTION 'the override log is append-only: its head moves only with a new row (% is refused)', TG_OP;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER overrides_no_update BEFORE UPDATE ON overrides
    FOR EACH ROW EXECUTE FUNCTION overrides_refuse();
CREATE TRIGGER overrides_no_delete BEFORE DELETE ON overrides
    FOR EACH ROW EXECUTE FUNCTION overrides_refuse();
CREATE TRIGGER overrides_no_truncate BEFORE TRUNCATE ON overrides
    FOR EACH STATEMENT EXECUTE FUNCTION overrides_refuse();
CREATE TRIGGER overrides_chain BEFORE INSERT ON overrides
    FOR EACH ROW EXECUTE FUNCTION overrides_chain();
CREATE TRIGGER overrides_advance AFTER INSERT ON overrides
    FOR EACH ROW EXECUTE FUNCTION overrides_advance();
CREATE TRIGGER overrides_meta_no_update BEFORE UPDATE ON overrides_meta
    FOR EACH ROW EXECUTE FUNCTION overrides_refuse();
CREATE TRIGGER overrides_meta_no_delete BEFORE DELETE ON overrides_meta
    FOR EACH ROW EXECUTE FUNCTION overrides_refuse();
CREATE TRIGGER overrides_meta_no_truncate BEFORE TRUNCATE ON overrides_meta
    FOR EACH STATEMENT EXECUTE FUNCTION overrides_refuse();
CREATE TRIGGER overrides_head_no_update BEFORE UPDATE ON overrides_head
    FOR EACH ROW EXECUTE FUNCTION overrides_head_guard();
CREATE TRIGGER overrides_head_no_delete BEFORE DELETE ON overrides_head
    FOR EACH ROW EXECUTE FUNCTION overrides_head_guard();
CREATE TRIGGER overrides_head_no_insert BEFORE INSERT ON overrides_head
    FOR EACH ROW EXECUTE FUNCTION overrides_head_guard();
CREATE TRIGGER overrides_head_no_truncate BEFORE TRUNCATE ON overrides_head
    FOR EACH STATEMENT EXECUTE FUNCTION overrides_refuse();
