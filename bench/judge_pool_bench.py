"""The judge pool: 2 vLLM CPU replicas behind vllm-router against 1, the same batch (team deployment).

Run: .venv/bin/python bench/judge_pool_bench.py [--n 20] [--replicas 1 2] [--repeat 1] [--timeout 1800]

For each replica count it starts the pool as the product does (`prepare_pool` of
agent/judge/runtime/pool.py, what `python -m agent.judge.runtime --judge-only --replicas N` and
`./serve.sh --judge cpu --replicas N` run: N vLLM CPU servers with the packaged SmolLM2-135M, each on
its share of the cores and marked `x-judge-replica`, behind vllm-router with the product's policy),
one replica behind the router too, so the replica count is the only difference. With `--repeat K`
the counts take turns (1, 2, then 2, 1, …), so a change in the machine's other load falls on both.

The batch: 20 answers of eval/graded/dev/answers.yaml (every other one in file order, as
bench/vllm_judge_bench.py first picked them: all six rounds, both languages), graded through the real
path: `assess_answer` with `PooledVllmJudge` pointed at the router, the judge `make_judge` builds for
`interview grade --judge vllm` (JUDGE_REPLICAS exported as serve.sh does), and as many answers at once
as `batch_size` gives a batch (the per-server default in flight × replicas), longest first.
The request timeout is `--timeout` (1800 s, not the product's 300 s: on a loaded 2-core machine a
request can wait minutes in a full batch, and a timeout would be a fallback, not a measurement).

Before the batch each replica is warmed directly (not through the router; the replicas at once): one
1-token request per part schema (grammars compiled, as a running grader has them) and each round's
static prompt once (the shared rubric prefix cached, none of the answers seen). Then, around the batch:

- answers/s (20 / wall seconds) for each count, and the ratio of 2 replicas to 1 (medians over runs);
- per replica: requests served, by the provenance (`judge.replicas` of each round: one entry a part),
  by the server (vllm:request_success_total) and, where the router labels its counters by worker, by
  the router; prefix-cache queries and hits (deltas of vllm:prefix_cache_queries_total / _hits_total
  on each server's /metrics) and the hit rate; prompt and output tokens;
- rounds whose parts all went to one replica (share of the rounds with a provenance);
- fallbacks to the embedded judge (must be 0) and what the requests ended in;
- the machine: cores, the 1/5/15-minute load average before and after each batch, the machine's busy
  CPU-seconds during the batch and the pool's share of them (its processes' CPU time, from /proc).

Writes bench/results/judge_pool.json and prints a table. Every process started is stopped at the end
of its run (the pool's process groups, each led by the runtime's watchdog, are checked empty and the
ports closed); every wait is bounded (server start `--ready-timeout`, each request `--timeout`, each
metrics read 30 s, the stop 20 s then SIGKILL).
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from vllm_judge_bench import run_batch, warm_grammars, warm_prefixes  # noqa: E402

from agent.calibration.evaluation import GradedAnswer, graded_dir, load_graded_set  # noqa: E402
from agent.judge.factory import DEFAULT_IN_FLIGHT, batch_size  # noqa: E402
from agent.judge.runtime import port_is_open  # noqa: E402
from agent.judge.runtime.pool import DEFAULT_POLICY, JudgePool, prepare_pool  # noqa: E402
from agent.judge.runtime.watchdog import group_members  # noqa: E402
from agent.judge.vllm import VllmJudge  # noqa: E402
from agent.judge.vllm_pool import PooledVllmJudge  # noqa: E402
from agent.rubric import load_rubric  # noqa: E402

SERVER_COUNTERS = {
    "queries": "vllm:prefix_cache_queries_total",
    "hits": "vllm:prefix_cache_hits_total",
    "prompt_tokens": "vllm:prompt_tokens_total",
    "output_tokens": "vllm:generation_tokens_total",
    "requests": "vllm:request_success_total",
}
_SERIES = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)(\s+\d+)?\s*$")
CLK = os.sysconf("SC_CLK_TCK")
METRICS_TIMEOUT_S = 30.0


# ------------------------------------------------------------------ Prometheus text and /proc


def scrape(http: httpx.Client, url: str) -> dict[str, float]:
    """Every sample of a Prometheus text page: `name{labels}` -> value."""
    out: dict[str, float] = {}
    for line in http.get(url, timeout=METRICS_TIMEOUT_S).text.splitlines():
        if line.startswith("#"):
            continue
        m = _SERIES.match(line)
        if m:
            try:
                out[m.group(1) + (m.group(2) or "")] = float(m.group(3))
            except ValueError:
                continue
    return out


def try_scrape(http: httpx.Client, url: str) -> dict[str, float] | None:
    """`scrape`, or None when the server does not answer (a replica that died)."""
    try:
        return scrape(http, url)
    except httpx.HTTPError:
        return None


def total(samples: dict[str, float], name: str) -> float:
    """A counter summed over its label sets."""
    return sum(v for k, v in samples.items() if k == name or k.startswith(name + "{"))


def delta(after: dict[str, float], before: dict[str, float]) -> dict[str, float]:
    return {k: after[k] - before.get(k, 0.0) for k in after}


def machine_busy_s() -> float:
    parts = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = parts[3] + (parts[4] if len(parts) > 4 else 0)
    return (sum(parts[:8]) - idle) / CLK


def group_cpu_s(pgids: list[int]) -> float:
    """CPU seconds of the live processes of these process groups (a server's API process, engine core
    and workers, its watchdog; the router)."""
    s = 0.0
    for pgid in pgids:
        for pid in group_members(pgid) or []:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            s += (int(fields[11]) + int(fields[12])) / CLK
    return s


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


# ------------------------------------------------------------------ one run


@dataclass
class Run:
    replicas: int
    trial: int
    start_s: float = 0.0
    warm_s: float = 0.0
    seconds: float = 0.0
    answers_at_once: int = 0
    in_flight: int = 0
    policy: str = ""
    replica_urls: list[str] = field(default_factory=list)
    per_replica: dict[str, dict[str, Any]] = field(default_factory=dict)
    router_counters: dict[str, float] = field(default_factory=dict)
    rounds_with_provenance: int = 0
    rounds_on_one_replica: int = 0
    fallbacks: list[str] = field(default_factory=list)
    request_outcomes: dict[str, int] = field(default_factory=dict)
    loadavg_before: list[float] = field(default_factory=list)
    loadavg_after: list[float] = field(default_factory=list)
    machine_busy_cpu_s: float = 0.0
    pool_cpu_s: float = 0.0
    peak_in_flight: int = 0
    replicas_alive_after: list[bool] = field(default_factory=list)
    router_workers_after: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    stopped_clean: bool | None = None
    left_running: list[int] = field(default_factory=list)
    ports_open: list[int] = field(default_factory=list)

    def as_dict(self, n: int) -> dict[str, Any]:
        q = sum(r["prefix_cache_queries"] for r in self.per_replica.values())
        h = sum(r["prefix_cache_hits"] for r in self.per_replica.values())
        return {
            "replicas": self.replicas,
            "trial": self.trial,
            "policy": self.policy,
            "replica_urls": self.replica_urls,
            "pool_start_s": round(self.start_s, 1),
            "warm_s": round(self.warm_s, 1),
            "answers_at_once": self.answers_at_once,
            "max_requests_in_flight": self.in_flight,
            "peak_requests_in_flight": self.peak_in_flight,
            "seconds": round(self.seconds, 1),
            "answers_per_s": round(n / self.seconds, 4) if self.seconds else None,
            "prefix_cache_queries": int(q),
            "prefix_cache_hits": int(h),
            "prefix_cache_hit_rate": round(h / q, 4) if q else None,
            "per_replica": self.per_replica,
            "router_counters_delta": self.router_counters,
            "rounds_with_provenance": self.rounds_with_provenance,
            "rounds_on_one_replica": self.rounds_on_one_replica,
            "rounds_on_one_replica_share": round(self.rounds_on_one_replica / self.rounds_with_provenance, 4)
            if self.rounds_with_provenance
            else None,
            "fallbacks": len(self.fallbacks),
            "fallback_reasons": self.fallbacks,
            "request_outcomes": self.request_outcomes,
            "loadavg_before": self.loadavg_before,
            "loadavg_after": self.loadavg_after,
            "machine_busy_cpu_s": round(self.machine_busy_cpu_s, 1),
            "pool_cpu_s": round(self.pool_cpu_s, 1),
            "pool_share_of_busy_cpu": round(self.pool_cpu_s / self.machine_busy_cpu_s, 3)
            if self.machine_busy_cpu_s
            else None,
            "replicas_alive_after_batch": self.replicas_alive_after,
            "router_workers_after_batch": self.router_workers_after,
            "error": self.error,
            "stopped_clean": self.stopped_clean,
            "left_running_pids": self.left_running,
            "ports_left_open": self.ports_open,
        }


def pool_groups(pool: JudgePool) -> list[int]:
    """The process group of each server and of the router (each led by its watchdog)."""
    out = []
    for s in [*pool.servers, pool.router]:
        if s.pid is not None:
            try:
                out.append(os.getpgid(s.pid))
            except ProcessLookupError:
                continue
    return out


def stop_and_check(pool: JudgePool, pgids: list[int], run: Run) -> None:
    ports = [p for p in (s.port for s in [*pool.servers, pool.router]) if p]
    if pool.router.metrics_port:
        ports.append(pool.router.metrics_port)
    pool.stop()
    left = sorted({pid for g in pgids for pid in (group_members(g) or [])})
    run.left_running = left
    run.ports_open = [p for p in ports if port_is_open("127.0.0.1", p)]
    run.stopped_clean = not left and not run.ports_open


def one_run(
    replicas: int,
    trial: int,
    answers: list[GradedAnswer],
    args: argparse.Namespace,
) -> Run:
    rubric = load_rubric()
    run = Run(replicas, trial)
    os.environ.pop("JUDGE_REPLICAS", None)
    pool = prepare_pool(replicas, ready_timeout=args.ready_timeout, policy=args.policy)
    run.policy = pool.router.policy
    t0 = time.monotonic()
    pgids: list[int] = []
    http = httpx.Client()
    try:
        pool.start()
        pgids = pool_groups(pool)
        run.start_s = time.monotonic() - t0
        run.replica_urls = pool.replica_urls
        print(f"[{replicas} replica(s)] pool ready in {run.start_s:.0f} s: {pool.base_url}", file=sys.stderr)

        # each replica in steady state: grammars compiled, each round's static prompt cached
        t0 = time.monotonic()

        def warm(base_url: str) -> None:
            direct = VllmJudge(base_url, pool.served_model_name, timeout=args.timeout)
            try:
                with httpx.Client() as own:
                    warm_grammars(own, direct, rubric)
                    warm_prefixes(own, direct, rubric)
            finally:
                direct.close()

        with ThreadPoolExecutor(max_workers=len(pool.servers)) as ex:  # the replicas at once
            list(ex.map(warm, [s.base_url for s in pool.servers]))
        run.warm_s = time.monotonic() - t0
        print(f"[{replicas} replica(s)] warmed in {run.warm_s:.0f} s", file=sys.stderr)

        # the judge `interview grade --judge vllm` builds (make_judge's arguments, a longer timeout),
        # with JUDGE_REPLICAS exported as serve.sh does
        os.environ["JUDGE_REPLICAS"] = str(replicas)
        judge = PooledVllmJudge(
            pool.base_url,
            pool.served_model_name,
            holistic=True,
            max_in_flight=DEFAULT_IN_FLIGHT,
            timeout=args.timeout,
        )
        if judge.replicas != replicas:
            raise RuntimeError(f"the judge sees {judge.replicas} replicas, not {replicas}")
        info = judge.info(rubric)
        run.answers_at_once = batch_size(judge, args.in_flight)  # per server × replicas
        run.in_flight = judge.max_in_flight
        judge.in_flight.reset_stats()

        before = {u: scrape(http, f"{u}/metrics") for u in pool.replica_urls}
        router_url = pool.router.metrics_url
        router_before = (try_scrape(http, router_url) or {}) if router_url else {}
        run.loadavg_before = loadavg()
        busy0, cpu0 = machine_busy_s(), group_cpu_s(pgids)
        results, run.seconds, _spans = run_batch(rubric, judge, info, answers, run.answers_at_once)
        busy1, cpu1 = machine_busy_s(), group_cpu_s(pgids)
        run.loadavg_after = loadavg()
        run.machine_busy_cpu_s, run.pool_cpu_s = busy1 - busy0, cpu1 - cpu0
        run.peak_in_flight = judge.in_flight.peak
        # a replica whose engine died mid-batch (the router sends its requests to another) is named here
        run.replicas_alive_after = [s.running() for s in pool.servers]
        try:
            run.router_workers_after = pool.router.workers()
        except (OSError, ValueError):
            run.router_workers_after = []
        after = {u: try_scrape(http, f"{u}/metrics") for u in pool.replica_urls}
        router_after = (try_scrape(http, router_url) or {}) if router_url else {}

        served: Counter[str] = Counter()
        for r in results:
            reps = (r.judge.replicas if r.judge is not None else None) or []
            if reps and not r.fell_back:
                run.rounds_with_provenance += 1
                run.rounds_on_one_replica += len(set(reps)) == 1
                served.update(reps)
        run.fallbacks = [
            f"{a.id}: {r.fallback_reason}" for a, r in zip(answers, results, strict=True) if r.fell_back
        ]
        run.request_outcomes = dict(judge.stats)
        rdelta = {
            k: v
            for k, v in delta(router_after, router_before).items()
            if k.startswith("vllm_router_") and "_total" in k.split("{")[0] and v
        }
        run.router_counters = rdelta
        for url, alive in zip(pool.replica_urls, run.replicas_alive_after, strict=True):
            d = delta(after[url] or {}, before[url])  # a replica that died: no figures (zeros)
            c = {key: int(total(d, name)) for key, name in SERVER_COUNTERS.items()}
            name = url.removeprefix("http://")
            run.per_replica[name] = {
                "requests_by_provenance": served.get(name, 0),
                "requests_by_server": c["requests"],
                # vllm_router_processed_requests_total{worker=...}: what the router sent it
                "requests_by_router": int(
                    sum(
                        v
                        for k, v in rdelta.items()
                        if k.startswith("vllm_router_processed_requests_total") and f'//{name}"' in k
                    )
                ),
                "alive_after_batch": alive and after[url] is not None,
                "prefix_cache_queries": c["queries"],
                "prefix_cache_hits": c["hits"],
                "prefix_cache_hit_rate": round(c["hits"] / c["queries"], 4) if c["queries"] else None,
                "prompt_tokens": c["prompt_tokens"],
                "output_tokens": c["output_tokens"],
            }
        judge.close()
        d = run.as_dict(len(answers))
        print(
            f"[{replicas} replica(s)] {run.seconds:.0f} s, {d['answers_per_s']} answers/s, "
            f"hit {d['prefix_cache_hit_rate']}, one-replica rounds {d['rounds_on_one_replica_share']}, "
            f"fallbacks {d['fallbacks']}, replicas alive {run.replicas_alive_after}, load {run.loadavg_before[0]} → {run.loadavg_after[0]}",
            file=sys.stderr,
        )
    except Exception as e:  # a pool that did not start, a server that went away: said, the next run goes on
        run.error = f"{type(e).__name__}: {e}"[:3000]
        print(f"[{replicas} replica(s)] failed: {run.error}", file=sys.stderr)
    finally:
        os.environ.pop("JUDGE_REPLICAS", None)
        http.close()
        if not pgids:
            pgids = pool_groups(pool)
        stop_and_check(pool, pgids, run)
        print(
            f"[{replicas} replica(s)] stopped: {'clean' if run.stopped_clean else 'NOT clean'}"
            + (f", left {run.left_running}" if run.left_running else "")
            + (f", ports open {run.ports_open}" if run.ports_open else ""),
            file=sys.stderr,
        )
    return run


# ------------------------------------------------------------------ main


def table(rows: list[dict[str, Any]]) -> str:
    """One line per replica of each run; the run's own figures on its first line."""
    lines = [
        "| replicas | run | seconds | answers/s | in flight | replica | requests (provenance / server / router) "
        "| prefix-cache queries | hits | hit rate | rounds on one replica | fallbacks "
        "| load 1/5/15 before → after |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        share = r["rounds_on_one_replica_share"]
        one = f"{r['rounds_on_one_replica']}/{r['rounds_with_provenance']}"
        if share is not None:
            one += f" ({share:.0%})"
        load = " ".join(map(str, r["loadavg_before"])) + " → " + " ".join(map(str, r["loadavg_after"]))
        head = [
            str(r["replicas"]),
            str(r["trial"]),
            str(r["seconds"]),
            str(r["answers_per_s"]),
            str(r["max_requests_in_flight"]),
        ]
        if r["error"]:
            lines.append("| " + " | ".join([*head, f"failed: {r['error'][:200]}", *[""] * 7]) + " |")
            continue
        for k, (name, p) in enumerate(r["per_replica"].items()):
            hr = p["prefix_cache_hit_rate"]
            cells = [
                *(head if k == 0 else [""] * len(head)),
                name if p["alive_after_batch"] else f"{name} (died)",
                f"{p['requests_by_provenance']} / {p['requests_by_server']} / {p['requests_by_router']}",
                str(p["prefix_cache_queries"]),
                str(p["prefix_cache_hits"]),
                "—" if hr is None else f"{hr:.1%}",
                one if k == 0 else "",
                str(r["fallbacks"]) if k == 0 else "",
                load if k == 0 else "",
            ]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def order(counts: list[int], repeat: int) -> list[tuple[int, int]]:
    """(trial, replicas) in turns: 1, 2, then 2, 1, …"""
    out = []
    for t in range(repeat):
        seq = counts if t % 2 == 0 else list(reversed(counts))
        out += [(t + 1, c) for c in seq]
    return out


def summary(
    rows: list[dict[str, Any]],
    answers: list[GradedAnswer],
    source: Path,
    args: argparse.Namespace,
    machine: dict[str, Any],
) -> dict[str, Any]:
    """The JSON: the runs, answers/s per replica count (median over its runs) and the ratios to the
    smallest count."""
    by_count: dict[int, list[float]] = {}
    for r in rows:
        if r["answers_per_s"] and not r["error"]:
            by_count.setdefault(r["replicas"], []).append(r["answers_per_s"])
    median_rate = {c: round(statistics.median(v), 4) for c, v in sorted(by_count.items())}
    base = min(median_rate) if median_rate else None
    ratios = {
        f"{c}_vs_{base}": round(v / median_rate[base], 3)
        for c, v in median_rate.items()
        if base is not None and c != base
    }
    return {
        "benchmark": "judge pool: N vLLM CPU replicas behind vllm-router, the same batch",
        "answers": {
            "n": len(answers),
            "source": str(source.relative_to(ROOT)),
            "selection": "every other answer in file order; the same batch in every run",
            "ids": [a.id for a in answers],
            "rounds": dict(Counter(a.round for a in answers)),
            "languages": dict(Counter(a.language for a in answers)),
        },
        "judge": {
            "per_server_in_flight": args.in_flight or DEFAULT_IN_FLIGHT,
            "timeout_s": args.timeout,
            "warm_up": "each replica directly: one 1-token request per part schema, each round's static prompt",
        },
        "runs": rows,
        "answers_per_s_median": {str(c): v for c, v in median_rate.items()},
        "throughput_ratios": ratios,
        "fallbacks": sum(r["fallbacks"] for r in rows),
        "all_stopped_clean": all(r["stopped_clean"] for r in rows),
        "machine": machine,
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=20, help="answers in the batch")
    ap.add_argument("--replicas", type=int, nargs="+", default=[1, 2], help="replica counts to compare")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each count, in turns")
    ap.add_argument(
        "--in-flight", type=int, default=0, help=f"requests a server (0: the default, {DEFAULT_IN_FLIGHT})"
    )
    ap.add_argument(
        "--policy", default=None, help=f"router policy (default: the product's, {DEFAULT_POLICY})"
    )
    ap.add_argument("--timeout", type=float, default=1800.0, help="per request, seconds")
    ap.add_argument("--ready-timeout", type=float, default=900.0, help="per server start, seconds")
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "judge_pool.json")
    args = ap.parse_args(argv)
    if args.n < 1 or args.repeat < 1 or any(r < 1 for r in args.replicas):
        ap.error("--n, --repeat and --replicas must be at least 1")

    source = graded_dir("dev") / "answers.yaml"
    answers = load_graded_set(source).answers[::2][: args.n]
    n = len(answers)
    machine: dict[str, Any] = {
        "cpu": cpu_model(),
        "cpus": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)),
        "loadavg_start": loadavg(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "note": "a shared machine: other work ran on the same cores (see the load averages)",
    }
    t_all = time.monotonic()
    runs: list[Run] = []
    plan = order(args.replicas, args.repeat)
    for trial, count in plan:
        runs.append(one_run(count, trial, answers, args))
        machine["loadavg_end"] = loadavg()
        machine["total_s"] = round(time.monotonic() - t_all, 1)
        result = summary([r.as_dict(n) for r in runs], answers, source, args, machine)
        result["complete"] = len(runs) == len(plan)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    rows = result["runs"]
    median_rate, ratios = result["answers_per_s_median"], result["throughput_ratios"]

    print(table(rows))
    print(
        f"\nanswers/s (median): {median_rate}; ratio {ratios}; fallbacks {result['fallbacks']}; "
        f"all stopped clean: {result['all_stopped_clean']}"
    )
    print(
        f"machine: {machine['cpu']} · {machine['cores_usable']} cores · load "
        f"{' '.join(map(str, machine['loadavg_start']))} → {' '.join(map(str, machine['loadavg_end']))} "
        f"· {machine['total_s']:.0f} s → {args.out}"
    )
    ok = result["fallbacks"] == 0 and result["all_stopped_clean"] and not any(r["error"] for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
