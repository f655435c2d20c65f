"""The load benchmarks' own client (bench/replica_bench.py) against the app as it is: one simulated candidate
runs a whole session through Gradio's queue with no error. It broke once already, silently, when Start got
an input (the self-check box) the client did not send."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tests.ui.conftest import Served

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_replica_bench_candidate_runs_a_session(served: Served) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        import replica_bench as rb
    finally:
        sys.path.remove(str(BENCH))
    url = served.url if served.url.endswith("/") else served.url + "/"
    apis = asyncio.run(rb.read_apis([url]))
    # every input of Start and Send that the client does not name keeps the page's default
    for name in ("start_practice", "send_answer"):
        assert len(apis[0].data(name)) == len(apis[0].states[name])
    tally, _ = asyncio.run(rb.load([url], apis, clients=1, sessions=1))
    assert tally.errors == []
    assert tally.sessions == 1
    assert len(tally.answers) == len(rb.ANSWERS)
