"""vLLM judge in batch: throughput sequential vs concurrent, prefix-cache hit rate, valid output.

Run: python bench/vllm_judge_bench.py [--base-url http://127.0.0.1:8000/v1] [--block-size 32]

Without --base-url it starts its own vLLM CPU server (`prepare_judge`, SmolLM2-135M, the
runtime's flags, plus VLLM_SERVER_DEV_MODE=1 for POST /reset_prefix_cache and --block-size when
given) and stops it at the end. It grades 20 answers of eval/graded/dev/answers.yaml (every other one
in file order: all six rounds, both languages) through the real path (`assess_answer` with
`VllmJudge`), first one request at a time, then at most 4 and then 8 requests in flight (as many
answers at once, longest first as `interview grade` sends the largest transcripts first; each sends
its round's parts together, and a part waits for a free slot: `VllmJudge.set_in_flight`; the JSON
gives the mean and peak requests in flight of each batch), and reads the server's /metrics
around each batch (deltas of vllm:prefix_cache_queries_total / _hits_total, prompt and generation
tokens).

How the prefix cache is measured, so that it is honest: the three batches grade the same 20
answers (same work, so their throughputs compare), and before each batch the bench empties the
prefix cache (POST /reset_prefix_cache) and sends each round's static prompt once (system block +
round block, 1 output token, not counted). Each batch therefore starts as a grader in steady
state does: the shared rubric prefix cached, none of the answers seen before. Grammars are
compiled once before the first batch (one 1-token request per schema), as a running grader has
them. A round's checklist is asked in parts that send the same messages (see agent/judge/vllm.py),
so parts after the first find the whole prompt cached: the measured rate includes that reuse, and
the JSON also gives the share a single request per answer would get from the static prefix alone
(computed from /tokenize and the block size). Against a server without /reset_prefix_cache the
later batches would find the answers cached; the bench says so and marks them.
Writes bench/results/vllm_judge.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from agent.calibration.evaluation import GradedAnswer, graded_dir, load_graded_set
from agent.contracts.checklist import Checks
from agent.contracts.report import JudgeInfo, RoundAssessment
from agent.judge.assessment import assess_answer
from agent.judge.checks import injected, run_checks
from agent.judge.factory import DEFAULT_IN_FLIGHT
from agent.judge.matching import sentences
from agent.judge.parts import model_view, parts_of
from agent.judge.runtime import JudgeServer, prepare_judge
from agent.judge.vllm import VllmJudge
from agent.rubric import load_rubric
from agent.rubric.loader import Rubric
from agent.rubric.model import RoundId

METRICS = (
    "vllm:prefix_cache_queries_total",
    "vllm:prefix_cache_hits_total",
    "vllm:prompt_tokens_total",
    "vllm:generation_tokens_total",
)
GOAL_C4_RATIO = 2.5
GOAL_HIT_RATE = 0.80
_LINE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+([0-9.eE+-]+|NaN)\s*$")


def read_metrics(http: httpx.Client, root: str) -> dict[str, float]:
    """The counters in METRICS, summed over their label sets."""
    text = http.get(f"{root}/metrics", timeout=30).text
    out = dict.fromkeys(METRICS, 0.0)
    for line in text.splitlines():
        m = _LINE.match(line)
        if m and m.group(1) in out:
            out[m.group(1)] += float(m.group(3))
    return out


def block_size(http: httpx.Client, root: str) -> int | None:
    text = http.get(f"{root}/metrics", timeout=30).text
    m = re.search(r'^vllm:cache_config_info\{[^}]*\bblock_size="(\d+)"', text, re.MULTILINE)
    return int(m.group(1)) if m else None


def reset_prefix_cache(http: httpx.Client, root: str) -> bool:
    try:
        r = http.post(f"{root}/reset_prefix_cache", timeout=60)
    except httpx.HTTPError:
        return False
    return r.status_code == 200


def static_request(judge: VllmJudge, rubric: Rubric, round_id: RoundId) -> dict[str, Any]:
    """The round's prompt with an empty answer: it holds the static prefix every answer shares."""
    body = judge.request_bodies(rubric, round_id, "", Checks())[0][1]
    return {"model": body["model"], "messages": body["messages"], "max_tokens": 1, "temperature": 0.0}


def warm_grammars(http: httpx.Client, judge: VllmJudge, rubric: Rubric) -> int:
    """One 1-token request per part schema: the server compiles and caches each grammar once."""
    n = 0
    for rid in rubric.rounds:
        for _part, body in judge.request_bodies(rubric, rid, "", Checks()):
            http.post(f"{judge.base_url}/chat/completions", json={**body, "max_tokens": 1}, timeout=600)
            n += 1
    return n


