"""What people read for the judges, and for the judge's flags and gate caps: a display name and one line of
explanation, in English and Chinese. The ids themselves stay in the JSON reports; the app and the Markdown
report show these.
"""

from __future__ import annotations

import re

from agent.contracts.report import Coverage, DimensionScore, JudgeInfo
from agent.rubric.model import Lang

Label = dict[Lang, tuple[str, str]]
"""language -> (display name, one-line explanation)."""

FLAGS: dict[str, Label] = {
    "happy_path_only": {
        "en": ("Happy path only", "Says what happens when things work, not what fails or how to roll back."),
        "zh": ("只讲了顺利情况", "只说了正常时怎样，没有说什么会失败、如何回滚。"),
    },
    "unlabeled_numbers": {
        "en": (
            "Numbers without a label",
            "Numbers are given without saying whether they are measured, derived or assumed.",
        ),
        "zh": ("数字没有标注来源", "给出的数字没有说明是实测、推算还是假设。"),
    },
    "unit_error": {
        "en": ("Unit error", "A calculation mixes up units (e.g. GB and GiB, bits and bytes)."),
        "zh": ("单位错误", "计算中混淆了单位（例如 GB 与 GiB、bit 与 byte）。"),
    },
    "nonexistent_path": {
        "en": (
            "Source path that does not exist",
            "Cites a vLLM file or symbol that is not in the pinned source.",
        ),
        "zh": ("引用了不存在的源码路径", "引用的 vLLM 文件或符号在固定版本的源码中不存在。"),
    },
    "prompt_injection": {
        "en": (
            "Instructions to the grader",
            "The answer addresses the grader instead of the question; this earns nothing.",
        ),
        "zh": ("对评分者下指令", "回答在对评分者喊话而不是回答问题；这不加分。"),
    },
    "no_alternative": {
        "en": ("No alternative considered", "Proposes one option without weighing another against it."),
        "zh": ("没有比较其他方案", "只给出一种方案，没有与其他方案比较。"),
    },
    "mutation_before_evidence": {
        "en": (
            "Changed things before gathering evidence",
            "Restarts or reconfigures before collecting what shows the cause.",
        ),
        "zh": ("先改动后取证", "在收集能说明原因的证据之前就重启或改配置。"),
    },
    "fabricated_metrics": {
        "en": (
            "Measurements without an artifact",
            "Calls numbers measured without naming the run, log or benchmark behind them.",
        ),
        "zh": ("没有依据的“实测”数字", "称数字为实测，却没有说明来自哪次运行、日志或压测。"),
    },
    "misconception": {
        "en": ("Wrong claim", "States something about vLLM or serving that is not true."),
        "zh": ("错误说法", "对 vLLM 或推理服务的某个说法是错误的。"),
    },
    "accuracy_1": {
        "en": (
            "Accuracy at the lowest level",
            "Accuracy scored 1: discuss this on its own, the total does not hide it.",
        ),
        "zh": ("准确性为最低分", "准确性得 1 分：需要单独讨论，总分不能掩盖它。"),
    },
    "validation_1": {
        "en": (
            "Validation at the lowest level",
            "Validation scored 1: no way to test, watch or roll back the change.",
        ),
        "zh": ("验证为最低分", "验证得 1 分：没有测试、观测或回滚的办法。"),
    },
    "judge_fallback": {
        "en": (
            "Scored by the fallback judge",
            "The configured judge failed; the embedded judge scored this round.",
        ),
        "zh": ("由备用评分器评分", "配置的评分模型失败，本轮由内置评分器评分。"),
    },
}

