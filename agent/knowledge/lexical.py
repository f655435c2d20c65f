"""A small BM25 over path, symbol and the identifiers and words of each chunk.

It complements the embedding model: exact identifiers (`kv_cache_manager`, `bitmask`, `logprobs`)
carry much of a source query's meaning, and MiniLM sees only the first 256 tokens of a chunk.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping

from agent.knowledge.chunker import MODULE, Chunk, split_identifier

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
FIELD_WEIGHT = 3
"""Path and symbol tokens count this many times the body's."""

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "get",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "so",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "this",
        "to",
        "use",
        "used",
        "uses",
        "using",
        "via",
        "was",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "without",
        "you",
        "your",
        "self",
        "cls",
        "none",
        "true",
        "false",
        "def",
        "return",
        "class",
        "import",
        "pass",
        "raise",
        "not",
        "elif",
        "else",
        "try",
        "except",
        "finally",
        "while",
        "yield",
        "lambda",
        "async",
        "await",
        "assert",
        "del",
        "global",
        "nonlocal",
        "str",
        "int",
        "float",
        "bool",
        "list",
        "dict",
        "tuple",
        "set",
        "any",
        "optional",
        "py",
        "vllm",
    ]
)


def stem(word: str) -> str:
    """A light suffix strip so `blocks`/`block`, `sampling`/`sampler`/`sample` meet."""
    for suffix, keep in (("ing", 4), ("ers", 4), ("er", 4), ("ies", 3), ("es", 4), ("ed", 4), ("s", 3)):
        if word.endswith(suffix) and len(word) - len(suffix) >= keep and not word.endswith("ss"):
            base = word[: -len(suffix)]
            return base + "y" if suffix == "ies" else base
    return word


def tokens(text: str) -> list[str]:
    """Words and identifier parts of `text`, lower-cased, stemmed, stopwords dropped.
    Compound identifiers are also kept whole (`kv_cache_manager`)."""
    out: list[str] = []
    for ident in _WORD.findall(text):
        parts = split_identifier(ident)
        if len(parts) > 1:
            whole = ident.lower().strip("_")
            if whole and whole not in STOPWORDS:
                out.append(whole)
        out.extend(stem(p) for p in parts if len(p) > 1 and p not in STOPWORDS)
    return out


def chunk_terms(chunk: Chunk) -> dict[str, int]:
    """Term frequencies of one chunk: path and symbol weighted up, then the code text."""
    head = tokens(chunk.path.removesuffix(".py").replace("/", " "))
    if chunk.symbol != MODULE:
        head += tokens(chunk.symbol)
    counts = Counter(tokens(chunk.text))
    for t in head:
        counts[t] += FIELD_WEIGHT
    return dict(counts)


class BM25:
    def __init__(self, docs: Mapping[str, Mapping[str, int]], *, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.postings: dict[str, list[tuple[str, int]]] = {}
        self.lengths: dict[str, int] = {}
        for doc_id, terms in docs.items():
            self.lengths[doc_id] = sum(terms.values())
            for term, tf in terms.items():
                self.postings.setdefault(term, []).append((doc_id, tf))
        n = len(self.lengths) or 1
        self.avgdl = (sum(self.lengths.values()) / n) or 1.0
        self.idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()}

    def __len__(self) -> int:
        return len(self.lengths)

    def scores(self, query_terms: Iterable[str]) -> dict[str, float]:
        out: dict[str, float] = {}
        for term in set(query_terms):
            idf = self.idf.get(term)
            if idf is None:
                continue
            for doc_id, tf in self.postings[term]:
                norm = tf + self.k1 * (1 - self.b + self.b * self.lengths[doc_id] / self.avgdl)
                out[doc_id] = out.get(doc_id, 0.0) + idf * tf * (self.k1 + 1) / norm
        return out
