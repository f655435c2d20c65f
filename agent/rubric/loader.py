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
from agent.rubric.lexicon import Lexicon
from agent.rubric.misconception import Misconception, MisconceptionFile, MisconceptionMarkers
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

# libyaml's parser when the wheel has it: the same documents as yaml.safe_load, about six times faster
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class RubricError(ValueError):
    """A rubric file is missing, not YAML, or does not match the schema. The message names file and key."""


def _read_yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise RubricError(f"{path}: file is missing") from e
    try:
        return yaml.load(text, Loader=_SafeLoader)
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
    lexicon: Lexicon
    version: str
    common: Common = field(default_factory=Common)
    misconception_catalogue: dict[RoundId, list[Misconception]] = field(default_factory=dict)
    """Each round's own entries; `misconceptions(round_id)` adds the rounds its file names in `also`."""
    misconception_also: dict[RoundId, list[RoundId]] = field(default_factory=dict)
    misconception_markers: MisconceptionMarkers | None = None

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

    def misconceptions(self, round_id: str) -> list[Misconception]:
        """The round's catalogue of wrong claims (rubrics/misconceptions/<round>.yaml), then those of
        the rounds its file names in `also`."""
        rid = self.round(round_id).id  # an unknown round is a KeyError naming the known ones
        out = list(self.misconception_catalogue.get(rid, []))
        for other in self.misconception_also.get(rid, []):
            out.extend(self.misconception_catalogue.get(other, []))
        return out


def _version(root: Path) -> str:
    """A hash of every rubric file's bytes (subfolders such as misconceptions/ included), in path order:
    the rubric version a report cites."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.yaml")):
        h.update(p.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return "rubric-" + h.hexdigest()[:12]


@dataclass(frozen=True)
class MisconceptionCatalogue:
    entries: dict[RoundId, list[Misconception]]
    also: dict[RoundId, list[RoundId]]
    markers: MisconceptionMarkers


def load_misconceptions(root: Path) -> MisconceptionCatalogue:
    """rubrics/misconceptions/: one file a round plus markers.yaml; errors name the file and the entry."""
    folder = root / "misconceptions"
    markers_path = folder / "markers.yaml"
    markers = _validate(MisconceptionMarkers, _read_yaml(markers_path), markers_path)
    catalogue: dict[RoundId, list[Misconception]] = {}
    also: dict[RoundId, list[RoundId]] = {}
    for rid in ROUND_IDS:
        p = folder / f"{rid}.yaml"
        data = _read_yaml(p)
        if not isinstance(data, dict) or not isinstance(data.get("misconceptions"), list):
            raise RubricError(f"{p}: misconceptions: expected a list under the key 'misconceptions'")
        for i, entry in enumerate(data["misconceptions"]):
            eid = entry.get("id") if isinstance(entry, dict) else None
            where = f"misconceptions[{i}]" + (f" (id {eid!r})" if eid else "")
            _validate(Misconception, entry, p.with_name(f"{p.name}: {where}"))
        f = _validate(MisconceptionFile, data, p)
        if f.round != rid:
            raise RubricError(f"{p}: round: says {f.round!r} but the file is for {rid!r}")
        catalogue[rid] = f.misconceptions
        also[rid] = f.also
    for rid, others in also.items():
        ids = [m.id for r in (rid, *others) for m in catalogue[r]]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            p = folder / f"{rid}.yaml"
            raise RubricError(f"{p}: also: ids {dup} occur both here and in {others}")
    return MisconceptionCatalogue(catalogue, also, markers)


def load_lexicon(root: Path | None = None) -> Lexicon:
    """rubrics/lexicon.yaml: the term lists, scoring policy and messages the checks and scoring read
    (agent/rubric/lexicon.py); a key it may not hold or a value of the wrong type names the file and the key."""
    lex_path = (root or repo_root() / "rubrics") / "lexicon.yaml"
    return _validate(Lexicon, _read_yaml(lex_path), lex_path)


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
    mis = load_misconceptions(root)
    return Rubric(
        root=root,
        dimensions=dims,
        rounds=rounds,
        narrative=narrative,
        lexicon=lexicon,
        version=_version(root),
        common=common,
        misconception_catalogue=mis.entries,
        misconception_also=mis.also,
        misconception_markers=mis.markers,
    )


@lru_cache(maxsize=4)
def default_rubric() -> Rubric:
    return load_rubric()
