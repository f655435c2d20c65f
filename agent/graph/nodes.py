"""The graph's nodes: open a round, wait, record, assess, choose, score, report.

Each node reads the state and returns only the changes; none writes anywhere else. So a node that
runs again after a crash, and the `wait` node that runs again on every resume, change nothing twice.
The judge and the rubric come from the run's context (`GraphContext`), never from the checkpoint. What
to ask next is worked out in `followups.py`, a round's assessment in `assessment.py`.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from agent.contracts.report import RoundAssessment
from agent.contracts.transcript import TranscriptRound
from agent.graph.asked import asked_already, interviewer_turns, not_asked
from agent.graph.assessment import assess_round, assessment_key
from agent.graph.followups import (
    chosen,
    localise,
    matched_facts,
    missing_ids,
    next_question,
    question_missing,
    rank_followups,
    trigger_followup,
)
from agent.graph.notice import Notice, for_mode, notice
from agent.graph.report import RoundTime, SessionReport, compare, fill_narrative
from agent.graph.state import (
    GraphContext,
    Inbox,
    InboxKind,
    InterviewState,
    PlannedRound,
    RoundRun,
    RoundTiming,
    Suggestion,
    planned,
)
from agent.judge import capacity
from agent.judge.notes import catalogue_note
from agent.judge.scoring import risks_and_actions
from agent.rubric.model import Lang, Round
from agent.util import messages

Update = dict[str, Any]

# ---------------------------------------------------------------- helpers


def prompt_text(rnd: Round, plan: PlannedRound, lang: Lang) -> str:
    if rnd.id == "capacity" and plan["variant_seed"] is not None:
        return capacity.variant(plan["variant_seed"], lang).prompt[lang]
    return rnd.prompt.get(lang)


def new_run(at_s: float) -> RoundRun:
    return RoundRun(
        started_s=at_s,
        followups=[],
        facts_given=[],
        asked_unprompted=False,
        question=-1,
        question_followed=False,
        segment=0,
        over_budget=False,
    )


def turn(role: str, text: str, at_s: float | None, **extra: Any) -> dict[str, Any]:
    t: dict[str, Any] = {"role": role, "text": text, "at_s": at_s}
    t.update({k: v for k, v in extra.items() if v is not None})
    return t


def _with_turn(state: InterviewState, t: dict[str, Any]) -> list[dict[str, Any]]:
    rounds = [dict(r) for r in state["transcript"]]
    last = dict(rounds[-1])
    last["turns"] = [*last.get("turns", []), t]
    rounds[-1] = last
    return rounds


def _with_turn_replaced(state: InterviewState, t: dict[str, Any]) -> list[dict[str, Any]]:
    """The transcript with the last turn of its last round replaced by `t`."""
    rounds = [dict(r) for r in state["transcript"]]
    last = dict(rounds[-1])
    last["turns"] = [*last.get("turns", [])[:-1], t]
    rounds[-1] = last
    return rounds


def _segment_text(tr: dict[str, Any], start: int) -> str:
    turns = tr.get("turns", [])[start:]
    return "\n\n".join(t["text"].strip() for t in turns if t["role"] == "candidate" and t["text"].strip())


# ---------------------------------------------------------------- nodes


def open_round(state: InterviewState, runtime: Runtime[GraphContext]) -> Update:
    """Open the next round (its prompt and time budget), the candidate's questions, or go to the report."""
    ctx = runtime.context
    lang = state["language"]
    clock = state["clock_s"]
    idx = state["round_index"]
    if idx >= len(state["rounds"]):
        if state["candidate_questions"] and state["phase"] == "rounds" and state["mode"] != "grade":
            return {
                "phase": "questions",
                "question": messages.t("interview.candidate_questions", lang),
                "awaiting": "candidate",
                "run": new_run(clock),
                "draft": None,
                "suggestions": [],
                "route": "wait",
            }
        return {"route": "report"}
    plan = state["rounds"][idx]
    rnd = ctx.rubric.round(plan["round"])
    if state["mode"] == "grade":
        rec = state["recorded"][idx]
        new: dict[str, Any] = {"round": rec["round"], "turns": [], "variant_seed": rec.get("variant_seed")}
        first = next((t.get("at_s") for t in rec.get("turns", []) if t.get("at_s") is not None), None)
        return {
            "transcript": [*state["transcript"], new],
            "run": new_run(first if first is not None else 0.0),
            "replay_pos": 0,
            "question": None,
            "awaiting": None,
            "route": "wait",
        }
    q = prompt_text(rnd, plan, lang)
    new = {"round": rnd.id, "turns": [turn("interviewer", q, clock)], "variant_seed": plan["variant_seed"]}
    return {
        "transcript": [*state["transcript"], new],
        "run": new_run(clock),
        "question": q,
        "awaiting": "candidate",
        "draft": None,
        "draft_key": None,
        "suggestions": [],
        "snippets": [],
        "route": "wait",
    }


