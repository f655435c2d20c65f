"""Flags and gate caps by name: every flag and gate rule has a display name and a line of explanation in
both languages, and the Markdown report shows those, never the ids (which stay in the JSON)."""

from __future__ import annotations

from typing import get_args

from agent.contracts.labels import FLAGS, GATES, cap_text, flag_line, flag_name
from agent.contracts.report import Flag, JudgeInfo, Report, RoundAssessment
from agent.grading.render import report_markdown
from agent.judge.gates import known_rules
from agent.rubric.loader import default_rubric
from agent.rubric.model import DIMENSIONS

NON_CAPPING_RULES = {"pass_min", "senior_min"}
"""Gate rules that never cap a score (they decide pass / the senior bar), so never appear in `caps`."""


def test_every_flag_and_gate_has_a_name_and_a_line_in_both_languages() -> None:
    assert set(get_args(Flag)) <= set(FLAGS)
    assert set(known_rules()) - NON_CAPPING_RULES <= set(GATES)
    for table in (FLAGS, GATES):
        for key, by_lang in table.items():
            for lang in ("en", "zh"):
                name, why = by_lang[lang]  # type: ignore[index]
                assert name and why and "_" not in name, (key, lang)


def test_caps_in_words() -> None:
    assert cap_text("happy_path_cap (≤3)", "en") == "Happy path only: at most 3"
    assert cap_text("happy_path_cap (≤3)", "zh") == "只讲顺利情况：最高 3 分"
    assert cap_text("unlabeled_numbers (-1)", "en") == "Numbers without a label: 1 taken off"
    assert cap_text("weak signal hpa-180 (≤2)", "en") == "A known weak answer: at most 2"
    assert cap_text("few_specifics (≤3)", "zh") == "具体内容太少：最高 3 分"
    assert flag_name("accuracy_1", "zh") == "准确性为最低分"
    assert flag_line("unit_error", "en").startswith("Unit error: ")


def test_the_markdown_report_names_flags_and_caps_and_hides_their_ids() -> None:
    rubric = default_rubric()
    ra = RoundAssessment.model_validate(
        {
            "round": "concepts",
            "scores": dict.fromkeys(DIMENSIONS, 3),
            "total": 15,
            "flags": ["happy_path_only", "validation_1"],
            "dimensions": [
                {
                    "dimension": d,
                    "score": 3,
                    "level": "x",
                    "reason": "r",
                    "band": [1, 5],
                    "caps": ["happy_path_cap (≤3)"],
                }
                for d in DIMENSIONS
            ],
        }
    )
    for lang, name in (("en", "Happy path only"), ("zh", "只讲了顺利情况")):
        report = Report(
            id="t-1",
            judge=JudgeInfo(kind="embedded", model="m", rubric_version="v"),
            rounds=[ra],
            language=lang,  # type: ignore[arg-type]
        )
        md = report_markdown(report, rubric)
        assert name in md and ("at most 3" in md or "最高 3 分" in md)
        assert "happy_path_only" not in md and "happy_path_cap" not in md and "validation_1" not in md
        assert '"happy_path_only"' in report.model_dump_json().replace(" ", "")  # the JSON keeps the ids


def test_why_a_dimension_scored_reads_from_its_coverage_fields_in_either_language() -> None:
    from agent.contracts.labels import why_text
    from agent.contracts.report import Coverage, DimensionScore

    cov = Coverage(
        covered=2,
        expected=6,
        share=2 / 6,
        missing=["a", "b", "c", "d"],
        strong_signals=1,
        weak_signals=["hpa-180"],
    )
    ds = DimensionScore(
        dimension="accuracy",
        score=2,
        level="…",
        reason="(unused)",
        band=(1, 3),
        caps=["happy_path_cap (≤3)"],
        coverage=cov,
    )
    en = why_text(ds, "en")
    assert en == (
        "2 of 6 expected items covered (33%); 1 strong signal; 1 weak signal; missing: a; b; c; 1 more"
        " · Happy path only: at most 3"
    )
    assert "hpa-180" not in en  # a weak signal is counted, never named
    zh = why_text(ds, "zh", missing=False)
    assert zh == "覆盖了 6 项期望要点中的 2 项（33%）；1 个强信号；1 个弱信号 · 只讲顺利情况：最高 3 分"
    # a report written before the fields existed is read from its reason string
    old = ds.model_copy(
        update={"coverage": None, "reason": "2/6 expected items covered (33%); weak: hpa-180; missing: a; b"}
    )
    assert (
        why_text(old, "en", caps=False) == "2 of 6 expected items covered (33%); 1 weak signal; missing: a; b"
    )
    # the judge fills the fields: the Markdown report and the JSON agree
    rubric = default_rubric()
    from agent.judge.assessment import assess_answer

    ra = assess_answer(
        rubric, "concepts", "Paged KV maps logical blocks to non-contiguous physical blocks.", "en"
    )
    for d in ra.dimensions:
        assert d.coverage is not None and d.coverage.expected >= d.coverage.covered
        assert why_text(d, "en").startswith(f"{d.coverage.covered} of {d.coverage.expected} expected items")


JUDGES = {
    "embedded": JudgeInfo(kind="embedded", model="embedded-cues-v1", rubric_version="rubric-645c7fe96485"),
    "vllm": JudgeInfo(
        kind="vllm",
        model="Qwen/Qwen2.5-1.5B-Instruct",
        rubric_version="rubric-645c7fe96485",
        prompt_hash="prompt-0a1b2c3d4e5f",
        vllm_version="0.26.0",
        index_commit="b23bd73f540175f9e117eaee5029cd7d8df63964",
    ),
}
JUDGE_IDS = ("embedded-cues-v1", "rubric-645c7fe96485", "prompt-0a1b2c3d4e5f", "b23bd73f5401", "embedded ·")


def test_the_judge_by_name_and_what_it_does_never_its_ids() -> None:
    """The judge line of the app (a round's scores, a report's summary) and of the Markdown report: a display
    name and one plain line on how it scores; its ids (model id, rubric version, prompt hash, index commit)
    are in the JSON only (issue 12: 'embedded-cues-v1 · rubric-645c7fe96485' on screen)."""
    from agent.contracts.labels import JUDGES as LABELS
    from agent.ui import views

    rubric = default_rubric()
    ra = RoundAssessment.model_validate(
        {"round": "concepts", "scores": dict.fromkeys(DIMENSIONS, 3), "total": 15, "flags": []}
    )
    for kind, info in JUDGES.items():
        for lang in ("en", "zh"):
            name, line = LABELS[kind][lang]  # type: ignore[index]
            report = Report(
                id="t-1", judge=info, rounds=[ra.model_copy(update={"judge": info})], language=lang
            )  # type: ignore[arg-type]
            shown = {
                "markdown": report_markdown(report, rubric),
                "scores": views.assessment_md(report.rounds[0], rubric, lang, heading="ui.round_scores"),  # type: ignore[arg-type]
                "summary": views.report_summary_md(report, rubric, lang, []),  # type: ignore[arg-type]
            }
            for where, text in shown.items():
                assert name in text and line in text, (kind, lang, where, text)
                assert not [i for i in JUDGE_IDS if i in text], (kind, lang, where, text)
            if kind == "vllm":  # the model by its name, without its organisation
                assert all("Qwen2.5-1.5B-Instruct" in text and "Qwen/" not in text for text in shown.values())
            dumped = report.model_dump_json()
            assert info.model in dumped and info.rubric_version in dumped  # the JSON keeps them
