"""`interview grade` as a user runs it: a real subprocess over a folder of good and bad files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "transcripts"


def _run(*args: str, data_dir: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "INTERVIEW_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "agent", *args], capture_output=True, text=True, env=env, timeout=120, cwd=REPO
    )


def _good(tid: str, text: str) -> dict[str, object]:
    return {
        "id": tid,
        "language": "en",
        "rounds": [{"round": "concepts", "turns": [{"role": "candidate", "text": text}]}],
    }


@pytest.fixture()
def batch(tmp_path: Path) -> Path:
    d = tmp_path / "in"
    d.mkdir()
    (d / "a_good.json").write_text(
        json.dumps(_good("a", "Paged KV maps tokens to non-contiguous blocks on demand."))
    )
    (d / "b_notjson.json").write_text("{oops")
    (d / "c_round.json").write_text(json.dumps({"id": "c", "rounds": [{"round": "lunch", "turns": []}]}))
    (d / "d_empty.json").write_text(
        json.dumps(
            {"id": "d", "rounds": [{"round": "concepts", "turns": [{"role": "candidate", "text": ""}]}]}
        )
    )
    (d / "e_binary.json").write_bytes(b"\x89PNG\x00\x00\x00")
    (d / "f_huge.json").write_text(json.dumps(_good("f", "x" * 5_100_000)))
    (d / "g_good.json").write_text(
        json.dumps(_good("g", "Continuous batching reschedules at each step; if KV runs out it preempts."))
    )
    return d


def test_bad_files_are_named_and_the_batch_goes_on(batch: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = _run("grade", str(batch), "--out", str(out), "--judge", "embedded", data_dir=tmp_path / "data")
    assert r.returncode == 1, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["a_good.json", "g_good.json"]
    for name, needle in [
        ("b_notjson.json", "not JSON"),
        ("c_round.json", "unknown round 'lunch'"),
        ("d_empty.json", "no answer"),
        ("e_binary.json", "binary"),
        ("f_huge.json", "over the limit"),
    ]:
        line = next((ln for ln in r.stderr.splitlines() if name in ln), "")
        assert needle in line, (name, r.stderr)


def test_reports_match_the_design_contract_and_are_reproducible(tmp_path: Path) -> None:
    out1, out2 = tmp_path / "o1", tmp_path / "o2"
    r1 = _run("grade", str(EXAMPLES), "--out", str(out1), "--judge", "embedded", data_dir=tmp_path / "d")
    r2 = _run("grade", str(EXAMPLES), "--out", str(out2), "--judge", "embedded", data_dir=tmp_path / "d")
    assert r1.returncode == 0, r1.stderr
    assert r2.returncode == 0
    names = sorted(p.name for p in out1.iterdir())
    assert names == sorted(p.name for p in EXAMPLES.glob("*.json"))
    for n in names:
        a, b = (out1 / n).read_text(), (out2 / n).read_text()
        assert a == b  # the same transcript always gives the same report
        rep = json.loads(a)
        assert {"id", "judge", "rounds", "risks", "next_actions"} <= rep.keys()
        assert {"kind", "model", "rubric_version"} <= rep["judge"].keys()
        src = json.loads((EXAMPLES / n).read_text())
        for ra, sr in zip(rep["rounds"], src["rounds"], strict=True):
            assert {
                "round",
                "scores",
                "total",
                "flags",
                "quotes",
                "missing_evidence",
                "next_followups",
            } <= ra.keys()
            assert set(ra["scores"]) == {"accuracy", "evidence", "tradeoffs", "validation", "communication"}
            assert ra["total"] == sum(ra["scores"].values())
            answer = " ".join(" ".join(t["text"].split()) for t in sr["turns"] if t["role"] == "candidate")
            for qs in ra["quotes"].values():
                for q in qs:
                    assert " ".join(q.split()) in answer


def test_markdown_reports_and_usage_errors(tmp_path: Path) -> None:
    out = tmp_path / "md"
    r = _run(
        "grade", str(EXAMPLES / "t-002.json"), "--out", str(out), "--format", "md", data_dir=tmp_path / "d"
    )
    assert r.returncode == 0, r.stderr
    md = (out / "t-002.md").read_text()
    assert "面试评分报告" in md and "/25" in md
    assert _run("grade", str(tmp_path / "nope"), data_dir=tmp_path / "d").returncode == 2
    assert _run("grade", "--format", "xml", str(EXAMPLES), data_dir=tmp_path / "d").returncode == 2


def test_samples_with_the_embedded_judge(tmp_path: Path) -> None:
    """`--samples 3`: the median report with its spread, zero with the embedded judge, and it says so."""
    one, three, md = tmp_path / "one", tmp_path / "three", tmp_path / "md"
    src = str(EXAMPLES / "t-003.json")
    r1 = _run("grade", src, "--out", str(one), "--judge", "embedded", data_dir=tmp_path / "d")
    r3 = _run(
        "grade", src, "--out", str(three), "--judge", "embedded", "--samples", "3", data_dir=tmp_path / "d"
    )
    assert r1.returncode == 0 and r3.returncode == 0, r1.stderr + r3.stderr
    said = " ".join(r3.stderr.split())  # the table title wraps at the console's width
    assert "judge is deterministic: 3 samples, zero spread" in said and "median of 3 samples" in said
    a, b = json.loads((one / "t-003.json").read_text()), json.loads((three / "t-003.json").read_text())
    assert "samples" not in a and "samples" not in a["judge"]  # the default run's report is unchanged
    assert b["judge"]["samples"] == 3 and b["samples"]["k"] == 3 and b["samples"]["deterministic"]
    assert [x["scores"] for x in b["rounds"]] == [x["scores"] for x in a["rounds"]]
    for rs, ra in zip(b["samples"]["rounds"], b["rounds"], strict=True):
        assert rs["counted"] == [0, 1, 2] and rs["fallbacks"] == []
        for d, ds in rs["dimensions"].items():
            assert ds["scores"] == [ra["scores"][d]] * 3 and ds["min"] == ds["max"] == ds["score"]
    r = _run(
        "grade",
        src,
        "--out",
        str(md),
        "--format",
        "md",
        "--judge",
        "embedded",
        "--samples",
        "3",
        data_dir=tmp_path / "d",
    )
    assert r.returncode == 0, r.stderr
    text = (md / "t-003.md").read_text()
    assert "## Self-consistency: 3 samples" in text and "zero by construction" in text
    assert "| Dimension | Median | Min–max | Samples |" in text
    assert _run("grade", src, "--samples", "0", data_dir=tmp_path / "d").returncode == 2


def test_a_hostile_batch_from_a_fresh_state(tmp_path: Path) -> None:
    """Issue 16, "Batches and files", end to end: every bad entry the red team tried, in one batch with
    three valid transcripts (two of them with the same file name). Every valid one is graded under a
    distinct name, every bad one is named on one line with its problem, nothing hangs, no traceback."""
    import socket

    d = tmp_path / "in"
    (d / "a").mkdir(parents=True)
    (d / "b").mkdir()
    (d / "a" / "t.json").write_text(json.dumps(_good("good-a", "Paged KV maps tokens to blocks on demand.")))
    (d / "b" / "t.json").write_text(json.dumps(_good("good-b", "Continuous batching reschedules each step.")))
    (d / "c.json").write_text(json.dumps(_good("good-c", "Prefix caching reuses full KV blocks by hash.")))
    bad: dict[Path, str] = {}

    def add(name: str, needle: str) -> Path:
        bad[d / name] = needle
        return d / name

    add("deep.json", "nested").write_text("[" * 100_000 + "]" * 100_000)
    add("digits.json", "5,001 digits").write_text('{"id": "n", "rounds": [], "x": ' + "9" * 5001 + "}")
    os.mkfifo(add("pipe.json", "FIFO"))
    add("zero.json", "character device").symlink_to("/dev/zero")
    add("dangling.json", "dangling symbolic link").symlink_to(d / "nowhere.json")
    add("loop.json", "symbolic link loop").symlink_to(d / "loop.json")
    rounds = [{"round": "concepts", "turns": [{"role": "candidate", "text": "KV."}]}] * 21
    add("rounds.json", "21 rounds").write_text(json.dumps({"id": "r", "rounds": rounds}))
    turns = [{"role": "candidate", "text": "KV."}] * 201
    add("turns.json", "201 turns").write_text(
        json.dumps({"id": "u", "rounds": [{"round": "concepts", "turns": turns}]})
    )
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(add("sock.json", "socket")))
    (d / "folder.json").mkdir()  # named, not graded, not a failure
    direct = tmp_path / "direct-pipe.json"
    os.mkfifo(direct)
    bad[direct] = "FIFO"
    bad[Path("/dev/urandom")] = "character device"
    out = tmp_path / "out"
    try:
        r = _run(
            "grade",
            str(d),
            str(direct),
            "/dev/urandom",
            "--out",
            str(out),
            "--judge",
            "embedded",
            data_dir=tmp_path / "fresh-data",
        )
    finally:
        sock.close()
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr and "╭" not in r.stderr, r.stderr
    reports = {json.loads(p.read_text())["id"]: p.name for p in out.iterdir()}
    assert set(reports) == {"good-a", "good-b", "good-c"}, reports
    assert reports["good-c"] == "c.json" and reports["good-a"] != reports["good-b"]
    lines = r.stderr.splitlines()
    for path, needle in bad.items():
        named = [ln for ln in lines if f"{path}:" in ln]
        assert len(named) == 1 and needle in named[0], (path, needle, named)
    folder = [ln for ln in lines if f"{d / 'folder.json'}:" in ln]
    assert len(folder) == 1 and "folder" in folder[0], folder
    share = [ln for ln in lines if "share" in ln]
    assert len(share) == 1 and reports["good-a"] in share[0] and reports["good-b"] in share[0], share
    said = " ".join(r.stderr.split())
    assert f"{len(bad)} of {len(bad) + 3} failed" in said, said


def test_a_file_named_like_another_inputs_report_overwrites_nothing(tmp_path: Path) -> None:
    """The acceptance tester's batch: `sub1/same.json` and `sub2/same.json` share a file name, so each
    gets `same-<hash>`; `sub3/` holds a file whose own name is sub1's hashed one, and `sub4/` one whose
    transcript id repeats sub1's. Every input gets its own report, the note maps every renamed input,
    and the summary table tells the two inputs with one transcript id apart."""
    import hashlib

    d = tmp_path / "in"
    for sub in ("sub1", "sub2", "sub3", "sub4"):
        (d / sub).mkdir(parents=True)
    first = d / "sub1" / "same.json"
    hashed = f"same-{hashlib.sha256(os.path.abspath(first).encode()).hexdigest()[:8]}"
    inputs = {
        first: "one",
        d / "sub2" / "same.json": "two",
        d / "sub3" / f"{hashed}.json": "three",
        d / "sub3" / f"{hashed.upper()}-2.json": "four",  # another name a further suffix might take
        d / "sub4" / "again.json": "one",  # the same transcript id as sub1's
        d / "top.json": "six",
    }
    for path, tid in inputs.items():
        path.write_text(json.dumps(_good(tid, "Paged KV maps tokens to non-contiguous blocks on demand.")))
    out = tmp_path / "out"
    env = {"COLUMNS": "400"}  # the summary table on one line per row
    r = _run("grade", str(d), "--out", str(out), "--judge", "embedded", data_dir=tmp_path / "data", env=env)
    assert r.returncode == 0, r.stderr
    written = sorted(p.name for p in out.iterdir())
    assert len(written) == len(inputs), written  # 6 graded, 6 reports: none overwritten
    assert sorted(json.loads(p.read_text())["id"] for p in out.iterdir()) == sorted(inputs.values())
    assert f"{hashed}.json" in written  # a file keeps its own name when it can
    notes = [ln for ln in r.stderr.splitlines() if ln.startswith("note:")]
    renamed = {p: n for p in inputs if (n := _report_of(p, notes)) is not None}
    assert set(renamed) == {first, d / "sub2" / "same.json"}, notes
    assert renamed[first] != f"{hashed}.json" and renamed[first] in written, notes
    assert renamed[first] != renamed[d / "sub2" / "same.json"]
    rows = [ln for ln in r.stderr.splitlines() if " one " in f" {ln.replace('│', ' ')} "]
    assert len(rows) == 2 and rows[0] != rows[1], r.stderr
    assert any(renamed[first] in ln for ln in rows) and any("again.json" in ln for ln in rows), rows
    again = _run(
        "grade", str(d), "--out", str(tmp_path / "out2"), "--judge", "embedded", data_dir=tmp_path / "data"
    )
    assert again.returncode == 0, again.stderr
    assert sorted(p.name for p in (tmp_path / "out2").iterdir()) == written  # the same names every run


def _report_of(path: Path, notes: list[str]) -> str | None:
    """The report a `note:` line gives `path`, if one does."""
    for ln in notes:
        for part in ln.split(", "):
            if f"{path} → " in part:
                return part.split(f"{path} → ", 1)[1].split()[0]  # maybe followed by "(why)"
    return None
