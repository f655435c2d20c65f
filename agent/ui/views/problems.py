"""What is wrong with a file's structure (a report or a transcript refused by its contract), said in the
reader's language: pydantic's errors by their type, each at its place in the file (the file's own keys),
never pydantic's English (issue 12: Review showed "rounds.0.scores.accuracy: Input should be less than or
equal to 5" in a Chinese interface)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent.rubric.model import ROUND_IDS, Lang
from agent.util.messages import enumerated, listed, t

SHOWN = 3
"""The problems said; the rest counted."""

_BY_TYPE = {
    "missing": "missing",
    "literal_error": "literal",
    "greater_than_equal": "min",
    "greater_than": "above",
    "less_than_equal": "max",
    "less_than": "below",
    "too_short": "too_short",
    "too_long": "too_long",
    "no_answer": "no_answer",
    "answer_too_long": "answer_too_long",
    "answer_nul": "answer_nul",
    "extra_forbidden": "extra",
}
"""pydantic's error type → ui.problem.<key> (messages/ui.yaml); a type not here is said by its kind: a value
of the wrong type, or an invalid one."""


def _where(loc: Sequence[Any]) -> str:
    return ".".join(str(p) for p in loc) or "—"


def problem_text(err: Mapping[str, Any], lang: Lang) -> str:
    """One of pydantic's errors (`loc`, `type`, `ctx`, `input`) in `lang`."""
    kind = str(err.get("type", ""))
    ctx = dict(err.get("ctx") or {})
    where = _where(err.get("loc") or ())
    key = _BY_TYPE.get(kind)
    if kind == "literal_error" and err.get("loc") and err["loc"][-1] == "round":
        return t("ui.problem.round", lang, where=where, got=repr(err.get("input")), known=", ".join(ROUND_IDS))
    if key is None:
        key = "type" if kind.endswith(("_type", "_parsing")) else "invalid"
    fields: dict[str, object] = {"where": where}
    if key == "literal":  # pydantic's "'embedded' or 'vllm'": the values, listed as `lang` lists them
        expected = str(ctx.get("expected", ""))
        fields["expected"] = enumerated(re.findall(r"'[^']*'", expected), lang) or expected
    elif key in ("min", "max", "above", "below"):
        fields["limit"] = next((ctx[k] for k in ("ge", "gt", "le", "lt") if k in ctx), "")
    elif key in ("too_short", "too_long"):
        fields["limit"] = ctx.get("min_length", ctx.get("max_length", ""))
    elif key in ("no_answer", "answer_too_long", "answer_nul"):  # the transcript's own: its fields as raised
        fields.update(ctx)
    return t(f"ui.problem.{key}", lang, **fields)


def problems_text(errors: Sequence[Mapping[str, Any]], lang: Lang) -> str:
    """The first `SHOWN` of a file's problems in `lang`, the rest counted."""
    said = [problem_text(e, lang) for e in errors[:SHOWN]]
    more = len(errors) - SHOWN
    return listed(said, lang) + (t("ui.problem.more", lang, n=more) if more > 0 else "")
