"""Scripted candidates: answers built from the rubric's own expected evidence, so they follow its edits."""

from __future__ import annotations

from collections.abc import Callable

from agent.graph import SessionView, answer
from agent.rubric import Lang, RoundId, Rubric


def strong(rubric: Rubric, rid: RoundId, lang: Lang = "en") -> str:
    """Every expected-evidence item of the round, in the rubric's words."""
    return " ".join(i.text.get(lang) for i in rubric.evidence(rid))


def partial(rubric: Rubric, rid: RoundId, k: int, lang: Lang = "en") -> str:
    """The first k expected-evidence items only."""
    return " ".join(i.text.get(lang) for i in rubric.evidence(rid)[:k])


WEAK = "I think it works fine and is fast."


def drive(
    view: SessionView,
    text_for: Callable[[SessionView], str],
    *,
    step_s: float = 20.0,
    start_s: float = 0.0,
    limit: int = 80,
    owner: str | None = None,
) -> SessionView:
    """Answer every question until the session is done; time advances step_s per answer."""
    at = start_s
    for _ in range(limit):
        if view.status == "done":
            return view
        at += step_s
        view = answer(view.session_id, text_for(view), at_s=at, owner=owner)
        assert view.message is None, view.message
    raise AssertionError(f"session {view.session_id} not done after {limit} answers")


def answers_of(view: SessionView) -> list[str]:
    return [t.text for r in view.transcript.rounds for t in r.turns if t.role == "candidate"]


def cue_answer(rubric: Rubric, rid: RoundId, ids: list[str]) -> str:
    """One sentence per evidence item, made of a plain cue term from each of its groups: what the
    embedded judge recognises, whatever wording the rubric's item text uses."""
    items = {i.id: i for i in rubric.evidence(rid)}
    out = []
    for e in ids:
        terms = []
        for g in items[e].cues.groups:
            plain = [t for t in g if not (t.startswith("/") and t.endswith("/"))]
            ascii_terms = [t for t in plain if t.isascii()]
            terms.append((ascii_terms or plain or g)[0])
        out.append(" ".join(terms) + ".")
    return " ".join(out)
