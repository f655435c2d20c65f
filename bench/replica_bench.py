"""One app process against two app replicas over one Postgres: answer -> next question latency, errors
and sessions/s at 10, 25 and 50 concurrent simulated candidates (issue 15).

Run: .venv/bin/python bench/replica_bench.py [--clients 10 25 50] [--sessions 3] [--repeat 1] [--think S]

It starts a throwaway Postgres server in a temporary folder (Debian's initdb and pg_ctl, as the tests
do: tests/postgres/cluster.py; as the `postgres` user when run as root), and the app as a user does
(`python -m agent.ui`, 127.0.0.1, the embedded judge, a data dir of its own for each process):

- `sqlite`: one process on the default store (SQLite in its data dir), for reference;
- `pg-1`: one process over a Postgres database;
- `pg-2`: two processes (replicas) over one other Postgres database.

All of them run at once, idle but for the setup being measured, and the setups take turns at each
candidate count, so a change in the machine's other load falls on all of them alike. Each simulated
candidate speaks the app's HTTP API (Gradio's queue: POST /gradio_api/queue/join, then the event
stream of /gradio_api/queue/data), stays on one replica as a browser behind a sticky load balancer
does (candidate i on replica i mod 2), and runs `--sessions` sessions one after another: start a
concepts practice, then send its three answers, each as soon as the previous one is answered (no
time to think: the heaviest load N candidates can make; sessions/s is then the setup's throughput).
With `--think S` a candidate first waits a random 0..S s, then S/2..3S/2 s (fixed seeds) before each
answer, as a person writing it would: the latency at a given pace (sessions/s then follows the pace,
not the setup's capacity, and the ratio means nothing). A session is the complete round: the third
answer closes and scores it. The latency is each answer's: sent -> the next question (or the round's
scores) back. A session that fails (HTTP error, an error event, a timeout, an output without the
next question) counts as an error and the candidate goes on to its next session.

Reported per setup and count: answer -> next p50/p95, errors, sessions/s (completed sessions over the
run's wall time), the CPU seconds of the app processes, of Postgres, of this load generator and of
everything else on the machine, and the 1-minute load average before and after; and the pg-2 / pg-1
ratio of sessions/s. Everything is on loopback; every loop is bounded in count and in time; every
process started is stopped and the temporary folders removed. Writes bench/results/replicas.json
and bench/results/replicas.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from app_bench import ANSWERS, free_port, wait_ready  # noqa: E402

CALL_TIMEOUT_S = 120.0
"""One call (an answer, a start) that takes longer is an error."""
RUN_TIMEOUT_S = 900.0
"""One setup at one candidate count stops after this long (what is unfinished counts as errors)."""
READY_S = 240.0
SETUPS = ("sqlite", "pg-1", "pg-2")
CLK = os.sysconf("SC_CLK_TCK")


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))] if s else float("nan")


# ------------------------------------------------------------------ CPU accounting (/proc)


def _proc_cpu_s(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == pid:
                out.append(int(entry.name))
    return out


def _tree_cpu_s(pid: int) -> float:
    """CPU seconds of `pid` and its live children (Postgres backends, a grading worker)."""
    return _proc_cpu_s(pid) + sum(_proc_cpu_s(c) for c in _children(pid))


def _machine_busy_s() -> float:
    parts = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = parts[3] + (parts[4] if len(parts) > 4 else 0)
    return (sum(parts[:8]) - idle) / CLK


def _self_cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


# ------------------------------------------------------------------ the app's HTTP API


@dataclass
class Api:
    """What a call needs from the app's /config: each event's id and its inputs' kinds, and where the
    question and the round-finished banner are among the outputs."""

    fn: dict[str, int]
    states: dict[str, list[bool]]
    question: int
    banner: int
    defaults: dict[str, list[Any]] = field(default_factory=dict)
    """Each event's inputs' values as the page starts with them (an input added later keeps its default)."""

    @classmethod
    async def read(cls, http: httpx.AsyncClient, url: str) -> Api:
        config = (await http.get(url + "config")).json()
        comps = {c["id"]: c for c in config["components"]}
        fn: dict[str, int] = {}
        states: dict[str, list[bool]] = {}
        defaults: dict[str, list[Any]] = {}
        outputs: list[int] = []
        for i, dep in enumerate(config["dependencies"]):
            name = dep.get("api_name")
            if name in ("start_practice", "send_answer") and name not in fn:
                fn[name] = int(dep.get("id", i))
                states[name] = [comps[c]["type"] == "state" for c in dep["inputs"]]
                defaults[name] = [comps[c].get("props", {}).get("value") for c in dep["inputs"]]
                outputs = dep["outputs"]
        ids = [comps[o].get("props", {}).get("elem_id") for o in outputs]
        return cls(
            fn=fn,
            states=states,
            question=ids.index("practice-question"),
            banner=ids.index("round-scores"),
            defaults=defaults,
        )

    def data(self, name: str, *values: Any) -> list[Any]:
        """The event's inputs: `values` in order, None for each gr.State (the server holds those); an input
        past `values` (one added to the tab since, e.g. the self-check box) has the page's default value."""
        it = iter(values)
        defaults = self.defaults.get(name) or [None] * len(self.states[name])
        return [
            None if is_state else next(it, default)
            for is_state, default in zip(self.states[name], defaults, strict=True)
        ]


