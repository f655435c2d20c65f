"""Issue 15: the app's role must not be able to rewrite the override log. Connected with the app's URL
(INTERVIEW_DATABASE_URL), disabling the log's triggers and then changing a row must be refused by the
database, not only found afterwards by `interview override verify`."""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest

from agent.overrides import OverrideLog
from tests.overrides.test_integrity import Clock, _new


@pytest.fixture
def log(pg_url: str) -> OverrideLog:
    clock = Clock()
    log = OverrideLog(timeout_s=2, clock=clock)
    for i, who in enumerate(["alice", "bob"]):
        clock.now += timedelta(minutes=1)
        log.append(_new(human_score=1 + i, reviewer=who))
    return log


@pytest.mark.xfail(
    strict=True, reason="issue 15: the app's role owns the tables, so it may disable the triggers"
)
def test_the_app_role_cannot_disable_the_triggers_and_rewrite_the_log(log: OverrideLog, pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as app:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            app.execute("ALTER TABLE overrides DISABLE TRIGGER ALL")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            app.execute("UPDATE overrides SET human_score = 5 WHERE id = 1")
    assert [r.human_score for r in log.rows()] == [1, 2]
