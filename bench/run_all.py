"""Every benchmark, one command: a table of the figures and bench/results/all.json.

Run: .venv/bin/python bench/run_all.py [--skip-vllm] [--skip-pool] [--skip-index] [--quick]

| area | script | figures |
| --- | --- | --- |
| embedded judge | bench/judge_bench.py | answers/s, median of 5 runs over the graded set |
| vLLM judge (CPU server it starts) | bench/vllm_judge_bench.py | concurrency 4 and 8 vs sequential (ratios), prefix-cache hit rate, valid output |
| judge pool (1 then 2 CPU replicas behind vllm-router) | bench/judge_pool_bench.py | answers/s each, 2 / 1 ratio, prefix-cache hit rate per replica, rounds on one replica, fallbacks |
| knowledge index | bench/index_bench.py (run --index-repeat times) | build s and chunks/s, query p50/p95 ms: medians over runs |
| interview graph | bench/graph_bench.py | answer → next follow-up p50/p95 ms, median over 3 repeats |
| app | bench/app_bench.py | peak RSS of `python -m agent.ui` driven through gradio_client, median of 3 starts |

Each script runs in its own process (as a user would run it) and writes its JSON to bench/results/all/;
a script that fails is reported in the table and the others still run (exit 1 then). Every figure
is a ratio or a median over repeated runs; the machine (CPU, cores, memory, load) is recorded,
since these machines are shared and load moves the timings.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
#: a script's time limit, seconds, where an hour is not enough (two pools started, each warmed)
TIMEOUT_S = {"judge_pool_bench.py": 7200}


@dataclass
class Row:
    area: str
    measure: str
    value: str
    how: str


@dataclass
class Outcome:
    name: str
    ok: bool
    seconds: float
    data: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) // 1024
    except OSError:
        pass
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except OSError:
        commit = ""
    return {
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "mem_total_mib": mem,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "commit": commit or None,
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
    }


def run_script(
    name: str, script: str, args: list[str], out: Path, repeat: int = 1, timeout_s: float = 3600
) -> Outcome:
    """Run `bench/<script> <args> --out <json>` `repeat` times; the JSON of each run."""
    t0 = time.monotonic()
    path = BENCH / script
    if not path.is_file():
        return Outcome(name, False, 0.0, error=f"{script} is not in bench/")
    data: list[dict[str, Any]] = []
    for k in range(repeat):
        target = out if repeat == 1 else out.with_name(f"{out.stem}-{k + 1}{out.suffix}")
        print(
            f"[run_all] {name}: {script} {' '.join(args)}"
            + (f" (run {k + 1}/{repeat})" if repeat > 1 else ""),
            file=sys.stderr,
            flush=True,
        )
        try:
            proc = subprocess.run(
                [sys.executable, str(path), *args, "--out", str(target)],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                text=True,
                timeout=timeout_s,
            )
        except subprocess.TimeoutExpired:
            return Outcome(name, False, time.monotonic() - t0, data, f"timed out after {timeout_s:g} s")
        if proc.returncode != 0 or not target.is_file():
            tail = "\n".join(proc.stdout.splitlines()[-5:])
            return Outcome(name, False, time.monotonic() - t0, data, f"exit {proc.returncode}: {tail}"[:500])
        data.append(json.loads(target.read_text(encoding="utf-8")))
    return Outcome(name, True, time.monotonic() - t0, data)


def med(values: list[float]) -> float:
    return statistics.median(values)


def rows_judge(o: Outcome) -> list[Row]:
    d = o.data[0]
    return [
        Row(
            "embedded judge",
            "answers assessed per second",
            f"{d['answers_per_s_median']:.1f}",
            f"median of {d['repeats']} runs × {d['answers_per_run']} answers",
        )
    ]


def rows_vllm(o: Outcome) -> list[Row]:
    d = o.data[0]
    seq = next(r for r in d["runs"] if r["concurrency"] == 1)
    out = [
        Row(
            "vLLM judge (CPU)",
            "sequential answers per second",
            f"{seq['answers_per_s']:.3f}",
            f"one batch of {d['answers']['n']} answers, {d['server']['model']}",
        )
    ]
    for key, ratio in sorted(d["throughput_ratios"].items()):
        conc = key.split("_")[0][1:]
        out.append(
            Row(
                "vLLM judge (CPU)",
                f"throughput, concurrency {conc} vs sequential",
                f"{ratio:.2f}×",
                "ratio, same answers, prefix cache reset before each batch",
            )
        )
    out.append(
        Row(
            "vLLM judge (CPU)",
            "prefix-cache hit rate",
            f"{d['prefix_cache_hit_rate']:.1%}",
            "hits / queries over the batches (vLLM /metrics)",
        )
    )
    if d.get("valid_output_rate") is not None:
        out.append(
            Row(
                "vLLM judge (CPU)",
                "valid structured output",
                f"{d['valid_output_rate']:.1%}",
                f"of requests; {d['fallbacks']} fallback(s) to the embedded judge",
            )
        )
    return out


def rows_index(o: Outcome) -> list[Row]:
    runs = [next(r for r in d["runs"] if r["scope"] == "trail") for d in o.data]
    n = len(runs)
    how = f"median of {n} build(s)" if n > 1 else "1 build"
    return [
        Row(
            "knowledge index",
            "source-trail build, s",
            f"{med([r['build_s'] for r in runs]):.1f}",
            f"{how}, {runs[0]['files']} files, {runs[0]['chunks']} chunks",
        ),
        Row(
            "knowledge index",
            "chunks embedded per second",
            f"{med([r['chunks_per_s'] for r in runs]):.1f}",
            how,
        ),
        Row(
            "knowledge index",
            "unchanged rebuild, s",
            f"{med([r['rebuild_unchanged_s'] for r in runs]):.1f}",
            how,
        ),
        Row(
            "knowledge index",
            "query p50, ms",
            f"{med([r['query_p50_ms'] for r in runs]):.1f}",
            f"{runs[0]['queries']} queries per build; median over builds",
        ),
        Row(
            "knowledge index",
            "query p95, ms",
            f"{med([r['query_p95_ms'] for r in runs]):.1f}",
            f"{runs[0]['queries']} queries per build; median over builds",
        ),
        Row(
            "knowledge index",
            "recall@5 (labelled queries)",
            f"{med([r['recall_at_5'] for r in runs]):.2f}",
            "eval/retrieval/queries.yaml",
        ),
    ]


def rows_graph(o: Outcome) -> list[Row]:
    d = o.data[0]
    out = []
    for mode in ("practice", "copilot"):
        m = d[mode]
        how = f"median over {d['repeats']} repeats of {m['answers_timed_per_repeat']} answers"
        out.append(
            Row(
                "interview graph",
                f"{mode}: answer → next follow-up p50, ms",
                f"{m['p50_ms_median']:.0f}",
                how,
            )
        )
        out.append(
            Row(
                "interview graph",
                f"{mode}: answer → next follow-up p95, ms",
                f"{m['p95_ms_median']:.0f}",
                how,
            )
        )
    return out


def rows_app(o: Outcome) -> list[Row]:
    d = o.data[0]
    out = []
    labels = {"bare": "no index, no speech", "full": "source index + spoken question"}
    for name in ("bare", "full"):
        if name not in d:
            continue
        c = d[name]
        how = f"median of {d['repeats']} starts, VmHWM"
        out.append(Row("app", f"peak RSS, {labels[name]}, MiB", f"{c['peak_rss_mib_median']:.0f}", how))
    if "bare" in d:
        out.append(
            Row(
                "app",
                "start → answering, s",
                f"{d['bare']['ready_s_median']:.1f}",
                f"median of {d['repeats']} starts",
            )
        )
    return out


def rows_pool(o: Outcome) -> list[Row]:
    d = o.data[0]
    out = []
    for r in d["runs"]:
        if r.get("error"):
            out.append(Row("judge pool", f"{r['replicas']} replica(s)", "failed", r["error"][:200]))
            continue
        hits = ", ".join(
            f"{p['prefix_cache_hit_rate']:.1%}" if p["prefix_cache_hit_rate"] is not None else "—"
            for p in r["per_replica"].values()
        )
        out.append(
            Row(
                "judge pool",
                f"{r['replicas']} replica(s): answers per second",
                f"{r['answers_per_s']:.4f}",
                f"{d['answers']['n']} answers, {r['max_requests_in_flight']} in flight; prefix-cache hit "
                f"per replica {hits}; load {r['loadavg_before'][0]} → {r['loadavg_after'][0]}",
            )
        )
    for key, ratio in d["throughput_ratios"].items():
        out.append(
            Row(
                "judge pool",
                f"throughput, {key.replace('_vs_', ' vs ')} replica(s)",
                f"{ratio:.2f}×",
                f"same batch; {d['fallbacks']} fallback(s); a shared {d['machine']['cores_usable']}-core machine",
            )
        )
    return out


def table(rows: list[Row]) -> str:
    lines = ["| area | measure | value | how |", "| --- | --- | --- | --- |"]
    lines += [f"| {r.area} | {r.measure} | {r.value} | {r.how} |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skip-vllm", action="store_true", help="leave out the vLLM CPU server benchmark")
    ap.add_argument(
        "--skip-pool", action="store_true", help="leave out the judge pool benchmark (1 and 2 CPU replicas)"
    )
    ap.add_argument(
        "--skip-index", action="store_true", help="leave out the index build (about 1-2 min a build)"
    )
    ap.add_argument("--index-repeat", type=int, default=3, help="index builds to take the median of")
    ap.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run, not figures to quote)")
    ap.add_argument("--out", type=Path, default=BENCH / "results" / "all.json")
    args = ap.parse_args(argv)
    results = args.out.parent / "all"  # each script's own JSON (not the scripts' default files)
    results.mkdir(parents=True, exist_ok=True)
    rep = "1" if args.quick else "3"
    info = machine()
    t0 = time.monotonic()

    plan: list[tuple[str, str, list[str], int, Callable[[Outcome], list[Row]]]] = [
        ("embedded judge", "judge_bench.py", ["--repeat", "2" if args.quick else "5"], 1, rows_judge),
        (
            "interview graph",
            "graph_bench.py",
            ["--repeat", rep, "--sessions", "1" if args.quick else "4"],
            1,
            rows_graph,
        ),
        ("app", "app_bench.py", ["--repeat", rep], 1, rows_app),
    ]
    if not args.skip_index:
        plan.append(
            ("knowledge index", "index_bench.py", [], 1 if args.quick else args.index_repeat, rows_index)
        )
    if not args.skip_vllm:
        plan.append(("vLLM judge", "vllm_judge_bench.py", ["--n", "8"] if args.quick else [], 1, rows_vllm))
    if not args.skip_vllm and not args.skip_pool:
        plan.append(("judge pool", "judge_pool_bench.py", ["--n", "8"] if args.quick else [], 1, rows_pool))

    outcomes: list[Outcome] = []
    rows: list[Row] = []
    for name, script, sargs, repeat, to_rows in plan:
        o = run_script(
            name,
            script,
            sargs,
            results / script.replace("_bench.py", ".json"),
            repeat=repeat,
            timeout_s=TIMEOUT_S.get(script, 3600),
        )
        outcomes.append(o)
        if o.ok:
            try:
                rows += to_rows(o)
            except (KeyError, StopIteration, TypeError, ValueError) as e:
                o.ok, o.error = False, f"unexpected JSON from {script}: {type(e).__name__}: {e}"
        if not o.ok:
            rows.append(Row(name, "FAILED", "—", o.error or "failed"))
    why = {
        "vLLM judge": "--skip-vllm",
        "judge pool": "--skip-vllm or --skip-pool",
        "knowledge index": "--skip-index",
    }
    for name, flag in why.items():
        if name not in {p[0] for p in plan}:
            rows.append(Row(name, "skipped", "—", flag))

    info["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    info["total_s"] = round(time.monotonic() - t0, 1)
    doc = {
        "benchmark": "all",
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": info,
        "quick": args.quick,
        "table": [r.__dict__ for r in rows],
        "runs": {
            o.name: {"ok": o.ok, "seconds": round(o.seconds, 1), "error": o.error, "results": o.data}
            for o in outcomes
        },
    }
    args.out.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        f"machine: {info['cpu']} · {info['cpus']} CPU · {info['mem_total_mib']} MiB · {info['platform']} · "
        f"load {info['loadavg_start'][0]} → {info['loadavg_end'][0]} · commit {info['commit']}"
    )
    print(table(rows))
    print(f"wrote {args.out} ({info['total_s']:.0f} s)")
    return 0 if all(o.ok for o in outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
