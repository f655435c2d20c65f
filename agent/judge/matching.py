"""Sentence spans and cue matching: the embedded judge's eyes.

Every quote a match returns is a verbatim slice of the answer, so it passes the same
verification a model's quote must pass.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from agent.rubric.model import Cues

_SPLIT = re.compile(r"(?<=[。！？；!?;\n])|(?<=\.)(?=\s)")


_INVISIBLE = re.compile(
    r"[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"
)
_CONFUSABLES = str.maketrans(
    "АВЕКМНОРСТХаеорсухіјѕԁɡΑΒΕΖΗΙΚΜΝΟΡΤΥΧαοινρτυχ",
    "ABEKMHOPCTXaeopcyxijsdgABEZHIKMNOPTYXaoivptux",
)


def fold(text: str) -> str:
    """What cue terms are matched against: NFKC (full-width letters become ASCII), invisible and control
    characters removed, Cyrillic and Greek look-alikes mapped to Latin, lowercased. Spans and quotes
    stay those of the original text; only matching reads the folded form."""
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).translate(_CONFUSABLES).lower()


@dataclass(frozen=True)
class Sentence:
    idx: int
    start: int
    end: int
    text: str
    lower: str
    turn: int = 0
    """Which answer of the round the sentence belongs to (a cue window never spans two)."""
    question: str = ""
    """The question that answer replies to, lowercased: it may supply an item's subject."""


def sentences(
    text: str,
    *,
    start: int = 0,
    end: int | None = None,
    turn: int = 0,
    question: str = "",
    first_idx: int = 0,
) -> list[Sentence]:
    """Split `text[start:end]` into sentences with their spans in `text` (decimals and paths stay whole)."""
    out: list[Sentence] = []
    pos = start
    stop = len(text) if end is None else end
    q = fold(question)
    for piece in _SPLIT.split(text[start:stop]):
        if piece is None:
            continue
        a, b = pos, pos + len(piece)
        pos = b
        stripped = piece.strip()
        if not stripped:
            continue
        lead = len(piece) - len(piece.lstrip())
        s = a + lead
        e = s + len(stripped)
        out.append(Sentence(first_idx + len(out), s, e, text[s:e], fold(text[s:e]), turn, q))
    return out


class Term:
    """One cue term: a lowercase substring, or a regex written as /…/."""

    __slots__ = ("pattern", "raw", "sub")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        if len(raw) > 2 and raw.startswith("/") and raw.endswith("/"):
            source = unicodedata.normalize("NFKC", raw[1:-1])  # it reads folded text
            self.pattern: re.Pattern[str] | None = re.compile(source, re.IGNORECASE)
            self.sub = ""
        else:
            self.pattern = None
            self.sub = fold(raw)

    def search(self, lower: str) -> bool:
        if self.pattern is not None:
            return self.pattern.search(lower) is not None
        return self.sub in lower


@lru_cache(maxsize=4096)
def compile_terms(terms: tuple[str, ...]) -> tuple[Term, ...]:
    return tuple(Term(t) for t in terms)


_LEADING_FLAGS = re.compile(r"\(\?([aiLmsux]+)\)")


@lru_cache(maxsize=4096)
def term_set(terms: tuple[str, ...]) -> tuple[tuple[str, ...], re.Pattern[str] | None]:
    """`terms` split for speed: the folded substrings, and every /…/ term joined into one pattern
    (None when there is none, or when they cannot be joined: each is then searched on its own)."""
    subs = tuple(
        dict.fromkeys(fold(t) for t in terms if not (len(t) > 2 and t.startswith("/") and t.endswith("/")))
    )
    parts: list[str] = []
    for raw in terms:
        if len(raw) > 2 and raw.startswith("/") and raw.endswith("/"):
            src = unicodedata.normalize("NFKC", raw[1:-1])
            m = _LEADING_FLAGS.match(src)
            if m:  # a leading (?a) applies to that term only
                src = f"(?{m.group(1)}:{src[m.end() :]})"
            parts.append(f"(?:{src})")
    if not parts:
        return subs, None
    try:
        return subs, re.compile("|".join(parts), re.IGNORECASE)
    except re.error:
        return subs, None


def any_term(lower: str, terms: Iterable[str]) -> bool:
    key = tuple(terms)
    subs, joined = term_set(key)
    if any(sub in lower for sub in subs):
        return True
    if joined is not None:
        return joined.search(lower) is not None
    return any(t.search(lower) for t in compile_terms(key) if t.pattern is not None)


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
    A window never spans a sentence missing from `sents` (e.g. one dropped as an injection), nor
    two answers. An answer is read with its question: when the window itself matches at least one
    group, the question it replies to may supply one more (the subject a follow-up answer leaves
    unsaid: "No, smaller ones waste less tail memory" to "Is a smaller block size always better?").
    """
    groups = [tuple(g) for g in cues.groups]
    per_sentence = [[any_term(s.lower, g) for g in groups] for s in sents]
    asked: dict[str, list[bool]] = {}
    for s in sents:
        if s.question and s.question not in asked:
            asked[s.question] = [any_term(s.question, g) for g in groups]
    best = CueMatch(0, cues.required, None)
    for i in range(len(sents)):
        for w in range(1, window + 1):
            j = i + w
            if (
                j > len(sents)
                or sents[j - 1].idx - sents[i].idx != w - 1
                or sents[j - 1].turn != sents[i].turn
            ):
                break
            own = [any(per_sentence[m][k] for m in range(i, j)) for k in range(len(groups))]
            hits = sum(own)
            q = asked.get(sents[i].question)
            if (
                q is not None
                and hits
                and len(groups) > 1
                and any(q[k] and not own[k] for k in range(len(groups)))
            ):
                hits += 1
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
