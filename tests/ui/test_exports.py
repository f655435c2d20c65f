"""The transcript in a Markdown export: every turn with its time, a retried answer's earlier attempts
under it, in the session's language; the conversation on screen shows them too (issue 12, blind tester: the
earlier attempt was only in the export), with the round's score before → after, in the interface language."""

from __future__ import annotations

from agent.contracts.transcript import Transcript
from agent.rubric import default_rubric
from agent.ui.views import conversation_md, transcript_md
from agent.ui.views.text import dim_title


def _transcript(lang: str) -> Transcript:
    return Transcript.model_validate(
        {
            "id": "s1",
            "language": lang,
            "rounds": [
                {
                    "round": "concepts",
                    "turns": [
                        {"role": "interviewer", "text": "What does paged KV solve?", "at_s": 0},
                        {
                            "role": "candidate",
                            "text": "Fragmentation: blocks are allocated on demand.",
                            "at_s": 95,
                            "earlier": [{"text": "It is fast.", "at_s": 40}],
                        },
                    ],
                }
            ],
        }
    )


def test_transcript_md_has_every_turn_and_the_earlier_attempt() -> None:
    md = transcript_md(default_rubric(), _transcript("en"))
    assert "## Transcript" in md and "### Concept quick-fire" in md
    assert "**Interviewer** (00:00): What does paged KV solve?" in md
    assert "**Candidate** (01:35): Fragmentation: blocks are allocated on demand." in md
    assert "> *Earlier attempt (replaced) (00:40)*: It is fast." in md


def test_transcript_md_in_chinese() -> None:
    md = transcript_md(default_rubric(), _transcript("zh"))
    assert "## 完整记录" in md and "### 概念快问" in md and "**候选人**（01:35）：Fragmentation" in md
    assert "之前的回答（已替换）（00:40）" in md and "Interviewer" not in md and "Candidate" not in md


def test_transcript_md_keeps_the_text_as_typed_and_tags_inert() -> None:
    """A tester read "I don&#x27;t know", then "-&gt;" and "&lt;" in the exported file: the candidate's text is
    carried as typed; only what a Markdown viewer would read as a tag or an entity gets a backslash."""
    tr = _transcript("en")
    tr.rounds[0].turns[1].text = "I don't know; H_kv=2 < TP=4, so prefill -> decode & <script>alert(1)</script> &lt;"
    md = transcript_md(default_rubric(), tr)
    assert "I don't know; H_kv=2 < TP=4, so prefill -> decode & \\<script>alert(1)\\</script> \\&lt;" in md
    assert "&gt;" not in md.replace("\\&lt;", "") and "&#x27;" not in md
    assert "<script>" not in md.replace("\\<script>", "")


def test_conversation_on_screen_keeps_the_answers_line_breaks() -> None:
    """A structured answer was shown as one block: its lines stay lines (`<br>`), each still made safe."""
    tr = _transcript("en")
    tr.rounds[0].turns[1].text = "Plan:\n1. weights -> 26 GiB\n\n\n2. KV < budget <b>"
    shown = conversation_md(default_rubric(), tr, "en")
    assert "Plan:<br>1. weights -&gt; 26 GiB<br><br>2. KV &lt; budget &lt;b&gt;" in shown
    assert "<b>" not in shown.replace("<b>You", "").replace("<b>Interviewer", "")


def _retried(lang: str, *, scored: bool = True) -> Transcript:
    """The round's scores kept as `agent.graph.retry` keeps them: with each earlier attempt, and with the
    answer that replaced them."""
    tr = _transcript(lang)
    answer = tr.rounds[0].turns[1]
    first = {"text": "It is fast.", "at_s": 40}
    second = {"text": "Blocks, I think.", "at_s": 70}
    if scored:
        first |= {"total": 5, "scores": {"accuracy": 1, "evidence": 1, "tradeoffs": 1, "validation": 1, "communication": 1}}
        second |= {"total": 7, "scores": {"accuracy": 2, "evidence": 2, "tradeoffs": 1, "validation": 1, "communication": 1}}
        answer.total = 9  # type: ignore[attr-defined]  (a turn's extra field, as the graph stamps it)
        answer.scores = {"accuracy": 3, "evidence": 2, "tradeoffs": 1, "validation": 2, "communication": 1}  # type: ignore[attr-defined]
    answer.earlier = [first, second]  # type: ignore[attr-defined]
    return Transcript.model_validate(tr.model_dump(mode="json"))


def test_conversation_on_screen_shows_a_retried_answers_earlier_attempts_and_the_comparison() -> None:
    rubric = default_rubric()
    shown = conversation_md(rubric, _retried("en"), "en")
    # the answer that counts is the answer turn; each earlier attempt folded under it, marked replaced
    assert "<b>You: </b>Fragmentation: blocks are allocated on demand.</p>" in shown
    assert shown.count("<details class='coach-earlier'><summary>Earlier attempt (replaced)") == 2
    assert "<summary>Earlier attempt (replaced) (00:40)</summary>It is fast.</details>" in shown
    assert "<summary>Earlier attempt (replaced) (01:10)</summary>Blocks, I think.</details>" in shown
    assert "coach-a'><b>You: </b>It is fast." not in shown  # not a second answer
    evidence, accuracy, validation = (dim_title(rubric, d, "en") for d in ("evidence", "accuracy", "validation"))
    assert (
        "Retried: the round&#x27;s score with each attempt, earlier → this answer: 5 → 7 → 9/25 "
        f"({accuracy} 1 → 2 → 3; {evidence} 1 → 2 → 2; {validation} 1 → 1 → 2)"
    ) in shown
    assert shown.index("Fragmentation") < shown.index("5 → 7 → 9/25") < shown.index("It is fast.")


def test_conversation_on_screen_in_chinese_follows_the_interface_language() -> None:
    rubric = default_rubric()
    for session in ("en", "zh"):  # the interface's language, whatever the session's
        shown = conversation_md(rubric, _retried(session), "zh")
        assert "<summary>之前的回答（已替换）（00:40）</summary>It is fast.</details>" in shown
        accuracy = dim_title(rubric, "accuracy", "zh")
        assert "已重答：每次作答时本轮的得分，之前 → 这次：5 → 7 → 9/25（" in shown
        assert f"{accuracy} 1 → 2 → 3；" in shown
        assert "Earlier attempt" not in shown and "Retried" not in shown


def test_the_export_has_the_same_comparison() -> None:
    md = transcript_md(default_rubric(), _retried("en"))
    assert md.index("> *Earlier attempt (replaced) (01:10)*: Blocks, I think.") < md.index(
        "> Retried: the round's score with each attempt, earlier → this answer: 5 → 7 → 9/25 ("
    )
    assert "> 已重答：每次作答时本轮的得分，之前 → 这次：5 → 7 → 9/25（" in transcript_md(default_rubric(), _retried("zh"))


def test_an_earlier_attempt_without_kept_scores_is_shown_without_a_comparison() -> None:
    """A session retried before the scores were kept with each attempt: the attempts, no made-up numbers."""
    shown = conversation_md(default_rubric(), _retried("en", scored=False), "en")
    assert shown.count("Earlier attempt (replaced)") == 2 and "Retried" not in shown and "/25" not in shown
