"""Embedded-judge throughput: answers assessed per second on this machine (goal >= 50/s).

Run: .venv/bin/python bench/judge_bench.py [--repeat 5]
Answers come from both graded splits (eval/graded/dev and test, each answer with its turns); the figure
is the median of repeats, with the machine's load average beside it, and the answers per second of the
process's own CPU time (what one idle core gives, whatever else runs on the machine).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

from agent.calibration.evaluation import load_graded_set
from agent.judge.assessment import assess_answer
from agent.rubric import load_rubric


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "judge.json")
    args = ap.parse_args()
    rubric = load_rubric()
    answers = [a for split in ("dev", "test") for a in load_graded_set(split=split).answers]  # type: ignore[arg-type]
    # warm-up: compile cue regexes, load the path list
    for a in answers:
        assess_answer(rubric, a.round, a.as_answer(), a.language)
    load_before = os.getloadavg()[0]
    rates = []
    cpu_rates = []
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        for a in answers:
            assess_answer(rubric, a.round, a.as_answer(), a.language)
        rates.append(len(answers) / (time.perf_counter() - t0))
        cpu_rates.append(len(answers) / (time.process_time() - c0))
    result = {
        "benchmark": "embedded judge throughput",
        "answers_per_run": len(answers),
        "repeats": args.repeat,
        "answers_per_s_median": round(statistics.median(rates), 1),
        "answers_per_s_min": round(min(rates), 1),
        # answers per second of this process's CPU time: what one idle core gives, whatever else runs
        "answers_per_cpu_s_median": round(statistics.median(cpu_rates), 1),
        "goal_answers_per_s": 50,
        "load_average_1min": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"| measure | value |\n|---|---|\n| answers/s (median of {args.repeat}) | {result['answers_per_s_median']} |"
        f"\n| answers/s (min) | {result['answers_per_s_min']} |"
        f"\n| answers per CPU-second (median; one idle core) | {result['answers_per_cpu_s_median']} |"
        f"\n| goal | ≥ 50 |"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
