"""The headings and column names of the package's pages (index.html, index.md), in both languages."""

from __future__ import annotations

import re

from agent.graph.plan import with_self_check
from agent.rubric.model import SELF_CHECK, Lang

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
    "band": {"en": "Range", "zh": "分数区间"},
    "variant": {"en": "variant seed {seed}", "zh": "变体种子 {seed}"},
    "symbol": {"en": "Symbol", "zh": "符号"},
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


# ---------------------------------------------------------------- names for what the package stores as ids

_NAMES: dict[str, dict[str, dict[Lang, str]]] = {
    "plan": {
        "full": {"en": "Full mock (five rounds)", "zh": "完整模拟（五轮）"},
        "project": {"en": "Project-experience interview", "zh": "项目经历面试"},
        "redo": {"en": "Redo of the two weakest rounds of {s}", "zh": "重做 {s} 最弱的两轮"},
        "plus_self_check": {"en": "{plan} + {title}", "zh": "{plan} + {title}"},
    },
    "mode": {
        "practice": {"en": "practice (the coach asks)", "zh": "练习（由教练提问）"},
        "copilot": {"en": "co-pilot (a person interviews)", "zh": "面试官助手（由真人面试官提问）"},
    },
    "asked": {
        "prompt": {"en": "opening question", "zh": "开场问题"},
        "followup": {"en": "follow-up", "zh": "追问"},
        "given": {"en": "inputs the candidate asked for", "zh": "候选人问到的题设"},
        "question": {"en": "question", "zh": "问题"},
        "trigger": {"en": "scenario update", "zh": "情境更新"},
        "own": {"en": "the interviewer's own question", "zh": "面试官自己的问题"},
        "interviewer": {"en": "interviewer", "zh": "面试官"},
    },
    "judge": {
        "embedded": {
            "en": "embedded judge (rubric cues, no LLM)",
            "zh": "内置评分器（按评分标准匹配，无 LLM）",
        },
        "vllm": {"en": "vLLM judge", "zh": "vLLM 评分模型"},
    },
    "why": {
        "override": {"en": "overridden", "zh": "人工修改"},
        "fallback": {"en": "judge fell back", "zh": "评分模型回退"},
    },
    "verdict": {
        "correct": {"en": "correct", "zh": "正确"},
        "slip": {"en": "a slip in the arithmetic", "zh": "计算有小误差"},
        "unit_or_sharding_error": {"en": "a unit or sharding error", "zh": "单位或分片错误"},
        "insufficient": {"en": "too few numbers to check", "zh": "给出的数字不足以核对"},
    },
    "quantity": {
        "weights_bytes": {"en": "weight bytes", "zh": "权重字节数"},
        "weights_gib": {"en": "weights", "zh": "权重大小"},
        "weights_per_rank_gib": {"en": "weights per rank", "zh": "每个 rank 的权重"},
        "kv_budget_per_rank_gib": {"en": "KV budget per rank", "zh": "每个 rank 的 KV 预算"},
        "kv_bytes_per_token": {"en": "KV bytes per token", "zh": "每 token 的 KV 字节数"},
        "request_tokens": {"en": "tokens per request", "zh": "每请求 tokens"},
        "request_kv_bytes": {"en": "KV bytes per request", "zh": "每请求 KV 字节数"},
        "request_kv_gib": {"en": "KV per request", "zh": "每请求 KV"},
        "kv_heads_per_rank": {"en": "KV heads per rank", "zh": "每个 rank 的 KV 头数"},
        "request_kv_per_rank_gib": {"en": "KV per request per rank", "zh": "每个 rank 上每请求的 KV"},
        "max_requests_kv_only": {"en": "concurrent requests (KV only)", "zh": "并发请求数（只算 KV）"},
    },
    "error": {  # the capacity checker's mistakes (agent.judge.capacity.ERROR_NAMES), by their English name
        "decimal GB taken for binary GiB": {
            "en": "decimal GB taken for binary GiB",
            "zh": "把十进制 GB 当成二进制 GiB",
        },
        "layers multiplied twice": {"en": "layers multiplied twice", "zh": "层数乘了两次"},
        "K and V factor of 2 left out": {
            "en": "K and V factor of 2 left out",
            "zh": "漏掉了 K 和 V 的系数 2",
        },
        "whole-model KV per request compared with a per-rank budget": {
            "en": "whole-model KV per request compared with a per-rank budget",
            "zh": "拿整个模型每请求的 KV 去比每个 rank 的预算",
        },
        "query heads used instead of KV heads": {
            "en": "query heads used instead of KV heads",
            "zh": "用了 query 头数而不是 KV 头数",
        },
        "weights not divided across TP ranks": {
            "en": "weights not divided across TP ranks",
            "zh": "权重没有按 TP rank 切分",
        },
    },
    "unit": {  # units of the given values and the derivation, in Chinese
        "parameters": {"en": "parameters", "zh": "个参数"},
        "B per weight": {"en": "B per weight", "zh": "B / 权重"},
        "layers": {"en": "layers", "zh": "层"},
        "KV heads": {"en": "KV heads", "zh": "个 KV 头"},
        "elements per head": {"en": "elements per head", "zh": "元素 / 头"},
        "B per KV element": {"en": "B per KV element", "zh": "B / KV 元素"},
        "ranks (TP)": {"en": "ranks (TP)", "zh": "个 rank（TP）"},
        "GiB per GPU": {"en": "GiB per GPU", "zh": "GiB / GPU"},
        "GiB per rank": {"en": "GiB per rank", "zh": "GiB / rank"},
        "B per token": {"en": "B per token", "zh": "B / token"},
        "B per request": {"en": "B per request", "zh": "B / 请求"},
        "GiB per request": {"en": "GiB per request", "zh": "GiB / 请求"},
        "KV heads per rank": {"en": "KV heads per rank", "zh": "KV 头 / rank"},
        "GiB per request per rank": {"en": "GiB per request per rank", "zh": "GiB / 请求 / rank"},
        "requests": {"en": "requests", "zh": "个请求"},
    },
}


def name(kind: str, key: str, lang: Lang, **kw: object) -> str:
    """What a person reads for an id the package stores (a plan, a mode, a verdict, a unit, …): the id
    itself when it has no name."""
    entry = _NAMES[kind].get(key)
    if entry is None:
        return key
    return entry[lang].format(**kw) if kw else entry[lang]


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


_GIVEN_IDS = re.compile(r"(?P<sep>[:：]\s*)(?P<ids>given-[a-z0-9-]+(?:,\s*given-[a-z0-9-]+)*)\s*$")


def note_text(note: str, lang: Lang) -> str:
    """A round's note with the ids of the inputs the candidate asked for counted, not listed (their texts
    are in the question version, as the inputs the candidate asked for)."""
    m = _GIVEN_IDS.search(note)
    if not m:
        return note
    n = len(m["ids"].split(","))
    said = (
        f"{n} 项（见第 1 节“候选人问到的题设”）"
        if lang == "zh"
        else f"{n} (see section 1, the inputs asked for)"
    )
    return note[: m.start()] + m["sep"] + said