def wait(state: InterviewState) -> Update:
    """Wait for the next turn: an interrupt in a live session, the next recorded turn in grade mode.

    Only `interrupt()` happens here, so running it again on resume is harmless.
    """
    if state["mode"] == "grade":
        rec = state["recorded"][state["round_index"]].get("turns", [])
        pos = state["replay_pos"]
        if pos >= len(rec):
            return {"inbox": Inbox(kind="close", text="", at_s=None, clocked=True)}
        t = rec[pos]
        kind: InboxKind = "answer" if t["role"] == "candidate" else "interviewer"
        return {
            "inbox": Inbox(kind=kind, text=t["text"], at_s=t.get("at_s"), clocked=True),
            "replay_pos": pos + 1,
        }
    payload = interrupt(
        {
            "question": state["question"],
            "awaiting": state["awaiting"],
            "round": planned(state)["round"] if state["phase"] == "rounds" else None,
        }
    )
    return {"inbox": payload}


def record(state: InterviewState, runtime: Runtime[GraphContext]) -> Update:
    """Write the turn into the transcript. The checkpoint after this node holds the answer before any scoring."""
    inbox = state["inbox"]
    assert inbox is not None
    grade = state["mode"] == "grade"
    at = inbox["at_s"]
    clock = state["clock_s"]
    if at is not None and not grade:
        at = max(at, clock)
    new_clock = at if at is not None else clock
    common: Update = {"inbox": None, "clock_s": new_clock, "notice": None}
    if inbox["clocked"] and not grade:
        common["simulated"] = True
    kind = inbox["kind"]
    if state["phase"] == "questions":
        if kind == "answer":
            return {**common, "asked": [*state["asked"], inbox["text"]], "route": "report"}
        return {**common, "route": "report" if kind == "close" else "wait"}
    if kind == "close":
        return {**common, "route": "score"}
    if kind in ("ask", "interviewer"):
        extra: dict[str, Any] = {}
        run = state["run"]
        if kind == "ask" and run is not None:
            extra, run = chosen(runtime.context, state, inbox["text"], run, inbox.get("picked"))
        t = turn("interviewer", inbox["text"], at, **extra)
        upd: Update = {**common, "transcript": _with_turn(state, t), "route": "wait"}
        if kind == "ask":
            upd.update(run=run, question=inbox["text"], awaiting="candidate", suggestions=[])
        return upd
    t = turn("candidate", inbox["text"], at, earlier=inbox.get("earlier") or None)
    return {**common, "transcript": _with_turn(state, t), "route": "wait" if grade else "assess"}


def assess(state: InterviewState, runtime: Runtime[GraphContext]) -> Update:
    """Draft assessment of the round so far (the whole round's answers, as the final score will see them);
    in co-pilot, also the vLLM source snippets that verify what the last answer claims."""
    ctx = runtime.context
    tr = TranscriptRound.model_validate(state["transcript"][-1])
    ra = assess_round(ctx, tr, state["language"])
    upd: Update = {
        "draft": ra.model_dump(mode="json"),
        "draft_key": assessment_key(ctx, tr),
        "route": "choose",
    }
    last_turn = (state["transcript"][-1].get("turns") or [{}])[-1]
    if last_turn.get("role") == "candidate" and last_turn.get("earlier") and "total" not in last_turn:
        # a retried answer: the round's scores with it, beside those its earlier attempts had (`retry.py`)
        upd["transcript"] = _with_turn_replaced(state, {**last_turn, "total": ra.total, "scores": dict(ra.scores)})
    if state["mode"] == "copilot" and ctx.retrieve is not None:
        last = next(t for t in reversed(tr.turns) if t.role == "candidate")
        try:
            upd["snippets"] = [s.model_dump(mode="json") for s in ctx.retrieve(last.text)]
        except Exception as e:  # retrieval is an aid: the interview goes on without it, and says so
            upd["snippets"] = []
            said = (
                notice("interview.index_not_built")
                if getattr(e, "not_built", False)
                else notice("interview.no_snippets", why=str(e)[:200])
            )
            upd["notice"] = said.model_dump(mode="json")
    return upd


