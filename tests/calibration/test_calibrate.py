"""Calibration over the graded set and the override log, the written report, and run-to-run spread."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import pytest

from agent.calibration import calibrate
from agent.calibration.calibrate import latest_overrides, override_stats, read_overrides
from agent.calibration.evaluation import GradedSet, run_eval
from agent.calibration.render import markdown, write
from agent.contracts.checklist import Checks
from agent.contracts.report import JudgeInfo
from agent.judge.base import Fill, JudgeUnavailable
from agent.judge.embedded import EmbeddedJudge
from agent.judge.matching import Sentence
from agent.overrides import NewOverride, OverrideLog
from agent.rubric import Rubric
from agent.rubric.model import Dimension, Lang, RoundId

EMBEDDED = JudgeInfo(kind="embedded", model="embedded-cues-v1", rubric_version="r1")


def test_graded_figures_agree_with_interview_eval(rubric: Rubric, small_set: GradedSet) -> None:
    rep = calibrate(rubric, small_set)
    ev = run_eval(rubric, small_set)
    g = rep.graded
    assert g.n_items == len(small_set.answers) == 7
    dims = {d.dimension: d for d in g.dimensions}
    assert set(dims) == {"accuracy", "evidence", "tradeoffs", "validation", "communication", "total"}
    # "exact" is the in-range share of `interview eval`, dimension by dimension
    in_range = sum(d.exact.value or 0 for k, d in dims.items() if k != "total") / 5
    assert in_range == pytest.approx(ev.dims_in_range)
    assert all(d.exact.n == 7 for d in dims.values())
    assert g.pair_order.n == 2 and g.pair_order.value == ev.pair_order
    flags = {f.flag: f for f in g.flags}
    assert flags["all"].recall.value == pytest.approx(ev.flag_recall)
    assert flags["all"].recall.n == ev.n_expected_flags
    assert flags["prompt_injection"].recall.value == 1.0
    assert "judge_fallback" not in flags
    assert rep.spread is None and rep.fallbacks == 0
    assert len(g.points) == 5 * 7
    assert [i.id for i in rep.items] == [a.id for a in small_set.answers]


def test_embedded_judge_has_zero_spread(rubric: Rubric, small_set: GradedSet) -> None:
    rep = calibrate(rubric, small_set, repeat=3)
    assert rep.spread is not None and rep.spread.repeat == 3 and rep.spread.n_items == 7
    for d in [*rep.spread.dimensions, rep.spread.total]:
        assert (d.max_range, d.mean_sd, d.items_changed) == (0, 0.0, 0), d


class _Down:
    """A judge that is always unavailable: every assessment falls back, and the report counts it."""

    kind = "vllm"
    model = "down"

    def fill(
        self,
        rubric: Rubric,
        round_id: RoundId,
        answer: str,
        lang: Lang,
        checks: Checks,
        sents: Sequence[Sentence],
        snippets: str = "",
    ) -> Fill:
        raise JudgeUnavailable("connection refused")


def test_fallbacks_are_counted(rubric: Rubric, small_set: GradedSet) -> None:
    info = JudgeInfo(kind="vllm", model="down", rubric_version=rubric.version)
    rep = calibrate(rubric, small_set, judge=_Down(), info=info, repeat=2, concurrency=3)
    assert rep.fallbacks == 2 * 7
    assert all(i.fallback for i in rep.items)
    assert "fell back to the embedded judge" in markdown(rep)
    # nothing the chosen judge scored: no figures, rather than the embedded judge's figures under its name
    assert all(d.exact.n == 0 for d in rep.graded.dimensions) and rep.graded.pair_order.n == 0


class _Flaky:
    """The embedded judge, except that it fails on one answer (as a server that times out on it would)."""

    kind = "vllm"
    model = "flaky"

    def fill(
        self,
        rubric: Rubric,
        round_id: RoundId,
        answer: str,
        lang: Lang,
        checks: Checks,
        sents: Sequence[Sentence],
        snippets: str = "",
    ) -> Fill:
        if "24x higher throughput" in answer:  # concepts-weak-en
            raise JudgeUnavailable("timed out after 300 s")
        return EmbeddedJudge().fill(rubric, round_id, answer, lang, checks, sents)


def test_answers_the_chosen_judge_failed_on_are_left_out(rubric: Rubric, small_set: GradedSet) -> None:
    info = JudgeInfo(kind="vllm", model="flaky", rubric_version=rubric.version)
    rep = calibrate(rubric, small_set, judge=_Flaky(), info=info, repeat=2)
    assert rep.fallbacks == 2 and rep.fallback_reasons == ["timed out after 300 s"]
    g = rep.graded
    assert all(d.exact.n == 6 for d in g.dimensions)  # 7 answers, one left out
    assert g.pair_order.n == 1  # the pair with concepts-weak-en is left out with it
    assert any("concepts-weak-en" in n and "left out" in n for n in g.notes)
    assert rep.spread is not None and rep.spread.left_out == ["concepts-weak-en"] and rep.spread.n_items == 6
    item = next(i for i in rep.items if i.id == "concepts-weak-en")
    assert item.fallback and item.fallback_runs == [True, True] and len(item.runs) == 2
    md = markdown(rep)
    assert "left out of the figures" in md and "timed out after 300 s" in md


def _row(
    log: OverrideLog,
    tid: str,
    dim: Dimension,
    judge: int,
    human: int,
    *,
    kind: Literal["embedded", "vllm"] = "embedded",
    model: str = "embedded-cues-v1",
    version: str = "r1",
) -> None:
    log.append(
        NewOverride(
            transcript_id=tid,
            round="capacity",
            dimension=dim,
            judge_score=judge,
            human_score=human,
            reason="r",
            reviewer="rev",
            rubric_version=version,
            judge_model=model,
            judge_kind=kind,
        )
    )


def test_override_log_labels(tmp_path: Path) -> None:
    log = OverrideLog(tmp_path / "o.sqlite")
    _row(log, "t1", "accuracy", 2, 4)
    _row(log, "t1", "accuracy", 2, 3)  # a later correction of the same score: it is the label
    _row(log, "t2", "accuracy", 4, 4)
    _row(log, "t3", "accuracy", 5, 1)
    _row(log, "t1", "evidence", 3, 2, version="r0")  # stale rubric version: kept, noted
    _row(log, "t4", "accuracy", 1, 5, kind="vllm", model="m")  # another judge: left out
    rows, where, note = read_overrides(log.path)
    assert note is None and where == str(log.path) and len(rows) == 6
    assert len(latest_overrides(rows)) == 5
    st = override_stats(rows, EMBEDDED, "log")
    assert st.n_items == 4
    acc = next(d for d in st.dimensions if d.dimension == "accuracy")
    # judge 2,4,5 vs human 3,4,1: exact 1/3, within one 2/3
    assert acc.exact.n == 3 and acc.exact.value == pytest.approx(1 / 3)
    assert acc.within_one.value == pytest.approx(2 / 3)
    assert next(d for d in st.dimensions if d.dimension == "evidence").exact.n == 1
    assert any("other judges" in n for n in st.notes)
    assert any("another rubric version" in n for n in st.notes)
    assert any("biased low" in n for n in st.notes)


def test_unreadable_override_log_is_reported_not_fatal(tmp_path: Path) -> None:
    bad = tmp_path / "o.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    rows, _, note = read_overrides(bad)
    assert rows == [] and note is not None and "override log not used" in note and str(bad) in note


def test_report_files(rubric: Rubric, small_set: GradedSet, tmp_path: Path) -> None:
    log = OverrideLog(tmp_path / "o.sqlite")
    _row(log, "t1", "accuracy", 2, 3, version=rubric.version)
    rep = calibrate(rubric, small_set, overrides=log.rows(), repeat=2)
    paths = write(rep, tmp_path / "out")
    assert set(paths) == {"json", "md", "png"}
    assert paths["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert data["judge"]["kind"] == "embedded" and data["graded"]["n_items"] == 7
    assert data["overrides"]["n_items"] == 1 and data["spread"]["repeat"] == 2
    md = paths["md"].read_text(encoding="utf-8")
    for text in (
        "quadratic weighted kappa",
        "Spearman",
        "Pair order",
        "strict precision",
        "calibration.png",
        "Run-to-run spread",
        "(n=7)",
        "override log",
    ):
        assert text in md


def test_each_repeated_run_is_sent_to_the_judge_in_full(rubric: Rubric, small_set: GradedSet) -> None:
    """The vLLM judge answers identical requests from memory; a repeat must not, or its spread is 0."""
    from agent.judge.parts import parts_of
    from agent.judge.vllm import VllmJudge
    from tests.judge.test_vllm_faults import FakeJudge

    with FakeJudge("ok") as fake:
        judge = VllmJudge(fake.base_url, timeout=30)
        rep = calibrate(rubric, small_set, judge=judge, info=judge.info(rubric), repeat=2)
    per_answer = sum(len(parts_of(rubric, a.round, holistic=True)) for a in small_set.answers)
    distinct = len({json.dumps(b, sort_keys=True) for b in fake.bodies})
    assert rep.fallbacks == 0
    # within a run an identical request is sent once (the injected answer is its base, for the model)
    assert distinct < per_answer
    assert len(fake.bodies) == 2 * distinct


def test_run_eval_assesses_answers_at_once_with_the_same_figures(
    rubric: Rubric, small_set: GradedSet
) -> None:
    """--concurrency keeps a vLLM judge's server busy: answers are assessed side by side (a judge that
    waits shows the overlap), and the figures are those of one answer at a time."""
    import threading
    import time

    class Slow(EmbeddedJudge):
        now = peak = 0
        lock = threading.Lock()

        def fill(self, *args: object, **kwargs: object) -> Fill:  # type: ignore[override]
            with self.lock:
                Slow.now += 1
                Slow.peak = max(Slow.peak, Slow.now)
            time.sleep(0.05)
            try:
                return super().fill(*args, **kwargs)  # type: ignore[arg-type]
            finally:
                with self.lock:
                    Slow.now -= 1

    one = run_eval(rubric, small_set, judge=Slow(), info=EMBEDDED, concurrency=1)
    assert Slow.peak == 1
    four = run_eval(rubric, small_set, judge=Slow(), info=EMBEDDED, concurrency=4)
    assert Slow.peak > 1
    assert four.dims_in_range == one.dims_in_range and four.pair_order == one.pair_order
    assert [i.id for i in four.items] == [i.id for i in one.items]
