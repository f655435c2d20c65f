"""Answer → next follow-up latency through the interview graph (p50 / p95), embedded judge.

Run: .venv/bin/python bench/graph_bench.py [--repeat 3] [--sessions 8]

Each repeat starts `--sessions` sessions per round (all six rounds, English and Chinese answers from
eval/graded/dev/answers.yaml, split in two halves) in a fresh data dir, and times `agent.graph.answer`
for both halves: the call that records the answer (checkpointed in SQLite), assesses the round so
far and returns the next question (a listed follow-up, a given input, or the next round). Co-pilot
sessions are timed the same way (answer → the suggested follow-ups, no source index). The figures are
the median over repeats of each repeat's p50 and p95. Writes bench/results/graph.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    lo, hi = int(pos), min(int(pos) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def halves(text: str) -> tuple[str, str]:
    from agent.judge.matching import sentences

    sents = [s.text for s in sentences(text)]
    if len(sents) < 2:
        return text, text
    k = len(sents) // 2
    return " ".join(sents[:k]), " ".join(sents[k:])


def one_repeat(mode: str, sessions: int) -> dict[str, Any]:
    """Times in ms of every answer() call, and how many of the next questions were follow-ups."""
    from agent.calibration.evaluation import load_graded_set
    from agent.graph import answer, start_session
    from agent.graph import context as graph_context
    from agent.graph import session as graph_session
    from agent.graph import store as graph_store

    graph_context._CTX.clear()
    graph_store._STORES.clear()
    answers = load_graded_set().answers
    times: list[float] = []
    followups = 0
    for k in range(sessions):
        for a in answers[k % 2 :: 2][:]:  # half of the set per pass, alternating: both languages, all rounds
            if a.kind == "adversarial":
                continue
            v = start_session(a.round, a.language, mode)
            first_q = v.question
            for part in halves(a.answer):
                t0 = time.perf_counter()
                v = answer(v.session_id, part, at_s=30.0)
                times.append((time.perf_counter() - t0) * 1000)
                if mode == "practice":
                    followups += int(v.round == a.round and v.question not in (None, first_q))
                else:
                    followups += int(bool(v.suggestions))
                if mode == "copilot" and v.awaiting == "interviewer" and v.suggestions:
                    v = graph_session.ask(v.session_id, v.suggestions[0].text)
                if v.status == "done" or v.question is None:
                    break
    return {
        "n": len(times),
        "p50_ms": percentile(times, 0.5),
        "p95_ms": percentile(times, 0.95),
        "followup_share": followups / len(times) if times else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sessions", type=int, default=4, help="passes over the graded set per repeat")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "graph.json")
    args = ap.parse_args(argv)
    os.environ.pop("JUDGE_BASE_URL", None)  # the embedded judge: the graph's own cost, not a model's
    load_start = os.getloadavg()
    result: dict[str, Any] = {
        "benchmark": "answer → next follow-up through the graph",
        "repeats": args.repeat,
    }
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("practice", "copilot"):
            runs = []
            for r in range(args.repeat + 1):  # the first pass warms imports and caches: not counted
                os.environ["INTERVIEW_DATA_DIR"] = str(Path(tmp) / f"{mode}-{r}")
                runs.append(one_repeat(mode, args.sessions if r else 1))
            counted = runs[1:]
            result[mode] = {
                "answers_timed_per_repeat": counted[0]["n"],
                "p50_ms_median": round(statistics.median(x["p50_ms"] for x in counted), 1),
                "p95_ms_median": round(statistics.median(x["p95_ms"] for x in counted), 1),
                "p95_ms_per_repeat": [round(x["p95_ms"], 1) for x in counted],
                "next_is_followup_share": round(statistics.median(x["followup_share"] for x in counted), 3),
            }
    result["judge"] = "embedded"
    result["machine"] = {
        "cpus": os.cpu_count(),
        "loadavg_start": [round(x, 2) for x in load_start],
        "loadavg_end": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print("| mode | answers timed / repeat | p50 ms | p95 ms | next is a follow-up |\n|---|---|---|---|---|")
    for mode in ("practice", "copilot"):
        m = result[mode]
        print(
            f"| {mode} | {m['answers_timed_per_repeat']} | {m['p50_ms_median']} | {m['p95_ms_median']} "
            f"| {m['next_is_followup_share']:.0%} |"
        )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