GATES: dict[str, Label] = {
    "happy_path_cap": {
        "en": ("Happy path only", "Without failure cases or rollback, no dimension goes above the cap."),
        "zh": ("只讲顺利情况", "没有失败情况或回滚时，各维度都有上限。"),
    },
    "accuracy5_requires": {
        "en": ("Full accuracy needs the key points", "Accuracy 5 needs every key point of the question."),
        "zh": ("准确性满分需要全部要点", "准确性 5 分需要覆盖题目的全部关键要点。"),
    },
    "unit_error_cap": {
        "en": ("Unit error", "A unit error bounds accuracy."),
        "zh": ("单位错误", "单位错误限制准确性得分。"),
    },
    "slip_allows": {
        "en": ("A slip in the arithmetic", "A small calculation slip keeps accuracy below full marks."),
        "zh": ("计算小失误", "计算中的小失误使准确性达不到满分。"),
    },
    "design_without_cap": {
        "en": ("Design without its essentials", "A design missing the parts the round requires is capped."),
        "zh": ("设计缺少必需部分", "设计缺少本轮要求的部分时，各维度有上限。"),
    },
    "lifecycle_for_5": {
        "en": (
            "Full marks need the whole rollout",
            "A 5 needs the staged rollout, failure testing and rollback.",
        ),
        "zh": ("满分需要完整上线流程", "5 分需要分阶段上线、故障测试和回滚。"),
    },
    "ask_for_inputs": {
        "en": (
            "Did not ask for missing inputs",
            "The question leaves inputs out on purpose; asking for them is expected.",
        ),
        "zh": ("没有询问缺失的输入", "题目有意省略了部分输入，应当主动询问。"),
    },
    "few_specifics": {
        "en": (
            "Few concrete specifics",
            "Names too few concrete things (files, metrics, numbers with units) for a higher score.",
        ),
        "zh": ("具体内容太少", "具体的东西（文件、指标、带单位的数字）太少，得不到更高分。"),
    },
    "moved_path": {
        "en": (
            "Path from an earlier release",
            "A cited file has moved since the release it comes from; a 5 needs claims scoped to the pinned version.",
        ),
        "zh": ("引用了旧版本路径", "引用的文件在锁定版本中已迁移；5 分需要针对当前锁定版本的说法。"),
    },
    "outside_rubric": {
        "en": (
            "Not asked by the rubric",
            "The question is outside the rubric, so this dimension cannot be shown here.",
        ),
        "zh": ("不在评分标准内", "题目不在评分标准内，这一维度在这里无法体现。"),
    },
    "misconceptions": {
        "en": ("Wrong claims", "Wrong claims make the rest of the answer less trustworthy."),
        "zh": ("错误说法", "错误说法使回答其余部分的可信度下降。"),
    },
    "five_needs_validation": {
        "en": (
            "A 5 needs a verification path",
            "A 5 means complete, with boundaries and a way to verify; this round's checks are not yet at 4.",
        ),
        "zh": ("5 分需要验证路径", "5 分意味着完整、有边界并说明如何验证；本轮的验证还不到 4 分。"),
    },
    "wrong_core": {
        "en": (
            "Core mechanism wrong",
            "Accuracy is 1: evidence, trade-offs and checks about a mechanism that is not there earn nothing.",
        ),
        "zh": ("核心机制错误", "准确性为 1：围绕不存在的机制给出的证据、权衡和验证不得分。"),
    },
    "weak signal": {
        "en": ("A known weak answer", "The answer matches a pattern the rubric lists as a weak signal."),
        "zh": ("常见的弱回答", "回答符合评分标准列出的弱信号。"),
    },
    "misconception": {
        "en": ("Wrong claim", "A claim that is not true costs points."),
        "zh": ("错误说法", "不正确的说法会扣分。"),
    },
}

