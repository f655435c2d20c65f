"""What a session call can refuse, each with a message the user can act on."""

from __future__ import annotations


class SessionError(ValueError):
    """A session call that cannot be done (bad plan, mode or language, an id already taken)."""


class SessionNotFound(SessionError, LookupError):
    """No session with that id is visible to the caller (it does not exist, or belongs to another owner)."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"no such session: {session_id}")
        self.session_id = session_id


class PlanError(SessionError):
    """A plan that cannot run; the message says which plans exist."""


class SessionStoreError(SessionError):
    """The session store (SQLite) cannot be read or written: locked by another process, read-only or
    unreadable. The call changed nothing; the message says why and that the input was not recorded."""


class SessionBusy(SessionError):
    """Another process is driving the session (a terminal `interview practice` on it, or a change under
    way): two processes answering one session would overwrite each other's answers, so this one is
    refused and nothing is recorded."""

    def __init__(self, session_id: str, pid: int | None, *, for_life: bool) -> None:
        who = f"another process (pid {pid})" if pid else "another process"
        if for_life:
            why = (
                f"session {session_id} is open in {who}: two processes on one session would lose "
                f"answers. Finish or stop that one, then resume with: interview practice --session "
                f"{session_id}"
            )
        else:
            why = f"session {session_id} is being changed by {who}; nothing was recorded, try again"
        super().__init__(why)
        self.session_id = session_id
        self.pid = pid
