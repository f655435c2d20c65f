"""Build a session's evidence package from what is stored: the session, its report, the override log.

Nothing is graded again: the scores are the stored report's, the formulas the checker's derivation of
the round's given values. The same session, rubric and override log give the same package (its one
timestamp is the session's own `updated_at`); `to_json` writes it with sorted keys.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from agent.contracts.checklist import Checklist
from agent.contracts.report import RoundAssessment
from agent.contracts.transcript import TranscriptRound
from agent.graph import get_session
from agent.graph.errors import SessionNotFound
from agent.graph.report import SessionReport
from agent.graph.session import SessionView
from agent.graph.store import open_store
from agent.judge import capacity
from agent.judge.checks import given_values
from agent.judge.matching import any_term, sentences
from agent.overrides import EffectiveScore, Override, OverrideLog, OverrideLogError, effective_scores
from agent.package.labels import name as display_name
from agent.package.model import (
    FAILURE_ORDER,
    AskedText,
    Assumption,
    CapacityGiven,
    DimensionRow,
    Disputed,
    EvidencePackage,
    Failure,
    FailureId,
    Formulas,
    FormulaStep,
    GivenValue,
    Omission,
    OverrideRecord,
    PathCheck,
    QuestionVersion,
    Retry,
    RetryDimension,
    RetryRound,
    RoundScore,
    RoundTranscript,
    RoundVersion,
    ScoreSheet,
    SessionInfo,
    SourceCheck,
    TurnOut,
)
from agent.rubric.loader import Rubric, default_rubric
from agent.rubric.model import DIMENSIONS, Dimension, Lang, RoundId

# ---------------------------------------------------------------- wording

_W: dict[str, dict[Lang, str]] = {
    "given": {"en": "given", "zh": "题设"},
    "derived": {"en": "derived", "zh": "推导"},
    "observed": {"en": "observed", "zh": "观测"},
    "estimated": {"en": "estimated", "zh": "估计"},
    "unlabelled": {"en": "unlabelled", "zh": "未标注"},
}

FAILURE_TEXT: dict[FailureId, dict[str, dict[Lang, str]]] = {
    "prompted_for_requirements": {
        "title": {
            "en": "The interviewer had to prompt for requirements",
            "zh": "面试官不得不提示候选人询问需求",
        },
        "action": {
            "en": "Before the first number or box, say at least three missing inputs as questions and rank "
            "your assumptions; the interviewer should not have to ask for them.",
            "zh": "在给出第一个数字或方案之前，先把至少三个缺失输入以问题说出，并给假设排序；不需要面试官提示。",
        },
    },
    "nonexistent_path": {
        "title": {"en": "A source path that does not exist", "zh": "引用了不存在的源码路径"},
        "action": {
            "en": "Cite only files and symbols you have opened at the pinned commit; for each `file.py:Symbol` "
            "say how you confirmed it (the permalink, grep) before you rely on it.",
            "zh": "只引用在固定版本中打开过的文件和符号；每个 `file.py:Symbol` 先说明如何核实（permalink、grep），再据此推理。",
        },
    },
    "units_do_not_close": {
        "title": {"en": "Units that do not close", "zh": "单位对不上"},
        "action": {
            "en": "Write every line of the capacity calculation with its unit (bytes, GiB = 2^30 B, per rank) "
            "and check the units close before the next line; redo the quantities marked below.",
            "zh": "容量计算的每一行都写上单位（字节、GiB = 2^30 B、每个 rank），进入下一行之前先确认单位闭合；重算下面标出的量。",
        },
    },
    "no_alternative": {
        "title": {"en": "No alternative in the design", "zh": "设计中没有备选方案"},
        "action": {
            "en": "For each design choice, name one alternative you rejected and the evidence that would "
            "flip the choice.",
            "zh": "每个设计选择都说出一个被否决的备选方案，以及什么证据会让你改变选择。",
        },
    },
    "mutation_before_evidence": {
        "title": {"en": "Mutation before evidence in the incident", "zh": "事故中先改动、后取证"},
        "action": {
            "en": "In an incident, first collect and state the evidence (metrics, logs, a failing request); "
            "change nothing until it points somewhere, and name the rollback before the change.",
            "zh": "事故处理中先收集并说出证据（指标、日志、失败请求）；证据指向之前不做任何改动，改动之前先说回滚方案。",
        },
    },
    "no_raw_artifact": {
        "title": {"en": "No raw artifact behind a claim", "zh": "结论背后没有原始证据"},
        "action": {
            "en": "Back every measured claim with its raw artifact: the command, the conditions "
            "(hardware, versions, load) and where the output is kept.",
            "zh": "每个实测结论都给出原始证据：命令、条件（硬件、版本、负载）以及输出保存在哪里。",
        },
    },
}

_OMIT: dict[str, dict[Lang, str]] = {
    "audio": {"en": "the candidate's speech (audio)", "zh": "候选人的语音（音频）"},
    "audio_why": {
        "en": "sessions keep the transcribed, edited text only",
        "zh": "会话只保存转写并编辑后的文字",
    },
}


def label_text(label: str | None, lang: Lang) -> str:
    return _W[label or "unlabelled"][lang]


# ---------------------------------------------------------------- helpers


def _norm(text: str) -> str:
    return " ".join(text.split())


def _kind(t: Any, first: bool) -> AskedText:
    extra = t.model_extra or {}
    given = [str(g) for g in extra.get("given") or []]
    if extra.get("followup"):
        return AskedText(kind="followup", id=str(extra["followup"]), text=t.text, at_s=t.at_s)
    if given:
        return AskedText(kind="given", given=given, text=t.text, at_s=t.at_s)
    if extra.get("question_id"):
        return AskedText(
            kind="trigger" if extra.get("trigger") else "question",
            id=str(extra["question_id"]),
            text=t.text,
            at_s=t.at_s,
        )
    if extra.get("own"):
        return AskedText(kind="own", text=t.text, at_s=t.at_s)
    return AskedText(kind="prompt" if first else "interviewer", text=t.text, at_s=t.at_s)


_GIVEN_UNITS = {
    "params": "parameters",
    "weight_bytes": "B per weight",
    "layers": "layers",
    "kv_heads": "KV heads",
    "head_dim": "elements per head",
    "kv_bytes": "B per KV element",
    "tp": "ranks (TP)",
    "gpu_gib": "GiB per GPU",
    "non_kv_gib": "GiB per rank",
    "reserve_gib": "GiB per rank",
    "input_tokens": "tokens",
    "output_tokens": "tokens",
}


_GIVEN_TEXT: dict[str, dict[Lang, str]] = {
    "params": {"en": "parameter count", "zh": "参数量"},
    "weight_bytes": {"en": "bytes per weight (BF16 = 2)", "zh": "每个权重的字节数（BF16 = 2）"},
    "layers": {"en": "layers", "zh": "层数"},
    "kv_heads": {"en": "KV heads", "zh": "KV 头数"},
    "head_dim": {"en": "head dimension", "zh": "每个头的维度"},
    "kv_bytes": {"en": "bytes per KV element (BF16 = 2)", "zh": "每个 KV 元素的字节数（BF16 = 2）"},
    "tp": {"en": "tensor-parallel ranks (GPUs)", "zh": "张量并行 rank 数（GPU 数）"},
    "gpu_gib": {"en": "memory per GPU", "zh": "每张 GPU 显存"},
    "non_kv_gib": {
        "en": "fixed non-KV peak per rank besides the weights",
        "zh": "每个 rank 除权重外固定的非 KV 峰值",
    },
    "reserve_gib": {"en": "safety reserve per rank", "zh": "每个 rank 的安全余量"},
    "input_tokens": {"en": "input tokens per request (p95)", "zh": "每请求输入 tokens（p95）"},
    "output_tokens": {"en": "output tokens per request (p95)", "zh": "每请求输出 tokens（p95）"},
}


def capacity_params(seed: int | None) -> capacity.CapacityParams:
    return capacity.variant(seed).params if seed is not None else capacity.CapacityParams()


def _capacity_given(seed: int | None, lang: Lang) -> CapacityGiven:
    p = capacity_params(seed)
    values = []
    for name, info in capacity.CapacityParams.model_fields.items():
        values.append(
            GivenValue(
                name=name,
                value=float(getattr(p, name)),
                unit=_GIVEN_UNITS.get(name, ""),
                description=_GIVEN_TEXT[name][lang] if name in _GIVEN_TEXT else (info.description or name),
            )
        )
    return CapacityGiven(variant_seed=seed, values=values)


# ---------------------------------------------------------------- formulas


def _g(x: float) -> str:
    """A value in a substituted formula: whole numbers in full, others to 6 significant digits."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e18 else f"{x:.6g}"


