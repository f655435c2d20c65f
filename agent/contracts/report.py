"""The Report contract (output of `interview grade --format json`), as the README's command line documents it.

Its field names are relied on by other tools; fields beyond them are additions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from agent.contracts.checklist import Checklist
from agent.contracts.sources import SourceRef
from agent.rubric.model import Dimension, Flag, Lang, RoundId


def _absent(v: object) -> bool:
    """Fields added after the contract are left out of the JSON when unset: the reports stay as they were."""
    return v is None


class JudgeInfo(BaseModel):
    """What produced a score: without it a score is not reproducible and not evidence."""

    kind: Literal["embedded", "vllm"]
    model: str
    rubric_version: str
    prompt_hash: str | None = None
    endpoint: str | None = None
    vllm_version: str | None = None
    index_commit: str | None = None
    seed: int | None = None
    temperature: float | None = None
    fallback: bool = False
    fallback_reason: str | None = None
    holistic: bool | None = Field(
        default=None,
        exclude_if=_absent,
        description="vLLM judge: whether the model also gave its holistic scores (`--no-holistic`: checklist only)",
    )
    # self-consistency (`interview grade --samples K`, K > 1); absent from a single grading's JSON
    samples: int | None = Field(
        default=None, exclude_if=_absent, description="K: the answer was graded K times"
    )
    seeds: list[int] | None = Field(
        default=None, exclude_if=_absent, description="the sampling seed of each of the K gradings"
    )

    def over_rounds(self, rounds: Sequence[RoundAssessment]) -> JudgeInfo:
        """This provenance as the report of `rounds` carries it: `fallback` when any round fell back
        (itself when that is already so)."""
        fallback = any(r.fell_back for r in rounds)
        return self if fallback == self.fallback else self.model_copy(update={"fallback": fallback})

    # a judge pool (several vLLM servers behind vllm-router, `endpoint` the router's); absent otherwise
    replicas: list[str] | None = Field(
        default=None,
        exclude_if=_absent,
        description="the judge server (host:port) that answered each of the round's requests, in part order",
    )


class Coverage(BaseModel):
    """How the checklist led to a dimension's level: what `DimensionScore.reason` says in words, as fields."""

    covered: int = Field(ge=0, description="expected items of this dimension the answer covered")
    expected: int = Field(ge=0, description="expected items of this dimension in scope")
    share: float = Field(
        ge=0, le=1, description="the covered items' share of the items' weight: what the level is read from"
    )
    round_share: float | None = Field(
        default=None,
        ge=0,
        le=1,
        exclude_if=_absent,
        description="the round's overall covered share, which `share` is pulled towards (lexicon coverage_prior)",
    )
    missing: list[str] = Field(
        default_factory=list, description="the items not covered, in the report's language, rubric order"
    )
    strong_signals: int = Field(default=0, ge=0)
    weak_signals: list[str] = Field(
        default_factory=list, description="ids of the weak signals that lowered it"
    )
    model_score: int | None = Field(
        default=None, description="the score a model judge proposed, when one did"
    )
    model_reason: str | None = None
    samples: list[int] | None = Field(
        default=None,
        exclude_if=_absent,
        description="each sample's score when the score is the median of several samples",
    )
    sample_score: int | None = Field(
        default=None, exclude_if=_absent, description="the score of the sample whose checklist is shown"
    )


class DimensionScore(BaseModel):
    dimension: Dimension
    score: int = Field(ge=1, le=5)
    level: str = Field(description="the level descriptor of the score, in the report's language")
    reason: str = Field(
        description="the coverage in words (English, machine-readable; `coverage` has the fields)"
    )
    quotes: list[str] = Field(default_factory=list)
    band: tuple[int, int] = Field(description="the range the verified checklist supports")
    caps: list[str] = Field(default_factory=list, description="gates that bounded this score")
    coverage: Coverage | None = Field(default=None, description="absent in reports written before it existed")