def warm_prefixes(http: httpx.Client, judge: VllmJudge, rubric: Rubric) -> None:
    for rid in rubric.rounds:
        r = http.post(
            f"{judge.base_url}/chat/completions", json=static_request(judge, rubric, rid), timeout=600
        )
        r.raise_for_status()


def static_share(
    http: httpx.Client, judge: VllmJudge, rubric: Rubric, answers: list[GradedAnswer], block: int
) -> dict[str, Any]:
    """The share of prompt tokens a single request per answer would find cached: its static prefix,
    in whole blocks (computed with the server's tokenizer)."""

    def tokens(messages: list[dict[str, str]]) -> list[int]:
        r = http.post(
            f"{judge.root_url}/tokenize",
            json={"model": judge.model, "messages": messages, "add_generation_prompt": True},
            timeout=60,
        )
        r.raise_for_status()
        return [int(t) for t in r.json()["tokens"]]

    static = {rid: tokens(static_request(judge, rubric, rid)["messages"]) for rid in rubric.rounds}
    cached = total = 0
    lens = []
    for a in answers:
        sents = sentences(a.answer)
        dropped = {x.idx for x in injected(sents, rubric.lexicon, a.answer)}
        seen = model_view(a.answer, [x for x in sents if x.idx not in dropped])
        checks = run_checks(a.round, a.answer, rubric.lexicon)
        body = judge.request_bodies(rubric, a.round, seen, checks)[0][1]
        toks = tokens(body["messages"])
        s = static[a.round]
        common = next(
            (k for k, (x, y) in enumerate(zip(s, toks, strict=False)) if x != y), min(len(s), len(toks))
        )
        cached += (common // block) * block
        total += len(toks)
        lens.append(len(toks) - common)
    return {
        "block_size": block,
        "static_prefix_tokens": {rid: len(t) for rid, t in static.items()},
        "answer_part_tokens_mean": round(statistics.mean(lens), 1),
        "share": round(cached / total, 4),
    }


@dataclass
class Run:
    concurrency: int  # answers graded at once
    in_flight: int  # most requests at the server at once
    seconds: float = 0.0
    metrics: dict[str, float] = field(default_factory=dict)
    stats: dict[str, int] = field(default_factory=dict)
    fallbacks: list[str] = field(default_factory=list)
    answers_seen_before: bool = False
    loadavg: tuple[float, float] = (0.0, 0.0)  # 1-minute load average before and after the batch
    spans: list[tuple[float, float]] = field(default_factory=list)  # per answer: start, end (s from t0)
    peak_in_flight: int = 0  # most requests at the server at once (never above `in_flight`)
    request_seconds: float = 0.0  # summed time requests spent at the server

    def as_dict(self, n: int) -> dict[str, Any]:
        q = self.metrics["vllm:prefix_cache_queries_total"]
        h = self.metrics["vllm:prefix_cache_hits_total"]
        req = self.stats.get("requests", 0)
        return {
            "concurrency": self.concurrency,
            "max_requests_in_flight": self.in_flight,
            "seconds": round(self.seconds, 1),
            "answers_per_s": round(n / self.seconds, 4),
            "output_tokens": int(self.metrics["vllm:generation_tokens_total"]),
            "output_tokens_per_s": round(self.metrics["vllm:generation_tokens_total"] / self.seconds, 2),
            "prompt_tokens": int(self.metrics["vllm:prompt_tokens_total"]),
            "prefix_cache_queries": int(q),
            "prefix_cache_hits": int(h),
            "prefix_cache_hit_rate": round(h / q, 4) if q else None,
            "requests": req,
            "request_outcomes": dict(self.stats),
            "valid_output_rate": round(self.stats.get("valid", 0) / req, 4) if req else None,
            "assessments": n,
            "assessments_without_fallback": n - len(self.fallbacks),
            "fallbacks": len(self.fallbacks),
            "fallback_reasons": self.fallbacks,
            "answers_seen_before": self.answers_seen_before,
            "loadavg_1min_before_after": [round(x, 2) for x in self.loadavg],
            # requests at the server on average: below max_requests_in_flight where the batch left
            # the server with fewer sequences than it may have (mostly its tail)
            "peak_requests_in_flight": self.peak_in_flight,
            "mean_requests_in_flight": round(self.request_seconds / self.seconds, 2)
            if self.seconds
            else None,
            "mean_answers_in_flight": round(sum(e - s for s, e in self.spans) / self.seconds, 2)
            if self.spans
            else None,
            "answer_spans_s": [[round(s, 1), round(e, 1)] for s, e in self.spans],
            "answer_seconds_median": round(statistics.median(e - s for s, e in self.spans), 1)
            if self.spans
            else None,
        }


def label(concurrency: int, in_flight: int) -> str:
    if concurrency == 1:
        return "sequential" if in_flight == 1 else f"one answer at a time, parts together (≤ {in_flight})"
    return f"concurrency {concurrency}"


def run_batch(
    rubric: Rubric, judge: VllmJudge, info: JudgeInfo, answers: list[GradedAnswer], concurrency: int
) -> tuple[list[RoundAssessment], float, list[tuple[float, float]]]:
    spans: dict[int, tuple[float, float]] = {}

    def one(k: int) -> RoundAssessment:
        a = answers[k]
        start = time.perf_counter() - t0
        r = assess_answer(rubric, a.round, a.answer, a.language, judge=judge, info=info)
        spans[k] = (start, time.perf_counter() - t0)
        return r

    t0 = time.perf_counter()
    if concurrency <= 1:
        out = [one(k) for k in range(len(answers))]
    else:
        # longest first, as `interview grade` sends the largest transcripts first
        order = sorted(range(len(answers)), key=lambda k: -len(answers[k].answer))
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            done = dict(zip(order, pool.map(one, order), strict=True))
        out = [done[k] for k in range(len(answers))]
    return out, time.perf_counter() - t0, [spans[k] for k in range(len(answers))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base-url", default=None, help="a running judge (default: start one here)")
    ap.add_argument("--n", type=int, default=20, help="answers per batch")
    ap.add_argument(
        "--concurrency", type=int, nargs="+", default=[4, 8], help="batches after the sequential one"
    )
    ap.add_argument(
        "--no-parts-together",
        action="store_true",
        help="skip the batch that grades one answer at a time with its parts together (the app's latency)",
    )
    ap.add_argument("--block-size", type=int, default=None, help="own server only: vLLM --block-size")
    ap.add_argument("--timeout", type=float, default=1800.0, help="per request, seconds")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "vllm_judge.json")
    args = ap.parse_args(argv)

    rubric = load_rubric()
    graded = load_graded_set(graded_dir("dev") / "answers.yaml").answers  # a fixed file: dev grows by authors
    answers = graded[::2][: args.n]
    load_start = os.getloadavg()
    server: JudgeServer | None = None
    base_url = args.base_url
    if base_url is None:
        server = prepare_judge()
        server.extra_env = {**server.extra_env, "VLLM_SERVER_DEV_MODE": "1"}
        if args.block_size:
            server.extra_args = [*server.extra_args, "--block-size", str(args.block_size)]
        t0 = time.monotonic()
        server.start()
        print(f"server ready in {time.monotonic() - t0:.0f} s: {server.base_url}", file=sys.stderr)
        base_url = server.base_url
    try:
        judge = VllmJudge(base_url, timeout=args.timeout, max_in_flight=1)
        info = judge.info(rubric)
        http = httpx.Client()
        root = judge.root_url
        block = block_size(http, root)
        can_reset = reset_prefix_cache(http, root)
        if not can_reset:
            print(
                "the server has no /reset_prefix_cache (VLLM_SERVER_DEV_MODE=1): later batches reuse answers",
                file=sys.stderr,
            )
        t0 = time.monotonic()
        n_grammars = warm_grammars(http, judge, rubric)
        print(f"{n_grammars} grammars compiled in {time.monotonic() - t0:.0f} s", file=sys.stderr)
        share = static_share(http, judge, rubric, answers, block or 128)

        runs: list[Run] = []
        # (answers at once, requests in flight): sequential; one answer at a time with its parts
        # together, as the app grades one answer (its latency); then the concurrent batches
        batches = [(1, 1), *([] if args.no_parts_together else [(1, DEFAULT_IN_FLIGHT)])]
        batches += [(c, c) for c in args.concurrency]
        for k, (conc, flight) in enumerate(batches):
            run = Run(conc, flight, answers_seen_before=k > 0 and not can_reset)
            if can_reset:
                reset_prefix_cache(http, root)
            warm_prefixes(http, judge, rubric)
            judge.forget()  # the judge's own memo of identical requests: each batch is sent in full
            judge.set_in_flight(flight)  # above 1, a round's parts go together
            judge.in_flight.reset_stats()
            before_stats = Counter(judge.stats)
            before = read_metrics(http, root)
            load0 = os.getloadavg()[0]
            results, run.seconds, run.spans = run_batch(rubric, judge, info, answers, conc)
            run.loadavg = (load0, os.getloadavg()[0])
            run.peak_in_flight = judge.in_flight.peak
            run.request_seconds = judge.in_flight.busy_seconds
            after = read_metrics(http, root)
            run.metrics = {m: after[m] - before[m] for m in METRICS}
            run.stats = dict(Counter(judge.stats) - before_stats)
            run.fallbacks = [
                f"{a.id}: {r.fallback_reason}" for a, r in zip(answers, results, strict=True) if r.fell_back
            ]
            runs.append(run)
            d = run.as_dict(len(answers))
            print(
                f"{label(conc, flight)}: {run.seconds:.0f} s, {d['answers_per_s']} answers/s, "
                f"hit {d['prefix_cache_hit_rate']}, valid {d['valid_output_rate']}, fallbacks {d['fallbacks']}, requests in flight mean {d['mean_requests_in_flight']} peak {d['peak_requests_in_flight']}",
                file=sys.stderr,
            )
    finally:
        if server is not None:
            server.stop()

    n = len(answers)
    rows = [r.as_dict(n) for r in runs]
    seq = rows[0]["answers_per_s"]
    ratios = {
        f"c{r['concurrency']}_vs_seq": round(r["answers_per_s"] / seq, 2)
        for r in rows[1:]
        if r["concurrency"] > 1
    }
    latency = {
        label(r["concurrency"], r["max_requests_in_flight"]): r["answer_seconds_median"]
        for r in rows
        if r["concurrency"] == 1
    }
    q = sum(r["prefix_cache_queries"] for r in rows if not r["answers_seen_before"])
    h = sum(r["prefix_cache_hits"] for r in rows if not r["answers_seen_before"])
    hit = h / q if q else 0.0
    req = sum(r["requests"] for r in rows)
    valid = sum(r["request_outcomes"].get("valid", 0) for r in rows)
    result = {
        "benchmark": "vLLM judge: batch throughput, prefix cache, valid output",
        "server": {
            "started_by_bench": server is not None,
            "endpoint": info.endpoint,
            "model": info.model,
            "vllm_version": info.vllm_version,
            "max_model_len": judge.max_model_len,
            "block_size": block,
            "prefix_cache_reset_between_batches": can_reset,
        },
        "judge": {
            "rubric_version": info.rubric_version,
            "prompt_hash": info.prompt_hash,
            "holistic": judge.holistic,
            "parts_per_round": {rid: len(parts_of(rubric, rid, judge.holistic)) for rid in rubric.rounds},
            "timeout_s": args.timeout,
        },
        "answers": {
            "n": n,
            "selection": "every other answer of eval/graded/dev/answers.yaml in file order; the same 20 in every batch",
            "ids": [a.id for a in answers],
            "rounds": dict(Counter(a.round for a in answers)),
            "languages": dict(Counter(a.language for a in answers)),
        },
        "runs": rows,
        "throughput_ratios": ratios,
        "answer_seconds_median_one_at_a_time": latency,
        "prefix_cache_hit_rate": round(hit, 4),
        "static_prefix_share_single_request": share,
        "valid_output_rate": round(valid / req, 4) if req else None,
        "fallbacks": sum(r["fallbacks"] for r in rows),
        "goals": {
            "c4_vs_seq": {
                "goal": GOAL_C4_RATIO,
                "measured": ratios.get("c4_vs_seq"),
                "met": (ratios.get("c4_vs_seq") or 0) >= GOAL_C4_RATIO,
            },
            "prefix_cache_hit_rate": {
                "goal": GOAL_HIT_RATE,
                "measured": round(hit, 4),
                "met": hit >= GOAL_HIT_RATE,
            },
        },
        "machine": {
            "cpus": os.cpu_count(),
            "loadavg_start": [round(x, 2) for x in load_start],
            "loadavg_end": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(),
            "platform": platform.platform(),
            "note": "a shared machine: other jobs ran on the same two cores (see loadavg)",
        },
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

    print(
        "| batch | seconds | answers/s | × seq | output tok/s | prefix-cache hit | valid output | fallbacks |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        x = r["answers_per_s"] / seq
        hr = r["prefix_cache_hit_rate"]
        vr = r["valid_output_rate"]
        print(
            f"| {label(r['concurrency'], r['max_requests_in_flight'])} "
            f"| {r['seconds']} | {r['answers_per_s']:.4f} | {x:.2f} | {r['output_tokens_per_s']} "
            f"| {hr:.1%} | {vr:.1%} | {r['fallbacks']} |"
            if hr is not None and vr is not None
            else f"| {r['concurrency']} | {r['seconds']} | — | — | — | — | — | {r['fallbacks']} |"
        )
    print(
        f"\nprefix-cache hit rate over the batches: {hit:.1%} (goal ≥ {GOAL_HIT_RATE:.0%}); "
        f"static prefix alone, one request per answer: {share['share']:.1%} (block {share['block_size']})"
    )
    print(
        f"c4 / sequential: {ratios.get('c4_vs_seq')} (goal ≥ {GOAL_C4_RATIO}); c8 / sequential: {ratios.get('c8_vs_seq')}"
    )
    print(
        "median seconds an answer takes, graded alone: " + "; ".join(f"{k} {v} s" for k, v in latency.items())
    )
    print(f"valid output: {result['valid_output_rate']}; fallbacks: {result['fallbacks']} → {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
