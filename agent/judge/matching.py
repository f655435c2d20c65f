"""Sentence spans and cue matching: the embedded judge's eyes.

Every quote a match returns is a verbatim slice of the answer, so it passes the same
verification a model's quote must pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from agent.rubric.model import Cues

_SPLIT = re.compile(r"(?<=[。！？；!?;\n])|(?<=\.)(?=\s)")


@dataclass(frozen=True)
class Sentence:
    idx: int
    start: int
    end: int
    text: str
    lower: str


def sentences(text: str) -> list[Sentence]:
    """Split an answer into sentences with their character spans (decimals and paths stay whole)."""
    out: list[Sentence] = []
    pos = 0
    for piece in _SPLIT.split(text):
        if piece is None:
            continue
        start, end = pos, pos + len(piece)
        pos = end
        stripped = piece.strip()
        if not stripped:
            continue
        lead = len(piece) - len(piece.lstrip())
        s = start + lead
        e = s + len(stripped)
        out.append(Sentence(len(out), s, e, text[s:e], text[s:e].lower()))
    return out


class Term:
    """One cue term: a lowercase substring, or a regex written as /…/."""

    __slots__ = ("pattern", "raw", "sub")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        if len(raw) > 2 and raw.startswith("/") and raw.endswith("/"):
            self.pattern: re.Pattern[str] | None = re.compile(raw[1:-1], re.IGNORECASE)
            self.sub = ""
        else:
            self.pattern = None
            self.sub = raw.lower()

    def search(self, lower: str) -> bool:
        if self.pattern is not None:
            return self.pattern.search(lower) is not None
        return self.sub in lower


@lru_cache(maxsize=4096)
def compile_terms(terms: tuple[str, ...]) -> tuple[Term, ...]:
    return tuple(Term(t) for t in terms)


def any_term(lower: str, terms: Iterable[str]) -> bool:
    return any(t.search(lower) for t in compile_terms(tuple(terms)))


def first_term(lower: str, terms: Iterable[str]) -> str | None:
    for t in compile_terms(tuple(terms)):
        if t.search(lower):
            return t.raw
    return None


@dataclass(frozen=True)
class CueMatch:
    matched: int
    required: int
    quote: str | None
    start: int | None = None

    @property
    def found(self) -> bool:
        return self.matched >= self.required


def match_cues(cues: Cues, text: str, sents: Sequence[Sentence], window: int = 2) -> CueMatch:
    """Best window of up to `window` consecutive sentences by the number of cue groups it matches.

    The quote is the window's verbatim slice of `text`. Ties go to the earliest, shortest window.
    A window never spans a sentence missing from `sents` (e.g. one dropped as an injection).
    """
    groups = [compile_terms(tuple(g)) for g in cues.groups]
    per_sentence = [[any(t.search(s.lower) for t in g) for g in groups] for s in sents]
    best = CueMatch(0, cues.required, None)
    for i in range(len(sents)):
        for w in range(1, window + 1):
            j = i + w
            if j > len(sents) or sents[j - 1].idx - sents[i].idx != w - 1:
                break
            hits = sum(1 for k in range(len(groups)) if any(per_sentence[m][k] for m in range(i, j)))
            if hits > best.matched:
                best = CueMatch(hits, cues.required, text[sents[i].start : sents[j - 1].end], sents[i].start)
            if best.matched == len(groups):
                return best
    return best


_WS = re.compile(r"\s+")


def normalise_ws(s: str) -> str:
    return _WS.sub(" ", s).strip()


def quote_in(quote: str, answer: str) -> bool:
    """True when `quote` occurs verbatim in `answer`, whitespace aside (the rule for every quote)."""
    q = normalise_ws(quote)
    return bool(q) and q in normalise_ws(answer)
