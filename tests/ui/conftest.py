"""The app launched for real on a free loopback port, in this process, on a data dir of its own.

`served` is the default app (no login: each browser or API client is its own owner);
`served_login` requires a login (users alice and bob, and rita, a reviewer). Both use the real interview graph, the real
override log, offline voice, and a fixed source snippet in place of the knowledge index.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import gradio as gr
import httpx
import pytest

from agent.knowledge.snippet import Snippet
from agent.ui import Services
from agent.ui.auth import LoginThrottle, hash_password
from agent.ui.context import AppContext
from agent.ui.texts import Texts
from agent.voice.tts import TextToSpeech

SNIPPET = Snippet(
    path="vllm/v1/core/kv_cache_manager.py",
    symbol="KVCacheManager.allocate_slots",
    kind="function",
    start_line=200,
    end_line=260,
    commit="b23bd73f540175f9e117eaee5029cd7d8df63964",
    permalink="https://github.com/vllm-project/vllm/blob/b23bd73f540175f9e117eaee5029cd7d8df63964/"
    "vllm/v1/core/kv_cache_manager.py#L200-L260",
    text="def allocate_slots(self, request, num_new_tokens):\n    ...",
    score=0.9,
)
USERS = {"alice": "alice-password", "bob": "bob-password", "rita": "rita-password"}
REVIEWERS = frozenset({"rita"})


@dataclass
class Served:
    url: str
    app: object
    data_dir: Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def app_process(data_dir: Path, **env: str | None) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """`python -m agent.ui` as serve.sh starts it, on a free port with its own data dir and no users, the
    environment changed by `env` (None: removed); stopped when the block ends."""
    port = free_port()
    full = {**os.environ, "INTERVIEW_DATA_DIR": str(data_dir), "GRADIO_ANALYTICS_ENABLED": "False"}
    full.pop("INTERVIEW_USERS", None)
    for name, value in env.items():
        if value is None:
            full.pop(name, None)
        else:
            full[name] = value
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent.ui", "--port", str(port)],
        env=full,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        yield proc, port
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def first_answer(proc: subprocess.Popen[bytes], http: httpx.Client, path: str = "/config") -> httpx.Response:
    """`path`'s first answer from the app process (up to 120 s; the process must not exit meanwhile)."""
    deadline = time.monotonic() + 120
    while True:
        assert proc.poll() is None, proc.stdout.read().decode()[-3000:] if proc.stdout else "exited"
        try:
            return http.get(path)
        except httpx.TransportError:
            assert time.monotonic() < deadline, "the app did not answer within 120 s"
            time.sleep(0.5)


@pytest.fixture(scope="module")
def ui_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """INTERVIEW_DATA_DIR for a module of UI tests (restored after it); the app reads it on each call."""
    d = tmp_path_factory.mktemp("coach-data")
    old = os.environ.get("INTERVIEW_DATA_DIR")
    os.environ["INTERVIEW_DATA_DIR"] = str(d)
    try:
        yield d
    finally:
        if old is None:
            os.environ.pop("INTERVIEW_DATA_DIR", None)
        else:
            os.environ["INTERVIEW_DATA_DIR"] = old


def launch_app(
    data_dir: Path,
    *,
    users: dict[str, str],
    throttle: LoginThrottle | None = None,
    tts: Callable[[], TextToSpeech] | None = None,
) -> Iterator[Served]:
    """The app served until the generator is closed; `throttle`: the login throttle (a test's clock);
    `tts`: the text to speech (default: the offline voices)."""
    from agent.ui import Services, build_app
    from agent.ui.main import launch_kwargs

    services = Services(
        retriever=lambda: lambda text, k: [SNIPPET],
        require_login=bool(users),
        reviewers=REVIEWERS if users else frozenset(),
        users=frozenset(users),
        **({"tts": tts} if tts is not None else {}),
    )
    app = build_app(services)
    app.queue(default_concurrency_limit=4)
    port = free_port()
    stored = {name: hash_password(pw, iterations=1000) for name, pw in users.items()}
    app.launch(
        prevent_thread_lock=True, quiet=True, **launch_kwargs("127.0.0.1", port, stored, throttle=throttle)
    )
    try:
        yield Served(url=f"http://127.0.0.1:{port}/", app=app, data_dir=data_dir)
    finally:
        app.close()


@pytest.fixture(scope="module")
def served(ui_data_dir: Path) -> Iterator[Served]:
    yield from launch_app(ui_data_dir, users={})


@pytest.fixture(scope="module")
def served_login(ui_data_dir: Path) -> Iterator[Served]:
    yield from launch_app(ui_data_dir, users=USERS)


@pytest.fixture(scope="session")
def speak_wav(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """An English WAV spoken by espeak-ng; skips (with the reason) when espeak-ng is not installed."""
    exe = shutil.which("espeak-ng")
    if exe is None:
        pytest.skip("espeak-ng is not installed (Debian: apt-get install espeak-ng)")
    folder = tmp_path_factory.mktemp("wav")

    def make(text: str) -> Path:
        out = folder / f"answer-{abs(hash(text))}.wav"
        subprocess.run(
            [exe, "-v", "en-us", "-s", "140", "-w", str(out), "--stdin"], input=text.encode(), check=True
        )
        return out

    return make


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """Where the browser test saves a screenshot of each tab: outside the repo, kept after the run."""
    d = Path(os.environ.get("COACH_SCREENSHOTS") or Path(tempfile.gettempdir()) / "coach-screenshots")
    d.mkdir(parents=True, exist_ok=True)
    return d


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppContext:
    """An app's context without a browser: its own data dir, the embedded judge, no source index."""
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)
    with gr.Blocks():
        ui, owner, report = gr.Radio(), gr.State(), gr.State()
    return AppContext(Services(retriever=lambda: lambda text, k: []), Texts("en"), "en", ui, owner, report)


@pytest.fixture
def recording() -> str:
    """A recording file in the data dir's reports folder (where uploads are allowed), for a fake transcriber."""
    folder = Path(os.environ["INTERVIEW_DATA_DIR"]) / "reports"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "answer.wav").write_bytes(b"RIFF")
    return str(folder / "answer.wav")
