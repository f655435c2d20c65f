"""Reports as files: Markdown for people, in the transcript's language, and JSON for tools."""

from __future__ import annotations

import json

from agent.contracts.labels import flag_line, flag_name, why_text
from agent.contracts.report import Report, SampleSpread
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS

_L = {
    "en": {
        "report": "Interview report",
        "judge": "Judge",
        "fallback": "FALLBACK: the configured judge failed; the embedded judge scored",
        "round": "Round",
        "total": "Total",
        "flags": "Flags",
        "flag_meanings": "What the flags mean",
        "dimension": "Dimension",
        "score": "Score",
        "why": "Why",
        "quotes": "Quotes (verbatim from the answer)",
        "missing": "Missing evidence",
        "followups": "Next follow-ups",
        "risks": "Risks (not hidden by the total)",
        "actions": "Next actions (two lowest dimensions per round)",
        "notes": "Notes",
        "passed": "Passed",
        "none": "none",
        "sources": "vLLM source (pinned) to verify against",
        "samples": "Self-consistency: {k} samples",
        "samples_how": "Each score is the median of the samples (the lower middle one when their number is even).",
        "samples_seeds": "Seeds {seeds}, temperature {temperature}.",
        "deterministic": "The judge is deterministic: every sample is the same, so the spread is zero by construction.",
        "sample_fallbacks": "{n} of {k} samples fell back to the embedded judge in at least one round: "
        "those rounds are left out of the median.",
        "all_fallback": "every sample fell back: the embedded judge's scores",
        "counted": "{n} of {k} samples counted",
        "median": "Median",
        "range": "Min–max",
        "per_sample": "Samples",
    },
    "zh": {
        "report": "面试评分报告",
        "judge": "评分模型",
        "fallback": "已回退：配置的评分模型失败，由内置评分器评分",
        "round": "轮次",
        "total": "总分",
        "flags": "标记",
        "flag_meanings": "标记的含义",
        "dimension": "维度",
        "score": "分数",
        "why": "依据",
        "quotes": "引用（逐字来自回答）",
        "missing": "缺失证据",
        "followups": "建议追问",
        "risks": "风险（总分不掩盖）",
        "actions": "下一步练习（每轮最低两个维度）",
        "notes": "说明",
        "passed": "通过",
        "none": "无",
        "sources": "可核准的 vLLM 源码（固定版本）",
        "samples": "自洽性：评分 {k} 次",
        "samples_how": "每个分数取各次评分的中位数（次数为偶数时取较低的中间值）。",
        "samples_seeds": "随机种子 {seeds}，温度 {temperature}。",
        "deterministic": "评分模型是确定性的：每次评分相同，离散度按构造为零。",
        "sample_fallbacks": "{k} 次中有 {n} 次在至少一轮回退到内置评分器：这些轮次不计入中位数。",
        "all_fallback": "每次评分都已回退：内置评分器的分数",
        "counted": "计入 {n}/{k} 次",
        "median": "中位数",
        "range": "最低–最高",
        "per_sample": "各次分数",
    },
}


