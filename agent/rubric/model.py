"""The rubric's schema: what a file under rubrics/ may say, validated on load.

Content lives in YAML under rubrics/ (Chinese and English side by side); this module
only says its shape. A reviewer fixes a rubric by editing YAML, never Python.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from agent.util import messages

Lang = Literal["zh", "en"]
Dimension = Literal["accuracy", "evidence", "tradeoffs", "validation", "communication"]
DIMENSIONS: tuple[Dimension, ...] = ("accuracy", "evidence", "tradeoffs", "validation", "communication")
RoundId = Literal[
    "concepts", "source-trace", "capacity", "system-design", "incident", "project-experience", "self-check"
]
ROUND_IDS: tuple[RoundId, ...] = (
    "concepts",
    "source-trace",
    "capacity",
    "system-design",
    "incident",
    "project-experience",
    "self-check",
)
Flag = Literal[
    "accuracy_1",
    "validation_1",
    "happy_path_only",
    "unlabeled_numbers",
    "unit_error",
    "nonexistent_path",
    "prompt_injection",
    "no_alternative",
    "mutation_before_evidence",
    "fabricated_metrics",
    "misconception",
    "judge_fallback",
]
"""What the judge may flag on a round (the Report contract's `flags`; `flag_effects` in rubrics/lexicon.yaml is
keyed by these)."""
SELF_CHECK: RoundId = "self-check"
"""The seed's closing self-check (four questions): graded like any round, added after a plan's rounds
(`full self-check`) or practised alone (`self-check`)."""
INTERVIEW_ROUND_IDS: tuple[RoundId, ...] = tuple(r for r in ROUND_IDS if r != SELF_CHECK)
"""The interview rounds: the five mock rounds and the project-experience interview (what eval/graded/
covers; the self-check has no blind graded answers yet)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Text(_Strict):
    """One text in both languages."""

    zh: str = Field(min_length=1)
    en: str = Field(min_length=1)

    def get(self, lang: Lang) -> str:
        return self.zh if lang == "zh" else self.en

    def fill(self, lang: Lang, **fields: object) -> str:
        """The text in `lang` with its `{fields}` filled in, joined as the language joins (`messages.fill`)."""
        return messages.fill(self.get(lang), lang, **fields)


class Cues(_Strict):
    """How a deterministic matcher recognises an item in an answer.

    `groups` is a list of cue groups; each group is a list of alternative terms (Chinese and
    English mixed, matched case-insensitively; a term wrapped in slashes, `/…/`, is a regex).
    The item is found when at least `need` groups match (default: every group) within `window`
    consecutive sentences.
    """

    groups: list[list[str]] = Field(min_length=1)
    need: int | None = None
    window: int | None = Field(default=None, ge=1, le=3)
    """How many consecutive sentences may share the groups (default 2; 1 = within one sentence)."""
    answer_only: bool = False
    """Every group in the candidate's own words: the question an answer replies to supplies none (an item that
    is the candidate asking: the interviewer's "How would you …?" is not the candidate's question)."""

    @field_validator("groups")
    @classmethod
    def _groups_not_empty(cls, v: list[list[str]]) -> list[list[str]]:
        for i, g in enumerate(v):
            if not g or any(not t.strip() for t in g):
                raise ValueError(f"cue group {i} is empty or holds an empty term")
        return v

    @model_validator(mode="after")
    def _need_in_range(self) -> Cues:
        if self.need is not None and not 1 <= self.need <= len(self.groups):
            raise ValueError(
                f"need={self.need} must be between 1 and {len(self.groups)} (the number of groups)"
            )
        return self

    @property
    def required(self) -> int:
        return self.need if self.need is not None else len(self.groups)


class EvidenceItem(_Strict):
    """An expected-evidence item: something a good answer shows."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    text: Text
    dimensions: list[Dimension] = Field(min_length=1)
    cues: Cues
    weight: float = Field(default=1.0, gt=0)


class Signal(_Strict):
    """A strong or weak signal from the seed."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    text: Text
    dimensions: list[Dimension] = Field(min_length=1)
    cues: Cues
    # for weak signals, the gate that applies when the signal is present (None: a 1-level deduction)
    cap: int | None = Field(default=None, ge=1, le=5)


