"""The one scoring function: a verified checklist becomes five 1-5 scores.

Both judges call `score_round`. A level comes from how much of a dimension's expected evidence
the answer covers (with quotes), moved by strong and weak signals, then bounded by the gates.
A model's holistic score, when present, is kept only within the band the checklist supports.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent.contracts.checklist import Checklist
from agent.contracts.report import Coverage, DimensionScore, JudgeInfo, RoundAssessment
from agent.judge.gates import Bounds, GateContext, apply_gates
from agent.judge.notes import lexicon_note
from agent.rubric.lexicon import Floor, Lexicon, ScoringPolicy
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Dimension, EvidenceItem, Flag, Lang, Round
from agent.util.messages import LANGS, enumerated


def flags_of(checklist: Checklist, lex: Lexicon) -> set[Flag]:
    """Flags the checks raise before scoring (accuracy_1 / validation_1 come after)."""
    c = checklist.checks
    th = lex.flag_thresholds
    flags: set[Flag] = set()
    if c.happy_path_only:
        flags.add("happy_path_only")
    if len(c.unlabeled_numbers) >= th.unlabeled_numbers:
        own = {n.text for n in c.numbers if n.label not in (None, "given")} | set(c.unlabeled_numbers)
        if len(c.unlabeled_numbers) >= th.unlabeled_share * len(own):
            flags.add("unlabeled_numbers")
    if c.fabricated:
        flags.add("fabricated_metrics")
    if c.injection:
        flags.add("prompt_injection")
    if any(p.status in ("missing", "symbol_missing", "moved") for p in c.paths):
        flags.add("nonexistent_path")  # a moved file does not exist at the pin either (its effect is milder)
    if c.mutation_before_evidence:
        flags.add("mutation_before_evidence")
    if c.no_alternative:
        flags.add("no_alternative")
    if c.capacity is not None and c.capacity.verdict == "unit_or_sharding_error":
        flags.add("unit_error")
    if any("accuracy" in m.dimensions for m in c.misconceptions):
        flags.add("misconception")  # a wrong mechanism; a wrong practice (close on a green graph) costs its own dimensions
    return flags


def _level(coverage: float, strong: int, has_strong: bool, cfg: ScoringPolicy) -> int:
    levels = cfg.coverage_levels
    level = 1
    for lv in sorted(levels):
        if coverage >= levels[lv]:
            level = lv
    if level == 5 and not (strong > 0 or (not has_strong and coverage >= cfg.five_without_signal)):
        level = 4
    if level in (2, 3) and strong > 0:
        level += min(strong, cfg.strong_bonus_max)
    return level


def unbacked_story(round_id: str, scores: dict[Dimension, int], flags: Iterable[str], cfg: ScoringPolicy) -> bool:
    """A project story told with measured-sounding figures and nothing behind them: evidence (scored before
    trade-offs and validation) at 1 and `fabricated_metrics` raised, in a round of `unbacked_story_rounds`."""
    return round_id in cfg.unbacked_story_rounds and scores.get("evidence") == 1 and "fabricated_metrics" in flags


def _floors(cfg: ScoringPolicy, d: Dimension) -> list[Floor]:
    return cfg.floors.get(d, [])


def scored_items(rubric: Rubric, checklist: Checklist) -> list[EvidenceItem]:
    """The round's expected items an answer is scored against: those in the checklist's scope (every item
    when it has none), less the items moot in an answer with no quantities (lexicon `moot_without_numbers`).
    A dimension's `Coverage` counts these; what the app suggests adding is drawn from the same set."""
    moot = set(rubric.lexicon.scoring.moot_without_numbers) if not checklist.checks.numbers else set()
    return [
        i
        for i in rubric.evidence(checklist.round)
        if (checklist.scope is None or i.id in checklist.scope) and i.id not in moot
    ]