def derivation(p: capacity.CapacityParams) -> list[tuple[str, str, str, str, float]]:
    """(quantity, unit, formula, substituted, reference) for each step of the checker's reference."""
    r = capacity.reference(p)
    replica = p.kv_heads < p.tp
    return [
        ("weights_bytes", "B", "params × weight_bytes", f"{_g(p.params)} × {_g(p.weight_bytes)} B",
         r.weights_bytes),
        ("weights_gib", "GiB", "weights_bytes / 2^30 B/GiB", f"{_g(r.weights_bytes)} B / 2^30", r.weights_gib),
        ("weights_per_rank_gib", "GiB per rank", "weights_gib / tp", f"{_g(r.weights_gib)} GiB / {p.tp}",
         r.weights_per_rank_gib),
        ("kv_budget_per_rank_gib", "GiB per rank", "gpu_gib − weights_per_rank_gib − non_kv_gib − reserve_gib",
         f"{_g(p.gpu_gib)} − {_g(r.weights_per_rank_gib)} − {_g(p.non_kv_gib)} − {_g(p.reserve_gib)} GiB",
         r.kv_budget_per_rank_gib),
        ("kv_bytes_per_token", "B per token", "2 (K and V) × layers × kv_heads × head_dim × kv_bytes",
         f"2 × {p.layers} × {p.kv_heads} × {p.head_dim} × {_g(p.kv_bytes)} B", r.kv_bytes_per_token),
        ("request_tokens", "tokens", "input_tokens + output_tokens", f"{p.input_tokens} + {p.output_tokens}",
         float(r.request_tokens)),
        ("request_kv_bytes", "B per request", "kv_bytes_per_token × request_tokens",
         f"{_g(r.kv_bytes_per_token)} B × {r.request_tokens}", r.request_kv_bytes),
        ("request_kv_gib", "GiB per request", "request_kv_bytes / 2^30 B/GiB",
         f"{_g(r.request_kv_bytes)} B / 2^30", r.request_kv_gib),
        ("kv_heads_per_rank", "KV heads per rank",
         "1 (a replica per rank)" if replica else "kv_heads / tp",
         "1" if replica else f"{p.kv_heads} / {p.tp}", r.kv_heads_per_rank),
        ("request_kv_per_rank_gib", "GiB per request per rank",
         "request_kv_gib × kv_heads_per_rank / kv_heads",
         f"{_g(r.request_kv_gib)} GiB × {_g(r.kv_heads_per_rank)} / {p.kv_heads}", r.request_kv_per_rank_gib),
        ("max_requests_kv_only", "requests", "floor(kv_budget_per_rank_gib / request_kv_per_rank_gib)",
         f"floor({_g(r.kv_budget_per_rank_gib)} / {_g(r.request_kv_per_rank_gib)})",
         float(r.max_requests_kv_only)),
    ]  # fmt: skip


