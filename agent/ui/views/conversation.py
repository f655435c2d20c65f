"""The questions and answers so far (Practice), and the whole transcript for a Markdown export."""

from __future__ import annotations

import html
from collections.abc import Sequence

from agent.contracts.transcript import Transcript
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang
from agent.ui.views.text import clock, colon, html_lines, md_text, round_title
from agent.util.messages import t


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
            for e in (turn.model_extra or {}).get("earlier") or []:
                when = _at(e.get("at_s"), lang)
                out += [
                    f"> *{t('ui.earlier_attempt', lang)}{when}*{colon(lang)}{md_text(str(e.get('text', '')))}",
                    "",
                ]
    return "\n".join(out)


def conversation_md(rubric: Rubric, transcript: Transcript, ui: Lang, asked: Sequence[str] = ()) -> str:
    """The session's question and answer pairs so far, round by round, then what the candidate asked in the
    closing minutes (`asked`)."""
    if not transcript.rounds:
        return ""
    out = [f"#### {t('ui.conversation', ui)}", ""]
    for tr in transcript.rounds:
        out += [f"**{round_title(rubric, tr.round, ui)}**", ""]
        for turn in tr.turns:
            who = t("ui.interviewer", ui) if turn.role == "interviewer" else t("ui.you", ui)
            mark = "Q" if turn.role == "interviewer" else "A"
            out.append(_turn(mark.lower(), who, turn.text, ui))
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
    return f"（{clock(at_s)}）" if lang == "zh" else f" ({clock(at_s)})"


def _turn(mark: str, who: str, text: str, ui: Lang) -> str:
    """One turn of the conversation on screen: who, the colon of the interface language, what was said with its
    line breaks (a structured answer stays structured)."""
    return f"<p class='coach-turn coach-{mark}'><b>{html.escape(who)}{colon(ui)}</b>{html_lines(text)}</p>"