def score_round(
    rubric: Rubric,
    checklist: Checklist,
    judge: JudgeInfo | None = None,
    lang: Lang | None = None,
    *,
    scores_given: dict[Dimension, int] | None = None,
) -> RoundAssessment:
    """Turn a verified checklist into the round's assessment (scores, flags, quotes, follow-ups).

    `scores_given` (the median of several samples) replace the scores the checklist leads to, after
    the gates; flags, pass, notes and totals follow them, bands and caps stay this checklist's.
    """
    lang = lang or checklist.language
    rnd: Round = rubric.round(checklist.round)
    lex = rubric.lexicon
    cfg = lex.scoring
    items = scored_items(rubric, checklist)
    found = {f.id: f for f in checklist.items}
    covered = checklist.covered()
    strong_defs = {s.id: s for s in rubric.strong_signals(rnd.id)}
    weak_defs = {s.id: s for s in rubric.weak_signals(rnd.id)}
    strong_present = [s for s in checklist.strong if s.present and s.id in strong_defs]
    weak_present = [s for s in checklist.weak if s.present and s.id in weak_defs]

    flags = flags_of(checklist, lex)
    bounds = Bounds()
    for w in weak_present:
        cap = weak_defs[w.id].cap
        if cap is not None:
            for d in weak_defs[w.id].dimensions:
                bounds.cap(d, cap, f"weak signal {w.id}")
    taken: dict[Dimension, int] = {}
    for m in checklist.checks.misconceptions:  # a wrong claim costs points whatever else was said
        for d in m.dimensions:
            room = cfg.misconception_minus_max - taken.get(d, 0)
            if room > 0:
                bounds.take(d, min(m.severity, room), f"misconception {m.id}")
                taken[d] = taken.get(d, 0) + min(m.severity, room)
    unjudged: list[Dimension] = []
    if checklist.scope is not None and checklist.outside:
        # no question the rubric asks was answered: a dimension no item in scope leads on is not judged
        unjudged = [d for d in DIMENSIONS if not any(i.dimensions[0] == d for i in items)]
        for d in unjudged:
            bounds.cap(d, cfg.unjudged_cap, "outside_rubric")
    n_specific = len(checklist.checks.specifics)
    for d, steps in cfg.specificity_caps.items():
        for most, cap in steps:  # no concrete specifics: no checkable evidence, whatever the vocabulary
            if n_specific <= most:
                bounds.cap(d, cap, "few_specifics")
                break
    n_wrong = sum(1 for m in checklist.checks.misconceptions if "accuracy" in m.dimensions)
    for least, cap in cfg.misconception_caps:  # confident wrong claims: the rest is not trusted either
        if n_wrong >= least:
            for d in cfg.misconception_cap_dimensions:
                bounds.cap(d, cap, "misconceptions")
    acting = set(flags)
    if "nonexistent_path" in flags and all(
        p.status in ("moved", "exists", "unknown") for p in checklist.checks.paths
    ):
        # every path that is not at the pin is real code in an older release's layout: flagged, but what it
        # costs is the version scope (moved_path_caps), not the invented path's evidence penalty
        acting.discard("nonexistent_path")
        for d, cap in cfg.moved_path_caps.items():
            bounds.cap(d, cap, "moved_path")
    ctx = GateContext(checklist=checklist, flags=acting, lang=lang, messages=lex.messages)
    apply_gates(rnd.gates, ctx, lex.flag_effects, bounds)

    dims: list[DimensionScore] = []
    scores: dict[Dimension, int] = {}
    quotes: dict[Dimension, list[str]] = {}
    band_width = cfg.band
    prior = cfg.coverage_prior
    wrong_core = cfg.wrong_core_caps  # accuracy is scored first (DIMENSIONS order)
    shown: set[str] = set()
    overall = sum(i.weight for i in items if i.id in covered) / (sum(i.weight for i in items) or 1.0)
    for d in DIMENSIONS:
        mine = [i for i in items if d in i.dimensions]
        total_w = sum(i.weight for i in mine) or 1.0
        cov = sum(i.weight for i in mine if i.id in covered) / total_w
        pulled = bool(mine) and prior > 0  # a dimension with few items is not decided by one of them
        if pulled:
            cov = (cov * total_w + prior * overall) / (total_w + prior)
        n_strong = sum(1 for s in strong_present if d in strong_defs[s.id].dimensions)
        has_strong = any(d in s.dimensions for s in strong_defs.values())
        level = _level(cov, n_strong, has_strong, cfg)
        n_weak = [s for s in weak_present if d in weak_defs[s.id].dimensions and weak_defs[s.id].cap is None]
        level = max(1, level - min(len(n_weak), cfg.weak_penalty_max))
        for floor in _floors(cfg, d):  # a coherent, substantive, ordered answer is not level 1 here
            c = checklist.checks
            if (
                c.sentences >= floor.min_sentences
                and overall >= floor.min_coverage
                and c.structure >= floor.min_structure
                and len(c.specifics) >= floor.min_specifics
                and not (floor.without_weak and n_weak)
            ):
                level = max(level, floor.level)
        upper = bounds.upper(d)
        lo, hi = max(1, level - band_width), min(5, level + band_width, max(1, upper))
        lo = min(lo, hi)
        score = level
        holistic = checklist.holistic.get(d)
        if holistic is not None:
            score = min(max(holistic.score, lo), hi)
        if d != "accuracy" and scores["accuracy"] == 1 and d in wrong_core:
            bounds.cap(d, wrong_core[d], "wrong_core")
        if d in cfg.unbacked_story_caps and unbacked_story(rnd.id, scores, flags, cfg):
            bounds.cap(d, cfg.unbacked_story_caps[d], "unbacked_story")
        score, applied = bounds.apply(d, score)
        if scores_given is not None:
            score = scores_given[d]
        scores[d] = score
        # its own best quote first: items this dimension leads on, then the others, then strong signals;
        # a passage another dimension already shows comes after every passage it does not
        lead = [i for i in mine if i.dimensions[0] == d] + [i for i in mine if i.dimensions[0] != d]
        cand = [found[i.id].quote for i in lead if i.id in covered]
        cand += [s.quote for s in strong_present if d in strong_defs[s.id].dimensions]
        q = _distinct(x for x in cand if x)
        quotes[d] = ([x for x in q if x not in shown] + [x for x in q if x in shown])[:4]
        shown.update(quotes[d][:1])
        got = [i.text.get(lang) for i in mine if i.id in covered]
        miss = [i.text.get(lang).rstrip("。.") for i in mine if i.id not in covered]
        reason_parts = [f"{len(got)}/{len(mine)} expected items covered ({cov:.0%})"]
        if pulled:
            reason_parts.append(f"round coverage {overall:.0%}")
        if n_strong:
            reason_parts.append(f"{n_strong} strong signal(s)")
        if n_weak:
            reason_parts.append("weak: " + ", ".join(w.id for w in n_weak))
        if holistic is not None:
            reason_parts.append(f"model said {holistic.score} ({holistic.reason})")
        if miss:
            reason_parts.append("missing: " + "; ".join(miss[:3]))
        dims.append(
            DimensionScore(
                dimension=d,
                score=score,
                level=_level_text(rubric, rnd, d, score, lang),
                reason="; ".join(reason_parts),
                quotes=quotes[d],
                band=(lo, hi),
                caps=applied,
                coverage=Coverage(
                    covered=len(got),
                    expected=len(mine),
                    share=cov,
                    round_share=overall if pulled else None,
                    missing=miss,
                    strong_signals=n_strong,
                    weak_signals=[w.id for w in n_weak],
                    model_score=holistic.score if holistic is not None else None,
                    model_reason=holistic.reason if holistic is not None else None,
                ),
            )
        )

    # the anchor "5 = complete, with boundaries and a verification path": a 5 elsewhere needs that much shown
    # where the round checks it (validation is scored after accuracy, evidence and trade-offs, so this comes last)
    for need_dim, need_min in cfg.five_needs.items():
        if scores_given is not None or scores[need_dim] >= need_min:
            continue
        for k, ds in enumerate(dims):
            if ds.dimension != need_dim and ds.score == 5:
                scores[ds.dimension] = 4
                bound = f"five_needs_{need_dim} (≤4)"
                text = _level_text(rubric, rnd, ds.dimension, 4, lang)
                dims[k] = ds.model_copy(update={"score": 4, "level": text, "caps": [*ds.caps, bound]})
    if scores["accuracy"] == 1:
        flags.add("accuracy_1")
    if scores["validation"] == 1:
        flags.add("validation_1")
    if judge is not None and judge.fallback:
        flags.add("judge_fallback")

    noted = list(bounds.notes)
    passed: bool | None = None
    msgs = lex.messages
    if bounds.pass_rule is not None:
        pd, pmin = bounds.pass_rule
        passed = scores[pd] >= pmin
        if not passed:
            noted.append(
                lexicon_note(
                    "not_passed",
                    msgs.not_passed,
                    round=rnd.title,
                    dimension=rubric.dimensions[pd].title,
                    min=pmin,
                    score=scores[pd],
                )
            )
    if bounds.senior_rule is not None:
        sdims, smin = bounds.senior_rule
        if any(scores[d] < smin for d in sdims):
            names = {lg: enumerated([rubric.dimensions[d].title.get(lg) for d in sdims], lg) for lg in LANGS}
            noted.append(lexicon_note("senior_bar", msgs.senior_bar, dimensions=names, min=smin))
    if checklist.checks.honest_unknown:
        noted.append(lexicon_note("honest_unknown", msgs.honest_unknown))
    for asked in checklist.outside:
        noted.append(lexicon_note("outside_rubric", msgs.outside_rubric, question=asked[:160]))
    if unjudged:
        titles = {lg: enumerated([rubric.dimensions[d].title.get(lg) for d in unjudged], lg) for lg in LANGS}
        noted.append(lexicon_note("unjudged", msgs.unjudged, dimensions=titles, cap=cfg.unjudged_cap))
    for path in checklist.checks.paths:
        if path.status == "moved":
            noted.append(
                lexicon_note("moved_path", msgs.moved_path, cited=path.cited, now=", ".join(path.moved_to))
            )
    for m in checklist.checks.misconceptions:
        # a vLLM path is a source the reader can open; a seed quote is the rubric's origin (kept in the JSON)
        key = "misconception_sourced" if m.source.startswith("vllm/") else "misconception"
        noted.append(
            lexicon_note(
                key,
                getattr(msgs, key),
                quote=m.quote,
                claim=m.claim,
                correction=m.correction,
                source=m.source,
            )
        )
    notes = [n.said(lang) for n in noted]

    missing_items = [i for i in items if i.id not in covered]
    missing_ids = {i.id for i in missing_items}
    ranked = sorted(
        ((len(missing_ids & set(f.probes)), k, f) for k, f in enumerate(rnd.followups)),
        key=lambda t: (-t[0], t[1]),
    )
    followups = [f.text.get(lang) for n, _, f in ranked if n > 0][:3]

    weights = {d: float(rnd.weights.get(d, 1.0)) for d in DIMENSIONS}
    weighted = sum(weights[d] * scores[d] for d in DIMENSIONS) / sum(weights.values()) * len(DIMENSIONS)

    return RoundAssessment(
        round=rnd.id,
        scores=scores,
        total=sum(scores.values()),
        flags=sorted(flags),
        quotes={d: quotes[d] for d in DIMENSIONS if quotes[d]},
        missing_evidence=[i.text.get(lang) for i in missing_items],
        next_followups=followups,
        judge=judge,
        dimensions=dims,
        passed=passed,
        notes=notes,
        noted=noted,
        weighted=round(weighted, 2),
        checklist=checklist,
    )


