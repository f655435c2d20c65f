"""index.html: the package as one printable page, with no external assets.

Styles are inline; fonts are the reader's own (a CJK-capable family stack, no web fonts), so Chinese
renders offline wherever a CJK font is installed. The only links are the vLLM permalinks.
"""

from __future__ import annotations

from html import escape

from agent.contracts.labels import cap_text, flag_line, judge_line, judge_name, reason_text
from agent.package.labels import (
    given_head,
    joined,
    name,
    note_text,
    number,
    owner_name,
    paired,
    plan_name,
    seconds,
    written,
)
from agent.package.model import EvidencePackage
from agent.rubric.model import Lang
from agent.util.messages import bracketed, colon, enumerated, listed, t, then

FONT_STACK = (
    '"Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "PingFang SC", "Hiragino Sans GB", '
    '"Microsoft YaHei", "WenQuanYi Micro Hei", "Noto Sans", "DejaVu Sans", Arial, sans-serif'
)
MONO_STACK = '"Noto Sans Mono CJK SC", "WenQuanYi Micro Hei Mono", "DejaVu Sans Mono", Consolas, monospace'

CSS = f"""
body {{ font-family: {FONT_STACK}; font-size: 14px; line-height: 1.5; color: #111; margin: 24px auto;
  max-width: 1100px; padding: 0 16px; }}
h1 {{ font-size: 24px; margin: 0 0 8px; }}
h2 {{ font-size: 19px; border-bottom: 2px solid #333; margin-top: 28px; padding-bottom: 2px; }}
h3 {{ font-size: 16px; margin: 16px 0 6px; }}
table {{ border-collapse: collapse; width: 100%; margin: 6px 0 12px; }}
th, td {{ border: 1px solid #999; padding: 3px 6px; text-align: left; vertical-align: top; }}
th {{ background: #eee; word-break: keep-all; }}
td.n {{ text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }}
code, pre {{ font-family: {MONO_STACK}; font-size: 12px; }}
pre {{ background: #f6f6f6; border: 1px solid #ddd; padding: 6px; white-space: pre-wrap; }}
.bad {{ color: #a00; font-weight: bold; }}
.changed {{ background: #fff3c4; }}
.meta td:first-child {{ width: 180px; font-weight: bold; }}
.turn {{ margin: 4px 0; }}
.turn .who {{ font-weight: bold; }}
.turn .body {{ white-space: pre-wrap; }}
.turn .at {{ color: #555; font-family: {MONO_STACK}; font-size: 12px; }}
blockquote {{ margin: 4px 0 4px 12px; padding-left: 8px; border-left: 3px solid #bbb; }}
.omitted li {{ margin: 2px 0; }}
@media print {{
  body {{ margin: 0; max-width: none; font-size: 11px; }}
  h2 {{ break-after: avoid; }}
  tr, .turn, blockquote {{ break-inside: avoid; }}
  a {{ color: #000; }}
}}
"""


def _e(x: object) -> str:
    return escape(str(x), quote=True)


def _label(key: str, lang: Lang) -> str:
    """A bold label and its colon, before what it labels: "<b>Why:</b> " / "<b>依据</b>：" (the full-width
    colon outside the bold, no space after it)."""
    text = _e(t(key, lang))
    return f"<b>{text}</b>：" if lang == "zh" else f"<b>{text}:</b> "


