"""The question version of a package: the rubric version, what was asked in each round and round 3's
given values, as the session asked them."""

from __future__ import annotations

from typing import Any

from agent.contracts.transcript import TranscriptRound
from agent.graph.view import SessionView
from agent.judge import capacity
from agent.package.model import (
    AskedText,
    CapacityGiven,
    GivenValue,
    Omission,
    QuestionVersion,
    RoundVersion,
)
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang
from agent.util import messages


def asked(t: Any, first: bool) -> AskedText:
    """One interviewer turn as the package shows it; `first`: the round's opening prompt."""
    extra = t.model_extra or {}
    given = [str(g) for g in extra.get("given") or []]
    if extra.get("followup"):
        return AskedText(kind="followup", id=str(extra["followup"]), text=t.text, at_s=t.at_s)
    if given:
        return AskedText(kind="given", given=given, text=t.text, at_s=t.at_s)
    if extra.get("question_id"):
        return AskedText(
            kind="trigger" if extra.get("trigger") else "question",
            id=str(extra["question_id"]),
            text=t.text,
            at_s=t.at_s,
        )
    if extra.get("own"):
        return AskedText(kind="own", text=t.text, at_s=t.at_s)
    return AskedText(kind="prompt" if first else "interviewer", text=t.text, at_s=t.at_s)


def asked_turns(tr: TranscriptRound) -> list[AskedText]:
    """The interviewer's turns of a round, in order, the first one as its prompt."""
    return [asked(t, k == 0) for k, t in enumerate(x for x in tr.turns if x.role == "interviewer")]


_GIVEN_UNITS = {
    "params": "parameters",
    "weight_bytes": "B per weight",
    "layers": "layers",
    "kv_heads": "KV heads",
    "head_dim": "elements per head",
    "kv_bytes": "B per KV element",
    "tp": "ranks (TP)",
    "gpu_gib": "GiB per GPU",
    "non_kv_gib": "GiB per rank",
    "reserve_gib": "GiB per rank",
    "input_tokens": "tokens",
    "output_tokens": "tokens",
}


def capacity_params(seed: int | None) -> capacity.CapacityParams:
    return capacity.variant(seed).params if seed is not None else capacity.CapacityParams()


def _capacity_given(seed: int | None, lang: Lang) -> CapacityGiven:
    p = capacity_params(seed)
    values = []
    for name, info in capacity.CapacityParams.model_fields.items():
        values.append(
            GivenValue(
                name=name,
                value=float(getattr(p, name)),
                unit=_GIVEN_UNITS.get(name, ""),
                description=messages.t(f"package.given.{name}", lang)
                if messages.has(f"package.given.{name}")
                else (info.description or name),
            )
        )
    return CapacityGiven(variant_seed=seed, values=values)


def question_version(
    rubric: Rubric, view: SessionView, lang: Lang, omitted: list[Omission]
) -> QuestionVersion:
    """The question version of the session; a note in `omitted` when its rubric is not the one at hand."""
    report = view.report
    rubric_version = report.judge.rubric_version if report else rubric.version
    if rubric_version != rubric.version:
        omitted.append(
            Omission(
                what=messages.t("package.omit.rubric_texts", lang, version=rubric_version),
                why=messages.t("package.omit.rubric_texts_why", lang, current=rubric.version),
            )
        )
    versions = [
        RoundVersion(
            round=tr.round,
            title=rubric.round(tr.round).title.get(lang),
            minutes=rubric.round(tr.round).minutes,
            asked=asked_turns(tr),
            capacity=_capacity_given(tr.variant_seed, lang) if tr.round == "capacity" else None,
        )
        for tr in view.transcript.rounds
    ]
    return QuestionVersion(
        rubric_version=rubric_version,
        rubric_version_now=rubric.version,
        round_ids=[tr.round for tr in view.transcript.rounds],
        rounds=versions,
    )
