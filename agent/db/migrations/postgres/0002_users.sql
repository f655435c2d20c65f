-- Users (name and a pbkdf2 hash, as `python -m agent.ui --add-user NAME` writes), the reviewer role,
-- and secrets every replica must share (the key that signs each browser's owner id): see
-- agent/ui/auth.py.
CREATE TABLE interview_users (
    name       TEXT PRIMARY KEY CHECK (length(name) BETWEEN 1 AND 200 AND position(':' IN name) = 0
                                       AND name = btrim(name)),
    secret     TEXT NOT NULL CHECK (length(secret) > 0),
    reviewer   BOOLEAN NOT NULL DEFAULT false,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE interview_secrets (
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
