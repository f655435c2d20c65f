import json
from pathlib import Path

import pytest

from agent.contracts.transcript import MAX_ANSWER_CHARS, TranscriptError, load_transcript, parse_transcript


def _t(**kw: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "t-1",
        "language": "en",
        "rounds": [{"round": "concepts", "turns": [{"role": "candidate", "text": "Paged KV.", "at_s": 1.0}]}],
    }
    base.update(kw)
    return base


def test_valid_transcript_parses() -> None:
    t = parse_transcript(json.dumps(_t()))
    assert t.rounds[0].candidate_text() == "Paged KV."


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        (b"{not json", "not JSON"),
        (b"\x00\x01\x02binary", "binary"),
        (json.dumps([1, 2]).encode(), "expected a JSON object"),
        (json.dumps(_t(rounds=[{"round": "lunch", "turns": []}])).encode(), "unknown round 'lunch'"),
        (
            json.dumps(
                _t(rounds=[{"round": "concepts", "turns": [{"role": "candidate", "text": "  "}]}])
            ).encode(),
            "no answer",
        ),
        (
            json.dumps(
                _t(
                    rounds=[
                        {
                            "round": "concepts",
                            "turns": [{"role": "candidate", "text": "x" * (MAX_ANSWER_CHARS + 1)}],
                        }
                    ]
                )
            ).encode(),
            "over the limit",
        ),
        (json.dumps({"id": "x"}).encode(), "rounds"),
    ],
)
def test_bad_transcripts_name_the_problem(data: bytes, needle: str) -> None:
    with pytest.raises(TranscriptError) as e:
        parse_transcript(data, "bad.json")
    assert "bad.json" in str(e.value) and needle in str(e.value)


def test_oversized_file_is_refused_before_reading(tmp_path: Path) -> None:
    p = tmp_path / "big.json"
    p.write_bytes(b" " * 5_000_001)
    with pytest.raises(TranscriptError, match="over the limit"):
        load_transcript(p)
