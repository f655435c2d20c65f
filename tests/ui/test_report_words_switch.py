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
