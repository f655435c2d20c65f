-- Override rows imported from another log (`interview db import`, agent/overrides/transfer.py) after rows
-- already in this one: the log's dates never go backwards, so such a row is dated at the import
-- (created_at) and keeps the time it was written in the log it came from here. NULL on every row the
-- log wrote itself and on imported rows that kept their own time. When set, it is hashed with the row's
-- columns (agent/overrides/chain.py), so changing it is found by `interview override verify`.
ALTER TABLE overrides ADD COLUMN original_created_at TEXT
    CHECK (original_created_at IS NULL OR original_created_at <= created_at);
INSERT INTO overrides_meta (key, value, created_at)
VALUES ('chain.original_created_at',
        'a row''s original_created_at, when not NULL, is hashed with its columns and prev_hash',
        to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"'));
