"""The headings and column names of the package's pages (index.html, index.md), in both languages."""

from __future__ import annotations

from agent.rubric.model import Lang

_L: dict[str, dict[Lang, str]] = {
    "title": {"en": "Evidence package", "zh": "面试证据包"},
    "session": {"en": "Session", "zh": "会话"},
    "plan": {"en": "Plan", "zh": "计划"},
    "mode": {"en": "Mode", "zh": "模式"},
    "owner": {"en": "Owner", "zh": "所有者"},
    "started": {"en": "Started", "zh": "开始"},
    "updated": {"en": "Last change", "zh": "最后更新"},
    "previous": {"en": "Redo of", "zh": "重做自"},
    "judge": {"en": "Judge", "zh": "评分模型"},
    "version": {"en": "Question version", "zh": "题目版本"},
    "rubric": {"en": "Rubric version", "zh": "评分标准版本"},
    "rubric_now": {"en": "package made with rubric", "zh": "生成证据包所用评分标准"},
    "rounds": {"en": "Rounds", "zh": "轮次"},
    "minutes": {"en": "min", "zh": "分钟"},
    "asked": {"en": "Asked", "zh": "提问"},
    "kind": {"en": "Kind", "zh": "类型"},
    "text": {"en": "Text", "zh": "内容"},
    "given_values": {"en": "Given values (variant seed {seed})", "zh": "题设数值（变体种子 {seed}）"},
    "seed_numbers": {"en": "the seed's own numbers", "zh": "原题数值"},
    "given_seed": {"en": "Given values (the seed's own numbers)", "zh": "题设数值（原题数值）"},
    "session_t": {"en": "t (session)", "zh": "会话时刻"},
    "name": {"en": "Name", "zh": "名称"},
    "value": {"en": "Value", "zh": "数值"},
    "unit": {"en": "Unit", "zh": "单位"},
    "assumptions": {"en": "Assumption table", "zh": "假设表"},
    "round": {"en": "Round", "zh": "轮次"},
    "number": {"en": "Number", "zh": "数字"},
    "label": {"en": "Label", "zh": "标注"},
    "labelled_by": {"en": "Labelled by", "zh": "标注来源"},
    "candidate": {"en": "candidate", "zh": "候选人"},
    "inferred": {"en": "inferred", "zh": "推断"},
    "unlabelled": {"en": "unlabelled", "zh": "未标注"},
    "from_answer": {"en": "From answer", "zh": "出自回答"},
    "none": {"en": "none", "zh": "无"},
    "formulas": {"en": "Formulas (re-derived by the checker)", "zh": "公式（检查器重新推导）"},
    "verdict": {"en": "Verdict", "zh": "结论"},
    "quantity": {"en": "Quantity", "zh": "量"},
    "formula": {"en": "Formula", "zh": "公式"},
    "reference": {"en": "Reference", "zh": "参考值"},
    "stated": {"en": "Candidate", "zh": "候选人"},
    "status": {"en": "Status", "zh": "状态"},
    "unit_errors": {"en": "Units that failed to close", "zh": "单位未闭合之处"},
    "scores": {"en": "Score sheet", "zh": "评分表"},
    "dimension": {"en": "Dimension", "zh": "维度"},
    "judge_score": {"en": "Judge", "zh": "评分"},
    "effective": {"en": "Effective", "zh": "生效分"},
    "override": {"en": "Override (who, why)", "zh": "人工修改（谁、原因）"},
    "total": {"en": "Total", "zh": "总分"},
    "flags": {"en": "Flags", "zh": "标记"},
    "fallback": {
        "en": "fallback: the configured judge failed; the embedded judge scored",
        "zh": "已回退：配置的评分模型失败，由内置评分器评分",
    },
    "provenance": {"en": "Provenance", "zh": "评分来源"},
    "log_intact": {"en": "Override log verified intact", "zh": "人工修改日志校验完整"},
    "log_broken": {"en": "Override log FAILED verification", "zh": "人工修改日志校验失败"},
    "log_unread": {"en": "Override log could not be read", "zh": "无法读取人工修改日志"},
    "stale": {"en": "made against another judge score or rubric", "zh": "针对的是另一评分或评分标准版本"},
    "disputed": {"en": "Disputed evidence", "zh": "有争议的证据"},
    "no_disputed": {
        "en": "No score was overridden and no judge fell back.",
        "zh": "没有被人工修改或回退的分数。",
    },
    "quotes": {"en": "Quotes (verbatim)", "zh": "引用（逐字）"},
    "why": {"en": "Why", "zh": "依据"},
    "sources": {"en": "vLLM source (pinned)", "zh": "vLLM 源码（固定版本）"},
    "claim": {"en": "claim checked", "zh": "核对的说法"},
    "claim_question": {"en": "the round's question", "zh": "本轮问题"},
    "paths": {"en": "Cited paths", "zh": "引用的路径"},
    "failures": {"en": "Failure evidence → next action", "zh": "失败证据 → 下一步行动"},
    "no_failures": {
        "en": "None of the seed's failure evidence was seen.",
        "zh": "没有出现清单中的失败证据。",
    },
    "next_action": {"en": "Next time", "zh": "下次"},
    "retry": {"en": "Second attempt compared with {s}", "zh": "第二次尝试与 {s} 对比"},
    "before": {"en": "First", "zh": "第一次"},
    "after": {"en": "Second", "zh": "第二次"},
    "delta": {"en": "Δ", "zh": "变化"},
    "quotes_before": {"en": "Quotes, first", "zh": "第一次引用"},
    "quotes_after": {"en": "Quotes, second", "zh": "第二次引用"},
    "transcript": {"en": "Transcript", "zh": "完整记录"},
    "used": {"en": "used {used} of {minutes} min", "zh": "用时 {used} / {minutes} 分钟"},
    "over": {"en": "over budget", "zh": "超时"},
    "interviewer": {"en": "Interviewer", "zh": "面试官"},
    "candidate_role": {"en": "Candidate", "zh": "候选人"},
    "questions": {"en": "The candidate's questions", "zh": "候选人的提问"},
    "omitted": {"en": "Not included", "zh": "未包含的内容"},
    "schema": {"en": "package.json schema {id} v{v}", "zh": "package.json 结构 {id} v{v}"},
    "not_scored": {"en": "The session has no report yet.", "zh": "该会话还没有评分报告。"},
}

STATUS: dict[str, dict[Lang, str]] = {
    "matched": {"en": "matched", "zh": "正确"},
    "slip": {"en": "slip", "zh": "小误差"},
    "unit_error": {"en": "UNITS DO NOT CLOSE", "zh": "单位未闭合"},
    "not_stated": {"en": "not stated", "zh": "未给出"},
    "not_checked": {"en": "—", "zh": "—"},
}


def t(key: str, lang: Lang, **kw: object) -> str:
    return _L[key][lang].format(**kw) if kw else _L[key][lang]


def status(key: str, lang: Lang) -> str:
    return STATUS[key][lang]


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