class CallFailed(Exception):
    pass


async def call(
    http: httpx.AsyncClient, url: str, api: Api, session: str, name: str, *values: Any
) -> list[Any]:
    """One event through Gradio's queue, as a browser tab (`session`) sends it; its outputs."""
    body = {
        "data": api.data(name, *values),
        "fn_index": api.fn[name],
        "session_hash": session,
        "event_data": None,
        "trigger_id": None,
    }
    r = await http.post(url + "gradio_api/queue/join", json=body)
    if r.status_code != 200:
        raise CallFailed(f"{name}: join HTTP {r.status_code} {r.text[:100]}")
    event = r.json()["event_id"]
    async with http.stream("GET", url + "gradio_api/queue/data", params={"session_hash": session}) as s:
        if s.status_code != 200:
            raise CallFailed(f"{name}: stream HTTP {s.status_code}")
        buf = ""
        async for chunk in s.aiter_text():
            buf += chunk
            while "\n\n" in buf:
                line, buf = buf.split("\n\n", 1)
                if not line.startswith("data:"):
                    continue
                msg = json.loads(line[5:])
                if msg.get("msg") == "unexpected_error":
                    raise CallFailed(f"{name}: {str(msg.get('message'))[:100]}")
                if msg.get("msg") == "process_completed" and msg.get("event_id") == event:
                    if not msg.get("success"):
                        raise CallFailed(f"{name}: error event {str(msg.get('output'))[:100]}")
                    return list(msg["output"]["data"])
    raise CallFailed(f"{name}: the stream ended without the result")


@dataclass
class Tally:
    answers: list[float] = field(default_factory=list)
    starts: list[float] = field(default_factory=list)
    sessions: int = 0
    errors: list[str] = field(default_factory=list)


async def candidate(
    http: httpx.AsyncClient,
    url: str,
    api: Api,
    sessions: int,
    tally: Tally,
    deadline: float,
    think: float = 0.0,
    seed: int = 0,
) -> None:
    rng = random.Random(seed)
    if think:
        await asyncio.sleep(rng.uniform(0, think))
    for _ in range(sessions):
        if time.monotonic() > deadline:
            tally.errors.append("run time limit reached before the session started")
            return
        tab = uuid.uuid4().hex  # a browser tab: its own owner (no login on loopback)
        try:
            t0 = time.perf_counter()
            await asyncio.wait_for(
                call(http, url, api, tab, "start_practice", "concepts", "en", "", "en"), CALL_TIMEOUT_S
            )
            tally.starts.append(time.perf_counter() - t0)
            for k, text in enumerate(ANSWERS):
                if think:
                    await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
                t0 = time.perf_counter()
                out = await asyncio.wait_for(
                    call(http, url, api, tab, "send_answer", text, "en"), CALL_TIMEOUT_S
                )
                took = time.perf_counter() - t0
                last = k == len(ANSWERS) - 1
                shown = out[api.banner] if last else out[api.question]
                ok = (isinstance(shown, dict) and shown.get("visible") is True) if last else bool(shown)
                if not ok:
                    raise CallFailed(
                        f"answer {k + 1}: no {'round scores' if last else 'next question'} in the reply"
                    )
                tally.answers.append(took)
            tally.sessions += 1
        except (TimeoutError, CallFailed, httpx.HTTPError, ValueError, KeyError) as e:
            tally.errors.append(f"{type(e).__name__}: {str(e)[:160]}")


