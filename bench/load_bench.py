"""Many candidates at once, with and without a bulk upload being graded: answer -> next question latency.

Run: .venv/bin/python bench/load_bench.py [--clients 10 20] [--answers 3]

Starts the app as a user does (`python -m agent.ui`, 127.0.0.1, a fresh data dir, the embedded judge)
and drives it with gradio_client from threads on this machine only. Each simulated candidate starts a
concepts practice and sends its answers one after another; the figure is the time `send_answer` takes
(the answer is stored, assessed and the next question asked). Each client count runs twice: alone, and
while a reviewer uploads a large transcript (20 rounds at the turn cap's order) to Review, which grades
it in the app's own bulk queue. Loops are bounded in count and time. Writes bench/results/load.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from app_bench import ANSWERS, free_port, wait_ready  # noqa: E402


def big_transcript(path: Path, rounds: int = 20, turns: int = 40) -> Path:
    text = " ".join(ANSWERS) * 3
    ids = ["concepts", "source-trace", "capacity", "system-design", "incident"]
    data = {
        "id": "bulk-upload",
        "language": "en",
        "rounds": [
            {
                "round": ids[r % len(ids)],
                "turns": [
                    {"role": "interviewer" if k % 2 == 0 else "candidate", "text": f"Question {k}?" if k % 2 == 0 else text}
                    for k in range(turns)
                ],
            }
            for r in range(rounds)
        ],
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def percentile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))] if s else float("nan")


def candidate(url: str, answers: int, lat: list[float], errors: list[str], lock: threading.Lock) -> None:
    from gradio_client import Client

    try:
        c = Client(url, verbose=False, download_files=False, analytics_enabled=False)
        c.predict("concepts", "en", "", api_name="/start_practice")
        for text in ANSWERS[:answers]:
            t0 = time.perf_counter()
            c.predict(text, api_name="/send_answer")
            with lock:
                lat.append(time.perf_counter() - t0)
    except Exception as e:  # a failed candidate is counted, not fatal
        with lock:
            errors.append(f"{type(e).__name__}: {str(e)[:120]}")


def bulk(url: str, path: Path, stop: threading.Event, took: list[float], errors: list[str]) -> None:
    from gradio_client import Client, handle_file

    c = Client(url, verbose=False, download_files=False, analytics_enabled=False)
    for _ in range(3):  # bounded
        if stop.is_set():
            return
        t0 = time.perf_counter()
        try:
            c.predict(handle_file(str(path)), "en", api_name="/open_report_file")
            took.append(time.perf_counter() - t0)
        except Exception as e:
            errors.append(f"bulk {type(e).__name__}: {str(e)[:120]}")


def run(url: str, clients: int, answers: int, upload: Path | None) -> dict[str, Any]:
    lat: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    stop = threading.Event()
    took: list[float] = []
    bulk_thread = None
    if upload is not None:
        bulk_thread = threading.Thread(target=bulk, args=(url, upload, stop, took, errors))
        bulk_thread.start()
        time.sleep(0.5)  # the upload is being graded when the candidates arrive
    t0 = time.perf_counter()
    threads = [threading.Thread(target=candidate, args=(url, answers, lat, errors, lock)) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    wall = time.perf_counter() - t0
    stop.set()
    if bulk_thread is not None:
        bulk_thread.join(timeout=600)
    return {
        "clients": clients,
        "with_bulk_upload": upload is not None,
        "answers": len(lat),
        "send_answer_p50_s": round(statistics.median(lat), 3) if lat else None,
        "send_answer_p95_s": round(percentile(lat, 0.95), 3) if lat else None,
        "answers_per_s": round(len(lat) / wall, 2),
        "bulk_gradings": len(took),
        "bulk_grading_s": [round(x, 1) for x in took],
        "errors": errors,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, nargs="+", default=[10, 20])
    ap.add_argument("--answers", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "load.json")
    args = ap.parse_args(argv)
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as data:
        env = {k: v for k, v in os.environ.items() if k != "JUDGE_BASE_URL"}
        env.update({"INTERVIEW_DATA_DIR": data, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"})
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent.ui", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            wait_ready(url, proc, 120)
            upload = big_transcript(Path(data) / "bulk.json")
            for n in args.clients:
                for up in (None, upload):
                    rows.append(run(url, n, args.answers, up))
                    r = rows[-1]
                    print(
                        f"| {n} | {'yes' if up else 'no'} | {r['send_answer_p50_s']} | {r['send_answer_p95_s']} | "
                        f"{r['answers_per_s']} | {r['bulk_grading_s']} | {len(r['errors'])} |",
                        flush=True,
                    )
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
    result = {
        "benchmark": "app under concurrent candidates, with and without a bulk upload (embedded judge)",
        "rows": rows,
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "load_1min": os.getloadavg()[0]},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