JUDGES: dict[str, Label] = {
    "embedded": {
        "en": (
            "Embedded judge",
            "checks the answer against the rubric's expected items and quotes what it found; no language "
            "model, so the same answer always gets the same scores.",
        ),
        "zh": (
            "内置评分器",
            "对照评分标准的期望要点检查回答，并引用找到的原文；不使用语言模型，同样的回答总是得到同样的分数。",
        ),
    },
    "vllm": {
        "en": (
            "vLLM judge",
            "a language model served by vLLM scores the answer against the rubric's levels and expected items, "
            "quoting the answer.",
        ),
        "zh": (
            "vLLM 评分模型",
            "由 vLLM 运行的语言模型按评分标准的等级和期望要点给回答打分，并引用回答原文。",
        ),
    },
}
"""The judge by its kind (`JudgeInfo.kind`): its model id, rubric version and hashes stay in the JSON."""

_CAP = re.compile(
    r"^(?P<name>[A-Za-z0-9_]+|weak signal|misconception)(?: (?P<id>[a-z0-9-]+))? \((?P<how>≤|-)(?P<n>\d+)\)$"
)


def _label(table: dict[str, Label], key: str, lang: Lang) -> tuple[str, str] | None:
    entry = table.get(key)
    return entry[lang] if entry else None


def judge_name(judge: JudgeInfo, lang: Lang) -> str:
    """The judge's display name; a vLLM judge's with its model's name ("vLLM judge (Qwen2.5-1.5B-Instruct)":
    the model as served, without its organisation or folder)."""
    found = _label(JUDGES, judge.kind, lang)
    name = found[0] if found else judge.kind
    if judge.kind == "vllm" and judge.model:
        model = judge.model.rstrip("/").rsplit("/", 1)[-1]
        name = f"{name}（{model}）" if lang == "zh" else f"{name} ({model})"
    return name


def judge_line(judge: JudgeInfo, lang: Lang) -> str:
    """ "Name — what it does" for a judge (it follows a label: "Judge: …")."""
    found = _label(JUDGES, judge.kind, lang)
    name = judge_name(judge, lang)
    if not found:
        return name
    return f"{name}{'——' if lang == 'zh' else ' — '}{found[1]}"


def flag_name(flag: str, lang: Lang) -> str:
    """The flag's display name; an unknown id is shown as it is."""
    found = _label(FLAGS, flag, lang)
    return found[0] if found else flag


def flag_line(flag: str, lang: Lang) -> str:
    """ "Name: explanation" for a flag."""
    found = _label(FLAGS, flag, lang)
    if not found:
        return flag
    return f"{found[0]}{'：' if lang == 'zh' else ': '}{found[1]}"


def rule_name(rule: str, lang: Lang) -> str:
    """A gate's or a flag's display name (caps name either)."""
    found = _label(GATES, rule, lang) if rule in GATES else None
    found = found or _label(FLAGS, rule, lang)
    return found[0] if found else rule


