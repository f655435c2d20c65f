"""What people read for the judges, and for the judge's flags and gate caps: a display name and one line of
explanation, in English and Chinese. The texts are data, `messages/labels.yaml` (read through the message
catalogue of `agent/util/messages.py`); this module gives them as tables by id and renders them, with the
words around them (a bound, a dimension's coverage) from the same file's `labels.text.…` entries. The ids
themselves stay in the JSON reports; the app and the Markdown report show these.
"""

from __future__ import annotations

import re

from agent.contracts.report import Coverage, DimensionScore, JudgeInfo
from agent.rubric.model import Lang
from agent.util.messages import LANGS, MessageError, catalogue, colon, listed, sentences, t, then

Label = dict[Lang, tuple[str, str]]
"""language -> (display name, one-line explanation)."""


def _table(group: str) -> dict[str, Label]:
    """The labels of one group of `messages/labels.yaml` (`labels.<group>.<id>.name` and `.line`), by id, in
    the file's order; an id with a name and no line (or a line and no name) is refused, naming it."""
    prefix = f"labels.{group}."
    parts: dict[str, list[str]] = {}
    for key in catalogue():
        if key.startswith(prefix):
            ident, _, part = key[len(prefix) :].rpartition(".")
            if not ident:
                raise MessageError(f"{key}: a label is a name and a line ({prefix}<id>.name and .line)")
            parts.setdefault(ident, []).append(part)
    table: dict[str, Label] = {}
    for ident, have in parts.items():
        if sorted(have) != ["line", "name"]:
            raise MessageError(f"{prefix}{ident}: a label is a name and a line, not {', '.join(have)}")
        table[ident] = {lg: (t(f"{prefix}{ident}.name", lg), t(f"{prefix}{ident}.line", lg)) for lg in LANGS}
    if not table:
        raise MessageError(f"no labels {prefix}* in messages/labels.yaml")
    return table


FLAGS: dict[str, Label] = _table("flag")
"""The judge's flags (`Flag` in `agent/contracts/report.py`)."""

GATES: dict[str, Label] = _table("cap")
"""The bounds a dimension's `caps` name: the gate rules and scoring's own caps (a flag's effect is a flag's)."""

JUDGES: dict[str, Label] = _table("judge")
"""The judge by its kind (`JudgeInfo.kind`): its model id, rubric version and hashes stay in the JSON."""

DEMONSTRATION_MODELS = frozenset({"smollm2-135m-instruct"})
"""Served names of models that show the vLLM judge's pipeline runs and do not grade (the CPU judge's default,
SmolLM2-135M: 36 % in range on the test split, README "How good is the judge"): a report one scored says so."""

_CAP = re.compile(
    r"^(?P<name>[A-Za-z0-9_]+|weak signal|misconception)(?: (?P<id>[a-z0-9-]+))? \((?P<how>≤|-)(?P<n>\d+)\)$"
)


def _label(table: dict[str, Label], key: str, lang: Lang) -> tuple[str, str] | None:
    entry = table.get(key)
    return entry[lang] if entry else None


def judge_name(judge: JudgeInfo, lang: Lang) -> str:
    """The judge's display name; a vLLM judge's with its model's name ("vLLM judge (Qwen2.5-1.5B-Instruct)":
    the model as served, without its organisation or folder)."""
    found = _label(JUDGES, judge.kind, lang)
    name = found[0] if found else judge.kind
    if judge.kind == "vllm" and judge.model:
        name = t("labels.text.judge_model", lang, name=name, model=_model(judge))
    return name


def _model(judge: JudgeInfo) -> str:
    """The model as served, without its organisation or folder."""
    return (judge.model or "").rstrip("/").rsplit("/", 1)[-1]


def is_demonstration(judge: JudgeInfo) -> bool:
    """A vLLM judge whose model only demonstrates the pipeline (`DEMONSTRATION_MODELS`)."""
    return judge.kind == "vllm" and _model(judge).lower() in DEMONSTRATION_MODELS


def judge_line(judge: JudgeInfo, lang: Lang) -> str:
    """ "Name — what it does" for a judge (it follows a label: "Judge: …"); a demonstration model's says
    its scores check the setup, not the answer."""
    found = _label(JUDGES, judge.kind, lang)
    name = judge_name(judge, lang)
    if not found:
        return name
    line = then(name, found[1], lang)
    if is_demonstration(judge):
        line = sentences([line, t("labels.text.demonstration_model", lang, model=_model(judge))], lang)
    return line


def flag_name(flag: str, lang: Lang) -> str:
    """The flag's display name; an unknown id is shown as it is."""
    found = _label(FLAGS, flag, lang)
    return found[0] if found else flag


def flag_line(flag: str, lang: Lang) -> str:
    """ "Name: explanation" for a flag."""
    found = _label(FLAGS, flag, lang)
    if not found:
        return flag
    return found[0] + colon(lang) + found[1]


