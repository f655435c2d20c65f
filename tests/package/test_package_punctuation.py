"""The evidence package's pages (index.html, index.md) join their texts with the session language's own
punctuation (issue 12: a Chinese page read "评分来源: vllm · test-flaky-judge · rubric-…", "人工修改: …") and
name the judge by its display name, its ids (kind, model id, rubric version, hashes, endpoint) kept in
package.json.

A full session in each language with an override, a round scored by the fallback judge, a unit error, a cited
path that does not exist and a source snippet. What people wrote or the rubric asked (answers, quotes, the
reviewer's reason, the question's texts, source excerpts) is left aside: it is quoted as it is. The rest:

- Chinese: no ASCII colon, semicolon or comma joining two texts, no ASCII brackets around Chinese text, and the
  rules of tests/ui/test_punctuation.py (no ASCII colon after Chinese, no space after Chinese punctuation);
- English: tests/ui/test_punctuation.py's rule, and no full-width punctuation.
"""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

from agent.contracts.labels import judge_name
from agent.graph import SessionView, start_session
from agent.graph.state import GraphContext
from agent.package import EvidencePackage, build_package
from agent.package.folder import files
from agent.rubric import Lang, Rubric
from agent.util.messages import t
from tests.graph.script import strong
from tests.package.conftest import (
    SOURCE_TRACE_EXTRA,
    UNIT_ERROR,
    UNIT_ERROR_ZH,
    drive,
    override_capacity,
)
from tests.ui.test_punctuation import CJK, faults

QUOTED = "〔〕"
"""What stands for a text people wrote or the rubric asked, once it is set aside."""
ZH_JOINS = re.compile(r"[:;,](?:\s|$)")
"""An ASCII colon, semicolon or comma ending a text or followed by a space: two texts joined the English way
(times, paths and URLs have none: "10:00", "kv_cache_manager.py:200-260", "https://")."""
ZH_ASCII_BRACKETS = re.compile(r"\([^()]*" + CJK + r"[^()]*\)")
EN_FULL_WIDTH = re.compile(r"[：；，（）。、]")
SESSION = {"en": "punct-en", "zh": "punct-zh"}


def _session(rubric: Rubric, lang: Lang) -> SessionView:
    texts: dict[str | None, str] = {
        rid: strong(rubric, rid) for rid in ("concepts", "system-design", "incident")
    }
    texts["source-trace"] = strong(rubric, "source-trace") + SOURCE_TRACE_EXTRA
    texts["capacity"] = (
        "我会先问：权重是否复制？block size 是多少？"
        if lang == "zh"
        else "I would ask whether weights are replicated and what the block size is."
    )
    texts[None] = "团队怎么评审容量规划？" if lang == "zh" else "How does the team review capacity plans?"
    v = start_session("full", lang, session_id=SESSION[lang])
    v = drive(v, texts, {"capacity": UNIT_ERROR_ZH if lang == "zh" else UNIT_ERROR})
    override_capacity(v)
    return v


def _quoted(pkg: EvidencePackage) -> list[str]:
    """The texts the page quotes as they are: what people wrote or the rubric asked, the log's own problem."""
    out: list[str] = [q for q in pkg.candidate_questions]
    out += [turn.text for r in pkg.transcript for turn in r.turns]
    out += [a.text for r in pkg.question_version.rounds for a in r.asked]
    out += [a.sentence for a in pkg.assumptions]  # (the numbers themselves are not joined to anything)
    out += [f.answer for f in pkg.formulas]
    for d in pkg.disputed:
        out += [
            *d.quotes,
            d.fallback_reason or "",
            *(p.cited for p in d.paths),
            *(p.detail or "" for p in d.paths),
        ]
        out += [x for src in d.sources for x in (src.claim, src.excerpt, src.symbol)]
        out += [d.override.reason] if d.override else []
    for r in pkg.score_sheet.rounds if pkg.score_sheet else []:
        out += [d.override.reason for d in r.dimensions if d.override]
        out += [r.provenance.fallback_reason or ""]
    out += [x for f in pkg.failures for x in f.evidence]
    out += [n for r in pkg.score_sheet.rounds for n in r.notes] if pkg.score_sheet else []  # the judge's own
    out += (
        [q for r in pkg.retry.rounds for d in r.dimensions for q in (*d.quotes_before, *d.quotes_after)]
        if pkg.retry
        else []
    )
    out += [line for x in out for line in x.splitlines()]  # a block quoted in lines (a source excerpt)
    return sorted({x for x in out if len(x.strip()) > 3}, key=len, reverse=True)  # fmt: skip


