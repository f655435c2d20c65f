"""Co-pilot: a human interviewer asks; after each answer the graph suggests what still lacks evidence."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agent.graph import answer, ask, close_round, start_session
from agent.graph import context as graph_context
from agent.knowledge.snippet import Snippet
from agent.rubric import Rubric
from tests.graph.script import answers_of, partial, strong


def test_copilot_suggests_follow_ups_that_target_missing_evidence(rubric: Rubric) -> None:
    rnd = rubric.round("concepts")
    v = start_session("concepts", "en", "copilot", session_id="co-1")
    assert v.mode == "copilot" and v.question == rnd.prompt.en and v.awaiting == "candidate"
    assert v.suggestions == []

    v = answer("co-1", partial(rubric, "concepts", 4), at_s=40)
    # the graph waits for the interviewer, with a draft score and suggestions
    assert v.status == "waiting" and v.awaiting == "interviewer" and v.question is None
    draft = v.last_assessment
    assert draft is not None and draft.checklist is not None and draft.missing_evidence
    assert {s.followup for s in v.suggestions} == {f.id for f in rnd.followups}
    missing = set(draft.missing_evidence)
    top = v.suggestions[0]
    assert top.why and set(top.why) <= missing  # why = the expected evidence it probes that is still missing
    counts = [len(s.why) for s in v.suggestions]
    assert counts == sorted(counts, reverse=True)  # targeting follow-ups first
    for s in v.suggestions:
        f = next(f for f in rnd.followups if f.id == s.followup)
        texts = {i.id: i.text.en for i in rubric.evidence("concepts")}
        assert set(s.why) == {texts[p] for p in f.probes if texts.get(p) in missing}

    # the interviewer's choice is recorded as that follow-up
    v = ask("co-1", top.text)
    assert v.question == top.text and v.awaiting == "candidate"
    v = answer("co-1", strong(rubric, "concepts"), at_s=90)
    chosen = [t for t in v.transcript.rounds[0].turns if t.role == "interviewer"][1]
    assert chosen.text == top.text and (chosen.model_extra or {}).get("followup") == top.followup
    assert all(s.followup != top.followup for s in v.suggestions)  # not suggested twice
    assert v.last_assessment is not None and v.last_assessment.total > draft.total

    # or their own question
    v = ask("co-1", "How would you explain this to a new teammate?")
    v = answer("co-1", "With a diagram of the block table.", at_s=120)
    own = [t for t in v.transcript.rounds[0].turns if t.role == "interviewer"][-1]
    assert (own.model_extra or {}).get("own") is True

    v = close_round("co-1")
    assert v.status == "done" and v.report is not None
    assert v.report.rounds[0].scores == v.last_assessment.scores  # type: ignore[union-attr]
    assert len(answers_of(v)) == 3


def test_copilot_gives_the_asked_for_input_as_a_suggestion(rubric: Rubric) -> None:
    v = start_session("capacity", "en", "copilot")
    v = answer(v.session_id, "What is the block size? Is it given?", at_s=30)
    fact = next(f for f in rubric.round("capacity").given if f.id == "given-block-size")
    assert fact.text.en in v.suggestions[0].text and v.suggestions[0].why


def test_ask_is_for_copilot_sessions_and_close_needs_an_answer() -> None:
    v = start_session("concepts", "en")
    v2 = ask(v.session_id, "my own question")
    assert v2.message and "co-pilot" in v2.message and v2.question == v.question
    c = start_session("concepts", "en", "copilot")
    c2 = close_round(c.session_id)
    assert c2.message and "not answered" in c2.message and c2.status == "waiting"
    c3 = ask(c.session_id, "   ")
    assert c3.message and "empty" in c3.message


def test_a_refused_question_is_called_a_question_not_an_answer() -> None:
    """Issue 12: an Ask too long (or not text) said "The answer is 60,001 characters…" of the interviewer's
    question; it names the question, in either language, and the session still waits for it."""
    from agent.contracts.transcript import MAX_ANSWER_CHARS
    from agent.graph.inputs import check_input

    c = start_session("concepts", "en", "copilot")
    long = ask(c.session_id, "x" * (MAX_ANSWER_CHARS + 1))
    assert long.message_keyed is not None and long.question == c.question
    en, zh = long.message_keyed.text("en"), long.message_keyed.text("zh")
    assert en.startswith("The question is 60,001 characters") and "answer" not in en.lower(), en
    assert zh.startswith("问题有 60,001 个字符") and "回答" not in zh, zh
    for bad in (b"\xff\xfe", "a\x00b"):
        _, wrong = check_input(bad, kind="question")
        assert wrong is not None
        assert wrong.text("en").startswith("The question is not text") and "answer" not in wrong.text("en")
        assert wrong.text("zh").startswith("问题不是文本") and "回答" not in wrong.text("zh")
    _, as_answer = check_input("x" * (MAX_ANSWER_CHARS + 1))  # an answer keeps its own wording
    assert as_answer is not None and as_answer.text("en").startswith("The answer is 60,001 characters")


def test_copilot_shows_source_snippets_when_an_index_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    snip = Snippet(
        path="vllm/v1/core/block_pool.py",
        symbol="BlockPool",
        kind="class",
        start_line=1,
        end_line=20,
        commit="b23bd73f540175f9e117eaee5029cd7d8df63964",
        permalink="https://github.com/vllm-project/vllm/blob/b23bd73f/vllm/v1/core/block_pool.py#L1-L20",
        text="class BlockPool: ...",
        score=0.9,
    )
    asked: list[str] = []

    def retriever() -> Callable[[str], list[Snippet]]:
        def retrieve(text: str) -> list[Snippet]:
            asked.append(text)
            return [snip]

        return retrieve

    monkeypatch.setattr(graph_context, "_retriever", retriever)
    monkeypatch.setattr(graph_context, "_CTX", {})
    v = start_session("concepts", "en", "copilot")
    v = answer(v.session_id, "Paged KV uses a block pool.", at_s=5)
    assert v.snippets == [snip] and asked == ["Paged KV uses a block pool."]
    p = start_session("concepts", "en")  # practice: no snippets to show
    p = answer(p.session_id, "Paged KV uses a block pool.", at_s=5)
    assert p.snippets == [] and len(asked) == 1


@pytest.mark.parametrize(
    ("lang", "said"), [("zh", "尚未建立 vLLM 源码索引"), ("en", "No vLLM source index is built yet")]
)
def test_copilot_without_an_index_says_so_in_the_sessions_language(
    lang: str, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh data dir has no source index: the co-pilot's notice says so in the session's language (it
    printed the index's English status line into Chinese sessions) and the interview goes on."""
    pytest.importorskip("chromadb")
    monkeypatch.setattr(graph_context, "_CTX", {})
    v = start_session("concepts", lang, "copilot")  # type: ignore[arg-type]
    v = answer(v.session_id, "Paged KV 把 KV cache 分成固定大小的 block。", at_s=5)
    assert v.notice is not None and said in v.notice and "interview index build" in v.notice, v.notice
    assert v.snippets == []
    assert "no index built yet" not in v.notice  # the index's own status line stays out of it
