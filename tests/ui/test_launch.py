"""The app starts and answers where Gradio's calls to its own page would fail.

Gradio's `launch()` calls its own server twice once it runs: `startup-events` (which starts the queue; no
time limit) and a look at the page (3 s, then "When localhost is not accessible, a shareable link must be
created" and the app stops). Where the environment names an HTTP proxy and NO_PROXY does not list loopback,
both go to the proxy: the page showed, and no button ever answered. On a machine too busy to serve the page
in 3 s the look failed (a clean-clone CI run lost a team replica to it). The entry point adds loopback to
NO_PROXY (agent/util/loopback.py) and leaves the look out (serve.sh and deploy/team.sh wait for the page).

Reproduced with the real entry point and a proxy that accepts connections and never answers.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agent.ui.main import launch_kwargs
from tests.ui.conftest import app_process, first_answer


@pytest.fixture
def silent_proxy() -> Iterator[str]:
    """An HTTP proxy that takes every connection and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in held:
            conn.close()
        server.close()


def test_launch_leaves_out_gradios_self_fetch() -> None:
    assert launch_kwargs("127.0.0.1", 7860, {})["_frontend"] is False


def test_the_app_starts_when_its_own_url_does_not_answer_through_the_environment(
    tmp_path: Path, silent_proxy: str
) -> None:
    proxied = {"HTTP_PROXY": silent_proxy, "http_proxy": silent_proxy, "ALL_PROXY": silent_proxy}
    with (
        app_process(tmp_path, NO_PROXY=None, no_proxy=None, **proxied) as (proc, port),
        httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30, trust_env=False) as http,
    ):
        page = first_answer(proc, http)
        assert page.status_code == 200 and "vLLM Interview Coach" in page.text
        # an event runs through the queue: the switch's language is remembered
        call = http.post("/gradio_api/call/remember_ui_language", json={"data": ["zh"]})
        assert call.status_code == 200, call.text
        event = call.json()["event_id"]
        got: list[str] = []  # the result's stream (Gradio's heartbeats keep a stuck one open)
        reader = threading.Thread(
            target=lambda: got.append(http.get(f"/gradio_api/call/remember_ui_language/{event}").text),
            daemon=True,
        )
        reader.start()
        reader.join(timeout=30)
        assert got, "the event did not come back within 30 s: the queue never started"
        assert "event: complete" in got[0] and '"zh"' in got[0], got[0]
        time.sleep(4)  # past the 3 s Gradio's look at its page waits
        assert proc.poll() is None, proc.stdout.read().decode()[-3000:] if proc.stdout else "exited"
