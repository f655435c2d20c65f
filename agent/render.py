"""Reports for people: Markdown, in the transcript's language."""

from __future__ import annotations

from agent.report import Report
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
    },
    "zh": {
        "report": "面试评分报告",
        "judge": "评分模型",
        "fallback": "已回退：配置的评分模型失败，由内置评分器评分",
        "round": "轮次",
        "total": "总分",
        "flags": "标记",
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
    },
}


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
        out.append(f"| {title} | {cells} | {ra.total}/25 | {', '.join(ra.flags) or '—'} |")
    out.append("")
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
            why = ds.reason + (f" · {'; '.join(ds.caps)}" if ds.caps else "")
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
