"""A finished report's own words follow the interface language (issue 12: a blind tester switched the
interface after a session and the report's next actions and narrative section titles stayed in the
session's language). The candidate's words and the rubric's items the report names (missing evidence, the
items of a next action) stay in the session's language, as the insight has them."""

from __future__ import annotations

import pytest

from agent import graph
from agent.judge.scoring import risks_and_actions
from agent.rubric.model import Lang
from agent.ui import views
from agent.ui.context import AppContext
from agent.util.messages import t
from tests.graph.script import drive

OTHER: dict[Lang, Lang] = {"en": "zh", "zh": "en"}
SAID = {"en": "No idea, sorry.", "zh": "我不太清楚。"}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_next_actions_and_narrative_titles_follow_the_interface_language(ctx: AppContext, lang: Lang) -> None:
    rubric, ui = ctx.rubric, OTHER[lang]
    view = drive(graph.start_session("project", lang), lambda _: SAID[lang])
    report = view.report
    assert report is not None and report.narrative is not None and report.next_actions
    md = views.finished_report_md(report, [], rubric, ui)

    for sec in rubric.narrative.sections:  # the narrative's section titles, in the interface language
        assert f"### {sec.title.get(ui)}\n" in md, sec.title.get(ui)
        assert f"### {sec.title.get(lang)}\n" not in md, sec.title.get(lang)
    assert rubric.narrative.not_collected.get(ui) in md

    actions = md.split(f"## {t('report.actions', ui)}\n", 1)[1].split("\n## ", 1)[0]
    templates = rubric.lexicon.next_actions.values()  # each next action's sentence, in the interface language
    lines = [x[2:] for x in actions.splitlines() if x.startswith("- ")]
    assert len(lines) == len(report.next_actions), actions
    assert all(any(x.startswith(tpl.get(ui).split("{round}")[0]) for tpl in templates) for x in lines), lines
    # the rubric's items an action names stay as stored, in the session's language
    sep = {"en": ": ", "zh": "："}
    named = [a.rsplit(sep[lang], 1)[1] for a in report.next_actions]
    assert all(items in x for items, x in zip(named, lines, strict=True)), (named, lines)


def test_the_report_recomputes_its_words_as_stored(ctx: AppContext) -> None:
    """What the report is shown in another language from: its rounds give back the stored actions."""
    report = drive(graph.start_session("project", "zh"), lambda _: SAID["zh"]).report
    assert report is not None
    assert risks_and_actions(ctx.rubric, report.rounds, "zh") == (report.risks, report.next_actions)


ASK = {
    "en": "Before I design: which GPU type do we have, and what is the budget?",
    "zh": "先确认一下：GPU 是什么型号？预算是多少？",
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_practice_report_s_notes_speak_to_you_in_the_reader_s_language(ctx: AppContext, lang: Lang) -> None:
    """Issue 12: the over-budget note and the inputs-asked note read "The candidate asked…" in a Practice
    report, and stayed in the session's language when the interface switched."""
    rubric, ui = ctx.rubric, OTHER[lang]
    minutes = rubric.round("system-design").minutes
    v = graph.start_session("system-design", lang)
    v = graph.answer(v.session_id, ASK[lang], at_s=30)
    report = drive(v, lambda _: SAID[lang], start_s=minutes * 60 + 60).report
    assert report is not None
    stored = report.rounds[0].notes
    over = {
        lg: t("interview.over_budget", lg, used=0, minutes=minutes).split("0.0")[0] for lg in ("en", "zh")
    }
    asked = {"en": "You asked for missing inputs", "zh": "你未经提示主动询问了缺失输入"}
    assert any(n.startswith(over[lang]) for n in stored) and any(n.startswith(asked[lang]) for n in stored), (
        stored
    )
    assert not any("candidate" in n or "候选人" in n for n in stored if n.startswith(asked[lang])), stored

    md = views.finished_report_md(report, [], rubric, ui)
    notes = md.split(f"**{t('report.notes', ui)}", 1)[1].split("\n\n", 1)[0]
    assert over[ui] in notes and asked[ui] in notes, notes
    assert over[lang] not in notes and asked[lang] not in notes, notes


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_reports_summary_s_next_actions_follow_the_interface_language(
    ctx: AppContext, lang: Lang
) -> None:
    """Issue 12: on a Chinese page the Reports tab's summary kept an English session's next actions."""
    rubric, ui = ctx.rubric, OTHER[lang]
    report = drive(graph.start_session("project", lang), lambda _: SAID[lang]).report
    assert report is not None and report.next_actions
    md = views.report_summary_md(report, rubric, ui, [])
    lines = [x[2:] for x in md.split(t("ui.next_actions", ui), 1)[1].splitlines() if x.startswith("- ")]
    templates = rubric.lexicon.next_actions.values()
    assert len(lines) == len(report.next_actions), md
    assert all(any(x.startswith(tpl.get(ui).split("{round}")[0]) for tpl in templates) for x in lines), lines
    assert not any(a in md for a in report.next_actions), md
