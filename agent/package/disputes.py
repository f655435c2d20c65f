"""Disputed evidence: the overridden and fallback scores with their quotes, the cited paths as checked, and
the vLLM snippets with permalinks and the claim each one checks."""

from __future__ import annotations

from typing import Any

from agent.contracts.transcript import TranscriptRound
from agent.graph.report import SessionReport
from agent.judge.matching import sentences
from agent.overrides import EffectiveScore
from agent.package.model import Disputed, PathCheck, SourceCheck
from agent.package.scores import effective_by_cell, override_record
from agent.rubric.model import DIMENSIONS, RoundId


def _claim(tr: TranscriptRound, path: str, symbol: str) -> tuple[str, str]:
    base = path.rsplit("/", 1)[-1]
    keys = [k.lower() for k in (path, base, base.removesuffix(".py"), *symbol.split(".")) if len(k) >= 4]
    for _, answer in tr.answer_turns():
        for s in sentences(answer):
            if any(k in s.lower for k in keys):
                return s.text, "answer"
    first = next((t.text for t in tr.turns if t.role == "interviewer"), "")
    return first, "question"


def disputed(
    report: SessionReport, eff: list[EffectiveScore], trs: dict[RoundId, TranscriptRound]
) -> list[Disputed]:
    by = effective_by_cell(eff)
    out: list[Disputed] = []
    for ra in report.rounds:
        info = ra.judge or report.judge
        tr = trs.get(ra.round)
        ds_of = {ds.dimension: ds for ds in ra.dimensions}
        for d in DIMENSIONS:
            e = by[(ra.round, d)]
            why: list[Any] = []
            if e.override is not None:
                why.append("override")
            if info.fallback:
                why.append("fallback")
            if not why:
                continue
            ds = ds_of.get(d)
            sources = []
            for s in ra.snippets:
                claim, src = _claim(tr, s.path, s.symbol) if tr else ("", "question")
                sources.append(
                    SourceCheck(
                        path=s.path,
                        symbol=s.symbol,
                        start_line=s.start_line,
                        end_line=s.end_line,
                        commit=s.commit,
                        permalink=s.permalink,
                        excerpt=s.excerpt,
                        claim=claim,
                        claim_from=src,  # type: ignore[arg-type]
                    )
                )
            paths = (
                [
                    PathCheck(cited=p.cited, status=p.status, detail=p.detail)
                    for p in ra.checklist.checks.paths
                ]
                if ra.checklist
                else []
            )
            out.append(
                Disputed(
                    round=ra.round,
                    dimension=d,
                    why=why,
                    judge_score=e.judge,
                    effective_score=e.effective,
                    reason=ds.reason if ds else "",
                    quotes=list(ds.quotes if ds else ra.quotes.get(d, [])),
                    override=override_record(e.override, e.stale) if e.override else None,
                    fallback_reason=info.fallback_reason if info.fallback else None,
                    sources=sources,
                    paths=paths,
                )
            )
    return out
