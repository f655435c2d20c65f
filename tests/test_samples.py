"""Self-consistency (`agent.grading.samples`): K gradings, the median per dimension and the spread.

A scripted judge (a Python object, no server) fills the checklist differently for each seed, or
fails for some seeds, so the samples differ; the expected medians come from grading each sample
alone. A fake OpenAI-compatible server checks the vLLM judge sends K different requests.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agent.contracts.checklist import Checks
from agent.contracts.report import JudgeInfo, Report
from agent.contracts.transcript import Transcript, load_transcript
from agent.grading.batch import grade_files, same_provenance
from agent.grading.render import report_json, report_markdown
from agent.grading.samples import combine, grade_samples, sampled_info
from agent.grading.single import grade_transcript
from agent.graph import grade_with_graph
from agent.judge.base import Fill, JudgeUnavailable
from agent.judge.embedded import EmbeddedJudge
from agent.judge.matching import Sentence
from agent.judge.parts import parts_of
from agent.judge.vllm import VllmJudge
from agent.rubric import load_rubric
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Lang, RoundId
from agent.util.messages import t
from tests.judge.test_vllm_faults import FAST_TIMEOUT, FakeJudge, _valid_reply

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples" / "transcripts"


class ScriptedJudge:
    """A sampling judge whose answer depends on its seed: `plan[seed]` is none, half, all or fail.

    none: nothing covered; half: the first half of what the cue matcher finds; all: all of it
    (every quote verbatim, so verification keeps it); fail: JudgeUnavailable (the caller falls back).
    """

    kind = "vllm"
    model = "scripted"

    def __init__(
        self, plan: dict[int, str], seed: int = 0, temperature: float = 0.0, log: list[Any] | None = None
    ) -> None:
        self.plan = plan
        self.seed = seed
        self.temperature = temperature
        self.log: list[tuple[int, float]] = [] if log is None else log

    def resampled(self, seed: int, temperature: float) -> ScriptedJudge:
        return ScriptedJudge(self.plan, seed, temperature, self.log)

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
        self.log.append((self.seed, self.temperature))
        how = self.plan[self.seed]
        if how == "fail":
            raise JudgeUnavailable(f"scripted failure for seed {self.seed}")
        full = EmbeddedJudge().fill(rubric, round_id, answer, lang, checks, sents)
        if how == "all":
            return full
        found = [i for i in full.items if i.covered]
        cut = len(found) // 2
        keep = {
            "none": set(),
            "half": {i.id for i in found[:cut]},
            "first": {i.id for i in found[:cut]},
            "second": {i.id for i in found[cut:]},
        }[how]
        items = [
            i if i.id in keep else i.model_copy(update={"covered": False, "quote": None}) for i in full.items
        ]
        strong = full.strong
        if how in ("none", "half"):
            strong = [s.model_copy(update={"present": False, "quote": None}) for s in full.strong]
        return Fill(items=items, strong=strong, weak=full.weak)


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return load_rubric()


@pytest.fixture(scope="module")
def t003() -> Transcript:
    return load_transcript(EXAMPLES / "t-003.json")  # five rounds, English


def _alone(rubric: Rubric, t: Transcript, plan: dict[int, str], seed: int) -> Report:
    """One sample graded on its own, as grade_samples grades it."""
    info = JudgeInfo(kind="vllm", model="scripted", rubric_version=rubric.version, seed=seed, temperature=0.7)
    return grade_transcript(rubric, t, judge=ScriptedJudge(plan, seed, 0.7), info=info)


def _info(rubric: Rubric) -> JudgeInfo:
    return JudgeInfo(kind="vllm", model="scripted", rubric_version=rubric.version, seed=0, temperature=0.0)


def _check_consistent(rep: Report) -> None:
    """Totals, per-dimension scores, level flags follow the (median) scores."""
    for ra in rep.rounds:
        assert ra.total == sum(ra.scores.values())
        assert {ds.dimension: ds.score for ds in ra.dimensions} == ra.scores
        assert ("accuracy_1" in ra.flags) == (ra.scores["accuracy"] == 1)
        assert ("validation_1" in ra.flags) == (ra.scores["validation"] == 1)


def test_the_median_and_the_spread_of_samples_that_differ(rubric: Rubric, t003: Transcript) -> None:
    plan = {0: "none", 1: "all", 2: "half"}
    judge = ScriptedJudge(plan)
    rep = grade_samples(rubric, t003, 3, judge=judge, info=_info(rubric))
    alone = [_alone(rubric, t003, plan, s) for s in range(3)]
    assert sorted(set(judge.log)) == [(0, 0.7), (1, 0.7), (2, 0.7)]  # K requests that differ
    assert rep.samples is not None and rep.samples.k == 3
    assert rep.samples.seeds == [0, 1, 2] and rep.samples.temperature == 0.7
    assert not rep.samples.deterministic and rep.samples.fallback_samples == []
    assert rep.judge.samples == 3 and rep.judge.seeds == [0, 1, 2] and rep.judge.temperature == 0.7
    differ = 0
    for r, ra in enumerate(rep.rounds):
        rs = rep.samples.rounds[r]
        assert rs.round == ra.round and rs.counted == [0, 1, 2] and rs.fallbacks == []
        for d in DIMENSIONS:
            each = [a.rounds[r].scores[d] for a in alone]
            ds = rs.dimensions[d]
            assert ds.scores == each
            assert (ds.min, ds.max) == (min(each), max(each))
            assert ds.median == statistics.median(each)
            assert ra.scores[d] == ds.score == statistics.median_low(each)
            differ += ds.min < ds.max
        assert ra.judge is not None and not ra.judge.fallback and "judge_fallback" not in ra.flags
    assert differ >= 5, "the scripted samples should disagree somewhere, or this test shows nothing"
    _check_consistent(rep)
    md = report_markdown(rep, rubric)
    assert "## Self-consistency: 3 samples" in md and "Seeds 0, 1, 2, temperature 0.7." in md
    assert t("report.deterministic", "en") not in md  # (t-003 says "The seed makes it reproducible": its
    # wrong-claim note may name determinism; the line meant here is the deterministic-judge one)


def _without_prior(rubric: Rubric) -> Rubric:
    """The rubric with each dimension scored from its own items alone (no pull towards the round's coverage), so
    samples covering different halves of the items differ by dimension as much as they can."""
    scoring = rubric.lexicon.scoring.model_copy(update={"coverage_prior": 0.0})
    return dataclasses.replace(rubric, lexicon=rubric.lexicon.model_copy(update={"scoring": scoring}))


def test_a_median_no_sample_gave_is_scored_through(rubric: Rubric, t003: Transcript) -> None:
    """Samples good at different dimensions: the median vector is nobody's, the round is re-scored."""
    rubric = _without_prior(rubric)
    plan = {0: "first", 1: "second", 2: "none"}
    rep = grade_samples(rubric, t003, 3, judge=ScriptedJudge(plan), info=_info(rubric))
    alone = [_alone(rubric, t003, plan, s) for s in range(3)]
    assert rep.samples is not None
    rescored = 0
    for r, ra in enumerate(rep.rounds):
        median = {d: statistics.median_low(a.rounds[r].scores[d] for a in alone) for d in DIMENSIONS}
        assert ra.scores == median
        rs = rep.samples.rounds[r]

        def off(i: int, r: int = r, median: dict[str, int] = median) -> int:
            return sum(abs(alone[i].rounds[r].scores[d] - median[d]) for d in DIMENSIONS)

        assert rs.representative == min(rs.counted, key=lambda i: (off(i), i))  # the closest sample
        own = alone[rs.representative].rounds[r]
        if own.scores == median:
            continue
        rescored += 1
        # the representative's evidence at the median: its checklist, the median's level text
        assert ra.checklist == own.checklist and ra.quotes == own.quotes
        for ds in ra.dimensions:
            level = next(lv for lv in rubric.dimensions[ds.dimension].levels if lv.level == ds.score)
            assert ds.level == level.text.get("en")
            if ds.score != own.scores[ds.dimension]:
                assert f"median of 3 samples {rs.dimensions[ds.dimension].scores}" in ds.reason
        assert ra.weighted is not None and ra.total == sum(median.values())
    assert rescored > 0, "no round needed re-scoring: this test shows nothing"
    _check_consistent(rep)


def test_an_even_number_of_samples_takes_the_lower_middle_score(rubric: Rubric, t003: Transcript) -> None:
    plan = {0: "none", 1: "all", 2: "all", 3: "none"}
    rep = grade_samples(rubric, t003, 4, judge=ScriptedJudge(plan), info=_info(rubric))
    none, full = _alone(rubric, t003, plan, 0), _alone(rubric, t003, plan, 1)
    assert rep.samples is not None
    halves = 0
    for r, ra in enumerate(rep.rounds):
        for d in DIMENSIONS:
            lo, hi = sorted((none.rounds[r].scores[d], full.rounds[r].scores[d]))
            ds = rep.samples.rounds[r].dimensions[d]
            assert ra.scores[d] == lo and ds.median == (lo + hi) / 2
            halves += lo != hi
    assert halves > 0
    _check_consistent(rep)


def test_fallback_samples_are_counted_and_left_out_of_the_median(rubric: Rubric, t003: Transcript) -> None:
    plan = {0: "none", 1: "fail", 2: "all"}
    rep = grade_samples(rubric, t003, 3, judge=ScriptedJudge(plan), info=_info(rubric))
    none, full = _alone(rubric, t003, plan, 0), _alone(rubric, t003, plan, 2)
    assert rep.samples is not None and rep.samples.fallback_samples == [1]
    assert not rep.judge.fallback  # the embedded judge scored no part of the median
    for r, ra in enumerate(rep.rounds):
        rs = rep.samples.rounds[r]
        assert rs.counted == [0, 2] and rs.fallbacks == [1] and not rs.all_fallback
        for d in DIMENSIONS:
            pair = [none.rounds[r].scores[d], full.rounds[r].scores[d]]
            assert rs.dimensions[d].scores == pair
            assert ra.scores[d] == min(pair)
        assert "judge_fallback" not in ra.flags
    md = report_markdown(rep, rubric)
    assert "1 of 3 samples fell back to the embedded judge" in md


def test_when_every_sample_falls_back_the_report_is_the_fallback_report(
    rubric: Rubric, t003: Transcript
) -> None:
    plan = {0: "fail", 1: "fail", 2: "fail"}
    rep = grade_samples(rubric, t003, 3, judge=ScriptedJudge(plan), info=_info(rubric))
    embedded = grade_transcript(rubric, t003)
    assert rep.judge.fallback and rep.judge.fallback_reason is not None
    assert "scripted failure" in rep.judge.fallback_reason
    assert rep.samples is not None and rep.samples.fallback_samples == [0, 1, 2]
    for r, ra in enumerate(rep.rounds):
        assert rep.samples.rounds[r].all_fallback
        assert "judge_fallback" in ra.flags and ra.judge is not None and ra.judge.fallback
        assert ra.scores == embedded.rounds[r].scores
    md = report_markdown(rep, rubric)
    assert "FALLBACK" in md and "every sample fell back" in md


def test_one_sample_is_todays_report(rubric: Rubric, t003: Transcript) -> None:
    plan = {0: "half"}
    for judge, info in ((ScriptedJudge(plan), _info(rubric)), (None, None)):
        one = grade_samples(rubric, t003, 1, judge=judge, info=info)
        today = grade_transcript(rubric, t003, judge=judge, info=info)
        assert report_json(one) == report_json(today)
        assert '"samples"' not in report_json(one) and '"seeds"' not in report_json(one)
        assert "Self-consistency" not in report_markdown(one, rubric)
    with pytest.raises(ValueError):
        grade_samples(rubric, t003, 0)


def test_the_embedded_judge_gives_zero_spread_and_says_so(rubric: Rubric) -> None:
    t = load_transcript(EXAMPLES / "t-002.json")  # Chinese: the labels too
    rep = grade_samples(rubric, t, 3)
    today = grade_transcript(rubric, t)
    assert rep.samples is not None and rep.samples.deterministic
    assert rep.samples.seeds is None and rep.judge.samples == 3
    assert [ra.scores for ra in rep.rounds] == [ra.scores for ra in today.rounds]
    # the same report, but for the provenance of K samples
    assert [ra.model_dump(exclude={"judge"}) for ra in rep.rounds] == [
        ra.model_dump(exclude={"judge"}) for ra in today.rounds
    ]
    assert (rep.risks, rep.next_actions) == (today.risks, today.next_actions)
    for rs in rep.samples.rounds:
        for ds in rs.dimensions.values():
            assert ds.min == ds.max == ds.score and len(ds.scores) == 3
    md = report_markdown(rep, rubric)
    assert "自洽性：评分 3 次" in md and "离散度按构造为零" in md


def test_combine_needs_samples_of_the_same_transcript(rubric: Rubric, t003: Transcript) -> None:
    a = grade_transcript(rubric, t003)
    b = grade_transcript(rubric, load_transcript(EXAMPLES / "t-001.json"))
    info = sampled_info(a.judge, EmbeddedJudge(), 2)
    with pytest.raises(ValueError):
        combine(rubric, [a, b], info, deterministic=True)
    with pytest.raises(ValueError):
        combine(rubric, [a], info, deterministic=True)


def test_a_report_graded_without_the_holistic_part_is_graded_again_with_it(
    rubric: Rubric, tmp_path: Path
) -> None:
    """`grade --no-holistic` then `grade`: the second run skipped every report as the same provenance."""
    t = load_transcript(EXAMPLES / "t-001.json")
    without, with_ = (
        _info(rubric).model_copy(update={"holistic": False}),
        _info(rubric).model_copy(update={"holistic": True}),
    )
    path = tmp_path / "t-001.json"
    path.write_text(report_json(grade_samples(rubric, t, 1, judge=ScriptedJudge({0: "all"}), info=without)))
    assert json.loads(path.read_text())["judge"]["holistic"] is False
    assert same_provenance(path, without) and not same_provenance(path, with_)


def test_a_different_number_of_samples_is_a_different_provenance(rubric: Rubric, tmp_path: Path) -> None:
    t = load_transcript(EXAMPLES / "t-001.json")
    judge = ScriptedJudge({0: "all", 1: "half", 2: "none"})
    one, three = _info(rubric), sampled_info(_info(rubric), judge, 3)
    assert three.samples == 3 and three.seeds == [0, 1, 2] and three.temperature == 0.7
    path = tmp_path / "t-001.json"
    path.write_text(report_json(grade_samples(rubric, t, 1, judge=judge, info=one)))
    assert same_provenance(path, one) and not same_provenance(path, three)
    path.write_text(report_json(grade_samples(rubric, t, 3, judge=judge, info=one)))
    assert same_provenance(path, three) and not same_provenance(path, one)
    assert not same_provenance(path, sampled_info(_info(rubric), judge, 4))
    # a report in which one sample fell back is graded again
    judge = ScriptedJudge({0: "all", 1: "fail", 2: "none"})
    path.write_text(report_json(grade_samples(rubric, t, 3, judge=judge, info=one)))
    assert json.loads(path.read_text())["samples"]["fallback_samples"] == [1]
    assert not same_provenance(path, three)


def test_grade_files_with_samples_replays_through_the_graph(rubric: Rubric) -> None:
    files = [EXAMPLES / "t-001.json", EXAMPLES / "t-002.json"]
    plan = {0: "none", 1: "all", 2: "half"}
    outcomes = grade_files(
        rubric, files, judge=ScriptedJudge(plan), info=_info(rubric), samples=3, replay=grade_with_graph
    )
    for o, f in zip(outcomes, files, strict=True):
        assert o.error is None and o.report is not None and o.report.samples is not None
        t = load_transcript(f)
        alone = [_alone(rubric, t, plan, s) for s in range(3)]
        for r, ra in enumerate(o.report.rounds):
            for d in DIMENSIONS:
                assert ra.scores[d] == statistics.median_low(a.rounds[r].scores[d] for a in alone)
        _check_consistent(o.report)


class SeededServer(FakeJudge):
    """Answers every quote empty; the holistic scores depend on the request's seed (1 for seed 0, else 5)."""

    def reply(self, h: Any, body: dict[str, Any]) -> None:
        data = _valid_reply(body["response_format"]["json_schema"]["schema"])
        for v in (data.get("holistic") or {}).values():
            v["score"] = 1 if body["seed"] == 0 else 5
        message = {"role": "assistant", "content": json.dumps(data)}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        h._send(200, {"choices": [choice], "usage": {"prompt_tokens": 100, "completion_tokens": 50}})


def test_the_vllm_judge_sends_each_sample_with_its_own_seed(rubric: Rubric) -> None:
    t = load_transcript(EXAMPLES / "t-001.json")
    with SeededServer("ok") as fake:
        judge = VllmJudge(fake.base_url, timeout=FAST_TIMEOUT)
        info = judge.info(rubric)
        rep = grade_samples(rubric, t, 3, judge=judge, info=info, temperature=0.5)
        again = grade_samples(rubric, t, 3, judge=judge, info=info, temperature=0.5)
    parts = sum(len(parts_of(rubric, r.round, holistic=True)) for r in t.rounds)
    # every sample asked in full (a seed makes the request new); the same samples again are not sent
    assert len(fake.bodies) == 3 * parts
    assert sorted((b["seed"], b["temperature"]) for b in fake.bodies) == sorted(
        (s, 0.5) for s in range(3) for _ in range(parts)
    )
    assert judge.seed == 0 and judge.temperature == 0.0  # the samples did not change the judge
    assert rep.samples is not None and rep.samples.seeds == [0, 1, 2] and rep.samples.temperature == 0.5
    assert rep.judge.seeds == [0, 1, 2] and rep.judge.model == "fake-judge"
    assert report_json(again) == report_json(rep)
    lifted = 0
    for r, ra in enumerate(rep.rounds):
        for d in DIMENSIONS:
            s0, s1, s2 = rep.samples.rounds[r].dimensions[d].scores
            assert s1 == s2 >= s0 and ra.scores[d] == s1
            lifted += s1 > s0
    assert lifted > 0, "the seeds should move some holistic score within its band"
    _check_consistent(rep)
