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
