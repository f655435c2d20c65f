"""`asked.same_question`: when two texts ask one question (the interviewer's words around a suggestion, or
the suggestion put another way), and that it tells apart the questions a round may ask."""

from __future__ import annotations

from agent.graph.asked import picked, same_question
from agent.graph.followups import localise
from agent.graph.nodes import prompt_text
from agent.graph.state import PlannedRound, Suggestion
from agent.rubric import Rubric


def test_a_question_in_the_interviewers_words_is_the_same_question() -> None:
    q = "While retries are still amplifying, what happens to new capacity?"
    assert same_question(q, "while retries are still amplifying what happens to new capacity")
    assert same_question(q, "Good, next one. " + q + " Take your time.")
    assert same_question(q, "If retries keep amplifying, what happens to the new capacity you add?")
    assert not same_question(
        q, "How do you limit retries, and which evidence tells you it is time to scale out?"
    )
    assert not same_question(q, "Why?")
    zh = "重试还在放大时扩容，新容量会怎样？"
    assert same_question(zh, "好的。重试还在放大时扩容，新容量会怎样")
    assert same_question(zh, "重试还在放大的时候扩容，新容量会怎么样？")
    assert not same_question(zh, "你怎样限制重试？什么证据告诉你该扩容了？")


def test_the_questions_a_round_may_ask_are_told_apart(rubric: Rubric) -> None:
    """`same_question` takes no two of a round's questions for one: its opening question, its project
    questions and their follow-ups, or its listed follow-ups and the inputs it may give."""
    for rnd in rubric.rounds.values():
        for lang in ("en", "zh"):
            texts = [rnd.prompt.get(lang)]
            if rnd.questions:  # the questions' own follow-ups, not the listed ones, are asked
                for q in rnd.questions:
                    texts += [q.text.get(lang), *(f.get(lang) for f in q.followup_if_missing)]
            else:
                texts += [f.text.get(lang) for f in rnd.followups] + [g.text.get(lang) for g in rnd.given]
            for k, a in enumerate(texts):
                for b in texts[k + 1 :]:
                    assert not same_question(a, b), (rnd.id, lang, a, b)


def test_a_fresh_capacity_variant_keeps_its_questions_apart(rubric: Rubric) -> None:
    """Round 3 with fresh numbers: its prompt and its follow-ups and inputs, the numbers rewritten."""
    rnd = rubric.round("capacity")
    for seed in range(1, 6):
        plan = PlannedRound(round="capacity", minutes=rnd.minutes, variant_seed=seed)
        for lang in ("en", "zh"):
            texts = [prompt_text(rnd, plan, lang)]
            texts += [localise(x.text.get(lang), plan) for x in (*rnd.followups, *rnd.given)]
            for k, a in enumerate(texts):
                for b in texts[k + 1 :]:
                    assert not same_question(a, b), (seed, lang, a, b)


def test_a_picked_suggestion_edited_is_still_that_suggestion() -> None:
    """`picked`: the suggestion the interviewer picked and reworded (`started_from`) is the one asked, in
    Chinese too, where the same rewording moves further from it in pairs of characters; not another
    suggestion, nor a question that no longer shares its words."""
    offer = [
        Suggestion(text="你怎么确认算出的每 rank KV 预算真的能给 KV？下一步看什么？", why=""),
        Suggestion(text="若 H_kv=2 < TP=4，分片假设会怎样？", why=""),
    ]
    edited = "你怎么确认每 rank 的 KV 预算真的可用？"
    assert picked(offer, edited) is None  # too far in its words alone
    assert picked(offer, edited, started_from=offer[0]["text"]) == offer[0]
    assert picked(offer, edited, started_from=offer[1]["text"]) is None
    assert picked(offer, "你上次部署用的是哪种 GPU？", started_from=offer[0]["text"]) is None
    assert picked(offer, edited, started_from="不在建议里的问题") is None
