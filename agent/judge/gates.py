"""Gates: the seed's rules that bound scores, whatever the judge. Each rule named in a round's
`gates:` list (rubrics/rounds/*.yaml) is a function here; flags act through `flag_effects` in
rubrics/lexicon.yaml.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from agent.contracts.checklist import Checklist
from agent.contracts.report import JudgeNote
from agent.judge.notes import lexicon_note
from agent.rubric.lexicon import FlagEffect, FlagTarget, Messages
from agent.rubric.model import DIMENSIONS, Dimension, Flag, Gate, Lang


@dataclass
class Bounds:
    """Caps and deductions collected before they are applied, each with the name of its rule."""

    caps: dict[Dimension, list[tuple[int, str]]] = field(default_factory=lambda: {d: [] for d in DIMENSIONS})
    minus: dict[Dimension, list[tuple[int, str]]] = field(default_factory=lambda: {d: [] for d in DIMENSIONS})
    notes: list[JudgeNote] = field(default_factory=list)
    pass_rule: tuple[Dimension, int] | None = None
    senior_rule: tuple[list[Dimension], int] | None = None

    def cap(self, dim: Dimension | str, value: int, why: str) -> None:
        dims = DIMENSIONS if dim == "all" else (dim,)
        for d in dims:
            self.caps[d].append((value, why))  # type: ignore[index]

    def take(self, dim: Dimension, value: int, why: str) -> None:
        self.minus[dim].append((value, why))

    def apply(self, dim: Dimension, score: int) -> tuple[int, list[str]]:
        applied: list[str] = []
        for value, why in self.minus[dim]:
            new = max(1, score - value)
            if new != score:
                applied.append(f"{why} (-{score - new})")
            score = new
        for value, why in self.caps[dim]:
            if score > value:
                score = value
                applied.append(f"{why} (≤{value})")
        return score, applied

    def upper(self, dim: Dimension) -> int:
        return min([5, *(v for v, _ in self.caps[dim])])


@dataclass(frozen=True)
class GateContext:
    checklist: Checklist
    flags: set[Flag]
    lang: Lang
    messages: Messages


GateFn = Callable[[Gate, GateContext, Bounds], None]
_RULES: dict[str, GateFn] = {}


def rule(name: str) -> Callable[[GateFn], GateFn]:
    def deco(fn: GateFn) -> GateFn:
        _RULES[name] = fn
        return fn

    return deco


def _ids(g: Gate, key: str) -> list[str]:
    v = g.params.get(key, [])
    return [str(x) for x in v] if isinstance(v, list) else [str(v)]


def _int(g: Gate, key: str, default: int) -> int:
    v = g.params.get(key, default)
    return int(v) if isinstance(v, (int, float, str)) else default


@rule("happy_path_cap")
def _happy_path(g: Gate, ctx: GateContext, b: Bounds) -> None:
    if "happy_path_only" in ctx.flags:
        b.cap("all", _int(g, "cap", 3), "happy_path_cap")


def pass_min(g: Gate) -> tuple[Dimension, int]:
    """A `pass_min` gate's rule: the round passes only with this dimension at least this score."""
    return (str(g.params.get("dimension", "evidence")), _int(g, "min", 3))  # type: ignore[return-value]


def pass_rule(gates: list[Gate]) -> tuple[Dimension, int] | None:
    """The pass rule of a round's gates (its last `pass_min`, as scoring applies them), None without one: what a
    report's pass line is decided by again when a human overrode the dimension it reads."""
    rules = [pass_min(g) for g in gates if g.rule == "pass_min"]
    return rules[-1] if rules else None


@rule("pass_min")
def _pass_min(g: Gate, ctx: GateContext, b: Bounds) -> None:
    b.pass_rule = pass_min(g)


@rule("accuracy5_requires")
def _accuracy5(g: Gate, ctx: GateContext, b: Bounds) -> None:
    need = _ids(g, "evidence")
    if need and not set(need) <= ctx.checklist.covered():
        b.cap("accuracy", 4, "accuracy5_requires")


@rule("unit_error_cap")
def _unit_error(g: Gate, ctx: GateContext, b: Bounds) -> None:
    if "unit_error" in ctx.flags:
        b.cap("accuracy", _int(g, "cap", 2), "unit_error_cap")


@rule("slip_allows")
def _slip(g: Gate, ctx: GateContext, b: Bounds) -> None:
    cap = ctx.checklist.checks.capacity
    if cap is not None and cap.verdict == "slip":
        b.cap("accuracy", _int(g, "cap", 4), "slip_allows")


@rule("senior_min")
def _senior(g: Gate, ctx: GateContext, b: Bounds) -> None:
    dims = [d for d in _ids(g, "dimensions") if d in DIMENSIONS]
    b.senior_rule = (dims, _int(g, "min", 4))


@rule("design_without_cap")
def _design(g: Gate, ctx: GateContext, b: Bounds) -> None:
    need = _ids(g, "requires")
    if need and not set(need) <= ctx.checklist.covered():
        b.cap("all", _int(g, "cap", 3), "design_without_cap")


@rule("lifecycle_for_5")
def _lifecycle(g: Gate, ctx: GateContext, b: Bounds) -> None:
    dim = str(g.params.get("dimension", "validation"))
    stages = _ids(g, "stages")
    ids = {f"lifecycle-{s}" for s in stages}
    if not ids <= ctx.checklist.covered():
        b.cap(dim, 4, "lifecycle_for_5")


@rule("ask_for_inputs")
def _ask(g: Gate, ctx: GateContext, b: Bounds) -> None:
    need = _ids(g, "evidence")
    asked = bool(set(need) & ctx.checklist.covered()) or ctx.checklist.checks.asked_for_inputs
    if not asked:
        b.cap("communication", _int(g, "cap", 3), "ask_for_inputs")
        m = ctx.messages
        b.notes.append(lexicon_note("no_inputs_asked", m.no_inputs_asked, to_candidate=m.no_inputs_asked_to_candidate))


def known_rules() -> list[str]:
    return sorted(_RULES)


def apply_gates(
    gates: list[Gate], ctx: GateContext, flag_effects: dict[Flag, dict[FlagTarget, FlagEffect]], b: Bounds
) -> None:
    """Collect every bound: the round's gates, then each raised flag's effect."""
    for g in gates:
        fn = _RULES.get(g.rule)
        if fn is None:
            raise ValueError(
                f"gate rule {g.rule!r} is not implemented; known rules: {', '.join(known_rules())}"
            )
        fn(g, ctx, b)
    for flag in sorted(ctx.flags):
        for dim, eff in (flag_effects.get(flag) or {}).items():
            if eff.rounds is not None and ctx.checklist.round not in eff.rounds:
                continue
            targets: tuple[Dimension, ...] = DIMENSIONS if dim == "all" else (dim,)
            for d in targets:
                if eff.minus is not None:
                    b.take(d, eff.minus, flag)
                if eff.cap is not None:
                    b.cap(d, eff.cap, flag)
