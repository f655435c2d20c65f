"""The transcript in a Markdown export: every turn with its time, a retried answer's earlier attempts
under it, in the session's language."""

from __future__ import annotations

from agent.contracts.transcript import Transcript
from agent.rubric import default_rubric
from agent.ui.views import conversation_md, transcript_md


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
    assert "> *Earlier attempt, retried (00:40)*: It is fast." in md


def test_transcript_md_in_chinese() -> None:
    md = transcript_md(default_rubric(), _transcript("zh"))
    assert "## 完整记录" in md and "### 概念快问" in md and "**候选人**（01:35）：Fragmentation" in md
    assert "上一次作答（已重答）" in md and "Interviewer" not in md and "Candidate" not in md


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