_CHECKED_UNIT = {
    "weights_gib": "gib-like",
    "weights_per_rank_gib": "gib-like",
    "kv_budget_per_rank_gib": "gib-like",
    "kv_bytes_per_token": "bytes",
    "request_kv_gib": "gib-like",
    "request_kv_per_rank_gib": "gib-like",
    "max_requests_kv_only": "count",
}
"""The quantities the checker reads from an answer, and the kind of number that can state each."""

_SIGNATURE_QUANTITY = {
    "weights_per_rank": "weights_per_rank_gib",
    "kv_budget": "kv_budget_per_rank_gib",
    "budget": "kv_budget_per_rank_gib",
    "max_requests": "max_requests_kv_only",
    "kv_bytes_per_token": "kv_bytes_per_token",
    "request_kv": "request_kv_gib",
}
"""The checker's error signatures (by the first word of their name) and the quantity each one misstates."""


def _fits(q: capacity.Quantity, unit: str) -> bool:
    return q.unit == unit or (unit == "count" and q.unit == "")


def _closest(qs: list[capacity.Quantity], unit: str, value: float) -> capacity.Quantity | None:
    best: tuple[float, capacity.Quantity] | None = None
    for q in qs:
        if not _fits(q, unit) or value == 0:
            continue
        candidates = [q.value]
        if q.exact_unit.lower() == "gb":
            candidates.append(q.value * capacity.GB / capacity.GIB)
        rel = min(abs(c - value) / abs(value) for c in candidates)
        if best is None or rel < best[0]:
            best = (rel, q)
    return best[1] if best is not None and best[0] <= 0.15 else None


