"""Delivery figures of a spoken answer, from the transcription's timestamps: how it was said, not what.

- **Rate**: words per minute (English) or characters per minute (Chinese: each Chinese character counts
  one, and so does each English word or number inside the answer), over the speaking time: from the
  first timed word's start to the last one's end (leading and trailing silence of the recording left
  out), or the audio's length when the engine gave no timestamps.
- **Fillers**: the interview language's filler words of `data/delivery.yaml`, which ones and how often.
  Interjections (um, uh, 嗯) count wherever they stand; ordinary words that are also fillers (那个, 就是,
  like) count only when standalone: the rule is in the YAML file and `_standalone`.
- **Long pauses**: gaps of at least `pause_s` (2 s) between one timed word's end and the next one's
  start: how many and the longest. Unknown (None) without timestamps.

The figures are no part of the five content scores; the app shows them beside the answer's insight.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent.rubric.model import Lang
from agent.voice.stt import TimedText, Transcription

RULES_FILE = Path(__file__).with_name("data") / "delivery.yaml"

Pace = Literal["slow", "steady", "fast"]
IN_WORD_MARKS = frozenset("'’-‐_")
"""Punctuation inside a word ("don't", "fixed-size"), which is no break."""
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_UNITS = re.compile(rf"[{_HAN}]|[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
"""What the rate counts: each Chinese character, each English word or number."""


class PaceBands(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    slow_below: float = Field(gt=0)
    fast_above: float = Field(gt=0)


class Fillers(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    always: tuple[str, ...] = ()
    standalone: tuple[str, ...] = ()

    @field_validator("always", "standalone")
    @classmethod
    def _lower(cls, words: tuple[str, ...]) -> tuple[str, ...]:
        if any(not w.strip() for w in words):
            raise ValueError("an empty filler")
        return tuple(" ".join(w.lower().split()) for w in words)


class LanguageRules(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pace: PaceBands
    fillers_per_min_many: float = Field(gt=0)
    fillers: Fillers


class DeliveryRules(BaseModel):
    """`data/delivery.yaml`: thresholds and the filler lists of each language."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pause_s: float = Field(gt=0)
    break_s: float = Field(gt=0)
    min_speaking_s: float = Field(ge=0)
    min_units: int = Field(ge=1)
    languages: dict[Lang, LanguageRules]

    @field_validator("languages")
    @classmethod
    def _both(cls, languages: dict[Lang, LanguageRules]) -> dict[Lang, LanguageRules]:
        missing = {"en", "zh"} - set(languages)
        if missing:
            raise ValueError(f"no rules for {', '.join(sorted(missing))}")
        return languages


@lru_cache(maxsize=4)
def load_rules(path: Path = RULES_FILE) -> DeliveryRules:
    """The rules in `path` (default `data/delivery.yaml`), read once."""
    return DeliveryRules.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


