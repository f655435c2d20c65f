"""The judge's prompt, from the templates in prompts/: static first, the candidate's text last.

Layout (what vLLM's prefix cache sees):

1. system message: instructions, the output format, the five dimensions and the score rules —
   byte-identical for every request of a rubric version (shared across rounds);
2. user message, first part: the round block (prompt, focus, expected evidence, signals) —
   byte-identical for every answer of that round;
3. user message, tail: findings of the deterministic checks, source snippets, and the candidate's
   answer fenced as data.

The rubric block is always written in English (`JUDGE_LANG`), whatever the answer's language: one
cached block per round instead of two, and the Chinese rubric text costs about 40 % more tokens
(SmolLM2's tokenizer: 3,421 against 2,426 tokens for the system-design round), which the 4,096-token
context of the CPU judge cannot spare. The instructions tell the model to quote the answer's own words.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from agent.config import repo_root
from agent.contracts.checklist import Checks
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Lang, RoundId

#: the language of the rubric text inside the judge's prompt (see the module docstring)
JUDGE_LANG: Lang = "en"
#: the closing fence of the candidate's answer; defused inside the answer
FENCE_CLOSE = "ANSWER>>>"

HOLISTIC_EN = (
    '"holistic" gives, for each of the five dimensions, a score from 1 to 5 and a one-line reason; '
    "the checklist bounds whatever score you give."
)


@dataclass(frozen=True)
class Templates:
    system: str
    round: str
    answer: str

    @property
    def hash(self) -> str:
        h = hashlib.sha256("\0".join((self.system, self.round, self.answer)).encode())
        return "prompt-" + h.hexdigest()[:12]


@lru_cache(maxsize=2)
def load_templates(root: Path | None = None) -> Templates:
    d = root or repo_root() / "prompts"
    return Templates(
        system=(d / "judge_system.md").read_text(encoding="utf-8"),
        round=(d / "judge_round.md").read_text(encoding="utf-8"),
        answer=(d / "judge_answer.md").read_text(encoding="utf-8"),
    )


def _one_line(s: str) -> str:
    return " ".join(s.split())


def system_block(rubric: Rubric, t: Templates, quote_max: int) -> str:
    """The system message: identical for every round and answer of one rubric version."""
    dims = "\n".join(
        f"- {d}: {_one_line(rubric.dimensions[d].description.get(JUDGE_LANG))}" for d in DIMENSIONS
    )
    return t.system.format(quote_max=quote_max, dimensions=dims)


def round_block(rubric: Rubric, round_id: RoundId, t: Templates, holistic: bool) -> str:
    """The static part for one round (independent of the answer and of its language)."""
    rnd = rubric.round(round_id)
    lang = JUDGE_LANG

    def lines(prefix: str, texts: list[str]) -> str:
        """One rubric line each, labelled with the key the schema asks for ("e1", "s1", "w1")."""
        return "\n".join(f"- {prefix}{k + 1}: {_one_line(txt)}" for k, txt in enumerate(texts)) or "- (none)"

    return t.round.format(
        title=rnd.title.get(lang),
        prompt=_one_line(rnd.prompt.get(lang)),
        focus=_one_line(rnd.focus.get(lang)),
        evidence=lines("e", [e.text.get(lang) for e in rubric.evidence(round_id)]),
        strong=lines("s", [s.text.get(lang) for s in rubric.strong_signals(round_id)]),
        weak=lines("w", [s.text.get(lang) for s in rubric.weak_signals(round_id)]),
        holistic=HOLISTIC_EN if holistic else "",
    )


def findings(checks: Checks) -> str:
    """The deterministic checks, for context.

    Sentences addressed to a grader are not listed: they are removed from the answer the model sees
    (`agent.judge.vllm.model_view`), so an injected answer's prompt is its base's prompt.
    """
    out = []
    if checks.unlabeled_numbers:
        out.append(
            "- numbers without a given/derived/observed/estimated label: "
            + ", ".join(checks.unlabeled_numbers[:8])
        )
    if checks.fabricated:
        out.append(f"- measured-sounding claims with no artifact: {len(checks.fabricated)}")
    for p in checks.paths:
        out.append(f"- cited path {p.cited}: {p.status}")
    if checks.capacity is not None:
        out.append(f"- capacity arithmetic: {checks.capacity.verdict}")
    return "\n".join(out) or "- none"


def fence(answer: str) -> str:
    """The answer as it goes between the fences: stripped, the closing fence defused."""
    return answer.strip().replace(FENCE_CLOSE, "ANSWER> > >")


def messages(
    rubric: Rubric,
    round_id: RoundId,
    answer: str,
    checks: Checks,
    snippets: str = "",
    holistic: bool = True,
    quote_max: int = 40,
) -> list[dict[str, str]]:
    """The chat messages: the system block, then the round block and the tail (findings, snippets,
    the fenced answer). The answer's language does not change the prompt (see `JUDGE_LANG`)."""
    t = load_templates()
    static = round_block(rubric, round_id, t, holistic)
    tail = t.answer.format(findings=findings(checks), snippets=snippets or "- none", answer=fence(answer))
    return [
        {"role": "system", "content": system_block(rubric, t, quote_max)},
        {"role": "user", "content": static + "\n" + tail},
    ]
