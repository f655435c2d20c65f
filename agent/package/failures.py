"""The failure evidence (docs/interview.md) a session showed, each with its rounds, its evidence and the
next observable action."""

from __future__ import annotations

from agent.contracts.report import RoundAssessment
from agent.contracts.transcript import TranscriptRound
from agent.package.labels import name as display_name
from agent.package.model import FAILURE_ORDER, Failure, FailureId, Formulas
from agent.package.question import asked_turns
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang, RoundId
from agent.util import messages


def failures(
    rubric: Rubric,
    rounds: list[RoundAssessment],
    trs: dict[RoundId, TranscriptRound],
    fs: list[Formulas],
    lang: Lang,
) -> list[Failure]:
    msg = rubric.lexicon.messages.no_inputs_asked
    not_asked = {msg.zh, msg.en}  # the ask_for_inputs gate's note, in either language
    found: dict[FailureId, tuple[list[RoundId], list[str]]] = {}

    def add(fid: FailureId, rid: RoundId, evidence: list[str]) -> None:
        rs, ev = found.setdefault(fid, ([], []))
        if rid not in rs:
            rs.append(rid)
        ev.extend(x for x in evidence if x not in ev)

    for ra in rounds:
        cl = ra.checklist
        checks = cl.checks if cl else None
        tr = trs.get(ra.round)
        keyed = any(n.key == "no_inputs_asked" for n in ra.noted or [])
        if keyed or any(n in not_asked for n in ra.notes) or any(
            c.startswith("ask_for_inputs") for ds in ra.dimensions for c in ds.caps
        ):
            asked = [a.text for a in (asked_turns(tr) if tr else []) if a.kind in ("followup", "given")]
            note = messages.t("package.failure.prompted_for_requirements.note", lang)
            add("prompted_for_requirements", ra.round, [note, *asked])
        missing = [p for p in (checks.paths if checks else []) if p.status in ("missing", "symbol_missing")]
        if missing or "nonexistent_path" in ra.flags:
            add("nonexistent_path", ra.round, [f"{p.cited}: {p.detail or p.status}" for p in missing])
        if (checks and checks.capacity and checks.capacity.errors) or "unit_error" in ra.flags:
            ev = [
                display_name("error", e, lang)
                for e in (checks.capacity.errors if checks and checks.capacity else [])
            ]
            for f in fs:
                if f.round == ra.round:
                    ev += [
                        f"{display_name('quantity', s.quantity, lang)}: {s.candidate} ({display_name('error', s.error or '', lang)})"
                        for s in f.steps
                        if s.status == "unit_error"
                    ]
            add("units_do_not_close", ra.round, ev)
        if (checks and checks.no_alternative) or "no_alternative" in ra.flags:
            add("no_alternative", ra.round, [])
        if (checks and checks.mutation_before_evidence) or "mutation_before_evidence" in ra.flags:
            add(
                "mutation_before_evidence",
                ra.round,
                [checks.mutation_before_evidence] if checks and checks.mutation_before_evidence else [],
            )
        if (checks and checks.fabricated) or "fabricated_metrics" in ra.flags:
            add("no_raw_artifact", ra.round, list(checks.fabricated) if checks else [])
    out: list[Failure] = []
    for fid in FAILURE_ORDER:
        if fid in found:
            rs, ev = found[fid]
            out.append(
                Failure(
                    id=fid,
                    title=messages.t(f"package.failure.{fid}.title", lang),
                    rounds=rs,
                    evidence=ev,
                    next_action=messages.t(f"package.failure.{fid}.action", lang),
                )
            )
    return out
