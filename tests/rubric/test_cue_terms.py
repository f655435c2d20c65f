"""Every plain cue term in rubrics/ is matched as a substring of folded text (agent/judge/matching.fold): one
that folds to a single Latin letter or digit (a Greek ρ folds to p) matches almost every sentence."""

from __future__ import annotations

from pathlib import Path

import yaml

from agent.judge.matching import fold

ROOT = Path(__file__).resolve().parents[2] / "rubrics"


def _terms(node: object) -> list[str]:
    out: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "groups" and isinstance(value, list):
                out += [t for g in value if isinstance(g, list) for t in g if isinstance(t, str)]
            else:
                out += _terms(value)
    elif isinstance(node, list):
        for value in node:
            out += _terms(value)
    return out


def test_no_plain_cue_term_folds_to_one_latin_letter_or_digit() -> None:
    files = sorted(ROOT.rglob("*.yaml"))
    terms = [(f.name, t) for f in files for t in _terms(yaml.safe_load(f.read_text(encoding="utf-8")))]
    assert len(terms) > 1000
    bad = [
        (name, t)
        for name, t in terms
        if not (t.startswith("/") and t.endswith("/"))
        and len(fold(t).strip()) == 1
        and fold(t).strip().isascii()
        and fold(t).strip().isalnum()
    ]
    assert bad == [], bad