def _ask(state: InterviewState, text: str, run: RoundRun, **extra: Any) -> Update:
    t = turn("interviewer", text, state["clock_s"], **extra)
    return {
        "transcript": _with_turn(state, t),
        "question": text,
        "awaiting": "candidate",
        "run": run,
        "suggestions": [],
        "route": "wait",
    }


def _copilot(state: InterviewState, run: RoundRun, suggestions: list[Suggestion]) -> Update:
    return {
        "question": None,
        "awaiting": "interviewer",
        "run": run,
        "suggestions": suggestions,
        "route": "wait",
    }


def choose(state: InterviewState, runtime: Runtime[GraphContext]) -> Update:
    """After an answer: close the round when time is up, give asked-for inputs, pick the next follow-up
    (co-pilot: suggest them, ranked by the evidence they probe that the round still lacks). Never a
    question an interviewer turn of the round already asked, its opening question included (`asked.py`)."""
    ctx = runtime.context
    lang = state["language"]
    plan = planned(state)
    rnd = ctx.rubric.round(plan["round"])
    assert state["run"] is not None and state["draft"] is not None
    run = RoundRun(**state["run"])
    copilot = state["mode"] == "copilot"
    tr = state["transcript"][-1]
    last = next(t for t in reversed(tr["turns"]) if t["role"] == "candidate")

    # 1. the time budget
    if state["clock_s"] - run["started_s"] > plan["minutes"] * 60:
        run["over_budget"] = True
        title = {lg: rnd.title.get(lg) for lg in messages.LANGS}
        closed = notice("interview.time_up", round=title, minutes=plan["minutes"])
        return {"run": run, "route": "score", "notice": closed.model_dump(mode="json")}

    # 2. the candidate asked for a hidden input: answer from the round's given facts, never volunteer them
    facts = matched_facts(rnd, last["text"], run["facts_given"])
    given: list[Suggestion] = []
    if facts:
        by_id = {f.id: f for f in rnd.given}
        run["facts_given"] = [*run["facts_given"], *facts]
        run["asked_unprompted"] = True
        sep = "" if lang == "zh" else " "
        text = messages.t(
            "interview.given", lang, facts=sep.join(localise(by_id[f].text.get(lang), plan) for f in facts)
        )
        if not copilot:
            return _ask(state, text, run, given=facts)
        why = [messages.t("interview.asked_for", lang, fact=f) for f in facts]
        given = [Suggestion(text=text, why=why, followup=None)]

    draft = RoundAssessment.model_validate(state["draft"])
    missing = missing_ids(draft, ctx)

    # 3. project-experience: the eleven questions, each with its trigger follow-up
    if rnd.questions:
        qs = rnd.questions
        qi = run["question"]
        options: list[Suggestion] = []
        if 0 <= qi < len(qs) and not run["question_followed"]:
            lacking = question_missing(ctx, rnd, qs[qi], _segment_text(tr, run["segment"]))
            fu = trigger_followup(qs[qi], lacking, lang)
            if fu and not asked_already(fu, interviewer_turns(tr)):
                texts = {i.id: i.text.get(lang) for i in ctx.rubric.evidence(rnd.id)}
                if not copilot:
                    run["question_followed"] = True
                    return _ask(state, fu, run, question_id=qs[qi].id, trigger=True)
                options.append(Suggestion(text=fu, why=[texts.get(e, e) for e in lacking], followup=None))
        if copilot:
            # the next question not asked yet: the interviewer may have asked one out of turn
            nk = next_question(qs, qi, tr, lang)
            if nk is not None:
                options.append(Suggestion(text=qs[nk].text.get(lang), why=[], followup=None))
            return _copilot(state, run, not_asked(given + options, tr))
        if qi + 1 < len(qs):
            nq = qs[qi + 1]
            segment = len(tr["turns"]) + 1
            run["question"], run["question_followed"], run["segment"] = qi + 1, False, segment
            return _ask(state, nq.text.get(lang), run, question_id=nq.id)
        return {"run": run, "route": "score"}

    # 4. listed follow-ups that probe still-missing evidence, at most max_followups a round; none that an
    # interviewer turn of the round asked already (in co-pilot, maybe in the interviewer's own words)
    ranked = not_asked(rank_followups(ctx, rnd, plan, missing, run["followups"], lang), tr)
    if copilot:
        return _copilot(state, run, not_asked(given, tr) + ranked)
    targeted = [s for s in ranked if s["why"]]
    if targeted and len(run["followups"]) < state["max_followups"]:
        pick = targeted[0]
        assert pick["followup"] is not None
        run["followups"] = [*run["followups"], pick["followup"]]
        return _ask(state, pick["text"], run, followup=pick["followup"])
    return {"run": run, "route": "score"}


