"""The candidate's own figures: which numbers in an answer are quantities it claims, and how each is labelled
(given / derived / observed / estimated), and which measured-sounding claims stand without an artifact.

The labels and units are data (rubrics/lexicon.yaml `number_labels`, `quantity_units`, `measured_claims`,
`artifacts`); this module reads an answer's sentences with them. agent/judge/checks.py runs it with the other
checks of a round.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.contracts.checklist import NumberFinding
from agent.judge.matching import Sentence, any_term
from agent.judge.numerals import with_digits
from agent.rubric.lexicon import Lexicon, NumberLabels

_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.:/\-])(\d+(?:\.\d+)?[eE][+-]?\d+|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w:]*/)"
)
"""A number; right after a Chinese character too ("约74.5GiB", "提升了3倍"), in scientific notation ("9.83e8 字节"),
not inside a word or path."""
_MULTIPLIER = re.compile(r"\d(?:\.\d+)?\s*(?:x\b|×|倍|%|percent)", re.IGNORECASE)


def _unit_after(text: str, end: int, units: Sequence[str]) -> bool:
    tail = text[end : end + 12].lower() + " "
    return any(tail.lstrip().startswith(u.strip()) or tail.startswith(u) for u in units)


_TIME_BOX = re.compile(r"\d+\s*[–—~-]\s*\d+\s*(min|minutes|分钟|h\b|hours|小时)", re.IGNORECASE)
_TIME_BOX_END = re.compile(r"\d+\s*[–—~-]\s*\d+$")
# "first ~5 min", "in the next 10 minutes", "前 5 分钟", "头 10 分钟内": a step's time box, said before the number
_TIME_BOX_LEAD = re.compile(
    r"(\b(first|next|within the first|in the first|in the next)|前|头)\s*[~≈约]?\s*$", re.IGNORECASE
)
_TIME_UNIT = re.compile(r"\s*(min\b|mins\b|minutes\b|分钟|h\b|hours?\b|小时)", re.IGNORECASE)


_SCALE = {"k": 1e3, "万": 1e4, "m": 1e6}
"""A suffix written straight after a number that scales it (`4k tokens`, `3.2万`)."""


def _value(text: str) -> float:
    return float(text.replace(",", ""))


def given_values(text: str) -> frozenset[float]:
    """The numbers a question states: an answer that repeats one is quoting what was given."""
    return frozenset(_value(m.group(0)) for m in _NUMBER.finditer(text))


_SHOWN = re.compile(r"\d\s*(?:[A-Za-z]{1,4}\s*)?[×x*/÷+−-]\s*[\d(][^=≈]{0,80}[=≈]\s*$")
"""A computation written out just before a number (`2 × 60 × 8 × 128 × 2 B = `): its result is derived."""
_MODEL_NAME = re.compile(
    r"\d+(\.\d+)?\s?B\b[\s-]*(左右|上下|级别|级|or so|-?ish)?\s*的?\s*(class|dense|moe|model|instruct|chat|base|checkpoint|ckpt|weights|稠密|模型|参数模型|的模型|权重"
    r"|的\s*(checkpoint|ckpt|权重)|on\s+(a|an|\d|h\d|a\d|l\d|b\d|mi\d)|跑在|量级"
    r"|(参数|params?|parameters?)\s*的?\s*[\w-]{0,8}\s*(模型|model)|[\u4e00-\u9fff]{1,4}模型)"
    r"|\d+(\.\d+)?\s?B\s*[、,，/]?\s*(bf16|fp16|fp8|int8|int4)\b",
    re.I,
)
"""`an 8B-class instruct model`, `14B dense 模型`, `14B 左右的 dense 模型`, `a 70B on H100s`, `the 14B checkpoint`, `13B 参数的对话模型`,
`一个 7B 的客服模型`: a model named by its size, not a quantity the candidate claims."""
_SETTING_VERB = (
    r"(capped at|set to|set at|lowered to|raised to|cut to|设为|设成|设置为|设到|调到|调成|调为|改成|改为|降到|提到|开到|限制在|限到)"
)
_SETTING = re.compile(
    r"(--[a-z][a-z0-9-]+|\b[a-z][a-z0-9]*(?:_[a-z0-9]+){2,})\s*(=|:|：)?\s*(" + _SETTING_VERB + r"|at|to|of)?\s*~?$"
    r"|\b[a-z][a-z0-9]*_[a-z0-9]+\s*(=|:|：)?\s*" + _SETTING_VERB + r"\s*~?$"
)
"""`max_model_len capped at 16k`, `--max-num-seqs 256`, `max_num_batched_tokens 调到 8192`, `block_size set to 32`: a
setting the candidate chose, named by its config key (lower case; with one underscore only before a verb of setting,
so a variable of a computation, `kv_rank = 41.4 GiB`, is no setting), not a quantity claimed."""
_PLAN_SHARE = re.compile(
    r"(canary|灰度|traffic|流量|rollout|放量|切量|按|mixed in at|mix in at)\W{0,8}$"
    r"|^\s*%\s*(的)?\s*(of\s+)?(the\s+)?(canary|灰度|traffic|流量|rollout|requests|请求|比例|mix|ratio)",
    re.I,
)
"""`10% canary`, `放 10% 流量`, `100% of the pool`, `按 10% 的比例混进`: a share a plan chooses (or "all of"), not a
quantity claimed."""
_RAMP = re.compile(r"\d+(\.\d+)?\s*%\s*(→|->|=>|➝)\s*\d+(\.\d+)?\s*%")
"""A rollout ramp: `10% → 50% → 100%`."""
_ASKING = re.compile(r"\s*([-*•]\s*)?(what|what's|which|how|is|are|does|do|whether|can|could|should)\b", re.I)
"""A sentence opening with a question word asks when it holds a question mark or follows a question."""
_HARDWARE = re.compile(
    r"\b(a100|h100|h200|h800|h20|l40s?|l4|a10g?|a800|rtx\s?\d{4}|b200|mi300x?)[\s-]*(sxm|pcie)?[\s-]*$", re.I
)
"""`A100 80GB`: the memory in a GPU's name is the hardware, not a claim."""


