"""The assumption table: each number of an answer with its label (题设 / 推导 / 观测 / 估计), the answer it
came from, and whether the candidate labelled it or the checker inferred it."""

from __future__ import annotations

import re

from agent.contracts.checklist import Checklist
from agent.contracts.transcript import TranscriptRound
from agent.judge.matching import any_term, sentences
from agent.judge.numbers import given_values
from agent.package.model import Assumption
from agent.rubric.lexicon import NumberLabels
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang
from agent.util import messages


def label_text(label: str | None, lang: Lang) -> str:
    return messages.t(f"package.label_kind.{label or 'unlabelled'}", lang)


def _norm(text: str) -> str:
    return " ".join(text.split())


_LABEL_ORDER = ("observed", "estimated", "given", "derived")
"""The order in which the checker (`checks.numbers`) tries the labels."""


def _label_in(text: str, labels: NumberLabels) -> str | None:
    return next((name for name in _LABEL_ORDER if any_term(text, labels.terms(name))), None)


def _computed(number: str, sentence: str) -> bool:
    """The number is what its sentence computes: it follows "=" or "≈" ("… = 40 GiB")."""
    return any(
        sentence[: m.start()].rstrip().endswith(("=", "≈", "≃"))
        for m in re.finditer(rf"(?<![\d.,]){re.escape(number)}(?![\d])", sentence)
    )


def _whose_label(
    label: str | None,
    own: str,
    prev: str | None,
    stated: bool,
    computed: bool,
    labels: NumberLabels,
) -> tuple[str | None, str]:
    """(label, labelled_by) of one number as the table shows it.

    `own`: the number's sentence, lowercased; `prev`: the sentence before it in the same answer;
    `stated`: the question states the number; `computed`: the sentence computes it. The checker also takes a label from the sentence before;
    the table credits that only when that sentence is a heading with no number of its own ("Given:",
    "假设如下："). A label the sentence before gives its own numbers ("Given: 40B params … on 80 GiB GPUs.")
    does not carry over to a derived value in the next one ("… so each rank holds 20 GiB."): that value
    is shown unlabelled, not as given by the candidate. Nor is a value the sentence computes ("… = 80 GB")
    given because the question happens to state the same number ("80 GiB GPUs")."""
    if label is None:
        return None, "unlabelled"
    if any_term(own, labels.terms(label)):
        return label, "candidate"
    heading = prev is not None and not any(c.isdigit() for c in prev)
    if heading and prev is not None and any_term(prev, labels.terms(label)):
        return label, "candidate"
    if stated and label == "given" and not computed:
        return label, "inferred"
    mine = _label_in(own, labels)
    return (mine, "candidate") if mine else (None, "unlabelled")


def assumptions(rubric: Rubric, tr: TranscriptRound, cl: Checklist, lang: Lang) -> list[Assumption]:
    labels = rubric.lexicon.number_labels
    pairs = tr.answer_turns()
    prompt = next((t.text for t in tr.turns if t.role == "interviewer"), "")
    out: list[Assumption] = []
    for n in cl.checks.numbers:
        where = next((k for k, (_, a) in enumerate(pairs) if _norm(n.sentence) in _norm(a)), None)
        prev: str | None = None
        question = pairs[where][0] if where is not None else ""
        if where is not None:
            sents = sentences(pairs[where][1])
            k = next((i for i, s in enumerate(sents) if _norm(s.text) == _norm(n.sentence)), None)
            if k is not None and k > 0:
                prev = sents[k - 1].lower
        stated = bool(given_values(n.text) & (given_values(prompt) | given_values(question)))
        computed = _computed(n.text, n.sentence)
        label, by = _whose_label(n.label, n.sentence.lower(), prev, stated, computed, labels)
        out.append(
            Assumption(
                round=tr.round,
                text=n.text,
                label=label,  # type: ignore[arg-type]
                label_text=label_text(label, lang),
                labelled_by=by,  # type: ignore[arg-type]
                sentence=n.sentence,
                answer=where,
                question=question,
            )
        )
    return out