def score_round(state: InterviewState, runtime: Runtime[GraphContext]) -> Update:
    """The round's score: the judge on all of its answers, then gates; notes for time and asked inputs."""
    ctx = runtime.context
    lang = state["language"]
    plan = planned(state)
    tr = TranscriptRound.model_validate(state["transcript"][-1])
    if state["draft"] is not None and state["draft_key"] == assessment_key(ctx, tr):
        ra = RoundAssessment.model_validate(state["draft"])
    else:
        ra = assess_round(ctx, tr, lang)
    run = state["run"]
    minutes = plan["minutes"]
    if state["mode"] == "grade":
        used = tr.duration_s()
    else:
        used = (state["clock_s"] - run["started_s"]) if run is not None else None
    over = used is not None and used > minutes * 60
    # the session's notes, kept keyed beside the timing too: the report shows them in the reader's language
    added: list[Notice] = []
    if over and used is not None:
        key = (
            "interview.over_budget"
            if run is not None and run["over_budget"]
            else "interview.over_budget_graded"
        )
        added.append(notice(key, used=used / 60, minutes=minutes))
    if run is not None and run["facts_given"]:
        total = len(ctx.rubric.round(plan["round"]).given)
        key = for_mode("interview.asked_unprompted", state["mode"])  # to "you" in practice
        added.append(notice(key, n=len(run["facts_given"]), total=total))
    ra = ra.with_notes([catalogue_note(n.key, **n.fields) for n in added], lang)
    # the follow-ups the report suggests are those the round did not ask (a blind tester saw asked ones)
    asked = interviewer_turns(state["transcript"][-1])
    left = [f for f in ra.next_followups if not asked_already(f, asked)]
    ra = ra.model_copy(update={"next_followups": left})
    timing = RoundTiming(
        round=plan["round"],
        minutes=minutes,
        used_s=used,
        over_budget=over,
        notes=[n.model_dump(mode="json") for n in added],
    )
    return {
        "assessments": [*state["assessments"], ra.model_dump(mode="json")],
        "timing": [*state["timing"], timing],
        "round_index": state["round_index"] + 1,
        "run": None,
        "draft": None,
        "draft_key": None,
        "suggestions": [],
        "snippets": [],
        "question": None,
        "awaiting": None,
        "route": "open",
    }


def final_report(state: InterviewState, runtime: Runtime[GraphContext]) -> Update:
    """Per-round scores with quotes, risks apart from the total, next actions, narrative, comparison."""
    ctx = runtime.context
    lang = state["language"]
    rounds = [RoundAssessment.model_validate(a) for a in state["assessments"]]
    risks, actions = risks_and_actions(ctx.rubric, rounds, lang)
    info = ctx.info.over_rounds(rounds)
    project = [
        TranscriptRound.model_validate(r) for r in state["transcript"] if r["round"] == "project-experience"
    ]
    report = SessionReport(
        id=state["session_id"],
        judge=info,
        rounds=rounds,
        risks=risks,
        next_actions=actions,
        language=lang,
        session=state["session_id"],
        plan=state["plan"],
        mode=state["mode"],
        timing=[RoundTime.model_validate(t) for t in state["timing"]],
        narrative=fill_narrative(ctx.rubric, project[-1], lang) if project else None,
        comparison=compare(ctx.rubric, state["previous"], rounds, lang) if state["previous"] else None,
        candidate_questions=state["asked"],
    )
    return {
        "report": report.model_dump(mode="json"),
        "phase": "done",
        "question": None,
        "awaiting": None,
        "run": None,
        "route": "report",
    }
