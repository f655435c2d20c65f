"""What `OverrideLog` needs of a database: the SQLite file (agent/overrides/sqlite.py) and the shared
Postgres database (agent/overrides/postgres.py) are each a `LogBackend`."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from agent.overrides.chain import Problem


class LogBackend:
    """Where the rows are: what `OverrideLog` needs of a database. Connections take SQL with `?`
    placeholders and give rows that are read by column name."""

    where: Path | str

    def exists(self) -> bool:
        raise NotImplementedError

    def connect(self, *, write: bool) -> AbstractContextManager[Any]:
        """A connection; for `write`, inside one transaction that no other writer shares (committed when
        the block ends), on a log whose tables and triggers are in place."""
        raise NotImplementedError

    def is_error(self, e: BaseException) -> bool:
        """`e` is the database's own error (locked, unreachable, refused)."""
        raise NotImplementedError

    def explain(self, e: BaseException) -> str:
        raise NotImplementedError

    def missing_table(self, e: BaseException) -> bool:
        return False

    def lost(self, conn: Any | None) -> list[Problem]:
        """What the log lost against the record of it kept outside it (SQLite: the `.count` file beside
        the file; `conn` None: the file is missing). Postgres has none: TRUNCATE is refused and
        `overrides_head` keeps the highest row number."""
        return []

    def last_number(self, conn: Any) -> int:
        """The highest row number the log ever gave (rows deleted from the end included)."""
        raise NotImplementedError

    def tables(self, conn: Any) -> set[str]:
        raise NotImplementedError

    def columns(self, conn: Any) -> set[str]:
        raise NotImplementedError

    def check_triggers(self, conn: Any) -> list[Problem]:
        raise NotImplementedError

    def migrate(self) -> None:
        with self.connect(write=True):
            pass
