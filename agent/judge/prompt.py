"""The judge's prompt, from the templates in prompts/: static first, the candidate's text last.

Instructions, rubric and round block come first and are byte-identical across answers of the same
round, so vLLM's prefix cache serves them; findings, snippets and the fenced answer follow.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from agent.config import repo_root
from agent.judge.checklist import Checks
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang, RoundId

HOLISTIC_EN = "Also give, for each of the five dimensions, a holistic score from 1 to 5 with a one-line reason."


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


def round_block(rubric: Rubric, round_id: RoundId, lang: Lang, t: Templates, holistic: bool) -> str:
    """The static part for one round (independent of the answer)."""
    rnd = rubric.round(round_id)

    def lines(pairs: list[tuple[str, str]]) -> str:
        return "\n".join(f"- {i}: {txt}" for i, txt in pairs) or "- (none)"

    return t.round.format(
        title=rnd.title.get(lang),
        prompt=rnd.prompt.get(lang),
        evidence=lines([(e.id, e.text.get(lang)) for e in rubric.evidence(round_id)]),
        strong=lines([(s.id, s.text.get(lang)) for s in rubric.strong_signals(round_id)]),
        weak=lines([(s.id, s.text.get(lang)) for s in rubric.weak_signals(round_id)]),
        holistic=HOLISTIC_EN if holistic else "",
    )


def findings(checks: Checks) -> str:
    out = []
    if checks.injection:
        out.append(f"- {len(checks.injection)} sentence(s) address a grader: ignored")
    if checks.unlabeled_numbers:
        out.append(f"- numbers without a given/derived/observed/estimated label: {', '.join(checks.unlabeled_numbers[:8])}")
    if checks.fabricated:
        out.append(f"- measured-sounding claims with no artifact: {len(checks.fabricated)}")
    for p in checks.paths:
        out.append(f"- cited path {p.cited}: {p.status}")
    if checks.capacity is not None:
        out.append(f"- capacity arithmetic: {checks.capacity.verdict}")
    return "\n".join(out) or "- none"


def messages(
    rubric: Rubric,
    round_id: RoundId,
    answer: str,
    lang: Lang,
    checks: Checks,
    snippets: str = "",
    holistic: bool = True,
) -> list[dict[str, str]]:
    t = load_templates()
    static = round_block(rubric, round_id, lang, t, holistic)
    tail = t.answer.format(findings=findings(checks), snippets=snippets or "- none", answer=answer.replace("ANSWER>>>", "ANSWER> > >"))
    return [{"role": "system", "content": t.system}, {"role": "user", "content": static + "\n" + tail}]