def rule_name(rule: str, lang: Lang) -> str:
    """A gate's or a flag's display name (caps name either)."""
    found = _label(GATES, rule, lang) if rule in GATES else None
    found = found or _label(FLAGS, rule, lang)
    return found[0] if found else rule


def cap_text(cap: str, lang: Lang) -> str:
    """A score bound as the judge records it ("happy_path_cap (≤3)", "unlabeled_numbers (-1)") in words."""
    m = _CAP.match(cap.strip())
    if not m:
        return cap
    key = "labels.text.at_most" if m["how"] == "≤" else "labels.text.taken_off"
    return t(key, lang, name=rule_name(m["name"], lang), n=m["n"])


def _count(what: str, n: int, lang: Lang) -> str:
    """ "1 strong signal", "2 weak signals": `labels.text.<what>.one` or `.other`."""
    return t(f"labels.text.{what}.{'one' if n == 1 else 'other'}", lang, n=n)


def _missing(items: list[str], lang: Lang) -> str:
    return t("labels.text.missing", lang, items=listed(items, lang))


def coverage_text(c: Coverage, lang: Lang, *, missing: bool = True) -> str:
    """How the checklist got to a dimension's level, in the report's language and with no rubric ids (a
    weak signal is counted, not named): "5 of 8 expected items covered (62%); 1 strong signal; missing: …"."""
    share = f"{c.share:.0%}"  # as the judge's reason string writes it
    if c.round_share is not None:
        # the share the level is read from is pulled toward the round's: say so, not as a raw share
        share = t("labels.text.with_round", lang, share=share, round=f"{c.round_share:.0%}")
    out = [t("labels.text.covered", lang, covered=c.covered, expected=c.expected, share=share)]
    if c.strong_signals:
        out.append(_count("strong", c.strong_signals, lang))
    if c.weak_signals:
        out.append(_count("weak", len(c.weak_signals), lang))
    if c.model_score is not None:
        if c.model_reason:
            out.append(t("labels.text.model_why", lang, n=c.model_score, why=c.model_reason))
        else:
            out.append(t("labels.text.model", lang, n=c.model_score))
    if c.samples:
        scores = ", ".join(str(x) for x in c.samples)
        out.append(t("labels.text.samples", lang, k=len(c.samples), scores=scores, score=c.sample_score))
    if missing and c.missing:
        shown, more = c.missing[:3], len(c.missing) - 3
        out.append(_missing(shown + ([t("labels.text.more", lang, n=more)] if more > 0 else []), lang))
    return listed(out, lang)


_COVERED = re.compile(r"^(?P<have>\d+)/(?P<all>\d+) expected items covered \((?P<pct>\d+)%\)$")
_ROUND = re.compile(r"^round coverage (?P<pct>\d+)%$")
_STRONG = re.compile(r"^(?P<n>\d+) strong signal\(s\)$")
_MODEL = re.compile(r"^model said (?P<n>\d+) \((?P<why>.*)\)$", re.S)


def reason_text(reason: str, lang: Lang, *, missing: bool = True) -> str:
    """A report written before `Coverage` existed: its reason string read back into words."""
    head, sep, miss = reason.partition("missing: ")
    out: list[str] = []
    parts = [x.strip() for x in head.split("; ") if x.strip()]
    for k, part in enumerate(parts):
        if m := _COVERED.match(part):
            r = _ROUND.match(parts[k + 1]) if k + 1 < len(parts) else None
            c = Coverage(
                covered=int(m["have"]),
                expected=int(m["all"]),
                share=int(m["pct"]) / 100,
                round_share=int(r["pct"]) / 100 if r else None,
            )
            out.append(coverage_text(c, lang))
        elif _ROUND.match(part):
            continue
        elif m := _STRONG.match(part):
            out.append(_count("strong", int(m["n"]), lang))
        elif part.startswith("weak: "):
            out.append(_count("weak", len([w for w in part[6:].split(",") if w.strip()]), lang))
        elif m := _MODEL.match(part):
            out.append(t("labels.text.model_why", lang, n=m["n"], why=m["why"]))
        else:
            out.append(part)
    if sep and missing:
        out.append(_missing(miss.strip().split("; "), lang))
    return listed(out, lang)


def why_text(ds: DimensionScore, lang: Lang, *, missing: bool = True, caps: bool = True) -> str:
    """The one rendering of why a dimension scored what it did: its coverage, then the bounds that applied
    ("… · Happy path only: at most 3"). The app, the Markdown report and the evidence package all use it."""
    text = (
        coverage_text(ds.coverage, lang, missing=missing)
        if ds.coverage is not None
        else reason_text(ds.reason, lang, missing=missing)
    )
    if caps and ds.caps:
        text += " · " + listed([cap_text(c, lang) for c in ds.caps], lang)  # "；" between them in Chinese
    return text
