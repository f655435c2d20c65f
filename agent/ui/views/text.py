"""Small pieces every view uses: user or model text made safe for Markdown and HTML, the colon
after a label (`agent.util.messages`: `colon`, `bold_label`, `labelled`), titles of rounds and dimensions by
id, a clock."""

from __future__ import annotations

import html

from agent.rubric.loader import Rubric
from agent.rubric.model import Lang
from agent.util.messages import bold_label, colon, labelled

__all__ = [
    "MISSING_SHOWN",
    "bold_label",
    "clock",
    "colon",
    "cut",
    "dim_title",
    "labelled",
    "md_text",
    "round_title",
    "safe_md",
]

MISSING_SHOWN = 6
"""Missing-evidence items listed openly; the rest fold away."""


def safe_md(text: str) -> str:
    """User or model text made safe inside Markdown table cells and HTML."""
    return html.escape(" ".join(text.split())).replace("|", "&#124;")


def md_text(text: str) -> str:
    """User text as a line of an exported Markdown file: on one line, tags and entities neutralised (a
    viewer that renders HTML shows them as text) but apostrophes and quotes left as typed ("don't", not
    "don&#x27;t", which is what a reader of the file saw)."""
    return html.escape(" ".join(text.split()), quote=False)


def cut(text: str, n: int) -> str:
    """`text` on one line, cut to `n` characters (an ellipsis ends a cut text)."""
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def round_title(rubric: Rubric, round_id: str | None, lang: Lang) -> str:
    if not round_id:
        return "—"
    try:
        return rubric.round(round_id).title.get(lang)
    except KeyError:
        return round_id


def dim_title(rubric: Rubric, dim: str, lang: Lang) -> str:
    spec = rubric.dimensions.get(dim)  # type: ignore[call-overload]
    return spec.title.get(lang) if spec else dim


def clock(seconds: float) -> str:
    s = max(0, int(seconds))
    return f"{s // 60:02d}:{s % 60:02d}"