async def load(
    urls: list[str], apis: list[Api], clients: int, sessions: int, think: float = 0.0
) -> tuple[Tally, float]:
    tally = Tally()
    limits = httpx.Limits(max_connections=4 * clients + 10, max_keepalive_connections=2 * clients + 10)
    async with httpx.AsyncClient(timeout=httpx.Timeout(CALL_TIMEOUT_S), limits=limits) as http:
        deadline = time.monotonic() + RUN_TIMEOUT_S
        t0 = time.perf_counter()
        await asyncio.gather(
            *(
                candidate(http, urls[i % len(urls)], apis[i % len(urls)], sessions, tally, deadline, think, i)
                for i in range(clients)
            )
        )
        return tally, time.perf_counter() - t0


async def read_apis(urls: list[str]) -> list[Api]:
    async with httpx.AsyncClient(timeout=60) as http:
        return [await Api.read(http, u) for u in urls]


async def warm_up(urls: list[str], apis: list[Api]) -> None:
    """One session on each process before measuring (the first call builds the graph and the judge)."""
    for u, a in zip(urls, apis, strict=True):
        tally, _ = await load([u], [a], 1, 1)
        if tally.errors:
            raise RuntimeError(f"warm-up on {u} failed: {tally.errors[0]}")


# ------------------------------------------------------------------ processes


@dataclass
class App:
    proc: subprocess.Popen[bytes]
    url: str
    log: Path


def start_app(tmp: Path, name: str, database_url: str | None) -> App:
    port = free_port()
    data = tmp / f"data-{name}"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("JUDGE_BASE_URL", "CHROMA_URL", "INTERVIEW_DATABASE_URL")
    }
    env.update({"INTERVIEW_DATA_DIR": str(data), "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"})
    if database_url:
        env["INTERVIEW_DATABASE_URL"] = database_url
    log = tmp / f"{name}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent.ui", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return App(proc=proc, url=f"http://127.0.0.1:{port}/", log=log)


def stop_app(app: App) -> None:
    if app.proc.poll() is not None:
        return
    try:
        os.killpg(app.proc.pid, signal.SIGTERM)
        app.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(app.proc.pid, signal.SIGKILL)
        app.proc.wait(timeout=30)
    except ProcessLookupError:
        pass


def postmaster_pid(data_dir: Path) -> int:
    return int((data_dir / "postmaster.pid").read_text().splitlines()[0])


def git_commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, timeout=10
        ).stdout.strip() or os.environ.get("BENCH_COMMIT", "not a git checkout")
    except (OSError, subprocess.SubprocessError):
        return os.environ.get("BENCH_COMMIT", "not a git checkout")


# ------------------------------------------------------------------ one measurement


