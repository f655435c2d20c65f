"""index.md: the package as Markdown (`interview package --format md`), the same sections as index.html."""

from __future__ import annotations

from agent.package.html import dim_titles, round_titles
from agent.package.labels import name, number, plan_name, seconds
from agent.package.model import EvidencePackage
from agent.rubric.model import Lang
from agent.util.messages import t


def _c(x: object) -> str:
    """A table cell: one line, no pipe."""
    return " ".join(str(x).split()).replace("|", "/")


def _row(cells: list[object]) -> str:
    return "| " + " | ".join(_c(c) for c in cells) + " |"


def _head(cells: list[str]) -> list[str]:
    return [_row(list(cells)), "|" + "---|" * len(cells)]


def render_markdown(pkg: EvidencePackage) -> str:
    lang: Lang = pkg.language
    s = pkg.session
    titles, dims = round_titles(pkg), dim_titles(pkg)
    out = [f"# {t('package.title', lang)}: {s.id}", ""]
    plan = plan_name(s.plan, lang, titles)
    out.append(
        f"- **{t('package.plan', lang)}:** {plan} · **{t('package.mode', lang)}:** {name('mode', s.mode, lang)}"
    )
    out.append(
        f"- **{t('package.started', lang)}:** {s.created_at} · **{t('package.updated', lang)}:** {s.updated_at}"
    )
    if s.previous_session:
        out.append(f"- **{t('package.previous', lang)}:** {s.previous_session}")
    qv = pkg.question_version
    out += [
        "",
        f"## 1. {t('package.version', lang)}",
        "",
        f"**{t('package.rubric', lang)}:** {qv.rubric_version}",
        "",
    ]
    for rv in qv.rounds:
        out += [f"### {rv.title} ({rv.minutes} {t('package.minutes', lang)})", ""]
        out += _head([t("package.kind", lang), t("package.session_t", lang), t("package.asked", lang)])
        out += [_row([name("asked", a.kind, lang), seconds(a.at_s), a.text]) for a in rv.asked]
        if rv.capacity is not None:
            c = rv.capacity
            head = (
                t("package.given_values", lang, seed=c.variant_seed)
                if c.variant_seed is not None
                else t("package.given_seed", lang)
            )
            out += ["", f"**{head}**", ""]
            out += _head(
                [
                    t("package.name", lang),
                    t("package.value", lang),
                    t("package.unit", lang),
                    t("package.symbol", lang),
                ]
            )
            out += [
                _row([g.description, number(g.value), name("unit", g.unit, lang), f"`{g.name}`"])
                for g in rv.capacity.values
            ]
        out.append("")
    out += [f"## 2. {t('package.assumptions', lang)}", ""]
    out += _head([t("package.round", lang), t("package.number", lang), t("package.label", lang), t("package.labelled_by", lang),
                  t("package.from_answer", lang)])  # fmt: skip
    out += [
        _row(
            [
                titles.get(a.round, a.round),
                a.text,
                a.label_text,
                t(f"package.{a.labelled_by}", lang),
                a.sentence,
            ]
        )
        for a in pkg.assumptions
    ]
    out += ["", f"## 3. {t('package.formulas', lang)}", ""]
    for f in pkg.formulas:
        out += [
            f"### {titles.get(f.round, f.round)} · {t('package.verdict', lang)}: {name('verdict', f.verdict, lang)}",
            "",
        ]
        out += _head([t("package.quantity", lang), t("package.formula", lang), t("package.reference", lang), t("package.unit", lang),
                      t("package.stated", lang), t("package.status", lang)])  # fmt: skip
        out += [
            _row([f"{name('quantity', x.quantity, lang)} `{x.quantity}`", f"{x.formula} = {x.substituted}",
                  number(x.reference), name("unit", x.unit, lang), x.candidate or "—",
                  t(f"package.step.{x.status}", lang) + (f" ({name('error', x.error, lang)})" if x.error else "")])
            for x in f.steps
        ]  # fmt: skip
        if f.unit_errors:
            out += [
                "",
                f"**{t('package.unit_errors', lang)}:** {'; '.join(name('error', x, lang) for x in f.unit_errors)}",
            ]
        out.append("")
    out += [f"## 4. {t('package.scores', lang)}", ""]
    if pkg.score_sheet is None:
        out += [t("package.not_scored", lang), ""]
    else:
        for r in pkg.score_sheet.rounds:
            p = r.provenance
            out += [f"### {r.title} — {r.judge_total}/25 → {r.effective_total}/25", ""]
            out.append(
                f"{t('package.provenance', lang)}: {name('judge', p.kind, lang)} · {p.model} · {p.rubric_version}"
            )
            if r.fallback:
                out.append(f"\n**{t('package.fallback', lang)}** ({p.fallback_reason or ''})")
            out.append("")
            out += _head(
                [
                    t("package.dimension", lang),
                    t("package.judge_score", lang),
                    t("package.effective", lang),
                    t("package.override", lang),
                ]
            )
            for d in r.dimensions:
                o = d.override
                ov = f"{o.judge_score} → {o.human_score}, {o.reviewer}: {o.reason}" if o else ""
                out.append(_row([d.title, d.judge, d.effective, ov]))
            out.append("")
    out += [f"## 5. {t('package.disputed', lang)}", ""]
    if not pkg.disputed:
        out += [t("package.no_disputed", lang), ""]
    for dp in pkg.disputed:
        out += [
            f"### {titles.get(dp.round, dp.round)} · {dims.get(dp.dimension, dp.dimension)} · "
            f"{' + '.join(name('why', w, lang) for w in dp.why)}: {dp.judge_score} → {dp.effective_score}",
            "",
        ]
        if dp.override:
            out.append(f"- {t('package.override', lang)}: {dp.override.reviewer}: {dp.override.reason}")
        if dp.fallback_reason:
            out.append(f"- {t('package.fallback', lang)}: {dp.fallback_reason}")
        out += [f"> {_c(q)}" for q in dp.quotes]
        out += [f"- `{p.cited}`: {p.status} {p.detail}".rstrip() for p in dp.paths]
        out += [
            f"- [{x.path}:{x.start_line}-{x.end_line}]({x.permalink}) `{x.symbol}` — {t('package.claim', lang)}: {_c(x.claim)}"
            for x in dp.sources
        ]
        out.append("")
    out += [f"## 6. {t('package.failures', lang)}", ""]
    if not pkg.failures:
        out += [t("package.no_failures", lang), ""]
    for fl in pkg.failures:
        where = ", ".join(titles.get(r, r) for r in fl.rounds)
        out += [f"### {fl.title} ({where})", *[f"- {_c(x)}" for x in fl.evidence]]
        out += [f"\n**{t('package.next_action', lang)}:** {fl.next_action}", ""]
    if pkg.retry:
        out += [f"## 7. {t('package.retry', lang, s=pkg.retry.previous_session)}", ""]
        for rr in pkg.retry.rounds:
            out += [f"### {rr.title}: {rr.before_total} → {rr.after_total} ({rr.delta:+d})", ""]
            out += _head(
                [
                    t("package.dimension", lang),
                    t("package.before", lang),
                    t("package.after", lang),
                    t("package.delta", lang),
                ]
            )
            out += [_row([d.title, d.before, d.after, f"{d.delta:+d}"]) for d in rr.dimensions]
            out.append("")
    out += [f"## {8 if pkg.retry else 7}. {t('package.transcript', lang)}", ""]
    for rt in pkg.transcript:
        used = f"{rt.used_s / 60:.1f}" if rt.used_s is not None else "—"
        flag = f" **{t('package.over', lang)}**" if rt.over_budget else ""
        out += [f"### {rt.title} ({t('package.used', lang, used=used, minutes=rt.minutes)}){flag}", ""]
        for turn in rt.turns:
            who = t("package.interviewer" if turn.role == "interviewer" else "package.candidate_role", lang)
            out += [f"**{who}** +{seconds(turn.round_elapsed_s)}", "", turn.text, ""]
    if pkg.candidate_questions:
        out += [f"### {t('package.questions', lang)}", *[f"- {q}" for q in pkg.candidate_questions], ""]
    out += [f"## {t('package.omitted', lang)}", *[f"- **{o.what}**: {o.why}" for o in pkg.omitted], ""]
    return "\n".join(out)
