"""index.md: the package as Markdown (`interview package --format md`), the same sections as index.html."""

from __future__ import annotations

from agent.contracts.labels import judge_line, judge_name
from agent.package.html import dim_titles, round_titles
from agent.package.labels import (
    given_head,
    joined,
    name,
    number,
    paired,
    plan_name,
    seconds,
    written,
)
from agent.package.model import EvidencePackage
from agent.rubric.model import Lang
from agent.util.messages import bracketed, colon, enumerated, labelled, listed, t, then


def _c(x: object) -> str:
    """A table cell: one line, no pipe."""
    return " ".join(str(x).split()).replace("|", "/")


def _row(cells: list[object]) -> str:
    return "| " + " | ".join(_c(c) for c in cells) + " |"


def _head(cells: list[str]) -> list[str]:
    return [_row(list(cells)), "|" + "---|" * len(cells)]


def _l(key: str, text: object, lang: Lang) -> str:
    """A bold label (a message key), its colon and what it labels: "**Plan:** …" / "**计划**：…"."""
    return labelled(t(key, lang), str(text), lang)


def render_markdown(pkg: EvidencePackage) -> str:
    lang: Lang = pkg.language
    s = pkg.session
    titles, dims = round_titles(pkg), dim_titles(pkg)
    out = [f"# {joined(t('package.title', lang), s.id, lang)}", ""]
    plan = plan_name(s.plan, lang, titles)
    out.append(f"- {_l('package.plan', plan, lang)} · {_l('package.mode', name('mode', s.mode, lang), lang)}")
    out.append(f"- {_l('package.started', s.created_at, lang)} · {_l('package.updated', s.updated_at, lang)}")
    if s.previous_session:
        out.append(f"- {_l('package.previous', s.previous_session, lang)}")
    if pkg.score_sheet:  # by name: its model id, rubric version and hashes are in package.json
        out.append(f"- {_l('package.judge', judge_line(pkg.score_sheet.judge, lang), lang)}")
    qv = pkg.question_version
    out += [
        "",
        f"## 1. {t('package.version', lang)}",
        "",
        _l("package.rubric", qv.rubric_version, lang),
        "",
    ]
    for rv in qv.rounds:
        minutes = bracketed(f"{rv.minutes} {t('package.minutes', lang)}", lang)
        out += [f"### {rv.title}{minutes}", ""]
        out += _head([t("package.kind", lang), t("package.session_t", lang), t("package.asked", lang)])
        out += [_row([name("asked", a.kind, lang), seconds(a.at_s), a.text]) for a in rv.asked]
        if rv.capacity is not None:
            c = rv.capacity
            head = given_head(c.variant_seed, lang)
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
            f"### {titles.get(f.round, f.round)} · {joined(t('package.verdict', lang), name('verdict', f.verdict, lang), lang)}",
            "",
        ]
        out += _head([t("package.quantity", lang), t("package.formula", lang), t("package.reference", lang), t("package.unit", lang),
                      t("package.stated", lang), t("package.status", lang)])  # fmt: skip
        out += [
            _row([f"{name('quantity', x.quantity, lang)} `{x.quantity}`", f"{x.formula} = {x.substituted}",
                  number(x.reference), name("unit", x.unit, lang), x.candidate or "—",
                  t(f"package.step.{x.status}", lang) + (bracketed(name("error", x.error, lang), lang) if x.error else "")])
            for x in f.steps
        ]  # fmt: skip
        if f.unit_errors:
            out += [
                "",
                _l(
                    "package.unit_errors", listed([name("error", x, lang) for x in f.unit_errors], lang), lang
                ),
            ]
        out.append("")
    out += [f"## 4. {t('package.scores', lang)}", ""]
    if pkg.score_sheet is None:
        out += [t("package.not_scored", lang), ""]
    else:
        for r in pkg.score_sheet.rounds:
            p = r.provenance
            out += [f"### {then(r.title, f'{r.judge_total}/25 → {r.effective_total}/25', lang)}", ""]
            out.append(_l("package.provenance", judge_name(p, lang), lang))  # its ids: package.json
            if r.fallback:
                out.append(f"\n**{t('package.fallback', lang)}**{bracketed(p.fallback_reason or '', lang)}")
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
                ov = (
                    joined(
                        paired(
                            paired(f"{o.judge_score} → {o.human_score}", o.reviewer, lang),
                            written(o.created_at, o.original_created_at, lang),
                            lang,
                        ),
                        o.reason,
                        lang,
                    )
                    if o
                    else ""
                )
                out.append(_row([d.title, d.judge, d.effective, ov]))
            out.append("")
    out += [f"## 5. {t('package.disputed', lang)}", ""]
    if not pkg.disputed:
        out += [t("package.no_disputed", lang), ""]
    for dp in pkg.disputed:
        out += [
            f"### {titles.get(dp.round, dp.round)} · {dims.get(dp.dimension, dp.dimension)} · "
            + joined(
                " + ".join(name("why", w, lang) for w in dp.why),
                f"{dp.judge_score} → {dp.effective_score}",
                lang,
            ),
            "",
        ]
        if dp.override:
            o = dp.override
            who = paired(o.reviewer, written(o.created_at, o.original_created_at, lang), lang)
            out.append(f"- {joined(t('package.override', lang), joined(who, o.reason, lang), lang)}")
        if dp.fallback_reason:
            out.append(f"- {joined(t('package.fallback', lang), dp.fallback_reason, lang)}")
        out += [f"> {_c(q)}" for q in dp.quotes]
        out += [
            f"- `{p.cited}`{colon(lang)}{name('path', p.status, lang)}"
            + (f"{'——' if lang == 'zh' else ' — '}{p.detail}" if p.detail else "")
            for p in dp.paths
        ]
        out += [
            f"- [{x.path}:{x.start_line}-{x.end_line}]({x.permalink}) `{x.symbol}`"
            + ("——" if lang == "zh" else " — ")
            + joined(t("package.claim", lang), _c(x.claim), lang)
            for x in dp.sources
        ]
        out.append("")
    out += [f"## 6. {t('package.failures', lang)}", ""]
    if not pkg.failures:
        out += [t("package.no_failures", lang), ""]
    for fl in pkg.failures:
        where = enumerated((titles.get(r, r) for r in fl.rounds), lang)
        out += [f"### {fl.title}{bracketed(where, lang)}", *[f"- {_c(x)}" for x in fl.evidence]]
        out += ["", _l("package.next_action", fl.next_action, lang), ""]
    if pkg.retry:
        out += [f"## 7. {t('package.retry', lang, s=pkg.retry.previous_session)}", ""]
        for rr in pkg.retry.rounds:
            totals = f"{rr.before_total} → {rr.after_total}" + bracketed(f"{rr.delta:+d}", lang)
            out += [f"### {joined(rr.title, totals, lang)}", ""]
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
        flag = f"{'，' if lang == 'zh' else ' '}**{t('package.over', lang)}**" if rt.over_budget else ""
        out += [
            f"### {rt.title}{bracketed(t('package.used', lang, used=used, minutes=rt.minutes), lang)}{flag}",
            "",
        ]
        for turn in rt.turns:
            who = t("package.interviewer" if turn.role == "interviewer" else "package.candidate_role", lang)
            out += [f"**{who}** +{seconds(turn.round_elapsed_s)}", "", turn.text, ""]
    if pkg.candidate_questions:
        out += [f"### {t('package.questions', lang)}", *[f"- {q}" for q in pkg.candidate_questions], ""]
    out += [
        f"## {t('package.omitted', lang)}",
        *[f"- **{o.what}**{colon(lang)}{o.why}" for o in pkg.omitted],
        "",
    ]
    return "\n".join(out)
