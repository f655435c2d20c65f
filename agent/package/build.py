"""Build a session's evidence package from what is stored: the session, its report, the override log.

Nothing is graded again: the scores are the stored report's, the formulas the checker's derivation of
the round's given values. The same session, rubric and override log give the same package (its one
timestamp is the session's own `updated_at`); `to_json` writes it with sorted keys.

Each section comes from the module named after it: `question` (the question version), `assumptions`,
`formulas` (round 3 re-derived), `scores` (the score sheet and the override log), `disputes`, `failures`,
`transcript` and `retry` (a redo beside its first attempt); this module puts them together.
"""

from __future__ import annotations

import json
from typing import Any

from agent.graph import get_session
from agent.graph.errors import SessionNotFound
from agent.graph.store import open_store
from agent.overrides import EffectiveScore, Override, effective_scores
from agent.package.assumptions import assumptions
from agent.package.disputes import disputed
from agent.package.failures import failures
from agent.package.formulas import formulas
from agent.package.model import (
    Assumption,
    Disputed,
    EvidencePackage,
    Failure,
    Formulas,
    Omission,
    SessionInfo,
)
from agent.package.question import question_version
from agent.package.retry import retry
from agent.package.scores import override_rows, score_sheet
from agent.package.transcript import transcript
from agent.rubric.loader import Rubric, default_rubric
from agent.rubric.model import Lang
from agent.util.messages import t


def build_package(
    session_id: str, *, owner: str | None = None, rubric: Rubric | None = None
) -> EvidencePackage:
    """The evidence package of a stored session (raises SessionNotFound when it is not the owner's)."""
    rubric = rubric or default_rubric()
    view = get_session(session_id, owner=owner)
    row = open_store().get(session_id)
    if row is None:  # deleted between the two reads
        raise SessionNotFound(session_id)
    lang: Lang = view.language
    report = view.report
    omitted: list[Omission] = []
    plan_words = view.plan.split()
    previous = plan_words[1] if len(plan_words) > 1 and plan_words[0] == "redo" else None
    info = SessionInfo(
        id=view.session_id,
        plan=view.plan,
        mode=view.mode,
        language=lang,
        owner=view.owner,
        status=view.status,
        created_at=row.created_at,
        updated_at=row.updated_at,
        previous_session=previous,
    )
    trs = {tr.round: tr for tr in view.transcript.rounds}
    qv = question_version(rubric, view, lang, omitted)
    rows: list[Override] = []
    sheet = None
    eff: list[EffectiveScore] = []
    found_assumptions: list[Assumption] = []
    fs: list[Formulas] = []
    disputes: list[Disputed] = []
    fails: list[Failure] = []
    again = None
    if report is None:
        omitted.append(
            Omission(
                what=t("package.omit.unscored", lang),
                why=t("package.omit.unscored_why", lang),
            )
        )
    else:
        got, intact, problem = override_rows(report.id, omitted, lang)
        rows = got or []
        eff = effective_scores(report, rows)
        sheet = score_sheet(rubric, report, eff, lang, intact, problem)
        for ra in report.rounds:
            tr = trs.get(ra.round)
            if ra.checklist is None or tr is None:
                omitted.append(
                    Omission(
                        what=t("package.omit.checks", lang, round=rubric.round(ra.round).title.get(lang)),
                        why=t("package.omit.checks_no_checklist" if tr else "package.omit.checks_no_transcript", lang),
                    )
                )
                continue
            found_assumptions += assumptions(rubric, tr, ra.checklist, lang)
            f = formulas(tr, ra.checklist)
            if f is not None:
                fs.append(f)
        disputes = disputed(report, eff, trs)
        for dp in disputes:
            if not dp.sources:
                ra = next(r for r in report.rounds if r.round == dp.round)
                said = [n.said(lang) for n in ra.noted or [] if n.key.startswith("report.note.")]
                why = next(iter(said), None) or next(
                    (n for n in ra.notes if "index" in n.lower() or "索引" in n), None
                )
                what = t("package.omit.snippets", lang, round=rubric.round(dp.round).title.get(lang))
                if not any(o.what == what for o in omitted):
                    omitted.append(Omission(what=what, why=why or t("package.omit.snippets_why", lang)))
        fails = failures(rubric, report.rounds, trs, fs, lang)
        again = retry(rubric, report, eff, view.owner, lang, omitted)
    omitted.append(Omission(what=t("package.omit.audio", lang), why=t("package.omit.audio_why", lang)))
    return EvidencePackage(
        language=lang,
        session=info,
        question_version=qv,
        assumptions=found_assumptions,
        formulas=fs,
        score_sheet=sheet,
        disputed=disputes,
        transcript=transcript(rubric, view, report, lang),
        candidate_questions=list(report.candidate_questions) if report else [],
        failures=fails,
        retry=again,
        omitted=omitted,
    )


def _json_text(data: Any) -> str:
    """The text of package.json and package.schema.json (see `to_json`)."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def to_json(pkg: EvidencePackage) -> str:
    """package.json: sorted keys, two-space indent, UTF-8 text (Chinese as is), one final newline."""
    return _json_text(pkg.model_dump(mode="json"))


def schema_json() -> str:
    """package.schema.json, generated from the model."""
    schema = EvidencePackage.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return _json_text(schema)
