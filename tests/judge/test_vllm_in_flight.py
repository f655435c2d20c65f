"""Requests in flight: a vLLM judge never has more than `max_in_flight` requests at the server, and
above one it sends a round's parts together (fake OpenAI-compatible server that counts how many
requests it holds at once; the real server's batch speed is bench/vllm_judge_bench.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from agent.contracts.report import RoundAssessment
from agent.judge.assessment import assess_answer
from agent.judge.embedded import EmbeddedJudge
from agent.judge.factory import set_in_flight
from agent.judge.in_flight import InFlight
from agent.judge.parts import parts_of
from agent.judge.vllm import VllmJudge
from agent.rubric import load_rubric
from agent.rubric.loader import Rubric
from tests.judge.test_vllm_faults import FakeJudge

REPO = Path(__file__).resolve().parents[2]
ANSWER = "Paged KV maps tokens to blocks. The scheduler admits requests under a token budget."
#: how long the counting server holds each request: long enough that requests sent together overlap
HOLD_S = 0.3
#: no test here is about timeouts: a loaded CI machine once held a request past the fault tests' 5 s,
#: the retry doubled a part and the part order no longer matched
TIMEOUT = 60.0


class CountingJudge(FakeJudge):
    """Answers correctly after HOLD_S, and records the most requests it held at once."""

    def __init__(self, fail: bool = False, hold: float = HOLD_S) -> None:
        super().__init__("http500" if fail else "ok")
        self.hold = hold
        self.now = 0
        self.peak = 0
        self.count_lock = threading.Lock()

    def reply(self, h: Any, body: dict[str, Any]) -> None:
        with self.count_lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
        try:
            time.sleep(self.hold)
        finally:
            # counted out before the answer is written: once the client has read it, it may send its next
            # request before this thread runs again (a clean-clone run on a busy 2-core machine counted N + 1)
            with self.count_lock:
                self.now -= 1
        super().reply(h, body)


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return load_rubric()


def _assess(rubric: Rubric, judge: VllmJudge, round_id: str = "system-design") -> RoundAssessment:
    return assess_answer(rubric, round_id, ANSWER, "en", judge=judge, info=judge.info(rubric))  # type: ignore[arg-type]


def _schema_names(fake: FakeJudge) -> list[str]:
    return [b["response_format"]["json_schema"]["name"] for b in fake.bodies]


def test_one_in_flight_sends_the_parts_in_order_one_at_a_time(rubric: Rubric) -> None:
    parts = parts_of(rubric, "system-design", holistic=True)
    assert len(parts) >= 3  # the round this test needs: several parts
    with CountingJudge() as fake:
        judge = VllmJudge(fake.base_url, timeout=TIMEOUT)
        assert judge.max_in_flight == 1
        ra = _assess(rubric, judge)
    assert ra.judge is not None and not ra.judge.fallback
    assert fake.peak == 1
    assert _schema_names(fake) == [f"Checklist_system_design_{k + 1}" for k in range(len(parts))]


def test_above_one_the_parts_of_a_round_go_together_with_the_same_result(rubric: Rubric) -> None:
    parts = len(parts_of(rubric, "system-design", holistic=True))
    with CountingJudge() as fake:
        one = _assess(rubric, VllmJudge(fake.base_url, timeout=TIMEOUT, max_in_flight=1))
        fake.peak = 0
        judge = VllmJudge(fake.base_url, timeout=TIMEOUT, max_in_flight=4)
        t0 = time.monotonic()
        together = _assess(rubric, judge)
        took = time.monotonic() - t0
    assert fake.peak == min(parts, 4)
    assert judge.in_flight.peak == min(parts, 4)
    assert len(fake.bodies) == 2 * parts  # each part once per grading, none lost or repeated
    assert sorted(_schema_names(fake)[parts:]) == sorted(_schema_names(fake)[:parts])
    # the same checklist and scores, whatever order the parts came back in
    assert together.scores == one.scores and together.checklist == one.checklist
    assert took < parts * HOLD_S  # faster than one part after another


def test_a_batch_never_has_more_requests_in_flight_than_the_limit(rubric: Rubric) -> None:
    # held 1 s: under load a round's own checks before its requests took longer than 0.3 s, and the
    # two slots were then never full at the same moment (peak 1)
    with CountingJudge(hold=1.0) as fake:
        judge = VllmJudge(fake.base_url, timeout=TIMEOUT, max_in_flight=4)
        judge.set_in_flight(2)
        judge.in_flight.reset_stats()
        t0 = time.monotonic()
        threads = [
            threading.Thread(target=_assess, args=(rubric, judge, rid))
            for rid in ("system-design", "capacity", "incident", "concepts")
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - t0
    assert fake.peak == 2 and judge.in_flight.peak == 2
    n = len(fake.bodies)
    # request-seconds: every request held 1 s at the server (plus the client's own time)
    assert n * 1.0 <= judge.in_flight.busy_seconds <= 2 * wall


def test_the_first_failing_part_is_the_fallback_reason(rubric: Rubric) -> None:
    with CountingJudge(fail=True) as fake:
        judge = VllmJudge(fake.base_url, timeout=TIMEOUT, max_in_flight=4)
        ra = _assess(rubric, judge)
    assert ra.judge is not None and ra.judge.fallback and "judge_fallback" in ra.flags
    assert ra.judge.fallback_reason is not None and "part 1: HTTP 500" in ra.judge.fallback_reason


def test_a_limit_below_one_is_refused() -> None:
    for bad in (0, -1, True, 2.5):
        with pytest.raises(ValueError, match="requests in flight"):
            InFlight(bad)  # type: ignore[arg-type]
    gate = InFlight(1)
    with pytest.raises(ValueError, match="requests in flight"):
        gate.set_limit(0)
    assert gate.limit == 1


def test_raising_the_limit_lets_a_waiting_request_in() -> None:
    gate = InFlight(1)
    entered = threading.Event()

    def second() -> None:
        with gate:
            entered.set()

    with gate:
        t = threading.Thread(target=second)
        t.start()
        assert not entered.wait(0.2)  # the one slot is taken
        gate.set_limit(2)
        assert entered.wait(5)
    t.join()
    assert gate.peak == 2


def test_set_in_flight_bounds_a_vllm_judge_and_leaves_the_embedded_one(rubric: Rubric) -> None:
    with CountingJudge() as fake:
        judge = VllmJudge(fake.base_url, timeout=TIMEOUT)
        set_in_flight(judge, 8)
        assert judge.max_in_flight == 8
        # a resampled copy (self-consistency samples) shares the same gate
        assert judge.resampled(1, 0.7).in_flight is judge.in_flight
    set_in_flight(EmbeddedJudge(), 8)  # no server, nothing to bound: no error


@pytest.mark.parametrize("concurrency", [1, 3])
def test_grade_concurrency_bounds_the_requests_in_flight(concurrency: int, tmp_path: Path) -> None:
    """`interview grade --concurrency N` as a user runs it: never more than N requests at the judge,
    and with N above one the server does hold N at once (transcripts and parts together)."""
    with CountingJudge(hold=0.1) as fake:
        env = {
            **os.environ,
            "INTERVIEW_DATA_DIR": str(tmp_path / "data"),
            "JUDGE_BASE_URL": fake.base_url,
            "HF_HUB_OFFLINE": "1",
        }
        args = ["--judge", "vllm", "--no-snippets", "--concurrency", str(concurrency), "--out", str(tmp_path)]
        r = subprocess.run(
            [sys.executable, "-m", "agent", "grade", str(REPO / "examples" / "transcripts"), *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            cwd=REPO,
        )
    assert r.returncode == 0, r.stderr[-2000:]
    reports = sorted(tmp_path.glob("*.json"))
    assert reports and len(fake.bodies) > concurrency
    assert fake.peak == concurrency