class FollowUp(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    text: Text
    probes: list[str] = Field(default_factory=list, description="ids of the evidence items it probes")


class GivenFact(_Strict):
    """An input the interviewer holds back and gives only when the candidate asks for it."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    text: Text
    asked_by: Cues


class Gate(_Strict):
    """A rule that bounds scores. `rule` names the function in agent.judge.gates."""

    rule: str
    params: dict[str, int | float | str | list[str]] = Field(default_factory=dict)
    text: Text


class ProjectQuestion(_Strict):
    """Seed 004: one of the eleven project-experience questions."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    group: str
    text: Text
    prepare: list[Text] = Field(min_length=1)
    followup_if_missing: list[Text] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list, description="ids of the evidence items it asks for")


class Level(_Strict):
    level: int = Field(ge=1, le=5)
    text: Text


class DimensionSpec(_Strict):
    id: Dimension
    title: Text
    description: Text
    levels: list[Level] = Field(min_length=5, max_length=5)

    @model_validator(mode="after")
    def _levels_one_to_five(self) -> DimensionSpec:
        if sorted(lv.level for lv in self.levels) != [1, 2, 3, 4, 5]:
            raise ValueError("levels must be exactly 1, 2, 3, 4, 5")
        return self


class Round(_Strict):
    id: RoundId
    order: int = Field(ge=1)
    title: Text
    minutes: int = Field(gt=0)
    prompt: Text
    given: list[GivenFact] = Field(default_factory=list)
    evidence: list[EvidenceItem] = Field(min_length=1)
    followups: list[FollowUp] = Field(default_factory=list)
    strong_signals: list[Signal] = Field(default_factory=list)
    weak_signals: list[Signal] = Field(default_factory=list)
    focus: Text
    weights: dict[Dimension, float] = Field(default_factory=dict)
    gates: list[Gate] = Field(default_factory=list)
    questions: list[ProjectQuestion] = Field(default_factory=list)
    include_common: bool = True
    givens_from: list[RoundId] = Field(default_factory=list)
    """rounds whose prompts' numbers count as given here too (the self-check asks about them)"""
    levels: dict[Dimension, list[Level]] = Field(default_factory=dict)
    """this round's own words for some levels of a dimension (the rest read the dimension's)"""

    @model_validator(mode="after")
    def _references_resolve(self) -> Round:
        ids = [e.id for e in self.evidence]
        dup = {i for i in ids if ids.count(i) > 1}
        if dup:
            raise ValueError(f"duplicate evidence ids: {sorted(dup)}")
        known = set(ids)
        for f in self.followups:
            for p in f.probes:
                if p not in known and not p.startswith("common-"):
                    raise ValueError(f"follow-up {f.id!r} probes unknown evidence {p!r}")
        for q in self.questions:
            for p in q.evidence:
                if p not in known and not p.startswith("common-"):
                    raise ValueError(f"question {q.id!r} names unknown evidence {p!r}")
        for d, lvs in self.levels.items():
            nums = [lv.level for lv in lvs]
            if len(set(nums)) != len(nums):
                raise ValueError(f"levels of {d!r} give a level more than once: {sorted(nums)}")
        return self

    def level_text(self, spec: DimensionSpec, level: int) -> Text:
        """The words for `level` of `spec`'s dimension in this round: the round's own, else the dimension's."""
        for lv in self.levels.get(spec.id, []):
            if lv.level == level:
                return lv.text
        return next(lv.text for lv in spec.levels if lv.level == level)


class Common(_Strict):
    """Items every round shares (the seed: every round needs a failure boundary and rollback)."""

    evidence: list[EvidenceItem] = Field(default_factory=list)
    strong_signals: list[Signal] = Field(default_factory=list)
    weak_signals: list[Signal] = Field(default_factory=list)


class NarrativeSection(_Strict):
    id: str
    title: Text
    fields: list[Text] = Field(min_length=1)


class Narrative(_Strict):
    """The project-experience narrative template (docs/interview.md)."""

    not_collected: Text
    sections: list[NarrativeSection] = Field(min_length=1)