def _blanket(
    sents: Sequence[Sentence], labels: NumberLabels, lex: Lexicon
) -> dict[int, tuple[str, int]]:
    """Turn -> the label a blanket statement gives every number after it ("all values derived unless marked"),
    and the statement's index in `sents`."""
    out: dict[int, tuple[str, int]] = {}
    for k, s in enumerate(sents):
        if s.turn not in out and any_term(s.lower, lex.blanket_labels):
            for name in ("derived", "estimated", "observed", "given"):
                if any_term(s.lower, labels.terms(name)):
                    out[s.turn] = (name, k)
                    break
    return out


_TAG_DEF = re.compile(
    r"[\[【(（]\s*([A-Za-z\u4e00-\u9fff]{1,3})\s*[\]】)）]\s*(?:=|:|：|-|–|—|\bis\b|\bmeans\b)?\s*"
    r"([^,，;；。.\[【(（]{1,40})"
)
"""One definition of a legend: a short tag in brackets and what it stands for ("[D] = derived here", "(E) my estimate")."""


def _legend(sents: Sequence[Sentence], labels: NumberLabels) -> list[tuple[int, re.Pattern[str], str]]:
    """Tags a legend defines for the rest of the answer ("Tags: [G] given, [D] derived, [E] my assumption"): the
    legend's index, the tag as it is used later ("18.63 GiB [D]", "[E, standard for this size]"), its label.
    A legend defines two tags or more, each standing for a label of `number_labels`."""
    out: list[tuple[int, re.Pattern[str], str]] = []
    for k, s in enumerate(sents):
        found: list[tuple[re.Pattern[str], str]] = []
        for m in _TAG_DEF.finditer(s.text):
            meaning = m.group(2).lower()
            kinds = ("observed", "estimated", "derived", "given")
            kind = next((n for n in kinds if any_term(meaning, labels.terms(n))), None)
            if kind is not None:
                tag = re.escape(m.group(1))
                found.append((re.compile(rf"[\[【(（]\s*{tag}\s*[\]】)）,，;；:：]", re.I), kind))
        if len(found) >= 2:
            out += [(k, pat, kind) for pat, kind in found]
    return out


_LIST_ITEM = re.compile(r"^\s*([-*•·]|\d+[.)、]|[①②③④⑤⑥⑦⑧⑨]|\(\d+\)|（\d+）)\s*")


def _header(sents: Sequence[Sentence], k: int, most: int = 12) -> str:
    """The header of the list `k` belongs to, when a short line ending in a colon heads it ("Derived:" and the
    bullets under it): a label there labels every item of the list."""
    j = k
    while j > 0 and k - j < most and sents[j - 1].turn == sents[k].turn:
        h = sents[j - 1].text.strip()
        if h.endswith((":", "：")):
            return sents[j - 1].lower if len(h) <= 60 and _LIST_ITEM.match(sents[j].text) else ""
        j -= 1
    return ""


