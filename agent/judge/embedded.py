"""The embedded judge: no LLM at all. Fills the checklist from the rubric's cue terms.

Always available; the report says when it is the one that scored.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.contracts.checklist import Checks, ItemFinding, SignalFinding
from agent.judge.base import Fill
from agent.judge.checks import distinct
from agent.judge.matching import Sentence, match_cues, unprompted
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang, RoundId

EMBEDDED_MODEL = "embedded-cues-v1"


def first_occurrences(sents: Sequence[Sentence]) -> list[Sentence]:
    """The sentences without repeats of an earlier one (same words, case and whitespace aside).

    Saying a thing twice is not more evidence; and a repeated block would put an answer's last
    sentence next to its first, a pair the candidate never wrote, inside one cue window.
    """
    return distinct(sents)


class EmbeddedJudge:
    kind = "embedded"
    model = EMBEDDED_MODEL

    def fill(
        self,
        rubric: Rubric,
        round_id: RoundId,
        answer: str,
        lang: Lang,
        checks: Checks,
        sents: Sequence[Sentence],
        snippets: str = "",
    ) -> Fill:
        del snippets  # cue matching reads only the answer
        sents = first_occurrences(sents)
        items = []
        for it in rubric.evidence(round_id):
            m = match_cues(it.cues, answer, sents)
            items.append(ItemFinding(id=it.id, covered=m.found, quote=m.quote if m.found else None))
        strong = []
        for s in rubric.strong_signals(round_id):
            # a strong signal is what the candidate brought: a reply to a follow-up that asked for just that
            # (its question names every group the signal needs) answers the question and is scored as its items
            m = match_cues(s.cues, answer, unprompted(s.cues, sents))
            strong.append(
                SignalFinding(id=s.id, kind="strong", present=m.found, quote=m.quote if m.found else None)
            )
        weak = []
        for s in rubric.weak_signals(round_id):
            # what the candidate got wrong is in their own words: the question lends a weak signal nothing
            m = match_cues(s.cues.model_copy(update={"answer_only": True}), answer, sents)
            weak.append(
                SignalFinding(id=s.id, kind="weak", present=m.found, quote=m.quote if m.found else None)
            )
        return Fill(items=items, strong=strong, weak=weak)