def formulas(tr: TranscriptRound, cl: Checklist) -> Formulas | None:
    finding = cl.checks.capacity
    if finding is None:
        return None
    p = capacity_params(tr.variant_seed)
    pairs = tr.answer_turns()
    text = pairs[0][1] if pairs else ""
    qs = capacity.read_quantities(text)
    shown: dict[str, tuple[str, str]] = {}  # quantity -> (stated, the mistake)
    if finding.errors:
        r = capacity.reference(p)
        for kind, t in capacity._error_signatures(p, r):
            name = capacity.ERROR_NAMES[kind]
            qty = _SIGNATURE_QUANTITY.get(t.name.split(" ")[0])
            if name not in finding.errors or qty is None or qty in shown:
                continue
            q = next(
                (q for q in qs if _fits(q, t.unit) and math.isclose(q.value, t.value, rel_tol=0.01)), None
            )
            if q is not None:
                shown[qty] = (q.raw, name)
    slips = {s.split(":", 1)[0]: s for s in finding.off}
    steps: list[FormulaStep] = []
    for qty, unit, formula, substituted, ref in derivation(p):
        kind_unit = _CHECKED_UNIT.get(qty)
        stated: str | None = None
        error: str | None = None
        if kind_unit is None:
            status = "not_checked"
        elif qty in shown:
            status, (stated, error) = "unit_error", shown[qty]
        elif qty in finding.matched:
            status = "matched"
            q = _closest(qs, kind_unit, ref)
            stated = q.raw if q else None
        elif qty in slips:
            status = "slip"
            stated = slips[qty].split("stated ", 1)[-1].split(", reference", 1)[0]
        else:
            status = "not_stated"
        steps.append(
            FormulaStep(
                quantity=qty,
                unit=unit,
                formula=formula,
                substituted=substituted,
                reference=ref,
                candidate=stated,
                status=status,  # type: ignore[arg-type]
                error=error,
            )
        )
    return Formulas(
        round=tr.round,
        variant_seed=tr.variant_seed,
        verdict=finding.verdict,
        answer=text,
        steps=steps,
        unit_errors=list(finding.errors),
        slips=list(finding.off),
    )


# ---------------------------------------------------------------- assumptions


_LABEL_ORDER = ("observed", "estimated", "given", "derived")
"""The order in which the checker (`checks.numbers`) tries the labels."""


def _label_in(text: str, labels: dict[str, list[str]]) -> str | None:
    return next((name for name in _LABEL_ORDER if any_term(text, labels.get(name, []))), None)


def _computed(number: str, sentence: str) -> bool:
    """The number is what its sentence computes: it follows "=" or "≈" ("… = 40 GiB")."""
    return any(
        sentence[: m.start()].rstrip().endswith(("=", "≈", "≃"))
        for m in re.finditer(rf"(?<![\d.,]){re.escape(number)}(?![\d])", sentence)
    )


def _whose_label(
    label: str | None,
    own: str,
    prev: str | None,
    stated: bool,
    computed: bool,
    labels: dict[str, list[str]],
) -> tuple[str | None, str]:
    """(label, labelled_by) of one number as the table shows it.

    `own`: the number's sentence, lowercased; `prev`: the sentence before it in the same answer;
    `stated`: the question states the number; `computed`: the sentence computes it. The checker also takes a label from the sentence before;
    the table credits that only when that sentence is a heading with no number of its own ("Given:",
    "假设如下："). A label the sentence before gives its own numbers ("Given: 40B params … on 80 GiB GPUs.")
    does not carry over to a derived value in the next one ("… so each rank holds 20 GiB."): that value
    is shown unlabelled, not as given by the candidate. Nor is a value the sentence computes ("… = 80 GB")
    given because the question happens to state the same number ("80 GiB GPUs")."""
    if label is None:
        return None, "unlabelled"
    if any_term(own, labels.get(label, [])):
        return label, "candidate"
    heading = prev is not None and not any(c.isdigit() for c in prev)
    if heading and prev is not None and any_term(prev, labels.get(label, [])):
        return label, "candidate"
    if stated and label == "given" and not computed:
        return label, "inferred"
    mine = _label_in(own, labels)
    return (mine, "candidate") if mine else (None, "unlabelled")


