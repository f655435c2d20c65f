"""Sentence spans and cue matching: the embedded judge's eyes.

Every quote a match returns is a verbatim slice of the answer, so it passes the same
verification a model's quote must pass.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from agent.rubric.model import Cues

_SPLIT = re.compile(r"(?<=[。！？；!?;\n])|(?<=\.)(?<![eE]\.g\.)(?<![iI]\.e\.)(?<!etc\.)(?<!vs\.)(?=\s)")
"""Sentence ends; not after "e.g.", "i.e.", "etc.", "vs." (a quote cut at "(e.g." shows half a thought)."""
#: unpunctuated Chinese, as speech-to-text writes it ("共享的 因为 LoRA 不改 base 权重"): a space between two
#: Chinese characters is a pause, so a clause boundary; text with any Chinese punctuation keeps its sentences
_PAUSE = re.compile(r"(?<=[\u4e00-\u9fff])(?=\s+[\u4e00-\u9fff])")
_PUNCTUATED = re.compile(r"[，、：；。！？,:]")
_UNPUNCTUATED_MIN = 40


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


def _pieces(text: str) -> list[str]:
    """`text` cut into sentences (their whitespace kept, so the pieces join back to `text`)."""
    out: list[str] = []
    for piece in _SPLIT.split(text):
        body = piece.rstrip()[:-1]  # its own closing mark aside
        if len(piece) >= _UNPUNCTUATED_MIN and not _PUNCTUATED.search(body) and _PAUSE.search(piece):
            out.extend(_PAUSE.split(piece))
        else:
            out.append(piece)
    return out


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
    for piece in _pieces(text[start:stop]):
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


def _is_regex(raw: str) -> bool:
    """A cue term written as /…/ is a regular expression; any other is a substring."""
    return len(raw) > 2 and raw.startswith("/") and raw.endswith("/")


class Term:
    """One cue term: a lowercase substring, or a regex written as /…/."""

    __slots__ = ("pattern", "raw", "sub")

    def __init__(self, raw: str) -> None:
        self.raw = raw
        if _is_regex(raw):
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

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where the term matches in `text` (non-empty matches, overlapping substrings included)."""
        if self.pattern is not None:
            return [m.span() for m in self.pattern.finditer(text) if m.end() > m.start()]
        out: list[tuple[int, int]] = []
        i = text.find(self.sub)
        while i >= 0 and self.sub:
            out.append((i, i + len(self.sub)))
            i = text.find(self.sub, i + 1)
        return out


@lru_cache(maxsize=4096)
def compile_terms(terms: tuple[str, ...]) -> tuple[Term, ...]:
    return tuple(Term(t) for t in terms)


_LEADING_FLAGS = re.compile(r"\(\?([aiLmsux]+)\)")
_BACKREF = re.compile(r"\\[1-9]|\(\?P=")


@lru_cache(maxsize=4096)
def term_set(terms: tuple[str, ...]) -> tuple[tuple[str, ...], re.Pattern[str] | None]:
    """`terms` split for speed: the folded substrings, and every /…/ term joined into one pattern
    (None when there is none, or when they cannot be joined: each is then searched on its own)."""
    subs = tuple(dict.fromkeys(fold(t) for t in terms if not _is_regex(t)))
    parts: list[str] = []
    for raw in terms:
        if _is_regex(raw):
            src = unicodedata.normalize("NFKC", raw[1:-1])
            m = _LEADING_FLAGS.match(src)
            if m:  # a leading (?a) applies to that term only
                src = f"(?{m.group(1)}:{src[m.end() :]})"
            parts.append(f"(?:{src})")
    if not parts or any(_BACKREF.search(part) for part in parts):
        return (
            subs,
            None,
        )  # joined, a backreference (\\1) would name another term's group: searched one by one
    try:
        return subs, re.compile("|".join(parts), re.IGNORECASE)
    except re.error:
        return subs, None


_ANCHOR = re.compile(r"(?<![\\\[])\^|(?<!\\)\$|\\[AZ]")


@lru_cache(maxsize=4096)
def anchored(terms: tuple[str, ...]) -> bool:
    """True when a /…/ term of `terms` is anchored to the start or end of the text (^, $, \\A, \\Z):
    such a term may match a sentence and not the same sentence inside a longer text."""
    return any(_is_regex(t) and _ANCHOR.search(t) for t in terms)


def any_term(lower: str, terms: Iterable[str]) -> bool:
    key = tuple(terms)
    subs, joined = term_set(key)
    if any(sub in lower for sub in subs):
        return True
    if joined is not None:
        return joined.search(lower) is not None
    return any(t.search(lower) for t in compile_terms(key) if t.pattern is not None)


