"""Sessions in the shared Postgres database, driven by separate processes that share nothing but the
database (each replica has a data dir of its own): a session started by one resumes on another; a
replica SIGKILLed mid-answer loses no acknowledged answer and the other carries on; while one drives a
session another is refused, naming the holder; owners never see each other's sessions."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agent.config import repo_root
from agent.graph import (
    SessionBusy,
    SessionNotFound,
    answer,
    find_session,
    get_session,
    list_sessions,
    start_session,
)
from agent.graph import store as graph_store
from agent.rubric import Rubric, default_rubric
from tests.graph.script import WEAK, answers_of, strong
from tests.graph.test_resume import TIMEOUT, Cli


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return default_rubric()


def _one_line(s: str | None) -> str:
    return " ".join((s or "").split())


def replica(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, *args: str) -> Cli:
    """`interview practice …` as a replica with its own data dir: only INTERVIEW_DATABASE_URL is shared."""
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / f"replica-{name}"))
    try:
        return Cli("practice", *args)
    finally:
        monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "data"))


def test_the_store_is_postgres(pg_url: str) -> None:
    start_session("concepts", "en", session_id="pg-1")
    st = graph_store.open_store()
    assert isinstance(st, graph_store.PostgresStore) and st.url == pg_url
    assert not (Path(os.environ["INTERVIEW_DATA_DIR"]) / graph_store.DB_NAME).exists()


def test_a_session_resumes_on_another_replica(
    pg_url: str, rubric: Rubric, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a1 = strong(rubric, "concepts")
    a = replica(monkeypatch, tmp_path, "a", "--plan", "full", "--lang", "en", "--session", "move-1")
    assert a.question() == _one_line(rubric.round("concepts").prompt.en)
    a.send(a1)
    q2 = a.question()
    assert a.finish()[0] == 0  # replica A goes away (end of input) with the session waiting at q2

    b = replica(monkeypatch, tmp_path, "b", "--session", "move-1")
    assert b.question() == q2  # the same pending question, on a replica that never saw the session
    b.send(WEAK)
    b.question()
    assert b.finish()[0] == 0
    v = get_session("move-1")  # and a third process (this one) sees both answers
    assert answers_of(v) == [a1, WEAK]
    listing = subprocess.run(
        [sys.executable, "-m", "agent.cli.practice_cmd", "sessions", "--json"],
        capture_output=True,
        cwd=repo_root(),
        env={**os.environ, "INTERVIEW_DATA_DIR": str(tmp_path / "replica-c")},
        timeout=TIMEOUT,
        check=True,
    )
    assert [s["id"] for s in json.loads(listing.stdout)] == ["move-1"]


def test_sigkill_one_replica_mid_answer_and_continue_on_the_other(
    pg_url: str, rubric: Rubric, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a1, a2 = strong(rubric, "concepts"), "The failure boundary is OOM; roll back the image."
    a = replica(monkeypatch, tmp_path, "a", "--plan", "full", "--lang", "en", "--session", "kill-pg")
    a.question()
    a.send(a1)
    a.question()
    a.send(a2)
    q3 = a.question()  # a1 and a2 acknowledged: A went on to the next question each time

    b = replica(monkeypatch, tmp_path, "b", "--session", "kill-pg")  # while A drives it: refused at once
    assert b.proc.wait(timeout=TIMEOUT) == 1
    err = "".join(b.err)
    assert "session kill-pg is open in another process" in err and f"pid {a.proc.pid}" in err, err

    a.send(WEAK)  # mid-answer ...
    a.kill()  # ... SIGKILL: its connections drop, Postgres releases its lock

    b = replica(monkeypatch, tmp_path, "b2", "--session", "kill-pg")
    pending = b.question()
    got = answers_of(get_session("kill-pg"))
    assert got in ([a1, a2], [a1, a2, WEAK]), got  # nothing acknowledged is lost
    if got == [a1, a2]:
        assert pending == q3  # the answer cut short was not recorded: asked again
    b.send("Continuous batching admits requests at every step.")
    b.question()
    assert b.finish()[0] == 0
    assert answers_of(get_session("kill-pg")) == [*got, "Continuous batching admits requests at every step."]


def test_while_a_replica_drives_a_session_others_read_it_but_cannot_answer(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    v = start_session("concepts", "en", session_id="held-pg")
    a = replica(monkeypatch, tmp_path, "a", "--session", "held-pg")
    a.question()
    try:
        t0 = time.monotonic()
        with pytest.raises(
            SessionBusy, match=rf"session held-pg is open in another process \(pid {a.proc.pid}\)"
        ):
            answer("held-pg", "An answer from another replica.", at_s=5)
        assert time.monotonic() - t0 < 5
        seen = get_session("held-pg")
        assert seen.question == v.question and answers_of(seen) == []
    finally:
        a.kill()
    assert answers_of(answer("held-pg", "Paged KV blocks.", at_s=10)) == ["Paged KV blocks."]


def test_owners_see_only_their_own_sessions(pg_url: str) -> None:
    start_session("concepts", "en", session_id="alice-1", owner="alice")
    start_session("concepts", "en", session_id="bob-1", owner="bob")
    start_session("concepts", "en", session_id="nobody-1")
    assert [s.session_id for s in list_sessions(owner="alice")] == ["alice-1"]
    assert [s.session_id for s in list_sessions(owner="bob")] == ["bob-1"]
    assert [s.session_id for s in list_sessions()] == ["nobody-1"]
    for sid, who in (("alice-1", "bob"), ("bob-1", "alice"), ("alice-1", None)):
        with pytest.raises(SessionNotFound):
            get_session(sid, owner=who)
        with pytest.raises(SessionNotFound):
            answer(sid, "Not mine.", owner=who)
    assert answers_of(get_session("alice-1", owner="alice")) == []
    found = find_session("alice-1")  # what the Review tab's reviewer check reads
    assert found is not None and found.owner == "alice"


def test_a_taken_id_and_an_unreachable_database_are_said_plainly(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    start_session("concepts", "en", session_id="dup-1")
    with pytest.raises(Exception, match="already taken"):
        start_session("concepts", "en", session_id="dup-1")
    graph_store.close_stores()
    monkeypatch.setenv("INTERVIEW_DATABASE_URL", pg_url.rsplit("/", 1)[0] + "/no_such_db")
    monkeypatch.setattr(graph_store, "BUSY_TIMEOUT_S", 1.0)
    with pytest.raises(Exception, match=r"no_such_db.*(does not exist|cannot be reached)") as e:
        list_sessions()
    assert "password" not in str(e.value)