def assumptions(rubric: Rubric, tr: TranscriptRound, cl: Checklist, lang: Lang) -> list[Assumption]:
    labels: dict[str, list[str]] = rubric.lexicon["number_labels"]
    pairs = tr.answer_turns()
    prompt = next((t.text for t in tr.turns if t.role == "interviewer"), "")
    out: list[Assumption] = []
    for n in cl.checks.numbers:
        where = next((k for k, (_, a) in enumerate(pairs) if _norm(n.sentence) in _norm(a)), None)
        prev: str | None = None
        question = pairs[where][0] if where is not None else ""
        if where is not None:
            sents = sentences(pairs[where][1])
            k = next((i for i, s in enumerate(sents) if _norm(s.text) == _norm(n.sentence)), None)
            if k is not None and k > 0:
                prev = sents[k - 1].lower
        stated = bool(given_values(n.text) & (given_values(prompt) | given_values(question)))
        computed = _computed(n.text, n.sentence)
        label, by = _whose_label(n.label, n.sentence.lower(), prev, stated, computed, labels)
        out.append(
            Assumption(
                round=tr.round,
                text=n.text,
                label=label,  # type: ignore[arg-type]
                label_text=label_text(label, lang),
                labelled_by=by,  # type: ignore[arg-type]
                sentence=n.sentence,
                answer=where,
                question=question,
            )
        )
    return out


# ---------------------------------------------------------------- scores, disputes


def _record(o: Override, stale: bool) -> OverrideRecord:
    return OverrideRecord(
        id=o.id,
        judge_score=o.judge_score,
        human_score=o.human_score,
        reviewer=o.reviewer,
        reason=o.reason,
        created_at=o.created_at,
        rubric_version=o.rubric_version,
        judge_model=o.judge_model,
        judge_kind=o.judge_kind,
        stale=stale,
    )


def _effective(eff: list[EffectiveScore]) -> dict[tuple[str, str], EffectiveScore]:
    return {(e.round, e.dimension): e for e in eff}


def score_sheet(
    rubric: Rubric,
    report: SessionReport,
    eff: list[EffectiveScore],
    lang: Lang,
    intact: bool | None,
    problem: str | None,
) -> ScoreSheet:
    by = _effective(eff)
    rounds: list[RoundScore] = []
    for ra in report.rounds:
        dims: list[DimensionRow] = []
        ds_of = {ds.dimension: ds for ds in ra.dimensions}
        for d in DIMENSIONS:
            e = by[(ra.round, d)]
            ds = ds_of.get(d)
            dims.append(
                DimensionRow(
                    dimension=d,
                    title=rubric.dimensions[d].title.get(lang),
                    judge=e.judge,
                    effective=e.effective,
                    band=ds.band if ds else (e.judge, e.judge),
                    caps=list(ds.caps) if ds else [],
                    reason=ds.reason if ds else "",
                    override=_record(e.override, e.stale) if e.override else None,
                )
            )
        info = ra.judge or report.judge
        rounds.append(
            RoundScore(
                round=ra.round,
                title=rubric.round(ra.round).title.get(lang),
                judge_total=ra.total,
                effective_total=sum(r.effective for r in dims),
                passed=ra.passed,
                flags=list(ra.flags),
                fallback=bool(info.fallback),
                provenance=info,
                dimensions=dims,
                notes=list(ra.notes),
            )
        )
    return ScoreSheet(
        judge=report.judge, override_log_intact=intact, override_log_problem=problem, rounds=rounds
    )


def _claim(tr: TranscriptRound, path: str, symbol: str) -> tuple[str, str]:
    base = path.rsplit("/", 1)[-1]
    keys = [k.lower() for k in (path, base, base.removesuffix(".py"), *symbol.split(".")) if len(k) >= 4]
    for _, answer in tr.answer_turns():
        for s in sentences(answer):
            if any(k in s.lower for k in keys):
                return s.text, "answer"
    first = next((t.text for t in tr.turns if t.role == "interviewer"), "")
    return first, "question"