def measure(
    setup: str,
    apps: list[App],
    apis: list[Api],
    pg_pid: int | None,
    clients: int,
    sessions: int,
    think: float = 0.0,
) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    app_cpu0 = sum(_tree_cpu_s(a.proc.pid) for a in apps)
    pg_cpu0 = _tree_cpu_s(pg_pid) if pg_pid else 0.0
    me0, busy0 = _self_cpu_s(), _machine_busy_s()
    tally, wall = asyncio.run(load([a.url for a in apps], apis, clients, sessions, think))
    me = _self_cpu_s() - me0
    busy = _machine_busy_s() - busy0
    app_cpu = sum(_tree_cpu_s(a.proc.pid) for a in apps) - app_cpu0
    pg_cpu = (_tree_cpu_s(pg_pid) - pg_cpu0) if pg_pid else 0.0
    return {
        "setup": setup,
        "replicas": len(apps),
        "store": "sqlite" if setup == "sqlite" else "postgres",
        "clients": clients,
        "sessions_each": sessions,
        "sessions_done": tally.sessions,
        "answers": len(tally.answers),
        "answer_p50_s": round(statistics.median(tally.answers), 3) if tally.answers else None,
        "answer_p95_s": round(percentile(tally.answers, 0.95), 3) if tally.answers else None,
        "start_p50_s": round(statistics.median(tally.starts), 3) if tally.starts else None,
        "sessions_per_s": round(tally.sessions / wall, 3),
        "answers_per_s": round(len(tally.answers) / wall, 2),
        "wall_s": round(wall, 1),
        "errors": len(tally.errors),
        "error_samples": tally.errors[:5],
        "cpu_s": {
            "app": round(app_cpu, 1),
            "postgres": round(pg_cpu, 1),
            "load_generator": round(me, 1),
            "everything_else": round(max(0.0, busy - app_cpu - pg_cpu - me), 1),
            "machine_busy": round(busy, 1),
            "machine_available": round(wall * (os.cpu_count() or 1), 1),
        },
        "load_1min_before": round(load_before, 2),
        "load_1min_after": round(os.getloadavg()[0], 2),
    }


def summarize(rows: list[dict[str, Any]], setups: list[str], counts: list[int]) -> list[dict[str, Any]]:
    """The median over repeats of each setup at each count."""
    out = []
    for n in counts:
        for s in setups:
            rs = [r for r in rows if r["setup"] == s and r["clients"] == n]
            if not rs:
                continue

            def med(key: str, rs: list[dict[str, Any]] = rs) -> float | None:
                xs = [r[key] for r in rs if r[key] is not None]
                return round(statistics.median(xs), 3) if xs else None

            out.append(
                {
                    "setup": s,
                    "clients": n,
                    "runs": len(rs),
                    "answer_p50_s": med("answer_p50_s"),
                    "answer_p95_s": med("answer_p95_s"),
                    "sessions_per_s": med("sessions_per_s"),
                    "errors": sum(r["errors"] for r in rs),
                    "load_1min": [r["load_1min_before"] for r in rs] + [rs[-1]["load_1min_after"]],
                    "others_cpu_share": round(
                        statistics.median(
                            r["cpu_s"]["everything_else"] / max(r["cpu_s"]["machine_available"], 1e-9)
                            for r in rs
                        ),
                        2,
                    ),
                }
            )
    return out


def ratios(summary: list[dict[str, Any]], counts: list[int]) -> list[dict[str, Any]]:
    out = []
    for n in counts:
        one = next((r for r in summary if r["setup"] == "pg-1" and r["clients"] == n), None)
        two = next((r for r in summary if r["setup"] == "pg-2" and r["clients"] == n), None)
        if one and two and one["sessions_per_s"]:
            out.append(
                {
                    "clients": n,
                    "pg2_over_pg1_sessions_per_s": round(two["sessions_per_s"] / one["sessions_per_s"], 2),
                }
            )
    return out


