"""What the package's pages (index.html, index.md) show for numbers, times, ids and owners, and the punctuation
that joins their texts in each language (a colon, a list, a remark in brackets); their words are in
messages/package.yaml (agent/util/messages.py: `t("package.…", lang)`)."""

from __future__ import annotations

import re

from agent.graph.plan import with_self_check
from agent.rubric.model import SELF_CHECK, Lang
from agent.util.messages import bracketed, colon, has, t


def number(x: float) -> str:
    """A value as people read it: whole numbers with thousands separators, others to 4 significant digits."""
    if float(x).is_integer() and abs(x) < 1e18:
        return f"{int(x):,}"
    return f"{x:,.4g}"


def seconds(s: float | None) -> str:
    if s is None:
        return "—"
    m, sec = divmod(round(s), 60)
    return f"{m}:{sec:02d}"


def given_head(variant_seed: int | None, lang: Lang) -> str:
    """What heads the capacity round's given values: the variant's seed, or the seed's own numbers."""
    if variant_seed is not None:
        return t("package.given_values", lang, seed=variant_seed)
    return t("package.given_seed", lang)


# ---------------------------------------------------------------- punctuation where texts join


def joined(first: str, second: str, lang: Lang) -> str:
    """A text and what it introduces: "Verdict: correct" / "结论：正确"."""
    return first + colon(lang) + second


def paired(first: str, second: str, lang: Lang) -> str:
    """Two short items side by side: "coach-ana, 2026-…" / "coach-ana，2026-…"."""
    return first + ("，" if lang == "zh" else ", ") + second


def written(created_at: str, original_created_at: str | None, lang: Lang) -> str:
    """When an override was written: its log time; for a row imported from another install's log after this
    log's rows (dated at the import), the time it was written there, then when it was imported."""
    if not original_created_at:
        return created_at
    return original_created_at + bracketed(t("package.imported", lang, at=created_at), lang)


# ---------------------------------------------------------------- names for what the package stores as ids


def name(kind: str, key: str, lang: Lang, **kw: object) -> str:
    """What a person reads for an id the package stores (a plan, a mode, a verdict, a unit, …): the id
    itself when it has no name."""
    found = f"package.ids.{kind}.{key}"
    return t(found, lang, **kw) if has(found) else key


def plan_name(plan: str, lang: Lang, round_titles: dict[str, str]) -> str:
    """A session's plan as the app names it: "full", a round id, "project", "redo ID" (… "fresh"), each
    "+ self-check" when the plan adds the self-check round ("full self-check")."""
    base, added = with_self_check(plan)
    words = base.split()
    if len(words) >= 2 and words[0] == "redo":
        named = name("plan", "redo", lang, s=words[1])
    else:
        named = round_titles.get(base) or name("plan", base, lang)
    if not added:
        return named
    return name("plan", "plus_self_check", lang, plan=named, title=round_titles.get(SELF_CHECK) or SELF_CHECK)


def owner_name(owner: str | None) -> str | None:
    """A signed-in user's name; None for a browser's or an API page's random owner id."""
    if not owner or owner.startswith(("browser:", "tab:")):
        return None
    return owner


_FACT = r"(?:given|hidden)-[a-z0-9-]+"
_GIVEN_IDS = re.compile(rf"(?P<sep>[:：]\s*)(?P<ids>{_FACT}(?:,\s*{_FACT})*)\s*$")


def note_text(note: str, lang: Lang) -> str:
    """A round's note with the ids of the inputs the candidate asked for (the capacity round's `given-…`, the
    design round's `hidden-…`) counted, not listed (their texts are in the question version, as the inputs the
    candidate asked for)."""
    m = _GIVEN_IDS.search(note)
    if not m:
        return note
    said = t("package.given_counted", lang, n=len(m["ids"].split(",")))
    return note[: m.start()] + m["sep"] + said
