"""The transcript in a Markdown export: every turn with its time, a retried answer's earlier attempts
under it, in the session's language."""

from __future__ import annotations

from agent.contracts.transcript import Transcript
from agent.rubric import default_rubric
from agent.ui.views import transcript_md


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
    assert "> *Earlier attempt, retried (00:40):* It is fast." in md


def test_transcript_md_in_chinese() -> None:
    md = transcript_md(default_rubric(), _transcript("zh"))
    assert "## 完整记录" in md and "### 概念快问" in md and "**候选人** (01:35)：" in md
    assert "上一次作答（已重答）" in md and "Interviewer" not in md and "Candidate" not in md
