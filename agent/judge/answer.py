"""A round's answer as the judge reads it: every candidate turn, each with the question it replies to.

Evidence given in any turn of a round counts for the round; a follow-up answer is read together
with its question (the question supplies the subject the answer leaves unsaid); a quote never joins
text from two answers. The joined `text` is what quotes are verified against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agent.judge.matching import Sentence, sentences

TURN_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class AnswerTurn:
    """One candidate answer and the interviewer's question before it ("" when none was recorded)."""

    answer: str
    question: str = ""


@dataclass(frozen=True)
class Answer:
    """The candidate's answers of one round, joined one paragraph each, with their sentences."""

    turns: tuple[AnswerTurn, ...]
    text: str = field(init=False)
    sents: tuple[Sentence, ...] = field(init=False)

    def __post_init__(self) -> None:
        parts: list[str] = []
        sents: list[Sentence] = []
        pos = 0
        for k, t in enumerate(t for t in self.turns if t.answer.strip()):
            body = t.answer.strip()
            if parts:
                pos += len(TURN_SEPARATOR)
            parts.append(body)
            joined = TURN_SEPARATOR.join(parts)
            sents += sentences(
                joined, start=pos, end=pos + len(body), turn=k, question=t.question, first_idx=len(sents)
            )
            pos += len(body)
        object.__setattr__(self, "text", TURN_SEPARATOR.join(parts))
        object.__setattr__(self, "sents", tuple(sents))

    @classmethod
    def of(cls, answer: str | Answer | Sequence[AnswerTurn], question: str = "") -> Answer:
        """An `Answer` from plain text (one turn), a list of turns, or an `Answer` as it is."""
        if isinstance(answer, Answer):
            return answer
        if isinstance(answer, str):
            return cls((AnswerTurn(answer, question),))
        return cls(tuple(answer))

    @classmethod
    def of_pairs(cls, pairs: Sequence[tuple[str, str]]) -> Answer:
        """From (question, answer) pairs, e.g. `TranscriptRound.answer_turns()`."""
        return cls(tuple(AnswerTurn(a, q) for q, a in pairs))

    @property
    def questions(self) -> list[str]:
        return [t.question for t in self.turns if t.answer.strip()]