def disputed(
    report: SessionReport, eff: list[EffectiveScore], trs: dict[RoundId, TranscriptRound]
) -> list[Disputed]:
    by = _effective(eff)
    out: list[Disputed] = []
    for ra in report.rounds:
        info = ra.judge or report.judge
        tr = trs.get(ra.round)
        ds_of = {ds.dimension: ds for ds in ra.dimensions}
        for d in DIMENSIONS:
            e = by[(ra.round, d)]
            why: list[Any] = []
            if e.override is not None:
                why.append("override")
            if info.fallback:
                why.append("fallback")
            if not why:
                continue
            ds = ds_of.get(d)
            sources = []
            for s in ra.snippets:
                claim, src = _claim(tr, s.path, s.symbol) if tr else ("", "question")
                sources.append(
                    SourceCheck(
                        path=s.path,
                        symbol=s.symbol,
                        start_line=s.start_line,
                        end_line=s.end_line,
                        commit=s.commit,
                        permalink=s.permalink,
                        excerpt=s.excerpt,
                        claim=claim,
                        claim_from=src,  # type: ignore[arg-type]
                    )
                )
            paths = (
                [
                    PathCheck(cited=p.cited, status=p.status, detail=p.detail)
                    for p in ra.checklist.checks.paths
                ]
                if ra.checklist
                else []
            )
            out.append(
                Disputed(
                    round=ra.round,
                    dimension=d,
                    why=why,
                    judge_score=e.judge,
                    effective_score=e.effective,
                    reason=ds.reason if ds else "",
                    quotes=list(ds.quotes if ds else ra.quotes.get(d, [])),
                    override=_record(e.override, e.stale) if e.override else None,
                    fallback_reason=info.fallback_reason if info.fallback else None,
                    sources=sources,
                    paths=paths,
                )
            )
    return out


# ---------------------------------------------------------------- failures


def failures(
    rubric: Rubric,
    rounds: list[RoundAssessment],
    trs: dict[RoundId, TranscriptRound],
    fs: list[Formulas],
    lang: Lang,
) -> list[Failure]:
    msg = rubric.lexicon.get("messages", {}).get("no_inputs_asked", {})
    not_asked = {str(v) for v in msg.values()}  # the ask_for_inputs gate's note, in either language
    found: dict[FailureId, tuple[list[RoundId], list[str]]] = {}

    def add(fid: FailureId, rid: RoundId, evidence: list[str]) -> None:
        rs, ev = found.setdefault(fid, ([], []))
        if rid not in rs:
            rs.append(rid)
        ev.extend(x for x in evidence if x not in ev)

    for ra in rounds:
        cl = ra.checklist
        checks = cl.checks if cl else None
        tr = trs.get(ra.round)
        if any(n in not_asked for n in ra.notes) or any(
            c.startswith("ask_for_inputs") for ds in ra.dimensions for c in ds.caps
        ):
            asked = [
                a.text for a in (_kind(t, False) for t in (tr.turns if tr else []) if t.role == "interviewer")
                if a.kind in ("followup", "given")
            ]  # fmt: skip
            note = {"en": "no missing input asked for", "zh": "没有主动询问缺失输入"}[lang]
            add("prompted_for_requirements", ra.round, [note, *asked])
        missing = [p for p in (checks.paths if checks else []) if p.status in ("missing", "symbol_missing")]
        if missing or "nonexistent_path" in ra.flags:
            add("nonexistent_path", ra.round, [f"{p.cited}: {p.detail or p.status}" for p in missing])
        if (checks and checks.capacity and checks.capacity.errors) or "unit_error" in ra.flags:
            ev = [
                display_name("error", e, lang)
                for e in (checks.capacity.errors if checks and checks.capacity else [])
            ]
            for f in fs:
                if f.round == ra.round:
                    ev += [
                        f"{display_name('quantity', s.quantity, lang)}: {s.candidate} ({display_name('error', s.error or '', lang)})"
                        for s in f.steps
                        if s.status == "unit_error"
                    ]
            add("units_do_not_close", ra.round, ev)
        if (checks and checks.no_alternative) or "no_alternative" in ra.flags:
            add("no_alternative", ra.round, [])
        if (checks and checks.mutation_before_evidence) or "mutation_before_evidence" in ra.flags:
            add(
                "mutation_before_evidence",
                ra.round,
                [checks.mutation_before_evidence] if checks and checks.mutation_before_evidence else [],
            )
        if (checks and checks.fabricated) or "fabricated_metrics" in ra.flags:
            add("no_raw_artifact", ra.round, list(checks.fabricated) if checks else [])
    out: list[Failure] = []
    for fid in FAILURE_ORDER:
        if fid in found:
            rs, ev = found[fid]
            out.append(
                Failure(
                    id=fid,
                    title=FAILURE_TEXT[fid]["title"][lang],
                    rounds=rs,
                    evidence=ev,
                    next_action=FAILURE_TEXT[fid]["action"][lang],
                )
            )
    return out