def _table(head: list[str], rows: list[list[str]], numeric: set[int] | None = None) -> str:
    numeric = numeric or set()
    out = ["<table><thead><tr>", *(f"<th>{h}</th>" for h in head), "</tr></thead><tbody>"]
    for r in rows:
        cells = "".join(
            f'<td class="n">{c}</td>' if k in numeric else f"<td>{c}</td>" for k, c in enumerate(r)
        )
        out.append(f"<tr>{cells}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def round_titles(pkg: EvidencePackage) -> dict[str, str]:
    """round id -> its title in the session's language, from what the package holds."""
    titles: dict[str, str] = {r.round: r.title for r in pkg.transcript}
    titles.update({r.round: r.title for r in pkg.question_version.rounds})
    if pkg.score_sheet:
        titles.update({r.round: r.title for r in pkg.score_sheet.rounds})
    return titles


def dim_titles(pkg: EvidencePackage) -> dict[str, str]:
    out: dict[str, str] = {}
    for r in pkg.score_sheet.rounds if pkg.score_sheet else []:
        out.update({d.dimension: d.title for d in r.dimensions})
    return out


def render_html(pkg: EvidencePackage) -> str:
    lang: Lang = pkg.language
    s = pkg.session
    rounds = round_titles(pkg)
    out: list[str] = []
    heading = _e(joined(t("package.title", lang), s.id, lang))
    out.append(f"<h1>{heading}</h1>")
    meta = [
        (t("package.session", lang), s.id),
        (t("package.plan", lang), plan_name(s.plan, lang, rounds)),
        (t("package.mode", lang), name("mode", s.mode, lang)),
        (t("package.started", lang), s.created_at),
        (t("package.updated", lang), s.updated_at),
    ]
    owner = owner_name(s.owner)
    if owner:
        meta.append((t("package.owner", lang), owner))
    if s.previous_session:
        meta.append((t("package.previous", lang), s.previous_session))
    if pkg.score_sheet:  # by name: its model id, rubric version and hashes are in package.json
        meta.append((t("package.judge", lang), judge_line(pkg.score_sheet.judge, lang)))
    out.append(
        '<table class="meta"><tbody>'
        + "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in meta)
        + "</tbody></table>"
    )
    out += _version(pkg, lang)
    out += _assumptions(pkg, lang)
    out += _formulas(pkg, lang)
    out += _scores(pkg, lang)
    out += _disputed(pkg, lang)
    out += _failures(pkg, lang)
    out += _retry(pkg, lang)
    out += _transcript(pkg, lang)
    out.append(f'<h2>{_e(t("package.omitted", lang))}</h2><ul class="omitted">')
    out += [f"<li><b>{_e(o.what)}</b>{colon(lang)}{_e(o.why)}</li>" for o in pkg.omitted]
    out.append("</ul>")
    out.append(
        f"<p><small>{_e(t('package.schema', lang, id=pkg.schema_id, v=pkg.schema_version))}</small></p>"
    )
    html_lang = "zh-CN" if lang == "zh" else "en"
    return (
        f'<!DOCTYPE html>\n<html lang="{html_lang}">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{heading}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        + "\n".join(out)
        + "\n</body>\n</html>\n"
    )


def _version(pkg: EvidencePackage, lang: Lang) -> list[str]:
    qv = pkg.question_version
    out = [f"<h2>1. {_e(t('package.version', lang))}</h2>"]
    rv = _e(qv.rubric_version)
    if qv.rubric_version_now != qv.rubric_version:
        rv += _e(bracketed(f"{t('package.rubric_now', lang)} {qv.rubric_version_now}", lang))
    titles = round_titles(pkg)
    out.append(f"<p>{_label('package.rubric', lang)}{rv} · {_label('package.rounds', lang)}"
               f"{_e(('、' if lang == 'zh' else ', ').join(titles.get(r, r) for r in qv.round_ids))}</p>")  # fmt: skip
    for rv_ in qv.rounds:
        minutes = _e(bracketed(f"{rv_.minutes} {t('package.minutes', lang)}", lang))
        out.append(f"<h3>{_e(rv_.title)}<small>{minutes}</small></h3>")
        rows = [[_e(name("asked", a.kind, lang)), _e(seconds(a.at_s)), _e(a.text)] for a in rv_.asked]
        out.append(
            _table([t("package.kind", lang), t("package.session_t", lang), t("package.asked", lang)], rows)
        )
        if rv_.capacity is not None:
            c = rv_.capacity
            head = given_head(c.variant_seed, lang)
            out.append(f"<p><b>{_e(head)}</b></p>")
            out.append(
                _table(
                    [
                        t("package.name", lang),
                        t("package.value", lang),
                        t("package.unit", lang),
                        t("package.symbol", lang),
                    ],
                    [
                        [
                            _e(g.description),
                            _e(number(g.value)),
                            _e(name("unit", g.unit, lang)),
                            f"<code>{_e(g.name)}</code>",
                        ]
                        for g in c.values
                    ],
                    {1},
                )
            )
    return out


def _assumptions(pkg: EvidencePackage, lang: Lang) -> list[str]:
    out = [f"<h2>2. {_e(t('package.assumptions', lang))}</h2>"]
    titles = round_titles(pkg)
    if not pkg.assumptions:
        return [*out, f"<p>{_e(t('package.none', lang))}</p>"]
    rows = []
    for a in pkg.assumptions:
        label = _e(a.label_text)
        if a.label is None:
            label = f'<span class="bad">{label}</span>'
        by = _e(t(f"package.{a.labelled_by}", lang))
        where = f"#{a.answer + 1}" if a.answer is not None else "—"
        rows.append(
            [_e(titles.get(a.round, a.round)), f"<b>{_e(a.text)}</b>", label, by, _e(where), _e(a.sentence)]
        )
    out.append(
        _table(
            [
                t("package.round", lang),
                t("package.number", lang),
                t("package.label", lang),
                t("package.labelled_by", lang),
                "#",
                t("package.from_answer", lang),
            ],
            rows,
        )
    )
    return out


def _formulas(pkg: EvidencePackage, lang: Lang) -> list[str]:
    out = [f"<h2>3. {_e(t('package.formulas', lang))}</h2>"]
    titles = round_titles(pkg)
    if not pkg.formulas:
        return [*out, f"<p>{_e(t('package.none', lang))}</p>"]
    for f in pkg.formulas:
        seed = (
            t("package.variant", lang, seed=f.variant_seed)
            if f.variant_seed is not None
            else t("package.seed_numbers", lang)
        )
        verdict = joined(t("package.verdict", lang), name("verdict", f.verdict, lang), lang)
        out.append(f"<h3>{_e(titles.get(f.round, f.round))} · {_e(seed)} · {_e(verdict)}</h3>")
        rows = []
        for st in f.steps:
            stat = _e(t(f"package.step.{st.status}", lang))
            if st.status == "unit_error":
                stat = f'<span class="bad">{stat}</span><br>{_e(name("error", st.error or "", lang))}'
            rows.append([f"{_e(name('quantity', st.quantity, lang))}<br><code>{_e(st.quantity)}</code>",
                         f"<code>{_e(st.formula)}</code><br>"
                         f"<code>= {_e(st.substituted)}</code>", _e(number(st.reference)),
                         _e(name("unit", st.unit, lang)),
                         _e(st.candidate or "—"), stat])  # fmt: skip
        out.append(
            _table(
                [
                    t("package.quantity", lang),
                    t("package.formula", lang),
                    t("package.reference", lang),
                    t("package.unit", lang),
                    t("package.stated", lang),
                    t("package.status", lang),
                ],
                rows,
                {2},
            )
        )
        if f.unit_errors:
            errors = listed([name("error", x, lang) for x in f.unit_errors], lang)
            out.append(f'<p class="bad">{_e(joined(t("package.unit_errors", lang), errors, lang))}</p>')
        out.append(f"<blockquote>{_e(f.answer)}</blockquote>")
    return out


def _scores(pkg: EvidencePackage, lang: Lang) -> list[str]:
    out = [f"<h2>4. {_e(t('package.scores', lang))}</h2>"]
    sh = pkg.score_sheet
    if sh is None:
        return [*out, f"<p>{_e(t('package.not_scored', lang))}</p>"]
    if sh.override_log_intact is True:
        out.append(f"<p>{_e(t('package.log_intact', lang))}</p>")
    elif sh.override_log_intact is False:
        broken = joined(t("package.log_broken", lang), sh.override_log_problem or "", lang)
        out.append(f'<p class="bad">{_e(broken)}</p>')
    else:
        out.append(f'<p class="bad">{_e(t("package.log_unread", lang))}</p>')
    for r in sh.rounds:
        total = f"{r.judge_total}/25"
        if r.effective_total != r.judge_total:
            total += f" → {r.effective_total}/25"
        out.append(f"<h3>{_e(then(r.title, total, lang))}</h3>")
        p = r.provenance  # by name: its ids (model, rubric version, hashes, endpoint) are in package.json
        out.append(f"<p>{_label('package.provenance', lang)}{_e(judge_name(p, lang))}</p>")
        if r.fallback:
            fell = t("package.fallback", lang) + bracketed(p.fallback_reason or "", lang)
            out.append(f'<p class="bad">{_e(fell)}</p>')
        if r.flags:
            sep = "" if lang == "zh" else "; "  # a Chinese line ends in 。
            named = sep.join(flag_line(f, lang) for f in r.flags)
            out.append(f"<p>{_label('package.flags', lang)}{_e(named)}</p>")
        rows = []
        for d in r.dimensions:
            ov = ""
            if d.override:
                o = d.override
                when = written(o.created_at, o.original_created_at, lang)
                ov = _e(joined(f"{o.judge_score} → {o.human_score} · {o.reviewer} · {when}", o.reason, lang))
                if o.stale:
                    ov += _e(bracketed(t("package.stale", lang), lang))
            caps = " · " + listed([cap_text(c, lang) for c in d.caps], lang) if d.caps else ""
            cells = [_e(d.title), str(d.judge), f"<b>{d.effective}</b>", f"{d.band[0]}–{d.band[1]}",
                     _e(reason_text(d.reason, lang) + caps), ov]  # fmt: skip
            rows.append(cells)
        table = _table(
            [
                t("package.dimension", lang),
                t("package.judge_score", lang),
                t("package.effective", lang),
                t("package.band", lang),
                t("package.why", lang),
                t("package.override", lang),
            ],
            rows,
            {1, 2},
        )
        out.append(table)
        if r.notes:
            out.append("<ul>" + "".join(f"<li>{_e(note_text(n, lang))}</li>" for n in r.notes) + "</ul>")
    return out


def _disputed(pkg: EvidencePackage, lang: Lang) -> list[str]:
    out = [f"<h2>5. {_e(t('package.disputed', lang))}</h2>"]
    titles, dims = round_titles(pkg), dim_titles(pkg)
    if not pkg.disputed:
        return [*out, f"<p>{_e(t('package.no_disputed', lang))}</p>"]
    for d in pkg.disputed:
        why = " + ".join(name("why", w, lang) for w in d.why)
        head = joined(f"{titles.get(d.round, d.round)} · {dims.get(d.dimension, d.dimension)} · {why}",
                      f"{d.judge_score} → {d.effective_score}", lang)  # fmt: skip
        out.append(f"<h3>{_e(head)}</h3>")
        if d.override:
            o = d.override
            when = written(o.created_at, o.original_created_at, lang)
            who = joined(paired(o.reviewer, when, lang), o.reason, lang)
            out.append(f"<p>{_label('package.override', lang)}{_e(who)}</p>")
        if d.fallback_reason:
            out.append(
                f'<p class="bad">{_e(joined(t("package.fallback", lang), d.fallback_reason, lang))}</p>'
            )
        out.append(f"<p>{_label('package.why', lang)}{_e(reason_text(d.reason, lang))}</p>")
        if d.quotes:
            out.append(f"<p>{_label('package.quotes', lang).rstrip()}</p>")
            out += [f"<blockquote>{_e(q)}</blockquote>" for q in d.quotes]
        if d.paths:
            out.append(f"<p>{_label('package.paths', lang).rstrip()}</p><ul>")
            for p in d.paths:
                status = _e(name("path", p.status, lang))
                status = f'<span class="bad">{status}</span>' if p.status != "exists" else status
                detail = f"{'——' if lang == 'zh' else ' — '}{_e(p.detail)}" if p.detail else ""
                out.append(f"<li><code>{_e(p.cited)}</code>{colon(lang)}{status}{detail}</li>")
            out.append("</ul>")
        if d.sources:
            out.append(f"<p>{_label('package.sources', lang).rstrip()}</p>")
            for src in d.sources:
                claim = (
                    src.claim
                    if src.claim_from == "answer"
                    else joined(t("package.claim_question", lang), src.claim, lang)
                )
                out.append(
                    f'<p><a href="{_e(src.permalink)}">{_e(src.path)}:{src.start_line}-{src.end_line}</a> '
                    f"<code>{_e(src.symbol)}</code> @ <code>{_e(src.commit[:12])}</code><br>"
                    f"{_e(joined(t('package.claim', lang), claim, lang))}</p><pre>{_e(src.excerpt)}</pre>"
                )
    return out


def _failures(pkg: EvidencePackage, lang: Lang) -> list[str]:
    out = [f"<h2>6. {_e(t('package.failures', lang))}</h2>"]
    titles = round_titles(pkg)
    if not pkg.failures:
        return [*out, f"<p>{_e(t('package.no_failures', lang))}</p>"]
    for f in pkg.failures:
        where = enumerated((titles.get(r, r) for r in f.rounds), lang)
        out.append(f"<h3>{_e(f.title)}<small>{_e(bracketed(where, lang))}</small></h3>")
        if f.evidence:
            out.append("<ul>" + "".join(f"<li>{_e(x)}</li>" for x in f.evidence) + "</ul>")
        out.append(f"<p>{_label('package.next_action', lang)}{_e(f.next_action)}</p>")
    return out


def _retry(pkg: EvidencePackage, lang: Lang) -> list[str]:
    r = pkg.retry
    if r is None:
        return []
    out = [f"<h2>7. {_e(t('package.retry', lang, s=r.previous_session))}</h2>"]
    for rr in r.rounds:
        totals = f"{rr.before_total} → {rr.after_total}" + bracketed(f"{rr.delta:+d}", lang)
        out.append(f"<h3>{_e(joined(rr.title, totals, lang))}</h3>")
        rows = []
        for d in rr.dimensions:
            eff = ""
            if d.before_effective is not None and (
                d.before_effective != d.before or d.after_effective != d.after
            ):
                eff = bracketed(
                    f"{t('package.effective', lang)} {d.before_effective} → {d.after_effective}", lang
                )
            rows.append([_e(d.title), str(d.before), str(d.after), f"<b>{d.delta:+d}</b>{_e(eff)}",
                         "<br>".join(_e(q) for q in d.quotes_before[:2]),
                         "<br>".join(_e(q) for q in d.quotes_after[:2])])  # fmt: skip
        out.append(
            _table(
                [
                    t("package.dimension", lang),
                    t("package.before", lang),
                    t("package.after", lang),
                    t("package.delta", lang),
                    t("package.quotes_before", lang),
                    t("package.quotes_after", lang),
                ],
                rows,
                {1, 2, 3},
            )
        )
    return out


def _transcript(pkg: EvidencePackage, lang: Lang) -> list[str]:
    n = 8 if pkg.retry else 7
    out = [f"<h2>{n}. {_e(t('package.transcript', lang))}</h2>"]
    for r in pkg.transcript:
        used = f"{r.used_s / 60:.1f}" if r.used_s is not None else "—"
        budget = _e(t("package.used", lang, used=used, minutes=r.minutes))
        if r.over_budget:
            budget += f'{"，" if lang == "zh" else " "}<span class="bad">{_e(t("package.over", lang))}</span>'
        opening, closing = ("（", "）") if lang == "zh" else (" (", ")")
        out.append(f"<h3>{_e(r.title)}<small>{opening}{budget}{closing}</small></h3>")
        for turn in r.turns:
            who = t("package.interviewer" if turn.role == "interviewer" else "package.candidate_role", lang)
            at = (
                f"+{seconds(turn.round_elapsed_s)} / {r.minutes}:00"
                if turn.round_elapsed_s is not None
                else ""
            )
            out.append(
                f'<div class="turn"><span class="who">{_e(who)}</span> <span class="at">{_e(at)}</span>'
                f'<div class="body">{_e(turn.text)}</div></div>'
            )
    if pkg.candidate_questions:
        out.append(f"<h3>{_e(t('package.questions', lang))}</h3><ul>")
        out += [f"<li>{_e(q)}</li>" for q in pkg.candidate_questions]
        out.append("</ul>")
    return out
