"""The checklist: what both judges produce before any score (docs/scoring.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agent.rubric.model import Dimension, Lang, RoundId, Text

Capacity = Literal["correct", "slip", "unit_or_sharding_error", "insufficient"]


class MisconceptionFinding(BaseModel):
    """A catalogued wrong claim the answer asserts, with the sentence that asserts it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    claim: Text
    quote: str = Field(description="the asserting sentence, a verbatim slice of the answer")
    start: int = Field(ge=0, description="where the quote starts in the answer")
    correction: Text
    source: str
    severity: int = Field(ge=1)
    dimensions: list[Dimension]


class ItemFinding(BaseModel):
    """One expected-evidence item: covered or not, with the verbatim quote that shows it."""

    id: str
    covered: bool
    quote: str | None = None
    by: Literal["cues", "model", "check"] = "cues"
    note: str | None = None


class SignalFinding(BaseModel):
    id: str
    kind: Literal["strong", "weak"]
    present: bool
    quote: str | None = None
    by: Literal["cues", "model", "check"] = "cues"


class NumberFinding(BaseModel):
    text: str
    label: Literal["given", "derived", "observed", "estimated"] | None
    sentence: str


class PathFinding(BaseModel):
    cited: str
    status: Literal["exists", "missing", "symbol_missing", "unknown", "moved"]
    detail: str = ""
    moved_to: list[str] = Field(
        default_factory=list, description="for a moved path: where it lives at the pin"
    )


class CapacityFinding(BaseModel):
    verdict: Capacity
    matched: list[str] = Field(default_factory=list, description="reference quantities the answer got right")
    errors: list[str] = Field(
        default_factory=list, description="named mistakes whose values the answer shows"
    )
    off: list[str] = Field(default_factory=list, description="quantities stated with a small slip")


class Checks(BaseModel):
    """The deterministic checks; each flag a report can carry has its evidence here."""

    numbers: list[NumberFinding] = Field(default_factory=list)
    unlabeled_numbers: list[str] = Field(default_factory=list)
    fabricated: list[str] = Field(
        default_factory=list, description="measured-sounding claims with no artifact"
    )
    injection: list[str] = Field(default_factory=list, description="sentences addressed to a grader")
    paths: list[PathFinding] = Field(default_factory=list)
    happy_path_only: bool = False
    mutation_before_evidence: str | None = None
    no_alternative: bool = False
    asked_for_inputs: bool = False
    honest_unknown: str | None = None
    capacity: CapacityFinding | None = None
    sentences: int = Field(
        default=0, description="distinct sentences to the interviewer that name a specific or show order"
    )
    structure: int = Field(
        default=0, description="lines or sentences that show order (steps, bullets, arrows)"
    )
    specifics: list[str] = Field(
        default_factory=list,
        description="distinct concrete specifics: paths, identifiers, metrics, quantities",
    )
    misconceptions: list[MisconceptionFinding] = Field(
        default_factory=list, description="catalogued wrong claims the answer asserts"
    )


class Holistic(BaseModel):
    """A model's own 1-5 for one dimension; kept only within the band the checklist supports."""

    score: int = Field(ge=1, le=5)
    reason: str = Field(default="", max_length=300)


class Checklist(BaseModel):
    round: RoundId
    language: Lang
    items: list[ItemFinding]
    strong: list[SignalFinding]
    weak: list[SignalFinding]
    checks: Checks
    holistic: dict[Dimension, Holistic] = Field(default_factory=dict)
    scope: list[str] | None = Field(
        default=None, description="the evidence items the round's questions ask for (None: every item)"
    )
    outside: list[str] = Field(
        default_factory=list, description="interviewer questions that match no question of the rubric"
    )

    def covered(self) -> set[str]:
        return {i.id for i in self.items if i.covered}
