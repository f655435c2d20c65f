"""The misconception catalogue's schema: wrong claims a candidate may assert, per round.

Content lives in rubrics/misconceptions/<round>.yaml (one file a round) and
rubrics/misconceptions/markers.yaml (the negation, correction and question markers every entry
shares). agent/judge/misconceptions.py applies them; this module only says their shape.

How an entry is read (the matcher's contract, so a reviewer can write cues for it):

- `recognise` holds cue groups (alternative terms, zh and en mixed, `/…/` a regex). A sentence
  asserts the claim when it matches `need` groups (default: all) *and* nothing below denies it.
- `unless`: terms that anywhere in the same sentence mean the candidate is correcting or denying
  this claim ("rather than swapping", "仍要做全词表").
- markers.yaml `negation`: generic negators ("not", "n't", "不是", "并不"), looked for only in the
  claim's own clauses (the shortest run of clauses that holds every needed group), and never
  inside the text matched by a recognise term that itself spells a negator, so a claim worded with
  a negation ("/(no|without) full[- ]vocab/") is still a claim, while "it does not skip the
  full-vocab softmax" denies it. Keep other terms tight: a gap regex must not swallow a denial.
- markers.yaml `correction` and `question`: anywhere in the sentence ("a common mistake", "误以为",
  "…吗？", "whether").
"""

from __future__ import annotations

import re

from pydantic import Field, field_validator, model_validator

from agent.rubric.model import Cues, Dimension, RoundId, Text, _Strict

_CJK = re.compile(r"[\u4e00-\u9fff]")
SEED_SOURCE = re.compile(r"^seed (000|004): (?P<quote>\S.*)$")
PATH_SOURCE = re.compile(r"^vllm/[A-Za-z0-9_./-]*[A-Za-z0-9_]$")


def has_cjk(s: str) -> bool:
    return _CJK.search(s) is not None


def check_regex_terms(terms: list[str]) -> None:
    """Every `/…/` term must compile (the matcher would fail on it mid-answer otherwise)."""
    for t in terms:
        if len(t) > 2 and t.startswith("/") and t.endswith("/"):
            try:
                re.compile(t[1:-1])
            except re.error as e:
                raise ValueError(f"term {t!r} is not a valid regex: {e}") from e


class Examples(_Strict):
    """Sentences the entry's cues are tested on: each must, or must not, be recognised as the claim."""

    asserts: list[str] = Field(min_length=2)
    denies: list[str] = Field(min_length=2)

    @model_validator(mode="after")
    def _both_languages(self) -> Examples:
        for name, xs in (("asserts", self.asserts), ("denies", self.denies)):
            if not any(has_cjk(x) for x in xs) or all(has_cjk(x) for x in xs):
                raise ValueError(f"{name} needs at least one Chinese and one English sentence")
        return self


def _accuracy_only() -> list[Dimension]:
    return ["accuracy"]


class Misconception(_Strict):
    """A wrong claim, how to recognise it being asserted, and its correction with a source."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    claim: Text
    recognise: Cues
    unless: list[str] = Field(min_length=1)
    correction: Text
    source: str = Field(
        description='"vllm/…" (a file at the pinned commit) or "seed 000: <a line of the seed, quoted>"'
    )
    dimensions: list[Dimension] = Field(default_factory=_accuracy_only, min_length=1)
    severity: int = Field(ge=1, le=2, description="levels taken off each of `dimensions` when asserted")
    examples: Examples
    unless_documented: bool = Field(
        default=False,
        description="not asserted in an answer that names its artifact and states its measurement conditions"
        " (agent.judge.numbers.documented_turns): a claim about missing records that the answer's records refute",
    )

    @field_validator("unless")
    @classmethod
    def _terms_not_empty(cls, v: list[str]) -> list[str]:
        if any(not t.strip() for t in v):
            raise ValueError("unless holds an empty term")
        check_regex_terms(v)
        return v

    @field_validator("recognise")
    @classmethod
    def _cue_regexes_compile(cls, v: Cues) -> Cues:
        for g in v.groups:
            check_regex_terms(g)
        return v

    @field_validator("source")
    @classmethod
    def _source_form(cls, v: str) -> str:
        if not (SEED_SOURCE.match(v) or PATH_SOURCE.match(v)):
            raise ValueError(
                f"source {v!r} must be a vLLM path (vllm/…) or a seed quote ('seed 000: …' / 'seed 004: …')"
            )
        return v

    @property
    def seed_quote(self) -> str | None:
        m = SEED_SOURCE.match(self.source)
        return m.group("quote") if m else None


class MisconceptionFile(_Strict):
    """rubrics/misconceptions/<round>.yaml."""

    round: RoundId
    also: list[RoundId] = Field(
        default_factory=list,
        description="other rounds whose own entries apply here too (a project answer can assert a concept error)",
    )
    misconceptions: list[Misconception] = Field(min_length=1)

    @model_validator(mode="after")
    def _ids_unique(self) -> MisconceptionFile:
        ids = [m.id for m in self.misconceptions]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(f"duplicate misconception ids: {dup}")
        if self.round in self.also:
            raise ValueError(f"also names the file's own round {self.round!r}")
        return self


class MisconceptionMarkers(_Strict):
    """rubrics/misconceptions/markers.yaml: what every entry shares (see the module docstring)."""

    clause_split: str = Field(min_length=1, description="regex: where a sentence splits into clauses")
    negation: list[str] = Field(min_length=1)
    correction: list[str] = Field(min_length=1)
    question: list[str] = Field(min_length=1)
    affirmation: list[str] = Field(
        default_factory=list,
        description="how a reply opens when it says yes to its question ('Yes, basically.', '对。')",
    )
    hedge: list[str] = Field(
        default_factory=list, description="in that opening sentence: the yes is qualified ('yes and no', '看情况')"
    )

    @field_validator("negation", "correction", "question", "affirmation", "hedge")
    @classmethod
    def _terms_compile(cls, v: list[str]) -> list[str]:
        check_regex_terms(v)
        return v

    @field_validator("clause_split")
    @classmethod
    def _compiles(cls, v: str) -> str:
        try:
            re.compile(v)
        except re.error as e:
            raise ValueError(f"clause_split is not a valid regex: {e}") from e
        return v