def report_json(r: Report) -> str:
    """The report as `interview grade --format json` writes it (the Report contract, fields in order)."""
    return json.dumps(r.model_dump(mode="json"), ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def report_markdown(report: Report, rubric: Rubric) -> str:
    lang = report.language
    L = _L[lang]
    j = report.judge
    out = [f"# {L['report']}: {report.id}", ""]
    prov = f"{j.kind} · {j.model} · {j.rubric_version}"
    for extra in (j.prompt_hash, j.vllm_version, j.index_commit):
        if extra:
            prov += f" · {extra}"
    out.append(f"**{L['judge']}:** {prov}")
    if j.fallback:
        out.append(f"\n> **{L['fallback']}** ({j.fallback_reason or ''})")
    out.append("")
    out.append(
        f"| {L['round']} | "
        + " | ".join(rubric.dimensions[d].title.get(lang) for d in DIMENSIONS)
        + f" | {L['total']} | {L['flags']} |"
    )
    out.append("|---" * (len(DIMENSIONS) + 3) + "|")
    for ra in report.rounds:
        title = rubric.round(ra.round).title.get(lang)
        cells = " | ".join(str(ra.scores[d]) for d in DIMENSIONS)
        flags = ", ".join(flag_name(f, lang) for f in ra.flags)
        out.append(f"| {title} | {cells} | {ra.total}/25 | {flags or '—'} |")
    out.append("")
    raised = list(dict.fromkeys(f for ra in report.rounds for f in ra.flags))
    if raised:
        out += [f"**{L['flag_meanings']}:**", *[f"- {flag_line(f, lang)}" for f in raised], ""]
    out += _samples(report, rubric)
    if report.risks:
        out += [f"## {L['risks']}", *[f"- {r}" for r in report.risks], ""]
    for ra in report.rounds:
        title = rubric.round(ra.round).title.get(lang)
        out += [f"## {title} — {ra.total}/25", ""]
        if ra.passed is not None:
            out.append(f"**{L['passed']}:** {'✓' if ra.passed else '✗'}")
        if ra.notes:
            out += [f"**{L['notes']}:**", *[f"- {n}" for n in ra.notes], ""]
        out.append(f"| {L['dimension']} | {L['score']} | {L['why']} |")
        out.append("|---|---|---|")
        for ds in ra.dimensions:
            why = why_text(ds, lang)
            out.append(
                f"| {rubric.dimensions[ds.dimension].title.get(lang)} | {ds.score} | {why.replace('|', '/')} |"
            )
        out.append("")
        if ra.quotes:
            out.append(f"**{L['quotes']}:**")
            for d, qs in ra.quotes.items():
                for q in qs[:2]:
                    out.append(f"- *{rubric.dimensions[d].title.get(lang)}*: “{q.strip()}”")
            out.append("")
        if ra.missing_evidence:
            out += [f"**{L['missing']}:**", *[f"- {m}" for m in ra.missing_evidence], ""]
        if ra.next_followups:
            out += [f"**{L['followups']}:**", *[f"- {f}" for f in ra.next_followups], ""]
        if ra.snippets:
            out.append(f"**{L['sources']}:**")
            for s in ra.snippets:
                out.append(f"- [{s.path}:{s.start_line}-{s.end_line}]({s.permalink}) `{s.symbol}`")
            out.append("")
    if report.next_actions:
        out += [f"## {L['actions']}", *[f"- {a}" for a in report.next_actions], ""]
    return "\n".join(out) + "\n"


def _samples(report: Report, rubric: Rubric) -> list[str]:
    """The median and the spread of each dimension, when the report is K > 1 samples."""
    sp: SampleSpread | None = report.samples
    if sp is None:
        return []
    lang = report.language
    L = _L[lang]
    out = [f"## {L['samples'].format(k=sp.k)}", "", L["samples_how"]]
    if sp.seeds is not None:
        out.append(L["samples_seeds"].format(seeds=", ".join(map(str, sp.seeds)), temperature=sp.temperature))
    if sp.deterministic:
        out.append(L["deterministic"])
    if sp.fallback_samples:
        out.append(f"**{L['sample_fallbacks'].format(n=len(sp.fallback_samples), k=sp.k)}**")
    out.append("")
    for rs in sp.rounds:
        title = rubric.round(rs.round).title.get(lang)
        note = L["counted"].format(n=len(rs.counted), k=sp.k)
        if rs.all_fallback:
            note = f"**{L['all_fallback']}**"
        out += [f"### {title} — {note}", ""]
        out.append(f"| {L['dimension']} | {L['median']} | {L['range']} | {L['per_sample']} |")
        out.append("|---|---|---|---|")
        for d in DIMENSIONS:
            ds = rs.dimensions[d]
            med = str(ds.score) if ds.median == ds.score else f"{ds.score} ({ds.median:g})"
            out.append(
                f"| {rubric.dimensions[d].title.get(lang)} | {med} | {ds.min}–{ds.max} | "
                f"{', '.join(map(str, ds.scores))} |"
            )
        out.append("")
    return out
