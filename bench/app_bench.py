"""Peak memory (RSS) of the app process: `python -m agent.ui` driven through gradio_client.

Run: .venv/bin/python bench/app_bench.py [--repeat 3]

Each repeat starts the app as a user does (`python -m agent.ui --port P`, 127.0.0.1, a fresh data
dir, the embedded judge), waits until it answers, then drives it through its API with gradio_client:
a practice session (the full plan: an answer to each of the first rounds, then finish), and a
co-pilot session (answer, take the suggested follow-up, answer). It samples the resident set of the
app's process tree every 50 ms and reads the kernel's high-water mark (VmHWM in /proc/PID/status)
before stopping it. Two configurations: "bare" (no source index, no speech) and "full" (a copy of
the built source index, so snippets load MiniLM, and the question spoken once with Piper). Figures
are medians over repeats. Writes bench/results/app.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
ANSWERS = [
    "Paged KV cache splits the KV cache into fixed-size blocks allocated on demand; continuous batching "
    "reschedules at every step within the token budget and the KV blocks the manager can allocate.",
    "Prefix caching hashes full blocks as a chain with extra keys such as the LoRA id, so only identical "
    "prefixes reuse KV. I would verify in vllm/v1/core/kv_cache_utils.py and roll back if outputs differ.",
    "I would first ask which inputs are given: the model config, the p95 length and the KV budget per rank.",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _status_kib(pid: int, key: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree(pid: int) -> list[int]:
    """pid and its descendants (from /proc/*/stat parent ids)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


class Sampler(threading.Thread):
    def __init__(self, pid: int, every_s: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.pid, self.every_s = pid, every_s
        self.peak_tree_kib = 0
        self.stop_event = threading.Event()

    def run(self) -> None:
        while not self.stop_event.is_set():
            rss = sum(_status_kib(p, "VmRSS") for p in _tree(self.pid))
            self.peak_tree_kib = max(self.peak_tree_kib, rss)
            time.sleep(self.every_s)


def wait_ready(url: str, proc: subprocess.Popen[bytes], timeout_s: float) -> float:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout_s:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited with {proc.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return time.monotonic() - t0
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    raise TimeoutError(f"the app did not answer at {url} within {timeout_s:g} s")


def drive(url: str, download_dir: str, voice: bool) -> dict[str, float]:
    from gradio_client import Client

    # download_files=False: with a built index the session view (JSON) holds snippets, dicts with a "path"
    # key, which gradio_client would otherwise try to download as files (HTTP 403)
    del download_dir
    c = Client(url, verbose=False, download_files=False, analytics_enabled=False)
    lat: list[float] = []
    c.predict("full", "en", "", api_name="/start_practice")
    if voice:
        c.predict("en", api_name="/speak_question")
    for text in ANSWERS:
        t0 = time.perf_counter()
        c.predict(text, api_name="/send_answer")
        lat.append(time.perf_counter() - t0)
        c.predict(api_name="/finish_round")
    c.predict("concepts", "en", api_name="/start_copilot")
    out = c.predict(ANSWERS[0], api_name="/record_answer")
    suggestions = out[-1]["suggestions"]  # the last output is the session view
    if suggestions:
        c.predict(suggestions[0]["text"], api_name="/ask_question")
        c.predict(ANSWERS[1], api_name="/record_answer")
    return {"answers": float(len(ANSWERS) + 2), "send_answer_median_s": statistics.median(lat)}


def one_run(timeout_s: float, index: Path | None, voice: bool) -> dict[str, Any]:
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as dl:
        if index is not None:
            shutil.copytree(index, Path(data) / "index")
        env = {k: v for k, v in os.environ.items() if k != "JUDGE_BASE_URL"}
        env.update({"INTERVIEW_DATA_DIR": data, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"})
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent.ui", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        sampler = Sampler(proc.pid)
        sampler.start()
        try:
            ready_s = wait_ready(url, proc, timeout_s)
            idle_kib = _status_kib(proc.pid, "VmRSS")
            driven = drive(url, dl, voice)
            time.sleep(0.3)
            hwm_kib = _status_kib(proc.pid, "VmHWM")
            end_kib = _status_kib(proc.pid, "VmRSS")
        finally:
            sampler.stop_event.set()
            sampler.join()
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    mib = 1024.0
    return {
        "ready_s": round(ready_s, 2),
        "rss_ready_mib": round(idle_kib / mib, 1),
        "rss_end_mib": round(end_kib / mib, 1),
        "peak_rss_mib": round(hwm_kib / mib, 1),
        "peak_tree_rss_sampled_mib": round(sampler.peak_tree_kib / mib, 1),
        **driven,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=240.0, help="seconds to wait for the app to answer")
    ap.add_argument(
        "--index",
        type=Path,
        default=None,
        help="a built index folder for the full configuration (default: the data dir's index)",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "app.json")
    args = ap.parse_args(argv)
    load_start = os.getloadavg()
    index = args.index or default_index()
    configs: dict[str, tuple[Path | None, bool]] = {"bare": (None, False)}
    if index is not None:
        configs["full"] = (index, True)
    else:
        print("no built source index found: only the bare configuration is measured", file=sys.stderr)
    result: dict[str, Any] = {
        "benchmark": "app process memory (python -m agent.ui driven through gradio_client)",
        "repeats": args.repeat,
        "index": str(index) if index else None,
    }
    for name, (idx, voice) in configs.items():
        runs = [one_run(args.timeout, idx, voice) for _ in range(args.repeat)]

        def med(key: str, runs: list[dict[str, Any]] = runs) -> float:
            return round(statistics.median(float(r[key]) for r in runs), 2)

        result[name] = {
            "peak_rss_mib_median": med("peak_rss_mib"),
            "peak_tree_rss_sampled_mib_median": med("peak_tree_rss_sampled_mib"),
            "rss_ready_mib_median": med("rss_ready_mib"),
            "ready_s_median": med("ready_s"),
            "send_answer_s_median": med("send_answer_median_s"),
            "runs": runs,
        }
    result.update(
        {
            "judge": "embedded",
            "machine": {
                "cpus": os.cpu_count(),
                "mem_total_mib": round(_meminfo_kib("MemTotal") / 1024, 0),
                "loadavg_start": [round(x, 2) for x in load_start],
                "loadavg_end": [round(x, 2) for x in os.getloadavg()],
                "python": platform.python_version(),
                "platform": platform.platform(),
            },
        }
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    names = list(configs)
    print(f"| measure (median of {args.repeat}) | {' | '.join(names)} |\n|---|{'---|' * len(names)}")
    for key, label in (
        ("peak_rss_mib_median", "peak RSS of the app process (VmHWM), MiB"),
        ("peak_tree_rss_sampled_mib_median", "peak RSS of its process tree (sampled), MiB"),
        ("rss_ready_mib_median", "RSS when ready, MiB"),
        ("ready_s_median", "start → answering, s"),
        ("send_answer_s_median", "send_answer through the API, s"),
    ):
        print(f"| {label} | {' | '.join(str(result[n][key]) for n in names)} |")
    print(json.dumps(result))
    return 0


def default_index() -> Path | None:
    """The index of the user's data dir, when one is built (CURRENT names a generation)."""
    sys.path.insert(0, str(ROOT))
    from agent.config import data_dir

    idx = data_dir() / "index"
    return idx if (idx / "CURRENT").is_file() else None


def _meminfo_kib(key: str) -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