class FillerUse(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    """The filler as the rules list it (lower case)."""
    count: int = Field(ge=1)


class Delivery(BaseModel):
    """How an answer was spoken. Delivery only: no part of the five content scores."""

    model_config = ConfigDict(frozen=True)

    language: Lang
    unit: Literal["words", "characters"]
    """What `units` and the rate count: words (English) or characters (Chinese)."""
    units: int = Field(ge=0)
    speaking_s: float = Field(ge=0)
    """From the first timed word's start to the last one's end; the audio's length when untimed."""
    rate_per_min: float | None
    """`units` a minute; None when the answer is too short to measure (see the rules)."""
    pace: Pace | None
    pace_bands: PaceBands
    fillers: int = Field(ge=0)
    filler_uses: tuple[FillerUse, ...] = ()
    """Which fillers, most frequent first."""
    fillers_per_min: float | None
    many_fillers: bool
    timed: bool
    """Whether the engine gave timestamps; without them pauses are unknown."""
    pauses: int | None
    """Gaps of at least `pause_s` between words; None when untimed."""
    longest_pause_s: float | None
    """The longest such gap; None when there is none or the answer is untimed."""
    pause_s: float


@dataclass(frozen=True)
class _Stream:
    """The answer's text, each character with the timed piece it came from (None when untimed)."""

    text: str
    owner: tuple[int | None, ...]
    timed: tuple[TimedText, ...]

    def gap(self, left: int, right: int) -> float:
        """Seconds of silence between the characters at `left` and `right` (0 within one timed piece)."""
        a, b = self.owner[left], self.owner[right]
        if a is None or b is None or a == b:
            return 0.0
        return self.timed[b].start - self.timed[a].end


def _stream(text: str, timed: Sequence[TimedText]) -> _Stream:
    if not timed:
        return _Stream(text.lower(), (None,) * len(text), ())
    chars: list[str] = []
    owner: list[int | None] = []
    for i, piece in enumerate(timed):
        chars.append(piece.text.lower())
        owner += [i] * len(piece.text)
    return _Stream("".join(chars), tuple(owner), tuple(timed))


def _pattern(filler: str) -> re.Pattern[str]:
    body = r"\s+".join(re.escape(w) for w in filler.split())
    if re.search(r"[a-z]", filler):  # English: whole words only
        return re.compile(rf"(?<![a-z0-9'’]){body}(?![a-z0-9'’])")
    return re.compile(body)


def is_break_mark(ch: str) -> bool:
    """Punctuation that ends or starts a clause (a break around a standalone-only filler): any Unicode
    punctuation (Whisper writes "，", "," or "﹑" alike) but the marks inside words."""
    return unicodedata.category(ch).startswith("P") and ch not in IN_WORD_MARKS


def _before(s: _Stream, i: int) -> int | None:
    """The last non-space character before `i`."""
    j = i - 1
    while j >= 0 and s.text[j].isspace():
        j -= 1
    return j if j >= 0 else None


def _after(s: _Stream, i: int) -> int | None:
    """The first non-space character at or after `i`."""
    j = i
    while j < len(s.text) and s.text[j].isspace():
        j += 1
    return j if j < len(s.text) else None


def _standalone(
    s: _Stream, start: int, end: int, filler: str, ends: set[int], starts: set[int], break_s: float
) -> bool:
    """A standalone-only filler at `start:end` counts when it is repeated right away ("那个那个"), or when
    it starts a clause (the answer's start, after punctuation, after a break of `break_s`, or right after
    a counted filler, whose end is in `ends`) and is followed by a break (punctuation, a gap of
    `break_s`, an interjection filler starting at a position in `starts`, or the answer's end)."""
    prev, nxt = _before(s, start), _after(s, end)
    if nxt is not None and s.text.startswith(filler, nxt):
        return True
    if prev is not None and s.text[: prev + 1].endswith(filler):
        return True
    opens = prev is None or is_break_mark(s.text[prev]) or prev + 1 in ends or s.gap(prev, start) >= break_s
    closes = nxt is None or is_break_mark(s.text[nxt]) or nxt in starts or s.gap(end - 1, nxt) >= break_s
    return opens and closes


def count_fillers(s: _Stream, rules: LanguageRules, break_s: float) -> Counter[str]:
    """The fillers in the stream, by the rules' spelling; where matches overlap the first (longest) wins."""
    found: Counter[str] = Counter()
    taken: set[int] = set()
    ends: set[int] = set()
    starts: set[int] = set()
    always = sorted(
        ((m.start(), m.end(), f) for f in rules.fillers.always for m in _pattern(f).finditer(s.text)),
        key=lambda x: (x[0], -x[1]),
    )
    for a, b, f in always:
        if taken.isdisjoint(range(a, b)):
            taken.update(range(a, b))
            found[f] += 1
            ends.add(b)
            starts.add(a)
    maybe = sorted(
        ((m.start(), m.end(), f) for f in rules.fillers.standalone for m in _pattern(f).finditer(s.text)),
        key=lambda x: (x[0], -x[1]),
    )
    for a, b, f in maybe:
        if taken.isdisjoint(range(a, b)) and _standalone(s, a, b, f, ends, starts, break_s):
            taken.update(range(a, b))
            found[f] += 1
            ends.add(b)
    return found


def count_units(text: str) -> int:
    """Words of an English answer, or characters of a Chinese one (its English words counting one each)."""
    return len(_UNITS.findall(text))


def _pace(rate: float | None, bands: PaceBands) -> Pace | None:
    if rate is None:
        return None
    return "fast" if rate > bands.fast_above else "slow" if rate < bands.slow_below else "steady"


def _figures(
    language: Lang,
    units: int,
    speaking_s: float,
    fillers: Counter[str],
    *,
    timed: bool,
    gaps: Sequence[float],
    rules: DeliveryRules,
) -> Delivery:
    lang_rules = rules.languages[language]
    measurable = speaking_s >= rules.min_speaking_s and units >= rules.min_units and speaking_s > 0
    minutes = speaking_s / 60
    rate = round(units / minutes, 1) if measurable else None
    n_fillers = sum(fillers.values())
    per_min = round(n_fillers / minutes, 1) if measurable else None
    long = [g for g in gaps if g >= rules.pause_s]
    return Delivery(
        language=language,
        unit="characters" if language == "zh" else "words",
        units=units,
        speaking_s=round(speaking_s, 2),
        rate_per_min=rate,
        pace=_pace(rate, lang_rules.pace),
        pace_bands=lang_rules.pace,
        fillers=n_fillers,
        filler_uses=tuple(FillerUse(text=f, count=n) for f, n in fillers.most_common()),
        fillers_per_min=per_min,
        many_fillers=per_min is not None and n_fillers >= 3 and per_min >= lang_rules.fillers_per_min_many,
        timed=timed,
        pauses=len(long) if timed else None,
        longest_pause_s=round(max(long), 2) if long else None,
        pause_s=rules.pause_s,
    )


def measure(
    text: str,
    language: Lang,
    *,
    timed: Sequence[TimedText] = (),
    duration_s: float = 0.0,
    rules: DeliveryRules | None = None,
) -> Delivery:
    """The delivery figures of an answer: `text` as heard, `timed` its words (or segments) with their
    times, `duration_s` the audio's length (used for the rate only when nothing is timed)."""
    rules = rules or load_rules()
    pieces = tuple(sorted((p for p in timed if p.text.strip()), key=lambda p: (p.start, p.end)))
    s = _stream(text, pieces)
    fillers = count_fillers(s, rules.languages[language], rules.break_s)
    gaps: list[float] = []
    if pieces:
        said_until = pieces[0].end
        for p in pieces[1:]:
            gaps.append(p.start - said_until)
            said_until = max(said_until, p.end)
        speaking_s = said_until - pieces[0].start
    else:
        speaking_s = duration_s
    return _figures(
        language,
        count_units(s.text),
        max(0.0, speaking_s),
        fillers,
        timed=bool(pieces),
        gaps=gaps,
        rules=rules,
    )


def delivery_of(heard: Transcription, rules: DeliveryRules | None = None) -> Delivery:
    """The delivery figures of a transcription: timed by its words, else its segments, else untimed."""
    return measure(
        heard.text,
        heard.language,
        timed=heard.words or heard.segments,
        duration_s=heard.duration_s,
        rules=rules,
    )


def combine(parts: Sequence[Delivery], rules: DeliveryRules | None = None) -> Delivery | None:
    """One answer recorded in several parts: their figures together (None for no part). Speaking time,
    words and fillers add up; pauses add up over the timed parts, the longest is the longest of all."""
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    rules = rules or load_rules()
    fillers: Counter[str] = Counter()
    for p in parts:
        fillers.update({u.text: u.count for u in p.filler_uses})
    timed = [p for p in parts if p.timed]
    combined = _figures(
        parts[0].language,
        sum(p.units for p in parts),
        sum(p.speaking_s for p in parts),
        fillers,
        timed=bool(timed),
        gaps=[],
        rules=rules,
    )
    longest = [p.longest_pause_s for p in timed if p.longest_pause_s is not None]
    return combined.model_copy(
        update={
            "pauses": sum(p.pauses or 0 for p in timed) if timed else None,
            "longest_pause_s": max(longest) if longest else None,
        }
    )
