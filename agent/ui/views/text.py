"""Small pieces every view uses: user or model text made safe for Markdown and HTML, the colon
after a label (`agent.util.messages`: `colon`, `bold_label`, `labelled`), titles of rounds and dimensions by
id, a clock."""

from __future__ import annotations

import html
import re

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
    "html_lines",
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


_MD_ACTIVE = re.compile(r"\\(?=[<&])|<(?=[A-Za-z/!?])|&(?=#?\w+;)")
"""What a Markdown viewer would not show as typed: a tag's or an autolink's opening `<`, an entity's `&`, and
a backslash before either."""


def md_text(text: str) -> str:
    """User text as a line of an exported Markdown file, as typed: on one line, with a backslash only before
    what a viewer would otherwise read as a tag or an entity (`\\<script>`, `\\&lt;`), so "a -> b", "x < 4"
    and "don't" read as the candidate wrote them (a tester read "-&gt;" and "&lt;" in the file)."""
    return _MD_ACTIVE.sub(lambda m: "\\" + m.group(0), " ".join(text.split()))


def html_lines(text: str) -> str:
    """User or model text inside HTML with its line breaks kept (`<br>`), each line made safe as `safe_md`
    does; runs of blank lines become one."""
    out: list[str] = []
    for line in text.strip().splitlines():
        safe = safe_md(line)
        if safe or (out and out[-1]):
            out.append(safe)
    return "<br>".join(out)


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