_MID_SENTENCE = ("；", ";", "：", ":")
_CLAUSE_END = (*_MID_SENTENCE, "，", ",")


def _lead(sents: Sequence[Sentence], k: int, most: int = 4) -> str:
    """The sentence before `k`, and those before it while each ends mid-thought (；: ,) in `k`'s turn: the
    head of a clause run whose label covers every clause ("① 权重（推导）：a；b；c")."""
    if k == 0:
        return ""
    out = [sents[k - 1].lower]
    j = k - 1
    while (
        j > 0
        and len(out) < most
        and sents[j - 1].turn == sents[k].turn
        and sents[j - 1].text.rstrip().endswith(_CLAUSE_END)
    ):
        j -= 1
        out.append(sents[j].lower)
    return " ".join(reversed(out))


def _tail(sents: Sequence[Sentence], k: int, most: int = 2) -> str:
    """A label in brackets closing `k`'s line: after the rest of `k`'s clause run (；: ,), past at most `most`
    short number-free remarks, in `k`'s turn ("全模型 240 KiB = 245,760 B。层数只乘这一次。（算出来的）")."""
    j, n = k, len(sents)
    while (
        j + 1 < n
        and j - k < 4
        and sents[j + 1].turn == sents[k].turn
        and sents[j].text.rstrip().endswith(_CLAUSE_END)
    ):
        j += 1
    for i in range(j + 1, min(n, j + 1 + most)):
        s = sents[i]
        if s.turn != sents[k].turn or len(s.text.strip()) > 24 or any(ch.isdigit() for ch in s.text):
            break
        if s.text.lstrip().startswith(("(", "（", "【", "[")):
            return s.lower
    return ""


def _remark(sents: Sequence[Sentence], k: int) -> str:
    """The clause right after `k` when `k` ends mid-sentence (; ：) and it holds no number of its own: a
    remark on the numbers before it ("at 6 req/s plus a 30 s burst; the burst is a pattern we designed")."""
    if k + 1 >= len(sents) or sents[k + 1].turn != sents[k].turn:
        return ""
    nxt = sents[k + 1]
    if not sents[k].text.rstrip().endswith(_MID_SENTENCE) or any(ch.isdigit() for ch in nxt.text):
        return ""
    return nxt.lower


_COMPUTATION = re.compile(r"\d[^.;。；]{0,30}(×|\*|\btimes\b|乘以?)\s*[^.;。；]{0,30}\d", re.I)
"""A product written out ("2, times 60 layers, times 8 KV heads", "2 × 60 × 8")."""
_RESULT_LEAD = re.compile(
    r"\W*(so\s+)?(that's|that is|this is|which gives|that gives|gives|giving|equals|=|≈|得到|得|等于|结果是|一共|总共|合计)"
    r"\s*(about|roughly|exactly|around|~|≈|约|大约)?\s*$",
    re.I,
)
"""How a sentence opens when it states the result of the computation before it ("That's 245,760 bytes")."""
_RESTATED = re.compile(
    r"[^\d.;。；]{0,16}?[,，(（]?\s*(which is|i\.e\.|that is|or|即|也就是|就是|约合|合|=|≈)\s*(exactly|about|roughly|~|约)?\s*$"
    r"|\s*(个\s*)?(tokens?|bytes?|字节|[kmgt]i?b)\s*[,，:：]\s*(就是|即|也就是|约合|合|=|≈)?\s*(exactly|about|roughly|around|~|约|大约)?\s*$",
    re.I,
)
"""Between two quantities: the second restates the first in another unit ("245,760 bytes, which is exactly 240 KiB",
"4,000 tokens, 983,040,000 bytes, about 0.916 GiB", "4000 token，就是 9.83e8 字节，约 0.916 GiB")."""
_BACK_REF = re.compile(
    r"\W*(both|each|those|these|that's|that is|this is|again|which are|which is|all (of )?(those|these|them|that|the above)"
    r"|all (derived|estimated|given|observed))\b"
    r"|\W*(以上|上面|前面|这些|这两个|这几个|这两项|这几项|两个都|都是|这都|同样|也是|仍然是|还是)",
    re.I,
)


def _after(sents: Sequence[Sentence], k: int, most: int = 2) -> str:
    """A short number-free remark among the next `most` sentences of `k`'s turn that points back and labels
    ("… about 74.5 GiB. Per GPU that's about 18.6. Both of those are derived from the question.", "Again
    derived.", "以上都是推导。")."""
    for i in range(k + 1, min(len(sents), k + 1 + most)):
        s = sents[i]
        if s.turn != sents[k].turn:
            break
        if len(s.text.strip()) <= 60 and not any(ch.isdigit() for ch in s.text) and _BACK_REF.match(s.text):
            return s.lower
    return ""


