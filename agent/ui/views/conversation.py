"""The questions and answers so far (Practice), and the whole transcript for a Markdown export."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from agent.contracts.transcript import Transcript, Turn
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang
from agent.ui.views.text import clock, colon, dim_title, html_lines, md_text, round_title
from agent.util.messages import bracketed, listed, t


def transcript_md(rubric: Rubric, transcript: Transcript) -> str:
    """The whole transcript for a Markdown export, in the session's language: each turn with its time
    in the session, and a retried answer's earlier attempts under it."""
    lang: Lang = transcript.language
    out = ["", f"## {t('ui.transcript_heading', lang)}", ""]
    for tr in transcript.rounds:
        out += [f"### {round_title(rubric, tr.round, lang)}", ""]
        for turn in tr.turns:
            who = t("ui.interviewer" if turn.role == "interviewer" else "ui.candidate", lang)
            at = _at(turn.at_s, lang)
            out += [f"**{who}**{at}{colon(lang)}{md_text(turn.text)}", ""]
            for e in _earlier(turn):
                when = _at(e.get("at_s"), lang)
                out += [
                    f"> *{t('ui.earlier_attempt', lang)}{when}*{colon(lang)}{md_text(str(e.get('text', '')))}",
                    "",
                ]
            if line := retried_scores(rubric, turn, lang):
                out += [f"> {md_text(line)}", ""]
    return "\n".join(out)


def conversation_md(rubric: Rubric, transcript: Transcript, ui: Lang, asked: Sequence[str] = ()) -> str:
    """The session's question and answer pairs so far, round by round, then what the candidate asked in the
    closing minutes (`asked`). A retried answer shows under it the round's score with each attempt and its
    earlier attempts, each folded and marked replaced (`_retried`), as the transcript export has them."""
    if not transcript.rounds:
        return ""
    out = [f"#### {t('ui.conversation', ui)}", ""]
    for tr in transcript.rounds:
        out += [f"**{round_title(rubric, tr.round, ui)}**", ""]
        for turn in tr.turns:
            who = t("ui.interviewer", ui) if turn.role == "interviewer" else t("ui.you", ui)
            mark = "Q" if turn.role == "interviewer" else "A"
            out.append(_turn(mark.lower(), who, turn.text, ui))
            if _earlier(turn):
                out.append(_retried(rubric, turn, ui))
        out.append("")
    if asked:
        lang: Lang = transcript.language
        out += [f"**{t('interview.your_questions', ui)}**", ""]
        q = t("interview.candidate_questions", lang)
        out.append(_turn("q", t("ui.interviewer", ui), q, ui))
        for a in asked:
            out.append(_turn("a", t("ui.you", ui), a, ui))
        out.append("")
    return "\n".join(out)


def _at(at_s: float | None, lang: Lang) -> str:
    """A turn's time in the session, in brackets of the language: " (01:05)" / "（01:05）"."""
    if at_s is None:
        return ""
    return bracketed(clock(at_s), lang)


def _turn(mark: str, who: str, text: str, ui: Lang) -> str:
    """One turn of the conversation on screen: who, the colon of the interface language, what was said with its
    line breaks (a structured answer stays structured)."""
    return f"<p class='coach-turn coach-{mark}'><b>{html.escape(who)}{colon(ui)}</b>{html_lines(text)}</p>"


def _earlier(turn: Turn) -> list[dict[str, Any]]:
    """A retried answer's earlier attempts, first first (`agent.graph.retry`); [] for any other turn."""
    return [e for e in (turn.model_extra or {}).get("earlier") or [] if isinstance(e, dict)]


def retried_scores(rubric: Rubric, turn: Turn, lang: Lang) -> str | None:
    """The comparison of a retried answer: the round's total with each attempt, earlier → this answer, and
    the dimensions whose score moved ("… 5 → 9/25 (Depth 1 → 3)"). None when an attempt's scores were not
    kept (a session retried before they were)."""
    attempts: list[dict[str, Any]] = [*_earlier(turn), dict(turn.model_extra or {})]
    totals = [a.get("total") for a in attempts]
    if not _earlier(turn) or any(not isinstance(x, int) for x in totals):
        return None
    line = t("ui.retried_scores", lang, totals=" → ".join(str(x) for x in totals))
    moved: list[str] = []
    for dim in attempts[-1].get("scores") or {}:
        marks = [(a.get("scores") or {}).get(dim) for a in attempts]
        if None not in marks and len(set(marks)) > 1:
            moved.append(f"{dim_title(rubric, dim, lang)} {' → '.join(str(m) for m in marks)}")
    if not moved:
        return line
    return line + bracketed(listed(moved, lang), lang)


def _retried(rubric: Rubric, turn: Turn, ui: Lang) -> str:
    """Under a retried answer on screen: the comparison, then each earlier attempt folded, marked replaced,
    with its time in the session."""
    parts = []
    if line := retried_scores(rubric, turn, ui):
        parts.append(f"<p class='coach-compare'>{html.escape(line)}</p>")
    for e in _earlier(turn):
        label = html.escape(t("ui.earlier_attempt", ui) + _at(e.get("at_s"), ui))
        parts.append(
            f"<details class='coach-earlier'><summary>{label}</summary>{html_lines(str(e.get('text', '')))}</details>"
        )
    return f"<div class='coach-retried'>{''.join(parts)}</div>"
