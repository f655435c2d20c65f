"""Misconceptions: the round's catalogue of wrong claims, found where an answer asserts one.

Precision first. A sentence asserts an entry's claim when it matches the entry's `recognise` cues
and nothing in it takes the claim back:

- a question ("Is the prefix cache a response cache?") asserts nothing;
- a correction phrase anywhere in the sentence ("a common mistake is…", "误以为…") or one of the
  entry's own `unless` terms ("rather than swapping") means the candidate is correcting it;
- a negator ("not", "isn't", "不是", "并不") in the claim's own clauses denies it.

A follow-up question may pose the claim itself ("Is a smaller block size always better?"): a reply whose
first sentence says yes to it ("Yes, basically.", "对。") asserts the claim, unless that sentence
qualifies the yes (`hedge`: "yes and no", "看情况"), negates, corrects or names one of the entry's
`unless` terms. The claim's
  clauses are the shortest run of clauses (split at commas, colons, "but", "所以"…) that holds
  every needed cue group. A recognise term that itself spells a negator ("/(no|without) full[- ]vocab/",
  "/(不用|无需)对?(整个|全)词表/") words the claim with one: the text it matched is not searched, so "top-5
  logprobs need no full-vocab softmax" is still asserted, while "it does not skip the full-vocab
  softmax" is denied.

Term lists and the clause split live in rubrics/misconceptions/ (markers.yaml and one file a
round); this module only applies them, with the cue terms of agent.judge.matching. Every quote is
a verbatim slice of the answer (the asserting sentence).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from agent.contracts.checklist import MisconceptionFinding
from agent.judge.matching import Sentence, Term, any_term, compile_terms, sentence_hits
from agent.judge.numbers import documented_turns
from agent.rubric.loader import Rubric
from agent.rubric.misconception import Misconception, MisconceptionMarkers


@lru_cache(maxsize=16)
def _splitter(pattern: str) -> re.Pattern[str]:
    # it reads folded text (agent.judge.matching.fold: NFKC, so "，" is ","), as a cue regex does
    return re.compile(unicodedata.normalize("NFKC", pattern), re.IGNORECASE)


def _clauses(lower: str, split: re.Pattern[str]) -> list[tuple[int, int]]:
    """Spans of the sentence's clauses (separators left out; empty pieces dropped)."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for m in split.finditer(lower):
        if m.start() > pos and lower[pos : m.start()].strip():
            spans.append((pos, m.start()))
        pos = max(pos, m.end())
    if pos < len(lower) and lower[pos:].strip():
        spans.append((pos, len(lower)))
    return spans or [(0, len(lower))]


def _groups_hit(groups: Sequence[tuple[Term, ...]], text: str) -> int:
    return sum(1 for g in groups if any(t.search(text) for t in g))


def _claim_windows(
    groups: Sequence[tuple[Term, ...]], need: int, lower: str, clauses: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Character spans of the shortest clause runs that match `need` groups (none if none do)."""
    found: list[tuple[int, int]] = []
    for i in range(len(clauses)):
        for j in range(i, len(clauses)):
            a, b = clauses[i][0], clauses[j][1]
            if _groups_hit(groups, lower[a:b]) >= need:
                found.append((i, j))
                break
    minimal = [
        (i, j) for i, j in found if not any((i2, j2) != (i, j) and i <= i2 and j2 <= j for i2, j2 in found)
    ]
    return [(clauses[i][0], clauses[j][1]) for i, j in minimal]


def _masked(window: str, terms: Sequence[Term]) -> str:
    """The window with these terms' matches blanked out (a claim's own wording is not a denial)."""
    chars = list(window)
    for t in terms:
        for a, b in t.spans(window):
            chars[a:b] = " " * (b - a)
    return "".join(chars)


_ESCAPE = re.compile(r"\\[A-Za-z]")


def spells_negator(term: Term, negation: Sequence[str]) -> bool:
    """True when the term's own text holds a negator (regex escapes such as \\b set aside)."""
    return any_term(_ESCAPE.sub(" ", term.raw.lower()), negation)


@lru_cache(maxsize=1024)
def _prepared(
    groups: tuple[tuple[str, ...], ...], negation: tuple[str, ...]
) -> tuple[list[tuple[Term, ...]], list[Term]]:
    """An entry's compiled cue groups and those of its terms that spell a negator."""
    compiled = [compile_terms(g) for g in groups]
    return compiled, [t for g in compiled for t in g if spells_negator(t, negation)]


def asserts(m: Misconception, markers: MisconceptionMarkers, lower: str, supplied: int = 0) -> bool:
    """True when the (folded) sentence asserts the entry's claim (see the module docstring). `supplied`
    groups (0 or 1) come from the follow-up question the sentence answers, not from the sentence."""
    groups, own = _prepared(tuple(tuple(g) for g in m.recognise.groups), tuple(markers.negation))
    need = max(1, m.recognise.required - supplied)
    if _groups_hit(groups, lower) < need:
        return False
    if any_term(lower, markers.question) or any_term(lower, markers.correction) or any_term(lower, m.unless):
        return False
    for a, b in _claim_windows(groups, need, lower, _clauses(lower, _splitter(markers.clause_split))):
        if not any_term(_masked(lower[a:b], own), markers.negation):
            return True
    return False