@lru_cache(maxsize=4096)
def _by_anchor(terms: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`terms` split in two: those a search over joined sentences can find, and the anchored /…/ ones."""
    tied = tuple(t for t in terms if _is_regex(t) and anchored((t,)))
    return tuple(t for t in terms if t not in tied), tied


def _each(lowers: Sequence[str], terms: tuple[str, ...], mask: int) -> int:
    """`mask` plus the bit of every sentence not yet in it that one of the /…/ `terms` matches, asked alone."""
    _, joined_re = term_set(terms)
    regex = [t for t in compile_terms(terms) if t.pattern is not None]
    for i, low in enumerate(lowers):
        if not mask >> i & 1:
            found = (
                joined_re.search(low) is not None
                if joined_re is not None
                else any(t.search(low) for t in regex)
            )
            if found:
                mask |= 1 << i
    return mask


def sentence_hits(lowers: Sequence[str], terms: Iterable[str]) -> int:
    """A bit per entry of `lowers` (bit i for lowers[i]), set when `any_term(lowers[i], terms)` holds.

    The same answer as asking each sentence, found faster: each substring term is looked up in all the
    sentences joined, and so is each /…/ term: the leftmost match from a sentence's start names the
    first sentence that may hold one of its own, which is then asked alone (a term found in a sentence
    is found at the same place in the join). Terms anchored to the text's ends are asked per sentence.
    """
    free, tied = _by_anchor(tuple(terms))
    subs, joined_re = term_set(free)
    text = "\n".join(lowers)
    starts: list[int] = []
    pos = 0
    for low in lowers:
        starts.append(pos)
        pos += len(low) + 1
    mask = 0
    for sub in subs:
        if not sub or "\n" in sub:
            mask |= sum(1 << i for i, low in enumerate(lowers) if sub in low)
            continue
        at = text.find(sub)
        while at != -1:
            i = bisect_right(starts, at) - 1
            mask |= 1 << i
            if i + 1 >= len(starts):
                break
            at = text.find(sub, starts[i + 1])
    if joined_re is not None:
        at = 0
        while (m := joined_re.search(text, at)) is not None:
            i = bisect_right(starts, m.start()) - 1
            if not mask >> i & 1 and joined_re.search(lowers[i]) is not None:
                mask |= 1 << i
            if i + 1 >= len(starts):
                break
            at = starts[i + 1]
    elif any(_is_regex(t) for t in free):  # the /…/ terms could not be joined into one pattern
        mask = _each(lowers, tuple(t for t in free if _is_regex(t)), mask)
    if tied:
        mask = _each(lowers, tied, mask)
    return mask


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
    """Best window of up to `window` (or the cues' own `window`) consecutive sentences by the number of cue
    groups it matches.

    The quote is the window's verbatim slice of `text`. Ties go to the earliest, shortest window.
    A window never spans a sentence missing from `sents` (e.g. one dropped as an injection), nor
    two answers. An answer is read with its question: when the window itself matches at least one
    group, the question it replies to may supply one more (the subject a follow-up answer leaves
    unsaid: "No, smaller ones waste less tail memory" to "Is a smaller block size always better?"); not for
    cues that are `answer_only`.
    """
    groups = [tuple(g) for g in cues.groups]
    window = cues.window or window
    lowers = [s.lower for s in sents]
    # per sentence, a bit per group it matches
    per_sentence = [0] * len(sents)
    for k, g in enumerate(groups):
        hit = sentence_hits(lowers, g)
        i = 0
        while hit:
            if hit & 1:
                per_sentence[i] |= 1 << k
            hit >>= 1
            i += 1
    asked: dict[str, int] = {}
    for s in sents:
        if s.question and s.question not in asked and not cues.answer_only:
            asked[s.question] = sum(1 << k for k, g in enumerate(groups) if any_term(s.question, g))
    best = CueMatch(0, cues.required, None)
    for i in range(len(sents)):
        own = 0
        for w in range(1, window + 1):
            j = i + w
            if (
                j > len(sents)
                or sents[j - 1].idx - sents[i].idx != w - 1
                or sents[j - 1].turn != sents[i].turn
            ):
                break
            own |= per_sentence[j - 1]
            hits = own.bit_count()
            q = asked.get(sents[i].question)
            if q is not None and hits and len(groups) > 1 and q & ~own:
                hits += 1
            if hits > best.matched:
                best = CueMatch(hits, cues.required, text[sents[i].start : sents[j - 1].end], sents[i].start)
            if best.matched == len(groups):
                return best
    return best


def unprompted(cues: Cues, sents: Sequence[Sentence]) -> list[Sentence]:
    """The sentences of `sents` whose question does not already name `cues.required` of the cues' groups: what
    the candidate said of their own accord, not the reply to a question that asked for exactly that."""
    led: dict[str, bool] = {}
    for s in sents:
        if s.question and s.question not in led:
            q = s.question.lower()
            led[s.question] = sum(1 for g in cues.groups if any_term(q, g)) >= cues.required
    return [s for s in sents if not (s.question and led[s.question])]


_WS = re.compile(r"\s+")


def normalise_ws(s: str) -> str:
    return _WS.sub(" ", s).strip()


def quote_in(quote: str, answer: str) -> bool:
    """True when `quote` occurs verbatim in `answer`, whitespace aside (the rule for every quote)."""
    q = normalise_ws(quote)
    return bool(q) and q in normalise_ws(answer)
