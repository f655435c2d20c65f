"""A refused upload is said in the interface language (issue 12: a Chinese page read
"无法打开该文件：files are read only from uploads or <data dir>/reports", an exception's own English).
Each reason agent/ui/files.py refuses a file for is a message of messages/ui.yaml (`ui.upload_refused.*`);
`str()` of the exception stays English, for logs. No app is started: the handlers are called directly."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from agent.ui.context import AppContext
from agent.ui.files import UploadRefused, safe_upload
from agent.ui.tabs import recording
from agent.ui.tabs.review import open_report_file

ENGLISH_WORDS = re.compile(
    r"\b(?:is|the|not|no|file|files|does|exist|only|from|over|limit|bytes|regular)\b", re.I
)
"""English words of a sentence (not a folder's name such as `reports` or a format's such as JSON)."""
CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The upload folder (tmp_path/gradio) with one subfolder, and the data dir; returns the subfolder."""
    monkeypatch.setenv("INTERVIEW_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio"))
    up = tmp_path / "gradio" / "abc"
    up.mkdir(parents=True)
    return up


def _refusals(tmp_path: Path, up: Path) -> list[UploadRefused]:
    """Every reason safe_upload refuses a path for, each raised by safe_upload itself."""
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}")
    big = up / "big.json"
    big.write_bytes(b" " * 2000)
    got: list[UploadRefused] = []
    for path, limit in (("", 10), (up / "missing.json", 10), (outside, 10), (up, 10), (big, 1000)):
        with pytest.raises(UploadRefused) as e:
            safe_upload(path, max_bytes=limit)
        got.append(e.value)
    return got


def test_each_refusal_says_itself_in_either_language(tmp_path: Path, folders: Path) -> None:
    refusals = _refusals(tmp_path, folders)
    assert len({e.key for e in refusals}) == len(refusals)  # one reason each, none folded into another
    for e in refusals:
        en, zh = e.text("en"), e.text("zh")
        assert en == str(e) and zh != en, (en, zh)
        assert CJK.search(zh) and not ENGLISH_WORDS.search(zh), zh
    big = refusals[-1]
    assert "2,000" in big.text("zh") and "1,000" in big.text("zh")
    assert str(big) == "the file is 2,000 bytes, over the limit of 1,000"  # logs read as before


def _status(out: list[Any]) -> str:
    return str(out[1])


def test_the_review_tab_names_a_refused_file_in_the_interface_language(tmp_path: Path, folders: Path) -> None:
    ctx = cast(AppContext, SimpleNamespace())
    outside = tmp_path / "elsewhere.json"
    outside.write_text("{}")
    not_json = folders / "notes.json"
    not_json.write_bytes(b"\xff\xfe not json at all")
    bad_json = folders / "bad.json"
    bad_json.write_text('{"rounds": [1, 2,,]}')
    for path in (outside, folders / "missing.json", folders, not_json, bad_json):
        zh = _status(open_report_file(ctx, str(path), "zh", None, cast(Any, None)))
        en = _status(open_report_file(ctx, str(path), "en", None, cast(Any, None)))
        assert zh.startswith("⚠️ 无法打开该文件：") and not ENGLISH_WORDS.search(zh), zh
        # no English word, not even a parser's ("Expecting value", "codec can't decode")
        assert not re.search(r"[a-z]{4,}", zh.replace("/reports", "")), zh
        assert en.startswith("⚠️ Cannot open this file: ") and not CJK.search(en), en


def test_a_refused_recording_is_said_in_each_interface_language(tmp_path: Path, folders: Path) -> None:
    ctx = cast(AppContext, SimpleNamespace(services=SimpleNamespace()))
    outside = tmp_path / "elsewhere.wav"
    outside.write_bytes(b"RIFF")
    _, status, heard = recording.transcribe(ctx, str(outside), "", {"lang": "zh"}, "zh")
    assert heard is None
    assert status["zh"].startswith("无法打开该文件：") and not ENGLISH_WORDS.search(status["zh"]), status
    assert status["en"].startswith("Cannot open this file: ") and "only from uploads" in status["en"], status


def test_a_file_whose_structure_is_refused_is_said_in_the_interface_language(folders: Path) -> None:
    """Issue 12: Review said a report's or a transcript's structural problem in pydantic's English inside the
    Chinese frame ("无法打开该文件：rounds.0.scores.accuracy: Input should be less than or equal to 5")."""
    ctx = cast(AppContext, SimpleNamespace())
    judge = {"kind": "gpt", "model": "m", "rubric_version": "r"}
    scores = {"accuracy": 3, "evidence": 3, "tradeoffs": 3, "validation": 3, "communication": 3}
    cases = {
        "report.json": ({"id": "r", "judge": judge, "rounds": [{"round": "concepts", "scores": scores, "total": 21}]},
                        {"zh": "只能是 'embedded'、'vllm' 之一", "en": "must be one of 'embedded', 'vllm'"}),
        "round.json": ({"id": "t", "language": "en", "rounds": [{"round": "nope", "turns": []}]},
                       {"zh": "未知的轮次 'nope'", "en": "unknown round 'nope'"}),
        "silent.json": ({"id": "t", "language": "zh",
                         "rounds": [{"round": "concepts", "turns": [{"role": "interviewer", "text": "Q"}]}]},
                        {"zh": "候选人没有回答", "en": "the candidate gave no answer"}),
    }  # fmt: skip
    for name, (doc, said) in cases.items():
        path = folders / name
        path.write_text(json.dumps(doc), encoding="utf-8")
        zh = _status(open_report_file(ctx, str(path), "zh", None, cast(Any, None)))
        en = _status(open_report_file(ctx, str(path), "en", None, cast(Any, None)))
        assert zh.startswith("⚠️ 无法打开该文件：") and said["zh"] in zh, zh
        for english in ("Input should", "Field required", "must be", "Value error", "gave no answer"):
            assert english not in zh, zh
        assert en.startswith("⚠️ Cannot open this file: ") and said["en"] in en and not CJK.search(en), en
