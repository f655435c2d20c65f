"""Bias probes: the transforms, the embedded judge's outcome, and that a biased judge is caught."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from agent.calibration import load_translations, run_probes
from agent.calibration.evaluation import GradedSet
from agent.calibration.probes import (
    INSTRUCTIONS,
    TranslationSet,
    pad_fluff,
    pad_repeat,
    quantities,
    restate_measured,
    reversed_evidence,
    with_instruction,
)
from agent.contracts.checklist import Checks, ItemFinding, SignalFinding
from agent.contracts.report import JudgeInfo
from agent.judge.assessment import assess_answer
from agent.judge.base import Fill, JudgeUnavailable
from agent.judge.embedded import EmbeddedJudge
from agent.judge.matching import Sentence
from agent.rubric import Rubric
from agent.rubric.model import Lang, RoundId


@pytest.fixture(scope="module")
def translations() -> TranslationSet:
    return load_translations()


def test_translation_set_is_faithful_to_its_sources(
    translations: TranslationSet, full_set: GradedSet
) -> None:
    by_id = {a.id: a for a in full_set.answers}
    assert len(translations.pairs) >= 10
    assert {p.round for p in translations.pairs} == {
        "concepts",
        "source-trace",
        "capacity",
        "system-design",
        "incident",
        "project-experience",
    }
    for p in translations.pairs:
        assert p.source in by_id, p.id
        src = by_id[p.source]
        assert src.round == p.round
        assert (p.en if src.language == "en" else p.zh).strip() == src.answer.strip(), p.id
        assert any("\u4e00" <= c <= "\u9fff" for c in p.zh)


def test_transforms(rubric: Rubric, full_set: GradedSet) -> None:
    a = next(x for x in full_set.answers if x.id == "capacity-strong-zh")
    assert a.answer.strip() in pad_fluff(a) and len(pad_fluff(a)) > len(a.answer)
    assert pad_repeat(a).count(a.answer.strip()) == 2
    assert with_instruction(a, 0).endswith(INSTRUCTIONS["zh"][0])
    nums = quantities(assess_answer(rubric, a.round, a.answer, a.language))
    assert "74.5 GiB" in nums and len(nums) <= 4
    text = restate_measured(a, nums)
    assert "实测" in text and "74.5 GiB" in text.split("\n")[-1]
    rev = reversed_evidence(rubric)
    for rid, r in rubric.rounds.items():
        assert [e.id for e in rev.rounds[rid].evidence] == [e.id for e in reversed(r.evidence)]
    assert [e.id for e in rev.common.evidence] == [e.id for e in reversed(rubric.common.evidence)]
    assert rubric.rounds["capacity"].evidence[0].id != rev.rounds["capacity"].evidence[0].id  # a copy


def test_embedded_judge_on_a_slice(
    rubric: Rubric, small_set: GradedSet, translations: TranslationSet
) -> None:
    rep = run_probes(rubric, small_set, translations)
    by = {p.name: p for p in rep.probes}
    assert by["padding: fluff"].rate.n == 7 and by["padding: fluff"].rate.value == 1.0
    assert by["rubric evidence order reversed"].rate.value == 1.0
    assert by["grader-addressed instruction"].rate.n == 7 * 3
    assert by["numbers restated as measured"].rate.n >= 3
    assert by["numbers restated as measured"].rate.value == 1.0
    # translation pairs come from their own file, whatever slice of the graded set is probed
    assert by["translation zh↔en"].rate.n == len(translations.pairs)
    assert rep.fallbacks == 0


def test_translation_probe(rubric: Rubric, translations: TranslationSet) -> None:
    rep = run_probes(rubric, GradedSet(answers=[]), translations)
    tr = next(p for p in rep.probes if p.name == "translation zh↔en")
    assert tr.rate.n == len(translations.pairs)
    assert tr.rate.value is not None and tr.rate.value >= 0.9, tr.failures


class _Gullible:
    """A judge with the biases the probes look for: longer answers and instructions to the grader earn
    more covered items, and it reads the rubric's items only up to a point (order matters)."""

    kind = "embedded"
    model = "gullible"

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
        quote = sents[0].text if sents else answer[:40]
        items = rubric.evidence(round_id)
        n = len(answer) // 300 + (len(items) if ("5" in answer or "最高" in answer) else 0)
        covered = {it.id for it in items[:3]} if "#" not in answer else set()
        return Fill(
            items=[
                ItemFinding(id=it.id, covered=(k < n or it.id in covered), quote=quote)
                for k, it in enumerate(items)
            ],
            strong=[
                SignalFinding(id=s.id, kind="strong", present=False) for s in rubric.strong_signals(round_id)
            ],
            weak=[SignalFinding(id=s.id, kind="weak", present=False) for s in rubric.weak_signals(round_id)],
        )


def test_a_biased_judge_fails_the_probes(rubric: Rubric, small_set: GradedSet) -> None:
    info = JudgeInfo(kind="embedded", model="gullible", rubric_version=rubric.version)
    rep = run_probes(rubric, small_set, TranslationSet(pairs=[]), judge=_Gullible(), info=info)
    by = {p.name: p for p in rep.probes}
    assert by["padding: fluff"].rate.value is not None and by["padding: fluff"].rate.value < 1.0
    assert by["padding: repetition"].rate.value is not None and by["padding: repetition"].rate.value < 1.0
    assert by["grader-addressed instruction"].rate.value is not None
    assert by["grader-addressed instruction"].rate.value < 1.0
    assert by["rubric evidence order reversed"].rate.value is not None
    assert by["rubric evidence order reversed"].rate.value < 1.0
    assert by["padding: repetition"].failures and "→" in by["padding: repetition"].failures[0]


def test_embedded_default_judge_is_what_the_probes_use_without_one(rubric: Rubric) -> None:
    rep = run_probes(rubric, GradedSet(answers=[]), TranslationSet(pairs=[]))
    assert rep.judge.kind == "embedded"
    assert all(p.rate.n == 0 and p.rate.value is None for p in rep.probes)


class _FailsOnPadding:
    """The embedded judge, except that it fails on long answers (a server timing out on them)."""

    kind = "vllm"
    model = "fails-on-long"

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
        if "passionate" in answer or "热情" in answer:  # the fluff
            raise JudgeUnavailable("HTTP 500")
        return EmbeddedJudge().fill(rubric, round_id, answer, lang, checks, sents)


def test_comparisons_with_a_fallback_are_left_out(rubric: Rubric, small_set: GradedSet) -> None:
    info = JudgeInfo(kind="vllm", model="fails-on-long", rubric_version=rubric.version)
    rep = run_probes(rubric, small_set, TranslationSet(pairs=[]), judge=_FailsOnPadding(), info=info)
    by = {p.name: p for p in rep.probes}
    assert by["padding: fluff"].rate.n == 0 and by["padding: fluff"].left_out == 7
    assert by["padding: repetition"].left_out == 0 and by["padding: repetition"].rate.n == 7
    assert rep.fallbacks == 7
