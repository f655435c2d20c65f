-- The session index: one row a session, beside LangGraph's checkpoint tables (created by the
-- checkpointer's own setup(), run after these files by `interview db migrate`). The columns and their
-- text timestamps are those of the SQLite store (agent/graph/store.py).
CREATE TABLE interview_sessions (
    id         TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 100),
    plan       TEXT NOT NULL,
    mode       TEXT NOT NULL,
    language   TEXT NOT NULL,
    status     TEXT NOT NULL,
    owner      TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX interview_sessions_owner ON interview_sessions (owner, updated_at DESC, id);