_PROMQL_RANGE_END = re.compile(r"[smhd]\]")
_ALL_OF = re.compile(r"\s*%\s*of\b")


def _not_a_claim(text: str, m: re.Match[str], v: float) -> bool:
    """A number in `text` that is no quantity the candidate claims: a plan's time box ("0–5 min", "first ~5
    min"), a PromQL range ("[5m]"), a rollout ramp or share ("10% → 50%", "10% canary", "100% of the pool"),
    a model named by its size ("a 70B on H100s"), a GPU's memory in its name ("A100 80GB") or a setting named by
    its config key ("max_model_len capped at 16k")."""
    start, end = m.start(), m.end()
    if (
        _TIME_BOX.match(text, start)
        or _TIME_BOX_END.search(text[:end])
        or (_TIME_BOX_LEAD.search(text[max(0, start - 24) : start]) and _TIME_UNIT.match(text, end))
    ):
        return True
    if (start > 0 and text[start - 1] == "[" and _PROMQL_RANGE_END.match(text, end)) or _RAMP.search(
        text[max(0, start - 12) : end + 12]
    ):
        return True
    if text[end : end + 2].lstrip().startswith("%") and (
        _PLAN_SHARE.search(text[max(0, start - 16) : start])
        or _PLAN_SHARE.match(text[end : end + 24])
        or (v == 100.0 and _ALL_OF.match(text, end))
    ):
        return True
    return bool(
        _MODEL_NAME.match(text, start)
        or _HARDWARE.search(text[max(0, start - 16) : start])
        or _SETTING.search(text[max(0, start - 48) : start])
    )


def numbers(
    sents: Sequence[Sentence], lex: Lexicon, given: frozenset[float] = frozenset()
) -> list[NumberFinding]:
    """Quantities (numbers with a unit) and the label their sentence (or the one before) gives them.

    A number the question states (`given`, or the question of the sentence's own turn) is labelled
    given: the labelling rule is about the candidate's own numbers, not the ones it was handed. A number
    is also labelled when it is the result of a computation written out before it (derived), when a
    blanket statement earlier in its answer labels every number ("all values derived unless marked"), or
    when the same value was labelled earlier. Numbers in a question the candidate asks and the memory in
    a GPU's name (`A100 80GB`) are not claims.
    """
    labels = lex.number_labels
    out: list[NumberFinding] = []
    asked: dict[str, frozenset[float]] = {}
    blanket = _blanket(sents, labels, lex)
    legend = _legend(sents, labels)
    seen: dict[float, str] = {}
    for k, s in enumerate(sents):
        prev = " ".join(
            (_lead(sents, k), _tail(sents, k), _remark(sents, k), _after(sents, k), _header(sents, k))
        )
        if s.question not in asked:
            asked[s.question] = given_values(s.question)
        known = given | asked[s.question]
        asking = _ASKING.match(s.text)
        if s.text.rstrip().endswith(("?", "？", "吗。", "吗")) or (
            asking and ("?" in s.text or (k > 0 and sents[k - 1].text.rstrip().endswith(("?", "？"))))
        ):
            continue  # a question the candidate asks claims nothing (one in a run of questions too)
        computed_before = k > 0 and sents[k - 1].turn == s.turn and bool(_COMPUTATION.search(sents[k - 1].text))
        last: tuple[int, str | None] | None = None  # the end and label of the sentence's last quantity
        # "提升了三倍，降了百分之六十": Chinese numerals count as numbers (speech-to-text writes them so); English
        # number words do not (a spoken "about a hundred and eighty" reads as talk, labelled or not)
        said = with_digits(s.text, english=False)
        text = said.text
        for m in _NUMBER.finditer(text):
            if not _unit_after(text, m.end(), lex.quantity_units):
                continue
            v = _value(m.group(0))
            if v in (1.0, 2.0):
                continue  # constants such as 2 bytes per BF16 value, 2 for K and V
            if _not_a_claim(text, m, v):
                continue
            quote = said.original(m.start(), m.end())  # as the candidate said it
            scale = _SCALE.get(text[m.end() : m.end() + 1].lower(), 1.0)  # 3k, 4K, 3.2万
            if v in known or v * scale in known:
                out.append(NumberFinding(text=quote, label="given", sentence=s.text))
                continue
            if v >= 10 and (v - 1 in known or v + 1 in known):  # N+1 nodes, "the other 19" of 20 adapters
                out.append(NumberFinding(text=quote, label="derived", sentence=s.text))
                continue
            label = None
            for name in ("observed", "estimated", "given", "derived"):
                if any_term(s.lower, labels.terms(name)) or any_term(prev, labels.terms(name)):
                    label = name
                    break
            if label is None and (
                _SHOWN.search(text[max(0, m.start() - 120) : m.start()])
                or (computed_before and _RESULT_LEAD.match(text[: m.start()]))
            ):
                label = "derived"  # "× 128 × 2 bytes. That's 245,760 bytes"
            if label is None and last is not None and _RESTATED.match(text[last[0] : m.start()]):
                label = last[1]  # "245,760 bytes, which is exactly 240 KiB": the same quantity again
            if label is None:  # a tag a legend before it defined: "18.63 GiB [D]"
                label = next((kind for at, pat, kind in legend if at < k and pat.search(s.text)), None)
            if label is None and s.turn in blanket and k > blanket[s.turn][1]:
                label = blanket[s.turn][0]
            if label is None:
                label = seen.get(v)
            if label is not None:
                seen.setdefault(v, label)
            last = (m.end(), label)
            out.append(NumberFinding(text=quote, label=label, sentence=s.text))  # type: ignore[arg-type]
    return out