def _says_yes(markers: MisconceptionMarkers, sents: Sequence[Sentence]) -> list[Sentence]:
    """The first sentences of follow-up replies that open by saying yes to their question, unqualified."""
    out: list[Sentence] = []
    seen: set[int] = set()
    for s in sents:
        if s.turn in seen:
            continue
        seen.add(s.turn)
        if s.turn == 0 or not s.question or not any_term(s.lower, markers.affirmation):
            continue
        if any_term(s.lower, markers.hedge) or any_term(s.lower, markers.negation) or any_term(
            s.lower, markers.correction
        ):
            continue
        out.append(s)
    return out


def _poses(m: Misconception, markers: MisconceptionMarkers, question: str) -> bool:
    """Whether a question poses the entry's claim itself (every needed group, no negator, no correction)."""
    groups, _ = _prepared(tuple(tuple(g) for g in m.recognise.groups), tuple(markers.negation))
    if _groups_hit(groups, question) < m.recognise.required:
        return False
    return not (any_term(question, markers.negation) or any_term(question, markers.correction))


def _asked(
    m: Misconception, markers: MisconceptionMarkers, sents: Sequence[Sentence]
) -> dict[str, list[int]]:
    """For each follow-up question (not the round's opening prompt, which names every subject), the groups of
    the entry it matches."""
    groups, _ = _prepared(tuple(tuple(g) for g in m.recognise.groups), tuple(markers.negation))
    out: dict[str, list[int]] = {}
    for s in sents:
        if s.turn > 0 and s.question and s.question not in out:
            out[s.question] = [k for k, g in enumerate(groups) if any(t.search(s.question) for t in g)]
    return {q: ks for q, ks in out.items() if ks}


def find_misconceptions(
    rubric: Rubric, round_id: str, sents: Sequence[Sentence]
) -> list[MisconceptionFinding]:
    """The round's catalogued wrong claims that the answer's sentences assert, in answer order.

    Each entry is reported once, quoting the first sentence that asserts it. `sents` are the
    answer's sentences (agent.judge.matching.sentences), e.g. with injected ones already dropped. An
    `unless_documented` entry is not asserted in an answer that names its artifact and states its measurement
    conditions (agent.judge.numbers.documented_turns).
    """
    markers = rubric.misconception_markers
    if markers is None:
        return []
    out: list[MisconceptionFinding] = []
    lowers = [s.lower for s in sents]
    first: dict[int, int] = {}  # each turn's first sentence
    for i, s in enumerate(sents):
        first.setdefault(s.turn, i)
    yes = _says_yes(markers, sents) if markers.affirmation else []
    documented: set[int] | None = None
    for m in rubric.misconceptions(round_id):
        if m.unless_documented and documented is None:
            documented = documented_turns(sents, rubric.lexicon)
        said = next((s for s in yes if not any_term(s.lower, m.unless) and _poses(m, markers, s.question)), None)
        if said is not None:  # "Yes, basically." to "Is a smaller block size always better?"
            out.append(_finding(m, said))
            continue
        # only sentences that match enough of the entry's groups can assert it (the same first test as asserts;
        # a follow-up question may supply one group, never all of them)
        hits = [sentence_hits(lowers, g) for g in m.recognise.groups]
        n_hit = sum(1 for h in hits if h)
        if not n_hit or n_hit + 1 < m.recognise.required:
            continue  # no sentence can match enough groups (most entries, most answers)
        asked = _asked(m, markers, sents)
        if n_hit + (1 if asked else 0) < m.recognise.required:
            continue
        some = 0
        for h in hits:
            some |= h
        for i, s in enumerate(sents):
            if not some >> i & 1 or (m.unless_documented and documented and s.turn in documented):
                continue
            own = [k for k, h in enumerate(hits) if h >> i & 1]
            # a follow-up answer leaves its subject unsaid ("Yes, the smaller the better" to "Is a smaller block
            # size always better?"): in its first two sentences (where a reply says yes or no), its question may
            # supply the entry's subject (its first group) when the sentence does not name it; never the claim
            supplied = 1 if 0 in asked.get(s.question, ()) and 0 not in own and i - first[s.turn] < 2 else 0
            if len(own) + supplied >= m.recognise.required and asserts(m, markers, s.lower, supplied):
                out.append(_finding(m, s))
                break
    out.sort(key=lambda f: (f.start, f.id))
    return out


def _finding(m: Misconception, s: Sentence) -> MisconceptionFinding:
    return MisconceptionFinding(
        id=m.id,
        claim=m.claim,
        quote=s.text,
        start=s.start,
        correction=m.correction,
        source=m.source,
        severity=m.severity,
        dimensions=list(m.dimensions),
    )