class JudgeNote(BaseModel):
    """One of a round's notes, written in each language when the round was scored, so a report shows it in
    its reader's language, not only the session's. `key`: what the note says, by name (the lexicon message,
    or the message catalogue's key); `to_candidate`: the note worded to the candidate ("you", Practice), in
    each language, where that differs from the note as the interviewer reads it ("the candidate")."""

    key: str
    text: dict[Lang, str]
    to_candidate: dict[Lang, str] | None = Field(default=None, exclude_if=_absent)

    def said(self, lang: Lang, *, to_candidate: bool = False) -> str:
        """The note in `lang`; `to_candidate`: as the candidate reads it."""
        texts = self.to_candidate if to_candidate and self.to_candidate else self.text
        return texts.get(lang) or next(iter(texts.values()))


class RoundAssessment(BaseModel):
    round: RoundId
    scores: dict[Dimension, int]
    total: int
    flags: list[Flag] = Field(default_factory=list)
    quotes: dict[Dimension, list[str]] = Field(default_factory=dict)
    missing_evidence: list[str] = Field(default_factory=list)
    next_followups: list[str] = Field(default_factory=list)
    # additions
    judge: JudgeInfo | None = None
    dimensions: list[DimensionScore] = Field(default_factory=list)
    passed: bool | None = None
    notes: list[str] = Field(default_factory=list, description="the notes in the report's language")
    noted: list[JudgeNote] | None = Field(
        default=None,
        exclude_if=_absent,
        description="the same notes, each in every language (absent in reports written before it existed)",
    )
    weighted: float | None = None
    snippets: list[SourceRef] = Field(
        default_factory=list, description="vLLM source behind the round, with permalinks"
    )
    checklist: Checklist | None = None

    def notes_in(self, lang: Lang, *, to_candidate: bool = False) -> list[str]:
        """The round's notes in `lang` (`to_candidate`: worded to the candidate); a report written before
        notes were kept in every language has them only as stored, in its own language."""
        if self.noted is None:
            return list(self.notes)
        return [n.said(lang, to_candidate=to_candidate) for n in self.noted]

    def with_notes(self, added: Sequence[JudgeNote], lang: Lang) -> RoundAssessment:
        """A copy with `added` after its notes (in `lang`, the report's language, and in every language)."""
        if not added:
            return self
        noted = None if self.noted is None and self.notes else [*(self.noted or []), *added]
        return self.model_copy(update={"notes": [*self.notes, *(n.said(lang) for n in added)], "noted": noted})

    @property
    def fell_back(self) -> bool:
        """The configured judge failed on this round and the embedded judge scored it (`judge_fallback`)."""
        return self.judge is not None and self.judge.fallback

    @property
    def fallback_reason(self) -> str | None:
        """Why the judge fell back on this round; None when it did not."""
        return self.judge.fallback_reason if self.judge is not None and self.judge.fallback else None


class DimensionSpread(BaseModel):
    """One dimension of one round over the samples that counted."""

    score: int = Field(ge=1, le=5, description="the median; the lower middle one when their number is even")
    median: float
    min: int = Field(ge=1, le=5)
    max: int = Field(ge=1, le=5)
    scores: list[int] = Field(description="each counted sample's score, in sample order")


class RoundSpread(BaseModel):
    round: RoundId
    counted: list[int] = Field(description="the samples (0-based) whose scores make the median")
    fallbacks: list[int] = Field(
        default_factory=list,
        description="samples where the judge failed and the embedded judge scored: left out of the median",
    )
    all_fallback: bool = Field(
        default=False, description="every sample fell back: the round is the embedded judge's, flagged"
    )
    representative: int = Field(
        description="the counted sample closest to the median: its checklist, quotes and reasons are shown"
    )
    dimensions: dict[Dimension, DimensionSpread]


class SampleSpread(BaseModel):
    """Self-consistency: the answer graded K times; each score in the report is the median."""

    k: int = Field(ge=2)
    seeds: list[int] | None = Field(default=None, description="None: the judge takes no seed")
    temperature: float | None = None
    deterministic: bool = Field(
        description="the judge answers the same every time (embedded): the spread is zero by construction"
    )
    fallback_samples: list[int] = Field(
        default_factory=list, description="samples where the judge fell back in at least one round"
    )
    rounds: list[RoundSpread]


class Report(BaseModel):
    id: str
    judge: JudgeInfo
    rounds: list[RoundAssessment]
    risks: list[str] = Field(default_factory=list)
    next_actions: list[str] = Field(default_factory=list)
    language: Lang = "en"
    samples: SampleSpread | None = Field(default=None, exclude_if=_absent)