def risks_and_actions(
    rubric: Rubric, rounds: list[RoundAssessment], lang: Lang, items: Lang | None = None
) -> tuple[list[str], list[str]]:
    """Risks (any accuracy 1 or validation 1, on their own) and the two lowest dimensions below 5 as actions, in
    `lang`; the rubric's items an action names in `items` (default `lang`: a report shown in another
    interface language keeps them in the session's language, as its missing evidence is)."""
    items_lang = items or lang
    msgs = rubric.lexicon.messages
    templates = rubric.lexicon.next_actions
    risks: list[str] = []
    actions: list[str] = []
    for ra in rounds:
        rnd = rubric.round(ra.round)
        title = rnd.title.get(lang)
        risky: tuple[Dimension, ...] = ("accuracy", "validation")
        for d in risky:
            if ra.scores[d] == 1:
                risks.append(
                    msgs.risk.fill(lang, round=title, dimension=rubric.dimensions[d].title.get(lang))
                )
        order = {d: k for k, d in enumerate(DIMENSIONS)}
        below = [d for d in DIMENSIONS if ra.scores[d] < 5]  # a full score needs no next action
        lowest = sorted(below, key=lambda d: (ra.scores[d], -float(rnd.weights.get(d, 1.0)), order[d]))[:2]
        expected = rubric.evidence(rnd.id)
        covered = ra.checklist.covered() if ra.checklist else set()
        for d in lowest:
            miss = [
                i.text.get(items_lang).rstrip("。.")
                for i in expected
                if d in i.dimensions and i.id not in covered
            ][:2]
            sep = "；" if items_lang == "zh" else "; "
            action = templates[d].fill(lang, round=title, items=sep.join(miss))
            # no item left to name (the level is the flags' or the signals'): the advice ends the sentence
            actions.append(action if miss else action.rstrip(" :：") + ("。" if lang == "zh" else "."))
    return risks, actions


def _level_text(rubric: Rubric, rnd: Round, d: Dimension, score: int, lang: Lang) -> str:
    return rnd.level_text(rubric.dimensions[d], score).get(lang)


def _distinct(quotes: Iterable[str]) -> list[str]:
    """The quotes in order, without one that another already kept contains or is contained in (two rows
    of one passage say nothing the first did not)."""
    kept: list[str] = []
    seen: list[str] = []  # the kept ones, whitespace normalised
    for q in quotes:
        norm = " ".join(q.split())
        if not any(norm in k or k in norm for k in seen):
            kept.append(q)
            seen.append(norm)
    return kept
