"""No question twice in a round (issue 12): co-pilot never suggests what an interviewer turn of the round
already asked (a suggestion the interviewer asked in their own words included, and the round's opening
question), and practice never asks the candidate the same follow-up twice."""

from __future__ import annotations

import re
import unicodedata

import pytest

from agent.graph import SessionView, answer, ask, close_round, get_session, start_session
from agent.rubric import Lang, Rubric
from tests.graph.script import WEAK, drive, partial

# the question with the interviewer's own words around it, and the question put another way
PREFACE = {"en": ("Good. So: ", " Briefly, please."), "zh": ("好的。那么：", "，简单说说。")}


def _said(text: str) -> str:
    """Case, width, spacing and punctuation aside (the test's own comparison, not the product's)."""
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text).casefold())


def _asked(v: SessionView) -> list[str]:
    tr = v.transcript.rounds[-1]
    return [t.text for t in tr.turns if t.role == "interviewer"]


def _no_repeat(v: SessionView) -> None:
    """No suggestion on screen says what an interviewer turn of the round already said."""
    asked = {_said(a) for a in _asked(v)}
    again = [s.text for s in v.suggestions if _said(s.text) in asked]
    assert not again, again


def _own_words(text: str, lang: Lang) -> str:
    """The suggestion as an interviewer edits it before asking: a preface, its first word or two left out,
    the question mark dropped, a word of their own at the end."""
    before, after = PREFACE[lang]
    first, _, rest = text.partition(" ")
    body = rest if rest and first.isascii() else text[2:]
    return f"{before}{body.rstrip('?？')}{after}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_follow_up_asked_in_the_interviewers_words_is_not_suggested_again(
    rubric: Rubric, lang: Lang
) -> None:
    v = start_session("concepts", lang, "copilot")
    opening = v.question
    assert opening
    v = answer(v.session_id, partial(rubric, "concepts", 2, lang), at_s=30)
    _no_repeat(v)
    assert _said(opening) not in {_said(s.text) for s in v.suggestions}
    top = v.suggestions[0]
    assert top.followup and top.why
    mine = _own_words(top.text, lang)
    assert _said(mine) != _said(top.text)
    v = ask(v.session_id, mine)
    asked = v.transcript.rounds[-1].turns[-1]
    assert asked.text == mine  # the interviewer's words are what the transcript keeps
    assert (asked.model_extra or {}).get("followup") == top.followup  # counted as the suggestion picked
    v = answer(v.session_id, WEAK, at_s=60)  # the answer still lacks what it asked for
    assert v.suggestions, "the other follow-ups are still worth asking"
    assert all(s.followup != top.followup for s in v.suggestions)
    assert not any(_said(s.text) == _said(top.text) for s in v.suggestions)
    _no_repeat(v)
    # ranked by what the round still lacks
    counts = [len(s.why) for s in v.suggestions]
    assert counts == sorted(counts, reverse=True)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_project_questions_and_their_follow_ups_are_suggested_until_asked_only(
    rubric: Rubric, lang: Lang
) -> None:
    qs = rubric.round("project-experience").questions
    q = [x.text.get(lang) for x in qs]
    assert qs[0].followup_if_missing
    v = start_session("project", lang, "copilot")
    v = answer(v.session_id, "My project." if lang == "en" else "我的项目。", at_s=30)
    assert [s.text for s in v.suggestions] == [q[0]]
    v = ask(v.session_id, q[0])
    v = answer(v.session_id, WEAK, at_s=60)
    texts = [s.text for s in v.suggestions]
    assert q[0] not in texts and q[1] in texts
    _no_repeat(v)
    # the first question's follow-up asked as suggested (the words of a listed follow-up too): it counts as
    # the question's follow-up, and is not suggested again though the answer still lacks what it asks for
    trigger = next(s for s in v.suggestions if s.text != q[1])
    v = ask(v.session_id, trigger.text)
    extra = v.transcript.rounds[-1].turns[-1].model_extra or {}
    assert extra.get("question_id") == qs[0].id and extra.get("trigger") is True
    v = answer(v.session_id, WEAK, at_s=90)
    assert [s.text for s in v.suggestions] == [q[1]]
    # the second question asked in the interviewer's words: the third is next, the second not again
    v = ask(v.session_id, _own_words(q[1], lang))
    v = answer(v.session_id, WEAK, at_s=120)
    texts = [s.text for s in v.suggestions]
    assert q[1] not in texts and q[2] in texts
    _no_repeat(v)
    # a question asked out of turn (the fourth) is not suggested again
    v = ask(v.session_id, q[3])
    v = answer(v.session_id, WEAK, at_s=150)
    texts = [s.text for s in v.suggestions]
    assert q[3] not in texts and q[1] not in texts
    _no_repeat(v)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_practice_never_asks_the_same_question_twice_in_a_round(lang: Lang) -> None:
    """The graph asks every follow-up it may (thin answers that ask for inputs too): no interviewer turn of a
    round says what an earlier one said."""
    ask_for = {"en": "What is the block size? What GPU is it?", "zh": "block size 是多少？用什么 GPU？"}
    v = start_session("full self-check", lang)
    v = drive(v, lambda _: f"{WEAK} {ask_for[lang]}", limit=120)
    for tr in v.transcript.rounds:
        said = [_said(t.text) for t in tr.turns if t.role == "interviewer"]
        assert len(said) == len(set(said)), (tr.round, said)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_round_report_suggests_no_follow_up_the_round_asked(lang: str) -> None:
    """A blind tester's finished report listed, under "Next follow-ups", the follow-up the round had asked."""
    start_session("concepts", lang, session_id=f"nf-{lang}", owner="ana")
    v = answer(f"nf-{lang}", WEAK, at_s=30, owner="ana")
    asked = v.question
    assert asked  # a follow-up was asked after the weak answer
    v = answer(f"nf-{lang}", WEAK, at_s=60, owner="ana")
    v = close_round(f"nf-{lang}", owner="ana") if v.status != "done" else v
    report = get_session(f"nf-{lang}", owner="ana").report
    assert report is not None
    (ra,) = report.rounds
    assert ra.next_followups, "the weak round has follow-ups left to suggest"
    turns = [t.text for r in v.transcript.rounds for t in r.turns if t.role == "interviewer"]
    for f in ra.next_followups:
        assert not any(f in t or t in f for t in turns), f"{f!r} was asked in the round"
