"""Does a semantic signal help the embedded judge? The measurement behind the README's answer.

Run: .venv/bin/python bench/semantic_signal.py [--split dev|test|FILE] [--tau 1,0.7,0.6,0.5]

The packaged MiniLM sentence embeddings (the source index's model, `agent.knowledge.MiniLMEmbedder`)
compare each English answer sentence (5 words or more) with the English text of each evidence item of
its round that the cues left uncovered; a sentence at cosine similarity >= tau covers the item, quoting
itself (verbatim, so the evidence rule holds). tau = 1 is the embedded judge as it ships. MiniLM reads
English only, so Chinese sentences get nothing from it. The result for each tau is the `interview eval`
figures on the chosen graded set; the signal stays out of the product unless the test split shows it helps.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agent.calibration.evaluation import load_graded_set, run_eval
from agent.contracts.checklist import Checks
from agent.judge.base import Fill
from agent.judge.embedded import EmbeddedJudge, first_occurrences
from agent.judge.matching import Sentence
from agent.knowledge.embedder import MiniLMEmbedder
from agent.rubric import load_rubric
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang, RoundId


class Vectors:
    """Unit vectors of texts, each embedded once."""

    def __init__(self) -> None:
        self.model = MiniLMEmbedder(max_seq_length=96)
        self.cache: dict[str, Any] = {}

    def __call__(self, texts: Sequence[str]) -> Any:
        need = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if need:
            for t, v in zip(need, self.model.embed_documents(need), strict=True):
                a = np.asarray(v, dtype=np.float32)
                self.cache[t] = a / (np.linalg.norm(a) + 1e-9)
        return np.stack([self.cache[t] for t in texts])


class SemanticJudge:
    """The embedded judge, plus: an uncovered item is covered by the English sentence most like its text."""

    kind = "embedded"
    model = "embedded-cues-v1+minilm"

    def __init__(self, tau: float, vectors: Vectors) -> None:
        self.tau = tau
        self.vectors = vectors
        self.base = EmbeddedJudge()

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
        fill = self.base.fill(rubric, round_id, answer, lang, checks, sents)
        english = [s for s in first_occurrences(sents) if s.text.isascii() and len(s.text.split()) >= 5]
        if not english:
            return fill
        vs = self.vectors([s.text for s in english])
        text = {e.id: e.text.get("en") for e in rubric.evidence(round_id)}
        items = []
        for item in fill.items:
            if not item.covered and item.id in text:
                sims = vs @ self.vectors([text[item.id]])[0]
                k = int(sims.argmax())
                if float(sims[k]) >= self.tau:
                    item = item.model_copy(update={"covered": True, "quote": english[k].text, "by": "model"})
            items.append(item)
        return Fill(items=items, strong=fill.strong, weak=fill.weak)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", default="test", help="dev, test, or a graded file or folder")
    ap.add_argument("--tau", default="1,0.7,0.6,0.5", help="similarity thresholds; 1 = the judge as it ships")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "semantic_signal.json")
    args = ap.parse_args()
    rubric = load_rubric()
    gs = (
        load_graded_set(split=args.split)
        if args.split in ("dev", "test")
        else load_graded_set(Path(args.split))
    )
    vectors = Vectors()
    rows = []
    for tau in (float(x) for x in args.tau.split(",")):
        judge = SemanticJudge(tau, vectors) if tau < 1 else None
        r = run_eval(rubric, gs, judge=judge)
        row = {
            "tau": tau,
            "balanced": round(100 * (r.in_range_balanced or 0.0), 1),
            **{tier: round(100 * (rate.value or 0.0), 1) for tier, rate in r.in_range_by_tier.items()},
            "pair_order": round(100 * r.pair_order, 1),
            "copies_below": round(100 * (r.copies_below.value or 0.0), 1),
            "strong_capped": len(r.strong_capped_unlabelled),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps({"split": args.split, "answers": len(gs.answers), "rows": rows}, indent=2) + "\n"
    )


if __name__ == "__main__":
    main()