def documented_turns(sents: Sequence[Sentence], lex: Lexicon) -> set[int]:
    """The answers (turns) that say where their measurements live (one of `artifacts`) and state their conditions
    (at least `measurement_conditions_documented` distinct `measurement_conditions` across the answer): a
    measured figure there has its record and its conditions behind it, wherever in the answer they are said (a
    results table under a paragraph on the workload, the load shape and the raw CSVs), and in the follow-up
    answers after it, which speak of the same record ("in that load test, 38 ms at the lowest step (measured)")."""
    need = lex.measurement_conditions_documented
    out: set[int] = set()
    for turn in sorted({s.turn for s in sents}):
        if out:  # a follow-up after a documented answer
            out.add(turn)
            continue
        text = " ".join(s.lower for s in sents if s.turn == turn)
        conditions = sum(1 for t in lex.measurement_conditions if any_term(text, [t]))
        if conditions >= need and any_term(text, lex.artifacts):
            out.add(turn)
    return out


def fabricated(
    sents: Sequence[Sentence], lex: Lexicon, given: frozenset[float] = frozenset()
) -> list[str]:
    """Measured-sounding claims with a number and no artifact (or enough conditions) in or next to them.

    Not claims: a number the sentence labels given, derived or estimated, a figure after a statement of
    where the figures come from that names an artifact (`artifact_leads`), and a measurement stated as a
    condition to meet (`requirement_frames` in the sentence, the three before it or the two after it, same
    turn: a list of conditions under one lead, or closed by "any one missing, stay unified")."""
    out: list[str] = []
    need = lex.measurement_conditions_needed
    sourced: dict[int, int] = {}  # turn -> the first sentence naming where the figures after it come from
    documented = documented_turns(sents, lex)
    for k, s in enumerate(sents):
        if (
            s.turn not in sourced
            and any_term(s.lower, lex.artifact_leads)
            and any_term(s.lower, lex.artifacts)
        ):
            sourced[s.turn] = k
    for k, s in enumerate(sents):
        if not any_term(s.lower, lex.measured_claims):
            continue
        if (s.turn in sourced and k > sourced[s.turn]) or s.turn in documented:
            continue  # "Figures are from the load-test report, stored with the PR: …" sources what follows
        # the question's numbers claim nothing
        own = [n for n in numbers([s], lex, given) if n.label != "given"]
        if not (own or _MULTIPLIER.search(s.text)):
            continue
        labels = lex.number_labels
        if any(any_term(s.lower, labels.terms(kind)) for kind in ("given", "derived", "estimated")):
            continue  # a number stated as given, derived or estimated is not a claim of measurement
        frame = " ".join(x.lower for x in sents[max(0, k - 3) : k + 3] if x.turn == s.turn)
        if any_term(frame, lex.requirement_frames):
            continue  # a condition to meet ("only if all three hold: … ③ measured latency within 1.5 s …")
        near = " ".join(x.lower for x in sents[max(0, k - 1) : k + 2])
        if any_term(near, lex.artifacts):
            continue
        conditions = sum(1 for t in lex.measurement_conditions if any_term(near, [t]))
        if conditions < need:
            out.append(s.text)
    return out