# ---------------------------------------------------------------- transcript, retry


def transcript(
    rubric: Rubric, view: SessionView, report: SessionReport | None, lang: Lang
) -> list[RoundTranscript]:
    timing = {t.round: t for t in (report.timing if report else [])}
    out: list[RoundTranscript] = []
    for tr in view.transcript.rounds:
        minutes = rubric.round(tr.round).minutes
        times = [t.at_s for t in tr.turns if t.at_s is not None]
        start = min(times) if times else None
        t = timing.get(tr.round)
        used = t.used_s if t else tr.duration_s()
        out.append(
            RoundTranscript(
                round=tr.round,
                title=rubric.round(tr.round).title.get(lang),
                minutes=t.minutes if t else minutes,
                used_s=used,
                over_budget=t.over_budget if t else bool(used is not None and used > minutes * 60),
                turns=[
                    TurnOut(
                        role=x.role,
                        text=x.text,
                        at_s=x.at_s,
                        round_elapsed_s=round(x.at_s - start, 3)
                        if x.at_s is not None and start is not None
                        else None,
                    )
                    for x in tr.turns
                ],
            )
        )
    return out


def _log_rows(key: str, omitted: list[Omission]) -> tuple[list[Override] | None, bool | None, str | None]:
    log = OverrideLog()
    try:
        rows = log.rows(key)
        v = log.verify()
    except OverrideLogError as e:
        omitted.append(
            Omission(what=f"overrides of session {key}", why=f"the override log could not be read: {e}")
        )
        return [], None, str(e)
    return rows, v.ok, None if v.ok else str(v.problems[0])


def retry(
    rubric: Rubric,
    report: SessionReport,
    eff: list[EffectiveScore],
    owner: str | None,
    lang: Lang,
    omitted: list[Omission],
) -> Retry | None:
    cmp = report.comparison
    if cmp is None:
        return None
    prev_rounds: dict[str, RoundAssessment] = {}
    prev_eff: dict[tuple[str, str], EffectiveScore] = {}
    try:
        prev = get_session(cmp.previous_session, owner=owner).report
    except SessionNotFound:
        prev = None
        omitted.append(
            Omission(
                what=f"quotes and overrides of the first attempt ({cmp.previous_session})",
                why="that session is no longer stored or not visible to this owner",
            )
        )
    if prev is not None:
        prev_rounds = {r.round: r for r in prev.rounds}
        rows, _, _ = _log_rows(prev.id, omitted)
        prev_eff = _effective(effective_scores(prev, rows))
    now = {r.round: r for r in report.rounds}
    by = _effective(eff)
    rounds: list[RetryRound] = []
    for rc in cmp.rounds:
        old = prev_rounds.get(rc.round)
        dims = []
        for dc in rc.dimensions:
            d: Dimension = dc.dimension
            pe = prev_eff.get((rc.round, d))
            dims.append(
                RetryDimension(
                    dimension=d,
                    title=rubric.dimensions[d].title.get(lang),
                    before=dc.before,
                    after=dc.after,
                    delta=dc.change,
                    before_effective=pe.effective if pe else None,
                    after_effective=by[(rc.round, d)].effective,
                    quotes_before=list(old.quotes.get(d, [])) if old else [],
                    quotes_after=list(now[rc.round].quotes.get(d, [])),
                )
            )
        rounds.append(
            RetryRound(
                round=rc.round,
                title=rubric.round(rc.round).title.get(lang),
                before_total=rc.before_total,
                after_total=rc.after_total,
                delta=rc.change,
                dimensions=dims,
            )
        )
    return Retry(previous_session=cmp.previous_session, rounds=rounds)


# ---------------------------------------------------------------- the package