def markdown(result: dict[str, Any]) -> str:
    names = {"sqlite": "1 process, SQLite", "pg-1": "1 replica, Postgres", "pg-2": "2 replicas, Postgres"}
    think = result["think_time_s"]
    pace = f"think time about {think:g} s an answer" if think else "no think time"
    lines = [
        f"Commit {result['commit']}, {result['machine']['cpus']} cores, embedded judge, "
        f"{result['sessions_each']} sessions of 1 round (start + {len(ANSWERS)} answers) per candidate, "
        f"{pace}. "
        f"Load average (1 min) before each run and after the last; 'others' = CPU used by other processes "
        f"on the machine during the run, as a share of all cores.",
        "",
        "| candidates | setup | answer → next p50 | p95 | sessions/s | errors | load avg | others' CPU |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in result["summary"]:
        lines.append(
            f"| {r['clients']} | {names.get(r['setup'], r['setup'])} | {r['answer_p50_s']} s | {r['answer_p95_s']} s | "
            f"{r['sessions_per_s']} | {r['errors']} | {' → '.join(f'{x:.1f}' for x in r['load_1min'])} | "
            f"{100 * r['others_cpu_share']:.0f} % |"
        )
    if think:  # sessions/s follows the candidates' pace: no ratio of capacities
        return "\n".join(lines) + "\n"
    lines += ["", "| candidates | 2 replicas / 1 replica (sessions/s) |", "| --- | --- |"]
    for r in result["ratios"]:
        lines.append(f"| {r['clients']} | {r['pg2_over_pg1_sessions_per_s']}× |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, nargs="+", default=[10, 25, 50])
    ap.add_argument("--sessions", type=int, default=3, help="sessions per candidate (default 3)")
    ap.add_argument("--repeat", type=int, default=1, help="measure each setup at each count this many times")
    ap.add_argument("--setups", nargs="+", choices=SETUPS, default=list(SETUPS))
    ap.add_argument(
        "--think", type=float, default=0.0, help="seconds a candidate takes to write an answer (default 0)"
    )
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "replicas.json")
    args = ap.parse_args(argv)
    if max(args.clients) > 200 or args.sessions > 20 or args.repeat > 5 or not 0 <= args.think <= 60:
        ap.error("bounded: at most 200 candidates, 20 sessions each, 5 repeats, 60 s of think time")

    from tests.postgres.cluster import Cluster, bin_dir

    bindir = bin_dir()
    if bindir is None and any(s.startswith("pg") for s in args.setups):
        print("no Postgres server binaries (initdb, pg_ctl): apt-get install postgresql", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="replica-bench-"))
    cluster = None
    apps: dict[str, list[App]] = {}
    rows: list[dict[str, Any]] = []
    try:
        pg_pid = None
        if any(s.startswith("pg") for s in args.setups):
            assert bindir is not None
            cluster = Cluster(bindir)
            pg_pid = postmaster_pid(cluster.data)
        for s in args.setups:
            if s == "sqlite":
                apps[s] = [start_app(tmp, "sqlite", None)]
            else:
                assert cluster is not None
                url = cluster.create_database(s.replace("-", "_"))
                apps[s] = [start_app(tmp, f"{s}-{k}", url) for k in range(1 if s == "pg-1" else 2)]
        for s, group in apps.items():
            for a in group:
                try:
                    wait_ready(a.url, a.proc, READY_S)
                except (RuntimeError, TimeoutError) as e:
                    raise RuntimeError(f"{s}: {e}\n{a.log.read_text(errors='replace')[-3000:]}") from e
        api = {s: asyncio.run(read_apis([a.url for a in g])) for s, g in apps.items()}
        for s, g in apps.items():
            asyncio.run(warm_up([a.url for a in g], api[s]))
        print(
            "| candidates | setup | answer → next p50 | p95 | sessions/s | errors | load avg before → after |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for rep in range(args.repeat):
            for n in args.clients:
                order = args.setups if rep % 2 == 0 else list(reversed(args.setups))
                for s in order:
                    pg = pg_pid if s.startswith("pg") else None
                    r = measure(s, apps[s], api[s], pg, n, args.sessions, args.think)
                    r["repeat"] = rep
                    rows.append(r)
                    print(
                        f"| {n} | {s} | {r['answer_p50_s']} s | {r['answer_p95_s']} s | {r['sessions_per_s']} | "
                        f"{r['errors']} | {r['load_1min_before']} → {r['load_1min_after']} |",
                        flush=True,
                    )
    finally:
        for group in apps.values():
            for a in group:
                stop_app(a)
        if cluster is not None:
            cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    summary = summarize(rows, args.setups, args.clients)
    result = {
        "benchmark": "app replicas over one Postgres: answer -> next question, sessions/s (embedded judge)",
        "commit": git_commit(),
        "sessions_each": args.sessions,
        "answers_per_session": len(ANSWERS),
        "think_time_s": args.think,
        "summary": summary,
        "ratios": ratios(summary, args.clients) if not args.think else [],
        "goals": {"pg2_at_50_p95_s_at_most": 1.0, "pg2_at_50_errors": 0, "pg2_over_pg1_at_least": 1.6},
        "rows": rows,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_1min_end": round(os.getloadavg()[0], 2),
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    md = markdown(result)
    args.out.with_suffix(".md").write_text(md)
    print()
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
