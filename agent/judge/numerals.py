"""Numbers said in words, read as digits: what a spoken answer (or its transcript) holds.

Candidates say "seventy-four and a half gibibytes", "a hundred and eighty", "七十四点五 GiB", "一百八十个请求",
"二十四点六万字节"; speech-to-text writes Chinese numbers as characters. The capacity checker reads digits, so
`with_digits` rewrites each number word run as digits and keeps a map back to the original text, so a
quote or a "stated" value still shows what the candidate said.

Only runs that read as a number are rewritten: a Chinese run starts with a digit character and is not an
idiom (万一, 千万, 一点 "a little", 统一, 一个 alone ...); an English run is made of number words only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# ---------------------------------------------------------------- Chinese

_ZH_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_ZH_SMALL = {"十": 10, "百": 100, "千": 1000}
_ZH_LARGE = {"万": 10**4, "亿": 10**8}
_D = "零〇一二两三四五六七八九"
# a Chinese number: starts with a digit or 十, goes on with digits and units, an optional 点 + digits
_ZH_RUN = re.compile(rf"[{_D}十][{_D}十百千万亿]*(?:点[{_D}]+)?[万亿]?")
# digits followed by a Chinese magnitude: 24.6万, 800亿, 1.2 万
_DIGIT_MAGNITUDE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*([万亿])")


def _zh_integer(s: str) -> int | None:
    """一百八十 -> 180, 一百八 -> 180 (the colloquial dropped unit), 两千五 -> 2500, 十五 -> 15."""
    if not s:
        return 0
    total, section, digit = 0, 0, None
    last_unit = 1
    for ch in s:
        if ch in _ZH_DIGITS:
            if digit is not None and digit != 0 and ch not in "零〇":
                return None  # two digits in a row (一二): a list, not a number
            digit = _ZH_DIGITS[ch]
        elif ch in _ZH_SMALL:
            unit = _ZH_SMALL[ch]
            section += (1 if digit is None else digit) * unit
            digit, last_unit = None, unit
        elif ch in _ZH_LARGE:
            unit = _ZH_LARGE[ch]
            if section == 0 and digit is None and total:
                total *= unit  # 万亿: a large unit on a large unit
            else:
                total += (section + (digit or 0)) * unit
            section, digit, last_unit = 0, None, unit
        else:
            return None
    if digit is not None:
        if last_unit >= 100 and s[-2] not in "零〇" and len(s) >= 2 and s[-2] in "百千万亿":
            section += digit * (last_unit // 10)  # 一百八 = 180, 两千五 = 2500, 一万二 = 12000
        else:
            section += digit
    return total + section


def _zh_value(run: str) -> float | None:
    magnitude = 1
    if run[-1] in _ZH_LARGE and "点" in run:  # 二十四点六万
        magnitude = _ZH_LARGE[run[-1]]
        run = run[:-1]
    whole, _, frac = run.partition("点")
    n = _zh_integer(whole)
    if n is None:
        return None
    value = float(n)
    if frac:
        value += float("0." + "".join(str(_ZH_DIGITS[c]) for c in frac))
    return value * magnitude


_ZH_NOT_NUMBERS = ("一些", "一下", "一定", "一般", "一起", "一直", "一样", "一旦", "一边", "一致", "一次性")


def _zh_numerals(text: str) -> list[tuple[int, int, float]]:
    out: list[tuple[int, int, float]] = []
    for m in _ZH_RUN.finditer(text):
        run = m.group(0)
        start = m.start()
        before = text[start - 1] if start else ""
        percent = text[max(0, start - 3) : start] == "百分之"  # 百分之六十
        if not percent and ((before and before in "万千统第之单唯") or text.startswith(_ZH_NOT_NUMBERS, start)):
            continue  # 万一, 千万, 统一, 第一, 之一: words, not amounts
        if len(run) == 1 and not percent:
            after = text[m.end() : m.end() + 4].lstrip()
            if not re.match(r"(?i)(gib|gb|mib|mb|tib|tb|个请求|个并发|字节|倍|bytes?\b)", after):
                continue  # 一 or 十 alone is a word (一个, 一种, 十分) unless a unit follows (三倍 is three times)
        value = _zh_value(run)
        if value is not None:
            out.append((start, m.end(), value))
    for m in _DIGIT_MAGNITUDE.finditer(text):
        out.append((m.start(), m.end(), float(m.group(1)) * _ZH_LARGE[m.group(2)]))
    return out


# ---------------------------------------------------------------- English

_EN_UNITS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_EN_TENS = {
    w: 10 * (i + 2)
    for i, w in enumerate(["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"])
}
_EN_SCALES = {"hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_EN_WORD = "|".join(sorted([*_EN_UNITS, *_EN_TENS, *_EN_SCALES], key=len, reverse=True))  # sixty before six
# a run: number words joined by spaces, hyphens or "and"; "a" before a scale word; "point" + digit words;
# "and a half" / "and a quarter" at the end
_EN_RUN = re.compile(
    rf"(?i)\b(?:(?:a|an)\s+(?={'|'.join(_EN_SCALES)}))?(?:{_EN_WORD})\b(?:(?:\s+and\s+|[\s-]+)(?:{_EN_WORD})\b)*"
    rf"(?:\s+point(?:\s+(?:{'|'.join(_EN_UNITS)}))+\b)?(?:\s+and\s+a\s+(?:half|quarter)\b)?"
)
# digits followed by a scale word: 245 thousand, 80 billion
_DIGIT_SCALE = re.compile(r"(?i)(?<![\w.])(\d+(?:\.\d+)?)\s+(thousand|million|billion|trillion)\b")


_DIGIT_WORDS = {w for w, v in _EN_UNITS.items() if v < 10}


def _said_digits(words: list[str]) -> str:
    """Digit words one by one as a string of digits ("nine two" -> "92"); other words left out."""
    return "".join(str(_EN_UNITS[w]) for w in words if w in _EN_UNITS)


def _en_value(run: str) -> float | None:
    words = re.findall(r"[a-z]+", run.lower())
    whole = words[: words.index("point")] if "point" in words else words
    lead = 0
    while lead < len(whole) and whole[lead] in _DIGIT_WORDS:
        lead += 1
    rest = whole[lead:]
    if lead >= 2 and (not rest or (len(rest) == 1 and rest[0] in _EN_SCALES)):
        # digits said one by one ("nine eight three" = 983, "nine eight three million"), maybe a scale after
        frac = _said_digits(words[len(whole) + 1 :])
        said = float(_said_digits(whole[:lead]) + ("." + frac if frac else ""))
        return said * (_EN_SCALES[rest[0]] if rest else 1)
    total, current = 0, 0
    frac = ""
    extra = 0.0
    i = 0
    seen = False
    while i < len(words):
        w = words[i]
        if w in ("a", "an") and i + 1 < len(words) and words[i + 1] in _EN_SCALES:
            current = 1
        elif w == "and":
            if words[i + 1 : i + 3] in (["a", "half"], ["a", "quarter"]):
                extra = 0.5 if words[i + 2] == "half" else 0.25
                break
        elif w == "point":
            frac = _said_digits(words[i + 1 :])
            break
        elif w in _EN_UNITS:
            current += _EN_UNITS[w]
            seen = True
        elif w in _EN_TENS:
            prev = words[i - 1] if i else ""
            if prev in _EN_UNITS and 0 < _EN_UNITS[prev] < 10 and current == _EN_UNITS[prev]:
                current *= 100  # "one twenty-eight" = 128, "two forty-five" = 245: digits said in pairs
            current += _EN_TENS[w]
            seen = True
        elif w == "hundred":
            current = (current or 1) * 100
            seen = True
        elif w in _EN_SCALES:
            total += (current or 1) * _EN_SCALES[w]
            current = 0
            seen = True
        i += 1
    if not seen:
        return None
    value = float(total + current) + extra
    if frac:
        value += float("0." + frac)
    return value


_EN_POINT = re.compile(rf"(?i)(?<![\w.])point(?:\s+(?:{'|'.join(_DIGIT_WORDS)})\b)+")
"""'point nine two' (the leading zero unsaid) = 0.92"""


def _en_numerals(text: str) -> list[tuple[int, int, float]]:
    out: list[tuple[int, int, float]] = []
    for m in _EN_POINT.finditer(text):
        digits = _said_digits(re.findall(r"[a-z]+", m.group(0).lower())[1:])
        out.append((m.start(), m.end(), float("0." + digits)))
    for m in _EN_RUN.finditer(text):
        value = _en_value(m.group(0))
        if value is not None:
            out.append((m.start(), m.end(), value))
    for m in _DIGIT_SCALE.finditer(text):
        out.append((m.start(), m.end(), float(m.group(1)) * _EN_SCALES[m.group(2).lower()]))
    return out


# ---------------------------------------------------------------- the text with digits


@dataclass(frozen=True)
class Digits:
    """`text` with every number said in words as digits; `original(start, end)` maps a span of it back."""

    text: str
    source: str
    _spans: tuple[tuple[int, int, int, int], ...]  # (new start, new end, old start, old end) of each rewrite

    def original(self, start: int, end: int) -> str:
        """The source text behind `text[start:end]` (a rewritten number is shown as said)."""
        return self.source[self._old(start, left=True) : self._old(end, left=False)]

    def _old(self, pos: int, *, left: bool) -> int:
        shift = 0
        for ns, ne, os_, oe in self._spans:
            if pos <= ns:
                break
            if pos < ne:  # inside a rewritten number: its whole said form
                return os_ if left else oe
            shift = oe - ne
        return pos + shift


def _fmt(v: float) -> str:
    return str(int(v)) if v == int(v) else f"{v:g}" if abs(v) < 1e15 else repr(v)


def with_digits(text: str, *, english: bool = True) -> Digits:
    """The text with Chinese numerals and English number words (and 24.6万 / 245 thousand, 百分之六十) as digits;
    `english=False`: Chinese numerals only."""
    words = _en_numerals(text) if english else []
    found = sorted(_zh_numerals(text) + words, key=lambda t: (t[0], -(t[1] - t[0])))
    parts: list[str] = []
    spans: list[tuple[int, int, int, int]] = []
    pos = 0
    out_len = 0
    for start, end, value in found:
        if start < pos:
            continue  # overlaps a longer run already taken
        digits = _fmt(value)
        if text[max(pos, start - 3) : start] == "百分之":  # 百分之六十 -> 60%
            start -= 3
            digits += "%"
        parts.append(text[pos:start])
        out_len += start - pos
        spans.append((out_len, out_len + len(digits), start, end))
        parts.append(digits)
        out_len += len(digits)
        pos = end
    parts.append(text[pos:])
    return Digits(text="".join(parts), source=text, _spans=tuple(spans))
