"""rubrics/lexicon.yaml's schema: the term lists the deterministic checks read, the scoring policy and the
messages, validated on load (agent/rubric/loader.py `load_lexicon`).

A key the file may not hold is an error naming it; so is a value of the wrong type. A field with a default
here may be left out of the file: the default is what the checks and scoring used before the file said it.
What the terms mean and how scoring reads the policy: docs/scoring.md.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from agent.rubric.misconception import check_regex_terms
from agent.rubric.model import DIMENSIONS, Dimension, Flag, RoundId, Text, _Strict

Terms = list[str]
"""Terms matched case-insensitively as substrings of the folded text; one wrapped in slashes is a regex."""


class NumberLabels(_Strict):
    """`number_labels`: the words that label a number, one list per kind."""

    given: Terms
    derived: Terms
    observed: Terms
    estimated: Terms

    def terms(self, kind: str) -> Terms:
        """The terms of one label kind; none for a kind that is not one of the four."""
        if kind == "given":
            return self.given
        if kind == "derived":
            return self.derived
        if kind == "observed":
            return self.observed
        if kind == "estimated":
            return self.estimated
        return []

    @field_validator("given", "derived", "observed", "estimated")
    @classmethod
    def _regexes_compile(cls, v: Terms) -> Terms:
        check_regex_terms(v)
        return v


class HappyPath(_Strict):
    """`happy_path`: the common evidence items whose cues find a failure boundary and a rollback (without them,
    the checks fall back to `failure_terms` and the `rollback` list alone)."""

    failure_item: str | None = None
    rollback_item: str | None = None


class Floor(_Strict):
    """One floor of `scoring.floors`: the lowest level an answer that meets every condition gets."""

    level: int = Field(ge=1, le=5)
    min_sentences: int = 0
    min_coverage: float = 0.0
    min_structure: int = 0
    min_specifics: int = 0
    without_weak: bool = False
    """only when no weak signal (without a cap of its own) speaks against the dimension"""


Steps = list[tuple[int, int]]
"""(at most / at least this many, the level cap): the first step that holds applies."""


class ScoringPolicy(_Strict):
    """`scoring:`: how the checklist becomes a level (agent/judge/scoring.py)."""

    coverage_levels: dict[int, float]
    """the lowest coverage that reaches each level"""
    five_without_signal: float
    """coverage that reaches 5 where the dimension defines no strong signal"""
    coverage_prior: float = 0.0
    strong_bonus_max: int
    weak_penalty_max: int
    band: int
    """a model's holistic score is kept within this many levels of the checklist's"""
    specificity_caps: dict[Dimension, Steps] = Field(default_factory=dict)
    """at most this many distinct specifics -> at most this level"""
    unjudged_cap: int = 2
    moot_without_numbers: list[str] = Field(default_factory=list)
    """evidence items left out of an answer with no quantities"""
    moved_path_caps: dict[Dimension, int] = Field(default_factory=dict)
    misconception_caps: Steps = Field(default_factory=list)
    """at least this many wrong claims -> at most this level on `misconception_cap_dimensions`"""
    misconception_cap_dimensions: list[Dimension] = Field(default_factory=list)
    misconception_minus_max: int = 3
    five_needs: dict[Dimension, int] = Field(default_factory=dict)
    wrong_core_caps: dict[Dimension, int] = Field(default_factory=dict)
    unbacked_story_caps: dict[Dimension, int] = Field(default_factory=dict)
    """a round of `unbacked_story_rounds` with evidence at 1 and `fabricated_metrics` raised: at most these"""
    unbacked_story_rounds: list[RoundId] = Field(default_factory=list)
    floors: dict[Dimension, list[Floor]] = Field(default_factory=dict)
    """a dimension's floors, in order; the file may give a single floor without a list"""

    @field_validator("coverage_levels")
    @classmethod
    def _levels_are_levels(cls, v: dict[int, float]) -> dict[int, float]:
        bad = sorted(k for k in v if not 1 <= k <= 5)
        if bad:
            raise ValueError(f"levels must be between 1 and 5, not {bad}")
        return v

    @field_validator("floors", mode="before")
    @classmethod
    def _one_floor_is_a_list(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return {d: [f] if isinstance(f, dict) else f for d, f in v.items()}
        return v


class FlagEffect(_Strict):
    """What a flag does to one dimension: `minus` levels taken, then `cap` the highest score allowed; in the
    `rounds` named, or in every round when none are."""

    cap: int | None = Field(default=None, ge=1, le=5)
    minus: int | None = Field(default=None, ge=1, le=4)
    rounds: list[RoundId] | None = None


FlagTarget = Literal["accuracy", "evidence", "tradeoffs", "validation", "communication", "all"]
"""A dimension, or `all` of them."""


class FlagThresholds(_Strict):
    """`flag_thresholds`: how many findings raise a flag."""

    unlabeled_numbers: int = 2
    unlabeled_share: float = 0.0
    """... and the share of the candidate's own numbers (the given ones left out) they must be at least"""


class Messages(_Strict):
    """`messages`: the notes scoring and the gates write into a report, each in both languages; `{name}`
    fields are filled in where the note is written."""

    outside_rubric: Text
    unjudged: Text
    misconception: Text
    misconception_sourced: Text
    """a wrong claim whose source is a vLLM path the reader can open (a seed quote is not named)"""
    risk: Text
    gate_cap: Text
    not_passed: Text
    senior_bar: Text
    no_inputs_asked: Text
    no_inputs_asked_to_candidate: Text
    """`no_inputs_asked` worded to the candidate (Practice)"""
    moved_path: Text
    honest_unknown: Text


class Lexicon(_Strict):
    """rubrics/lexicon.yaml: the term lists, the scoring policy, the flags' effects and the messages."""

    number_labels: NumberLabels
    retractions: Terms = Field(default_factory=list)
    hypothetical_mistakes: Terms = Field(default_factory=list)
    """a sentence describing a mistake to avoid: its numbers are no claim"""
    blanket_labels: Terms = Field(default_factory=list)
    quantity_units: Terms
    measured_claims: Terms
    artifacts: Terms
    artifact_leads: Terms = Field(default_factory=list)
    requirement_frames: Terms = Field(default_factory=list)
    measurement_conditions: Terms = Field(default_factory=list)
    measurement_conditions_needed: int = 3
    measurement_conditions_documented: int = 4
    """distinct conditions across an answer that, with an artifact named, back its measured figures"""
    specifics: Terms = Field(default_factory=list)
    topic_stopwords: Terms = Field(default_factory=list)
    structure_markers: Terms = Field(default_factory=list)
    injection: Terms
    happy_path: HappyPath = Field(default_factory=HappyPath)
    failure_terms: Terms = Field(default_factory=lambda: ["fail", "故障", "oom", "超时", "timeout"])
    """a failure boundary, when `happy_path.failure_item` names no common item"""
    boundary_caveats: Terms = Field(default_factory=list)
    rollback: Terms
    rollback_negated: Terms
    mutation: Terms
    mutation_dismissed: Terms = Field(default_factory=list)
    mutation_deferred: Terms = Field(default_factory=list)
    """said in the clause of a change, these put it off ("之后再考虑", "can wait until"): it is not made now"""
    containment: Terms
    evidence_gathering: Terms
    alternative: Terms
    asks_for_inputs: Terms
    dont_know: Terms
    find_out: Terms
    next_actions: dict[Dimension, Text]
    """one concrete next action per dimension; `{round}` and `{items}` are filled in"""
    alternative_required_in: list[RoundId] = Field(default_factory=list)
    """the rounds whose answer must weigh an alternative (else no_alternative)"""
    negation: Terms
    scoring: ScoringPolicy
    flag_effects: dict[Flag, dict[FlagTarget, FlagEffect]] = Field(default_factory=dict)
    flag_thresholds: FlagThresholds = Field(default_factory=FlagThresholds)
    messages: Messages

    @field_validator(
        "retractions",
        "hypothetical_mistakes",
        "blanket_labels",
        "quantity_units",
        "measured_claims",
        "artifacts",
        "artifact_leads",
        "requirement_frames",
        "measurement_conditions",
        "specifics",
        "structure_markers",
        "injection",
        "failure_terms",
        "boundary_caveats",
        "rollback",
        "rollback_negated",
        "mutation",
        "mutation_dismissed",
        "mutation_deferred",
        "containment",
        "evidence_gathering",
        "alternative",
        "asks_for_inputs",
        "dont_know",
        "find_out",
        "negation",
    )
    @classmethod
    def _regexes_compile(cls, v: Terms) -> Terms:
        check_regex_terms(v)
        return v

    @field_validator("next_actions")
    @classmethod
    def _every_dimension_has_an_action(cls, v: dict[Dimension, Text]) -> dict[Dimension, Text]:
        missing = [d for d in DIMENSIONS if d not in v]
        if missing:
            raise ValueError(f"missing {missing}")
        return v
