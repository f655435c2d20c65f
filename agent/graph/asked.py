"""What the interviewer already asked in the round under way, and whether a question is one of them.

A question counts as asked when an interviewer turn of the round says it: the same words (case, spacing
and punctuation aside), the question with the interviewer's own words around it, or close enough in its
words (`same_question`). The suggestions `choose` offers (agent/graph/nodes.py) leave those out, the
round's opening question included, and `followups.chosen` takes a question close to one of the
suggestions on offer as that suggestion, asked in the interviewer's own words (`picked`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from agent.graph.state import Suggestion

CLOSE = 0.65
"""Shared words (Dice coefficient of `_words`) from which two questions are one question. The rubric's
distinct questions and follow-ups of a round stay below it (tests/graph/test_asked.py checks them all)."""
EDITED = 0.3
"""Shared words from which a question the interviewer edited from the suggestion they picked still asks it:
below `CLOSE`, as Chinese, compared by pairs of characters, moves further from its suggestion than English
does for the same edit (a rewording keeping the same few terms)."""
_CONTAINED = 12
"""A question at least this long (normalised), found whole inside a longer one, is asked by it."""

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[^\W_]+")
# words every English question has: they say nothing about which question it is
_FILLER = frozenset(
    word
    for words in (
        "a an the and or but of to in on at for by with from as is are was were be been do does",
        "did you your yours it its this that these those what which who how why when where would",
        "could should can will i we me my our so then there their they them if not no any some",
    )
    for word in words.split()
)


def said(text: str) -> str:
    """The text as compared: width and case folded, punctuation and spacing gone."""
    return "".join(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def _words(text: str) -> set[str]:
    """What a question says: its English words but the filler ones, and each pair of Chinese characters
    in a row (a lone character alone)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    out: set[str] = set()
    for run in _CJK.findall(folded):
        out |= {run[k : k + 2] for k in range(len(run) - 1)} if len(run) > 1 else {run}
    rest = _CJK.sub(" ", folded)
    out |= {_stem(w) for w in _WORD.findall(rest) if w not in _FILLER}
    return out


def _stem(word: str) -> str:
    """An English word without the ending that changes when a question is put another way."""
    for end in ("ing", "ed", "es", "s"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[: -len(end)]
    return word


def closeness(a: str, b: str) -> float:
    """How much of their words two questions share, from 0 to 1."""
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return 0.0
    return 2 * len(wa & wb) / (len(wa) + len(wb))


def same_question(a: str, b: str) -> bool:
    """Whether the two texts ask one question: the same words, one inside the other, or close in words."""
    sa, sb = said(a), said(b)
    if not sa or not sb:
        return False
    if sa == sb:
        return True
    short, long_ = sorted((sa, sb), key=len)
    if len(short) >= _CONTAINED and short in long_:
        return True
    return closeness(a, b) >= CLOSE


def interviewer_turns(tr: dict[str, Any]) -> list[str]:
    """The texts the interviewer said in the round (its opening question first)."""
    return [t["text"] for t in tr.get("turns", []) if t.get("role") == "interviewer"]


def asked_already(text: str, asked: Iterable[str]) -> bool:
    return any(same_question(text, a) for a in asked)


def not_asked(suggestions: Sequence[Suggestion], tr: dict[str, Any]) -> list[Suggestion]:
    """The suggestions no interviewer turn of the round has asked yet, in their order."""
    asked = interviewer_turns(tr)
    return [s for s in suggestions if not asked_already(s["text"], asked)]


def picked(offer: Sequence[Suggestion], text: str, *, started_from: str | None = None) -> Suggestion | None:
    """The suggestion on offer that the interviewer's question asks: its very words first, then the one they
    picked and edited into it (`started_from`) while it still shares some of its words (`EDITED`), else the
    one closest to it, when it is close enough (`same_question`); None for a question of their own."""
    target = said(text)
    for s in offer:
        if said(s["text"]) == target:
            return s
    start = said(started_from or "")
    for s in offer:
        if start and said(s["text"]) == start and closeness(s["text"], text) >= EDITED:
            return s
    near = [s for s in offer if same_question(s["text"], text)]
    return max(near, key=lambda s: closeness(s["text"], text), default=None)
