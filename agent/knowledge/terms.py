"""Chinese -> English term mapping for queries (knowledge/terms_zh_en.yaml).

MiniLM is English-only: a pure-Chinese query becomes [UNK] tokens and retrieves nothing. The
mapping rewrites known Chinese terms into the English words and identifiers the source uses; the
English and code identifiers already in the query are kept as they are.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import yaml

from agent.knowledge.pin import knowledge_dir

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]+")


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text))


@functools.lru_cache(maxsize=4)
def _load(path: Path) -> tuple[tuple[str, str], ...]:
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    terms = data.get("terms", {})
    if not isinstance(terms, dict):
        raise ValueError(f"{path}: 'terms' must map Chinese terms to English text")
    pairs = [(str(k), str(v)) for k, v in terms.items()]
    # longest first, so 前缀缓存 wins over 前缀 and 缓存
    return tuple(sorted(pairs, key=lambda kv: -len(kv[0])))


def load_terms(path: Path | None = None) -> dict[str, str]:
    return dict(_load((path or knowledge_dir() / "terms_zh_en.yaml").resolve()))


def map_terms(text: str, path: Path | None = None) -> str:
    """Rewrite a query for an English embedding model: known Chinese terms become their English
    terms, remaining CJK text is dropped, English words are kept. Text without CJK is returned as is.
    """
    if not has_cjk(text):
        return text
    pairs = _load((path or knowledge_dir() / "terms_zh_en.yaml").resolve())
    out = text
    for zh, en in pairs:
        if zh in out:
            out = out.replace(zh, f" {en} ")
    out = _CJK.sub(" ", out)
    return " ".join(out.split())
