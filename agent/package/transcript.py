"""The package's transcript: each round's turns timed against the round's minutes."""

from __future__ import annotations

from agent.graph.report import SessionReport
from agent.graph.view import SessionView
from agent.package.model import RoundTranscript, TurnOut
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang


def transcript(
    rubric: Rubric, view: SessionView, report: SessionReport | None, lang: Lang
) -> list[RoundTranscript]:
    timing = {t.round: t for t in (report.timing if report else [])}
    out: list[RoundTranscript] = []
    for tr in view.transcript.rounds:
        minutes = rubric.round(tr.round).minutes
        times = [t.at_s for t in tr.turns if t.at_s is not None]
        start = min(times) if times else None
        t = timing.get(tr.round)
        used = t.used_s if t else tr.duration_s()
        out.append(
            RoundTranscript(
                round=tr.round,
                title=rubric.round(tr.round).title.get(lang),
                minutes=t.minutes if t else minutes,
                used_s=used,
                over_budget=t.over_budget if t else bool(used is not None and used > minutes * 60),
                turns=[
                    TurnOut(
                        role=x.role,
                        text=x.text,
                        at_s=x.at_s,
                        round_elapsed_s=round(x.at_s - start, 3)
                        if x.at_s is not None and start is not None
                        else None,
                    )
                    for x in tr.turns
                ],
            )
        )
    return out
