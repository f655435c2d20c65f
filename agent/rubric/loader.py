"""Load rubrics/ into validated models; errors name the file and the key."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from agent.config import repo_root
from agent.rubric.model import (
    DIMENSIONS,
    ROUND_IDS,
    Common,
    Dimension,
    DimensionSpec,
    EvidenceItem,
    Narrative,
    Round,
    RoundId,
    Signal,
)

M = TypeVar("M", bound=BaseModel)


class RubricError(ValueError):
    """A rubric file is missing, not YAML, or does not match the schema. The message names file and key."""


def _read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise RubricError(f"{path}: file is missing") from e
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise RubricError(f"{path}: not valid YAML: {e}") from e


def _validate(model: type[M], data: Any, path: Path) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as e:
        lines = []
        for err in e.errors():
            key = ".".join(str(p) for p in err["loc"]) or "(top level)"
            lines.append(f"{path}: {key}: {err['msg']}")
        raise RubricError("\n".join(lines)) from e


@dataclass(frozen=True)
class Rubric:
    """The whole rubric: dimensions, rounds (with the common items merged in), narrative, lexicon."""

    root: Path
    dimensions: dict[Dimension, DimensionSpec]
    rounds: dict[RoundId, Round]
    narrative: Narrative
    lexicon: dict[str, Any]
    version: str
    common: Common = field(default_factory=Common)

    def round(self, round_id: str) -> Round:
        if round_id not in self.rounds:
            raise KeyError(f"unknown round {round_id!r}; known rounds: {', '.join(self.rounds)}")
        return self.rounds[round_id]

    def evidence(self, round_id: str) -> list[EvidenceItem]:
        r = self.round(round_id)
        return [*r.evidence, *(self.common.evidence if r.include_common else [])]

    def strong_signals(self, round_id: str) -> list[Signal]:
        r = self.round(round_id)
        return [*r.strong_signals, *(self.common.strong_signals if r.include_common else [])]

    def weak_signals(self, round_id: str) -> list[Signal]:
        r = self.round(round_id)
        return [*r.weak_signals, *(self.common.weak_signals if r.include_common else [])]


def _version(root: Path) -> str:
    """A hash of every rubric file's bytes, in path order: the rubric version a report cites."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.yaml")):
        h.update(p.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return "rubric-" + h.hexdigest()[:12]


def load_lexicon(root: Path | None = None) -> dict[str, Any]:
    """rubrics/lexicon.yaml: the term lists and scoring policy the deterministic checks read."""
    lex_path = (root or repo_root() / "rubrics") / "lexicon.yaml"
    lexicon = _read_yaml(lex_path)
    if not isinstance(lexicon, dict):
        raise RubricError(f"{lex_path}: expected a mapping of lexicon names to term lists")
    return lexicon


def load_rubric(root: Path | None = None) -> Rubric:
    root = root or repo_root() / "rubrics"
    if not root.is_dir():
        raise RubricError(f"{root}: rubric folder is missing")
    dims_path = root / "dimensions.yaml"
    dims_data = _read_yaml(dims_path)
    if not isinstance(dims_data, dict) or not isinstance(dims_data.get("dimensions"), list):
        raise RubricError(f"{dims_path}: dimensions: expected a list under the key 'dimensions'")
    dims: dict[Dimension, DimensionSpec] = {}
    for i, d in enumerate(dims_data["dimensions"]):
        spec = _validate(DimensionSpec, d, dims_path.with_name(f"dimensions.yaml[dimensions.{i}]"))
        dims[spec.id] = spec
    missing = [d for d in DIMENSIONS if d not in dims]
    if missing:
        raise RubricError(f"{dims_path}: dimensions: missing {missing}")

    common_path = root / "common.yaml"
    common = _validate(Common, _read_yaml(common_path), common_path) if common_path.exists() else Common()

    rounds: dict[RoundId, Round] = {}
    for rid in ROUND_IDS:
        p = root / "rounds" / f"{rid}.yaml"
        r = _validate(Round, _read_yaml(p), p)
        if r.id != rid:
            raise RubricError(f"{p}: id: says {r.id!r} but the file is for {rid!r}")
        rounds[rid] = r
    nar_path = root / "narrative.yaml"
    narrative = _validate(Narrative, _read_yaml(nar_path), nar_path)
    lexicon = load_lexicon(root)
    return Rubric(
        root=root,
        dimensions=dims,
        rounds=rounds,
        narrative=narrative,
        lexicon=lexicon,
        version=_version(root),
        common=common,
    )


@lru_cache(maxsize=4)
def default_rubric() -> Rubric:
    return load_rubric()
