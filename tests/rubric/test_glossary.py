"""A Chinese text a person reads speaks Chinese (issue 12: "A Chinese session shows no English product strings").

Every display text of the rubric (each `Text`'s `zh` side: questions, level descriptors, expected items,
signals, gates, follow-ups, narrative, next actions, misconception claims and corrections, the capacity
variant) and every message of `messages/` is read against docs/glossary.md: an English term of its first
table may stand only in full-width parentheses, after its Chinese (失效边界（failure boundary）). The
terms the glossary keeps in English (its last table) are taken out first, so "prefix cache" is not read as
"prefix". Matching data (cue terms, term lists, examples) is not display text and is not read here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel

from agent.config import repo_root
from agent.rubric import load_rubric
from agent.rubric.model import Text
from agent.util.messages import catalogue

GLOSSARY = repo_root() / "docs" / "glossary.md"


def _table(title: str) -> list[list[str]]:
    """The rows of the table under `## title` in the glossary, as cells (header and rule left out)."""
    text = GLOSSARY.read_text(encoding="utf-8")
    section = text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[c.strip() for c in row.strip("|").split("|")] for row in rows[2:]]


@cache
def translated() -> tuple[str, ...]:
    """The English terms the glossary gives in Chinese (a qualifier in brackets, "(the dimension)", left out)."""
    return tuple(re.sub(r"\s*\(.*\)$", "", row[0]) for row in _table("English → Chinese"))


@cache
def kept() -> tuple[str, ...]:
    """The forms the glossary keeps in English, longest first."""
    forms = {f.strip().strip("`") for row in _table("Kept in English") for f in row[0].split(",")}
    return tuple(sorted((f for f in forms if f and "…" not in f), key=len, reverse=True))


def _pattern(term: str) -> re.Pattern[str]:
    """The term as a word of its own (a plural too); short abbreviations ("IC") only in capitals."""
    flags = 0 if len(term) <= 3 and term.isupper() else re.IGNORECASE
    return re.compile(r"(?<![\w-])" + re.escape(term) + r"(?:s|es)?(?![\w-])", flags)


def _texts_of(node: object) -> Iterator[Text]:
    if isinstance(node, Text):
        yield node
    elif isinstance(node, BaseModel):
        for name in type(node).model_fields:
            yield from _texts_of(getattr(node, name))
    elif isinstance(node, dict):
        for v in node.values():
            yield from _texts_of(v)
    elif isinstance(node, (list, tuple)):
        for v in node:
            yield from _texts_of(v)


def display_texts() -> Iterator[tuple[str, str]]:
    """(where, Chinese text) for every Chinese text a person reads."""
    r = load_rubric()
    parts: dict[str, object] = {
        "dimensions": r.dimensions,
        "rounds": r.rounds,
        "common": r.common,
        "narrative": r.narrative,
        "lexicon": r.lexicon,
        "misconceptions": r.misconception_catalogue,
    }
    for where, part in parts.items():
        for t in _texts_of(part):
            yield f"rubric {where}", t.zh
    variant = yaml.safe_load(Path(r.root, "capacity_variant.yaml").read_text(encoding="utf-8"))
    yield "rubric capacity_variant", variant["prompt"]["zh"]
    for key, entry in catalogue().items():
        yield f"message {key}", entry["zh"]


def english_outside_parentheses(text: str) -> list[str]:
    """The glossary's English terms in `text` that are not in full-width parentheses."""
    plain = re.sub(r"\{[^{}]*\}", " ", text)  # a message's fields
    plain = re.sub(r"`[^`]*`", " ", plain)  # code
    while True:  # what stands in （…）, innermost first
        inner = re.sub(r"（[^（）]*）", " ", plain)
        if inner == plain:
            break
        plain = inner
    plain = re.sub(r"[\w.-]*/[\w./-]*|\w+\.py\b", " ", plain)  # paths
    for form in kept():  # a name as it is written ("Request"), a term in any case ("Prefix caching")
        flags = 0 if form[0].isupper() else re.IGNORECASE
        plain = re.sub(r"(?<![\w-])" + re.escape(form) + r"(?![\w-])", " ", plain, flags=flags)
    return [term for term in translated() if _pattern(term).search(plain)]


def test_the_glossary_is_one_chinese_term_per_english_term() -> None:
    rows = _table("English → Chinese")
    assert len(rows) > 150
    english = [row[0] for row in rows]
    assert len(english) == len(set(english)), "an English term twice in the glossary"
    assert all(row[1] and row[2] in ("yes", "no") for row in rows)
    assert not set(translated()) & set(kept()), "a term both translated and kept"


def test_a_chinese_text_gives_the_glossary_terms_in_chinese() -> None:
    texts = list(display_texts())
    assert len(texts) > 1000
    found = [
        f"{where}: {terms} in {text!r}"
        for where, text in texts
        if (terms := english_outside_parentheses(text))
    ]
    assert not found, "English terms in Chinese texts (docs/glossary.md):\n" + "\n".join(found)


def test_the_check_finds_an_english_term_and_passes_its_parenthesised_form() -> None:
    assert english_outside_parentheses("只讲 happy path 不超过 3 分。") == ["happy path"]
    assert english_outside_parentheses("只讲顺利路径（happy path）不超过 3 分。") == []
    assert english_outside_parentheses("prefix cache 是 block 的复用状态。") == []
    assert english_outside_parentheses("暂停 rollout、限制 retry。") == ["retry", "rollout"]
