"""A corpus of malformed transcripts generated with hypothesis, graded in one batch with valid ones:
one clear error per bad file (naming it, on one line), never a crash, and every valid file graded.

`grade_files` is what `interview grade` runs, here with the graph's grade mode as `interview grade` passes it."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.contracts.transcript import MAX_ANSWER_CHARS
from agent.grading.batch import grade_files
from agent.graph import grade_with_graph
from agent.rubric import Rubric
from agent.rubric.model import ROUND_IDS

ANSWERS = [
    "Paged KV maps logical token positions to fixed-size blocks allocated on demand; I would check "
    "vllm/v1/core/kv_cache_manager.py and roll back prefix caching if reuse looked wrong.",
    "权重 40e9 × 2 B = 80e9 B ≈ 74.5 GiB（推导），每 rank ≈ 18.6 GiB；KV-only 上界约 180，不是生产并发。",
    "I don't know the exact sampler order; I would read vllm/v1/sample/sampler.py and run a seeded test.",
    "Stop the rollout, roll the canary back, cap retries at the gateway, then compare old and new pods.",
]

JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
TEXT = st.text(min_size=1, max_size=200).filter(lambda s: s.strip() != "" and "\x00" not in s)


def turn(role: str, text: str, at_s: float | None = None) -> dict[str, Any]:
    return {"role": role, "text": text, "at_s": at_s}


@st.composite
def valid_doc(draw: st.DrawFn) -> dict[str, Any]:
    rounds = []
    for rid in draw(st.lists(st.sampled_from(ROUND_IDS), min_size=1, max_size=3)):
        text = draw(st.sampled_from(ANSWERS) | TEXT)
        t0 = draw(st.none() | st.floats(min_value=0, max_value=1e4))
        turns = [
            turn("interviewer", draw(TEXT), t0),
            turn("candidate", text, None if t0 is None else t0 + 30),
        ]
        r: dict[str, Any] = {"round": rid, "turns": turns}
        if rid == "capacity" and draw(st.booleans()):
            r["variant_seed"] = draw(st.integers(min_value=0, max_value=10_000))
        if draw(st.booleans()):
            r["note"] = draw(JSON_VALUES)  # unknown fields are kept, not refused
        rounds.append(r)
    return {
        "id": draw(st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True)),
        "language": draw(st.sampled_from(["en", "zh"])),
        "rounds": rounds,
    }


def _good_round() -> dict[str, Any]:
    return {"round": "concepts", "turns": [turn("candidate", ANSWERS[0], 1.0)]}


@st.composite
def broken_doc(draw: st.DrawFn) -> Any:
    """A transcript that is almost right, with one thing wrong in it."""
    doc: dict[str, Any] = {"id": "t-x", "language": "en", "rounds": [_good_round()]}
    what = draw(
        st.sampled_from(
            [
                "id",
                "language",
                "rounds",
                "round",
                "turns",
                "turn",
                "role",
                "text",
                "at_s",
                "seed",
                "empty",
                "huge",
                "nul",
                "top",
                "no_candidate",
            ]
        )
    )
    r0 = doc["rounds"][0]
    if what == "id":
        doc["id"] = draw(
            st.sampled_from(["", "x" * 201]) | st.integers() | st.lists(st.integers()) | st.none()
        )
    elif what == "language":
        doc["language"] = draw(st.sampled_from(["fr", "EN", "zh-CN", ""]) | st.integers() | st.none())
    elif what == "rounds":
        doc["rounds"] = draw(
            st.sampled_from([[], {}, "concepts", None, 3]) | st.lists(JSON_SCALARS, min_size=1)
        )
    elif what == "round":
        r0["round"] = draw(
            st.text(max_size=20).filter(lambda s: s not in ROUND_IDS) | st.integers() | st.none()
        )
    elif what == "turns":
        r0["turns"] = draw(st.sampled_from(["hello", {}, 7, None]) | st.lists(JSON_SCALARS, min_size=1))
    elif what == "turn":
        r0["turns"] = [draw(st.dictionaries(st.text(max_size=8).filter(lambda k: k != "role"), JSON_VALUES))]
    elif what == "role":
        r0["turns"][0]["role"] = draw(
            st.text(max_size=12).filter(lambda s: s not in ("interviewer", "candidate"))
        )
    elif what == "text":
        r0["turns"][0]["text"] = draw(
            st.integers() | st.lists(st.text(max_size=5)) | st.none() | st.booleans()
        )
    elif what == "at_s":
        r0["turns"][0]["at_s"] = draw(
            st.floats(max_value=-0.001)
            | st.text(min_size=1, max_size=5)
            | st.lists(st.integers(), min_size=1)
        )
    elif what == "seed":
        r0["variant_seed"] = draw(
            st.text(min_size=1, max_size=6).filter(lambda s: not s.strip().isdigit())
            | st.lists(st.integers(), min_size=1)
        )
    elif what == "empty":
        r0["turns"][0]["text"] = draw(st.sampled_from(["", "   ", "\n\t\n"]))
    elif what == "huge":
        r0["turns"][0]["text"] = "x" * (MAX_ANSWER_CHARS + draw(st.integers(min_value=1, max_value=5000)))
    elif what == "nul":
        r0["turns"][0]["text"] = ANSWERS[0][:20] + "\x00" + draw(st.text(max_size=10))
    elif what == "top":
        return draw(
            st.lists(JSON_VALUES, max_size=3)
            | JSON_SCALARS
            | st.dictionaries(
                st.text(max_size=8).filter(lambda k: k not in ("id", "rounds")), JSON_VALUES, max_size=4
            )
        )
    elif what == "no_candidate":
        r0["turns"] = [turn("interviewer", "What is paged KV?", 0.0)]
    return doc


@st.composite
def malformed_file(draw: st.DrawFn) -> bytes:
    """File contents that are not a gradable transcript: wrong JSON shapes and types, or not JSON at all."""
    kind = draw(st.sampled_from(["json"] * 6 + ["truncated", "binary", "latin1", "bom_garbage", "empty"]))
    if kind == "json":
        return json.dumps(draw(broken_doc()), ensure_ascii=draw(st.booleans())).encode("utf-8")
    if kind == "truncated":
        full = json.dumps(draw(valid_doc())).encode("utf-8")
        return full[: draw(st.integers(min_value=0, max_value=len(full) - 1))]
    if kind == "binary":
        return b"\x89PNG\r\n\x1a\n\x00\x00" + draw(st.binary(max_size=200))
    if kind == "latin1":
        return (
            '{"id": "t", "rounds": [{"round": "concepts", "turns": [{"role": "candidate", "text": "caf'
            + "é" * draw(st.integers(1, 5))
            + '"}]}]}'
        ).encode("latin-1")
    if kind == "bom_garbage":
        return (
            b"\xef\xbb\xbf"
            + draw(st.text(max_size=40).filter(lambda s: not s.strip().startswith("{"))).encode()
        )
    return b""


@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
@given(
    bad=st.lists(malformed_file(), min_size=100, max_size=110),
    good=st.lists(valid_doc(), min_size=2, max_size=4),
)
def test_a_batch_of_malformed_transcripts_with_valid_ones(
    rubric: Rubric, bad: list[bytes], good: list[dict[str, Any]]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files: list[tuple[Path, bool]] = []
        rounds_of: dict[str, int] = {}
        for k, data in enumerate(bad):
            p = folder / f"bad-{k:03d}.json"
            p.write_bytes(data)
            files.append((p, False))
        for k, doc in enumerate(good):
            p = folder / f"good-{k}.json"
            p.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
            files.append((p, True))
            rounds_of[p.name] = len(doc["rounds"])
        order = sorted(files, key=lambda f: hash(f[0].name))  # valid ones in between the bad ones
        outcomes = grade_files(rubric, [p for p, _ in order], replay=grade_with_graph)
    assert [o.source for o in outcomes] == [p for p, _ in order]
    for (path, ok), o in zip(order, outcomes, strict=True):
        if ok:
            assert o.error is None and o.report is not None, (path.name, o.error)
            assert len(o.report.rounds) == rounds_of[path.name]
            assert all(1 <= s <= 5 for r in o.report.rounds for s in r.scores.values())
        else:
            assert o.report is None and o.error, path.name
            assert o.error.startswith(str(path)), o.error  # names the file
            assert "\n" not in o.error and len(o.error) < 1000, o.error  # one clear line


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(doc=valid_doc())
def test_odd_but_valid_transcripts_are_graded(rubric: Rubric, doc: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "t.json"
        p.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        (o,) = grade_files(rubric, [p], replay=grade_with_graph)
    assert o.error is None and o.report is not None, o.error
    assert [r.round for r in o.report.rounds] == [r["round"] for r in doc["rounds"]]


def test_files_too_big_or_unreadable_are_one_line_each(rubric: Rubric, tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b'{"id": "b", "rounds": [' + b" " * 5_100_000 + b"]}")
    folder = tmp_path / "a-folder.json"
    folder.mkdir()
    gone = tmp_path / "gone.json"
    surrogate = tmp_path / "surrogate.json"
    surrogate.write_text(
        '{"id": "s", "rounds": [{"round": "concepts", "turns": [{"role": "candidate", '
        '"text": "paged KV \\ud800 blocks"}]}]}',
        encoding="utf-8",
    )
    nan = tmp_path / "nan.json"
    nan.write_text(
        '{"id": "n", "rounds": [{"round": "concepts", "turns": [{"role": "candidate", '
        '"text": "paged KV", "at_s": NaN}]}]}',
        encoding="utf-8",
    )
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"id": "g", "rounds": [_good_round()]}), encoding="utf-8")
    outcomes = grade_files(rubric, [big, folder, gone, surrogate, nan, good], replay=grade_with_graph)
    errors = {o.source.name: o.error for o in outcomes}
    assert errors["big.json"] and "over the limit" in errors["big.json"]
    assert errors["a-folder.json"] and "cannot read" in errors["a-folder.json"]
    assert errors["gone.json"] and "cannot read" in errors["gone.json"]
    assert errors["nan.json"] and "at_s" in errors["nan.json"]
    assert errors["good.json"] is None
    s = next(o for o in outcomes if o.source == surrogate)
    assert s.report is not None or (s.error and s.error.startswith(str(surrogate)))