def build_package(
    session_id: str, *, owner: str | None = None, rubric: Rubric | None = None
) -> EvidencePackage:
    """The evidence package of a stored session (raises SessionNotFound when it is not the owner's)."""
    rubric = rubric or default_rubric()
    view = get_session(session_id, owner=owner)
    row = open_store().get(session_id)
    if row is None:  # deleted between the two reads
        raise SessionNotFound(session_id)
    lang: Lang = view.language
    report = view.report
    omitted: list[Omission] = []
    plan_words = view.plan.split()
    previous = plan_words[1] if len(plan_words) > 1 and plan_words[0] == "redo" else None
    info = SessionInfo(
        id=view.session_id,
        plan=view.plan,
        mode=view.mode,
        language=lang,
        owner=view.owner,
        status=view.status,
        created_at=row.created_at,
        updated_at=row.updated_at,
        previous_session=previous,
    )
    trs = {tr.round: tr for tr in view.transcript.rounds}
    rubric_version = report.judge.rubric_version if report else rubric.version
    if rubric_version != rubric.version:
        omitted.append(
            Omission(
                what=f"round titles, level texts and follow-up wording of rubric {rubric_version}",
                why=f"this package was made with rubric {rubric.version}; the scores and asked texts are the "
                "session's own",
            )
        )
    versions = [
        RoundVersion(
            round=tr.round,
            title=rubric.round(tr.round).title.get(lang),
            minutes=rubric.round(tr.round).minutes,
            asked=[_kind(t, k == 0) for k, t in enumerate(x for x in tr.turns if x.role == "interviewer")],
            capacity=_capacity_given(tr.variant_seed, lang) if tr.round == "capacity" else None,
        )
        for tr in view.transcript.rounds
    ]
    qv = QuestionVersion(
        rubric_version=rubric_version,
        rubric_version_now=rubric.version,
        round_ids=[tr.round for tr in view.transcript.rounds],
        rounds=versions,
    )
    rows: list[Override] = []
    sheet = None
    eff: list[EffectiveScore] = []
    found_assumptions: list[Assumption] = []
    fs: list[Formulas] = []
    disputes: list[Disputed] = []
    fails: list[Failure] = []
    again = None
    if report is None:
        omitted.append(
            Omission(
                what="score sheet, assumptions, formulas, disputed evidence, failure evidence",
                why=f"the session is not finished (status {view.status}): no round is scored yet",
            )
        )
    else:
        got, intact, problem = _log_rows(report.id, omitted)
        rows = got or []
        eff = effective_scores(report, rows)
        sheet = score_sheet(rubric, report, eff, lang, intact, problem)
        for ra in report.rounds:
            tr = trs.get(ra.round)
            if ra.checklist is None or tr is None:
                omitted.append(
                    Omission(
                        what=f"assumptions and checks of round {ra.round}",
                        why="its stored assessment has no checklist"
                        if tr
                        else "its transcript is not stored",
                    )
                )
                continue
            found_assumptions += assumptions(rubric, tr, ra.checklist, lang)
            f = formulas(tr, ra.checklist)
            if f is not None:
                fs.append(f)
        disputes = disputed(report, eff, trs)
        for dp in disputes:
            if not dp.sources:
                ra = next(r for r in report.rounds if r.round == dp.round)
                why = next((n for n in ra.notes if "index" in n.lower() or "索引" in n), None)
                what = f"vLLM source snippets for the disputed round {dp.round}"
                if not any(o.what == what for o in omitted):
                    omitted.append(
                        Omission(what=what, why=why or "the round was graded without vLLM source snippets")
                    )
        fails = failures(rubric, report.rounds, trs, fs, lang)
        again = retry(rubric, report, eff, view.owner, lang, omitted)
    omitted.append(Omission(what=_OMIT["audio"][lang], why=_OMIT["audio_why"][lang]))
    return EvidencePackage(
        language=lang,
        session=info,
        question_version=qv,
        assumptions=found_assumptions,
        formulas=fs,
        score_sheet=sheet,
        disputed=disputes,
        transcript=transcript(rubric, view, report, lang),
        candidate_questions=list(report.candidate_questions) if report else [],
        failures=fails,
        retry=again,
        omitted=omitted,
    )


def to_json(pkg: EvidencePackage) -> str:
    """package.json: sorted keys, two-space indent, UTF-8 text (Chinese as is), one final newline."""
    return json.dumps(pkg.model_dump(mode="json"), ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def schema_json() -> str:
    """package.schema.json, generated from the model."""
    schema = EvidencePackage.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return json.dumps(schema, ensure_ascii=False, sort_keys=True, indent=2) + "\n"