def _html_lines(page: str) -> list[str]:
    """The page's text, a line per block, a table's cells apart (" | ")."""
    body = page.split("<body>", 1)[1]
    body = re.sub(r"</?(?:p|h[1-6]|li|tr|div|blockquote|pre|ul|table|br)\b[^>]*>", "\n", body)
    body = re.sub(r"<(?:td|th)\b[^>]*>", " | ", body)
    return [x.strip() for x in unescape(re.sub(r"<[^>]+>", "", body)).splitlines() if x.strip()]


def _set_aside(text: str, quoted: list[str]) -> str:
    for q in quoted:
        for form in (q, " ".join(q.split()), " ".join(q.split()).replace("|", "/")):
            text = text.replace(form, QUOTED)
    return text


def _faults(text: str, lang: Lang) -> list[str]:
    found = faults(text, lang)
    patterns = (ZH_JOINS, ZH_ASCII_BRACKETS) if lang == "zh" else (EN_FULL_WIDTH,)
    for p in patterns:
        found += [text[max(0, m.start() - 25) : m.end() + 25] for m in p.finditer(text)]
    return found


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_pages_join_texts_with_the_language_s_punctuation(
    flaky: GraphContext, rubric: Rubric, lang: Lang
) -> None:
    _session(rubric, lang)
    pkg = build_package(SESSION[lang])
    assert pkg.score_sheet is not None and pkg.disputed and pkg.formulas and pkg.failures
    assert any(r.fallback for r in pkg.score_sheet.rounds)
    quoted = _quoted(pkg)
    html = _html_lines(files(pkg, "html")["index.html"].decode("utf-8"))
    md = files(pkg, "md")["index.md"].decode("utf-8").splitlines()
    bad = [
        f"{page}: {line!r}: {fault!r}"
        for page, lines in (("index.html", html), ("index.md", md))
        for line in lines
        for fault in _faults(_set_aside(line, quoted), lang)
    ]
    assert not bad, "\n".join(bad)
    # the round's notes count the inputs the candidate asked for, their ids (given-…, hidden-…) left to the JSON
    assert not [x for x in (*html, *md) if re.search(r"\b(?:given|hidden)-[a-z]", x)]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_judge_is_shown_by_name_and_its_ids_stay_in_the_json(
    flaky: GraphContext, rubric: Rubric, lang: Lang
) -> None:
    _session(rubric, lang)
    pkg = build_package(SESSION[lang])
    assert pkg.score_sheet is not None
    judges = [pkg.score_sheet.judge, *(r.provenance for r in pkg.score_sheet.rounds)]
    assert {j.kind for j in judges} == {"vllm"} and any(j.fallback for j in judges)  # the flaky judge
    # (a vLLM judge's model is in its name, as the app shows it: "vLLM judge (test-flaky-judge)")
    ids = {x for j in judges for x in (j.rubric_version, j.prompt_hash, j.endpoint, j.index_commit) if x}
    label = t("package.provenance", lang)
    for page, lines in (
        ("index.html", _html_lines(files(pkg, "html")["index.html"].decode("utf-8"))),
        ("index.md", files(pkg, "md")["index.md"].decode("utf-8").splitlines()),
    ):
        provenance = [x for x in lines if x.lstrip("*").startswith(label)]
        assert len(provenance) == len(pkg.score_sheet.rounds), (page, provenance)
        for line, r in zip(provenance, pkg.score_sheet.rounds, strict=True):
            assert judge_name(r.provenance, lang) in line, (page, line)
            assert not [i for i in ids if i in line], (page, line)
            assert not re.search(r"\bvllm\b", line), (page, line)  # the kind's id
    # the ids are in package.json, as they were
    doc = json.loads(files(pkg, "html")["package.json"])
    got = {x for r in doc["score_sheet"]["rounds"] for x in r["provenance"].values() if isinstance(x, str)}
    assert ids <= got | {doc["score_sheet"]["judge"]["rubric_version"]}
