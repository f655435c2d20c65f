"""The seed's failure evidence (seed 000 §4) a session showed, each with its rounds, its evidence and the
next observable action."""

from __future__ import annotations

from agent.contracts.report import RoundAssessment
from agent.contracts.transcript import TranscriptRound
from agent.package.labels import name as display_name
from agent.package.model import FAILURE_ORDER, Failure, FailureId, Formulas
from agent.package.question import asked_turns
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang, RoundId

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
            asked = [a.text for a in (asked_turns(tr) if tr else []) if a.kind in ("followup", "given")]
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
