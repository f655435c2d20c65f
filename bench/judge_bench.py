"""Embedded-judge throughput: answers assessed per second on this machine (goal >= 50/s).

Run: .venv/bin/python bench/judge_bench.py [--repeat 5]
Answers come from both graded splits (eval/graded/dev and test, each answer with its turns); the figure
is the median of repeats, with the machine's load average beside it, and the answers per second of the
process's own CPU time (what one idle core gives, whatever else runs on the machine).

Then the same answers as `interview grade` grades them: each written as a one-round transcript file,
graded by `grade_files` through the interview graph, in one process and in one worker process per core
(`processes`, what `interview grade` does with the embedded judge); answers per second of wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from agent.calibration.evaluation import GradedAnswer, load_graded_set
from agent.contracts.transcript import Transcript, TranscriptRound, Turn
from agent.grading.batch import grade_files
from agent.graph import grade_with_graph
from agent.judge.assessment import assess_answer
from agent.rubric import load_rubric


def _as_transcripts(answers: list[GradedAnswer], folder: Path) -> list[Path]:
    """Each answer as a one-round transcript file (its questions as the interviewer's turns)."""
    files = []
    for a in answers:
        turns = []
        for t in a.answer_turns():
            if t.question:
                turns.append(Turn(role="interviewer", text=t.question))
            turns.append(Turn(role="candidate", text=t.answer))
        t = Transcript(id=a.id, language=a.language, rounds=[TranscriptRound(round=a.round, turns=turns)])
        f = folder / f"{a.id}.json"
        f.write_text(t.model_dump_json(), encoding="utf-8")
        files.append(f)
    return files


def _batch_rates(answers: list[GradedAnswer], repeat: int) -> dict[str, float]:
    """Answers per second through `grade_files` (the graph's grade mode), in 1 and in `cpus` processes."""
    rubric = load_rubric()
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = _as_transcripts(answers, Path(tmp))
        for n in sorted({1, os.cpu_count() or 1}):
            rates = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                outcomes = grade_files(rubric, files, replay=grade_with_graph, processes=n)
                rates.append(len(files) / (time.perf_counter() - t0))
                bad = [o.error for o in outcomes if o.error]
                assert not bad, bad[:3]
            out[f"{n}"] = round(statistics.median(rates), 1)
    return out


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
    batch = _batch_rates(answers, max(1, args.repeat // 2))
    result = {
        "benchmark": "embedded judge throughput",
        # `interview grade` on these answers as transcript files: processes -> answers/s (wall clock)
        "grade_files_answers_per_s_by_processes": batch,
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
        + "".join(f"\n| `grade_files` answers/s, {n} process(es) | {v} |" for n, v in batch.items())
        + "\n| goal | ≥ 50 |"
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
