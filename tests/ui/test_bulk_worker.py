"""Bulk grading in the Review tab runs in a worker process (agent.graph.bulk), not in the app's own:
an uploaded transcript is graded there with the same scores as in process; a worker killed mid-grade is
an error for that upload alone, and the next upload is graded by a fresh worker."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from gradio_client import handle_file

from agent.contracts.transcript import load_transcript
from agent.graph import SessionReport, grade_with_graph
from agent.graph.bulk import default_worker
from tests.ui.conftest import Served
from tests.ui.test_api import GOOD_ANSWER, P_SID, R_STATUS, R_TABLE, client, finished_practice, score_rows

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "transcripts" / "t-001.json"


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _long_transcript(path: Path, rounds: int = 6, turns: int = 40) -> Path:
    ids = ["concepts", "source-trace", "capacity", "system-design", "incident"]
    text = GOOD_ANSWER * 4
    path.write_text(
        json.dumps(
            {
                "id": "long-upload",
                "language": "en",
                "rounds": [
                    {
                        "round": ids[r % len(ids)],
                        "turns": [
                            {"role": "interviewer", "text": f"Question {k}?"}
                            if k % 2 == 0
                            else {"role": "candidate", "text": text}
                            for k in range(turns)
                        ],
                    }
                    for r in range(rounds)
                ],
            }
        ),
        encoding="utf-8",
    )
    return path


def test_an_uploaded_transcript_is_graded_in_the_worker_with_the_in_process_scores(
    served: Served, tmp_path: Path
) -> None:
    c = client(served, tmp_path)
    out = c.predict(handle_file(str(EXAMPLE)), "en", api_name="/open_report_file")
    assert out[R_STATUS].startswith("Opened t-001 (transcript, graded now)"), out[R_STATUS]
    pid = default_worker().pid
    assert pid is not None and pid != os.getpid()

    expected = grade_with_graph(load_transcript(EXAMPLE))  # the same call, in this process
    assert isinstance(expected, SessionReport)
    ra = expected.rounds[0]
    assert {dim: row["judge"] for (_, dim), row in score_rows(out[R_TABLE]).items()} == ra.scores


def test_a_worker_killed_mid_grade_fails_that_upload_only(served: Served, tmp_path: Path) -> None:
    c = client(served, tmp_path)
    sid = finished_practice(c)[P_SID]  # a stored session from before the crash
    long = _long_transcript(tmp_path / "long.json")
    worker = default_worker()
    outcome: dict[str, Any] = {}

    def upload() -> None:
        outcome["out"] = client(served, tmp_path).predict(
            handle_file(str(long)), "en", api_name="/open_report_file"
        )

    t = threading.Thread(target=upload)
    t.start()
    victim = None
    deadline = time.monotonic() + 120
    while victim is None and time.monotonic() < deadline:  # until the worker is busy grading the upload
        pid = worker.pid
        if pid is not None and worker._lock.locked():
            start = _cpu_s(pid)
            while time.monotonic() < deadline and worker.pid == pid and _cpu_s(pid) - start < 0.3:
                time.sleep(0.05)
            if worker.pid == pid:
                victim = pid
        time.sleep(0.05)
    assert victim is not None, "the worker never started grading the upload"
    os.kill(victim, signal.SIGKILL)
    t.join(120)
    assert not t.is_alive()
    status = outcome["out"][R_STATUS]
    assert status.startswith("⚠️") and "grading worker stopped" in status and "SIGKILL" in status, status

    # nothing lost: the stored session still opens, and the next upload is graded by a fresh worker
    assert c.predict(sid, "en", api_name="/open_session_report")[R_STATUS].startswith(f"Opened {sid}")
    out = c.predict(handle_file(str(EXAMPLE)), "en", api_name="/open_report_file")
    assert out[R_STATUS].startswith("Opened t-001"), out[R_STATUS]
    assert worker.pid not in (None, victim)