def cap_text(cap: str, lang: Lang) -> str:
    """A score bound as the judge records it ("happy_path_cap (≤3)", "unlabeled_numbers (-1)") in words."""
    m = _CAP.match(cap.strip())
    if not m:
        return cap
    name, n = rule_name(m["name"], lang), m["n"]
    if m["how"] == "≤":
        return f"{name}：最高 {n} 分" if lang == "zh" else f"{name}: at most {n}"
    return f"{name}：扣 {n} 分" if lang == "zh" else f"{name}: {n} taken off"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def coverage_text(c: Coverage, lang: Lang, *, missing: bool = True) -> str:
    """How the checklist got to a dimension's level, in the report's language and with no rubric ids (a
    weak signal is counted, not named): "5 of 8 expected items covered (62%); 1 strong signal; missing: …"."""
    zh = lang == "zh"
    pct = f"{c.share:.0%}"  # as the judge's reason string writes it
    if c.round_share is not None:
        # the share the level is read from is pulled toward the round's: say so, not as a raw share
        r = f"{c.round_share:.0%}"
        pct = f"结合整轮覆盖 {r}，按 {pct} 计分" if zh else f"scored as {pct} with the round's {r}"
    out = [f"覆盖了 {c.expected} 项期望要点中的 {c.covered} 项（{pct}）" if zh else f"{c.covered} of {c.expected} expected items covered ({pct})"]  # fmt: skip
    if c.strong_signals:
        out.append(f"{c.strong_signals} 个强信号" if zh else _plural(c.strong_signals, "strong signal"))
    if c.weak_signals:
        n = len(c.weak_signals)
        out.append(f"{n} 个弱信号" if zh else _plural(n, "weak signal"))
    if c.model_score is not None:
        why = f"（{c.model_reason}）" if zh else f" ({c.model_reason})"
        out.append(
            (f"模型给 {c.model_score} 分" if zh else f"model said {c.model_score}")
            + (why if c.model_reason else "")
        )
    if c.samples:
        listed = ", ".join(str(x) for x in c.samples)
        out.append(
            f"{len(c.samples)} 次采样的中位数（{listed}；此样本 {c.sample_score}）"
            if zh
            else f"median of {len(c.samples)} samples ({listed}; this sample {c.sample_score})"
        )
    if missing and c.missing:
        shown, more = c.missing[:3], len(c.missing) - 3
        out.append(
            ("缺少：" + "；".join(shown) + (f"；另 {more} 项" if more > 0 else ""))
            if zh
            else ("missing: " + "; ".join(shown) + (f"; {more} more" if more > 0 else ""))
        )
    return ("；" if zh else "; ").join(out)


_COVERED = re.compile(r"^(?P<have>\d+)/(?P<all>\d+) expected items covered \((?P<pct>\d+)%\)$")
_ROUND = re.compile(r"^round coverage (?P<pct>\d+)%$")
_STRONG = re.compile(r"^(?P<n>\d+) strong signal\(s\)$")
_MODEL = re.compile(r"^model said (?P<n>\d+) \((?P<why>.*)\)$", re.S)


def reason_text(reason: str, lang: Lang, *, missing: bool = True) -> str:
    """A report written before `Coverage` existed: its reason string read back into words."""
    head, sep, miss = reason.partition("missing: ")
    out: list[str] = []
    parts = [x.strip() for x in head.split("; ") if x.strip()]
    for k, part in enumerate(parts):
        if m := _COVERED.match(part):
            r = _ROUND.match(parts[k + 1]) if k + 1 < len(parts) else None
            c = Coverage(
                covered=int(m["have"]),
                expected=int(m["all"]),
                share=int(m["pct"]) / 100,
                round_share=int(r["pct"]) / 100 if r else None,
            )
            out.append(coverage_text(c, lang))
        elif _ROUND.match(part):
            continue
        elif m := _STRONG.match(part):
            n = int(m["n"])
            out.append(f"{n} 个强信号" if lang == "zh" else _plural(n, "strong signal"))
        elif part.startswith("weak: "):
            n = len([w for w in part[6:].split(",") if w.strip()])
            out.append(f"{n} 个弱信号" if lang == "zh" else _plural(n, "weak signal"))
        elif m := _MODEL.match(part):
            out.append(f"模型给 {m['n']} 分（{m['why']}）" if lang == "zh" else part)
        else:
            out.append(part)
    if sep and missing:
        out.append(
            f"缺少：{miss.strip().replace('; ', '；')}" if lang == "zh" else f"missing: {miss.strip()}"
        )
    return ("；" if lang == "zh" else "; ").join(out)


def why_text(ds: DimensionScore, lang: Lang, *, missing: bool = True, caps: bool = True) -> str:
    """The one rendering of why a dimension scored what it did: its coverage, then the bounds that applied
    ("… · Happy path only: at most 3"). The app, the Markdown report and the evidence package all use it."""
    text = (
        coverage_text(ds.coverage, lang, missing=missing)
        if ds.coverage is not None
        else reason_text(ds.reason, lang, missing=missing)
    )
    if caps and ds.caps:
        text += " · " + "; ".join(cap_text(c, lang) for c in ds.caps)
    return text
