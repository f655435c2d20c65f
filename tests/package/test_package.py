"""`interview package`: the evidence package of a session (issue 13), built from sessions driven through
the real graph API (tests/package/conftest.py)."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import pytest

from agent.graph import answer, get_session, session, start_session
from agent.graph.plan import weakest
from agent.graph.state import GraphContext
from agent.judge import capacity
from agent.package import EvidencePackage, build_package, schema_json, to_json
from agent.package.folder import files, write, zip_bytes
from agent.package.formulas import derivation
from agent.rubric import Rubric
from tests.graph.script import strong
from tests.package.conftest import (
    REASON,
    REVIEWER,
    SNIPPET,
    UNIT_ERROR,
    UNIT_ERROR_ZH,
    Sessions,
    drive,
    full_session,
    override_capacity,
)


def test_override_fallback_and_unit_error_each_show_in_package_json(done: Sessions) -> None:
    data = json.loads(to_json(build_package("first")))
    assert data["schema_version"] == 1 and data["session"]["id"] == "first"

    # question version: rubric, round ids, the exact texts asked, round 3's given values
    qv = data["question_version"]
    assert qv["round_ids"] == ["concepts", "source-trace", "capacity", "system-design", "incident"]
    asked = {r["round"]: r for r in qv["rounds"]}
    stored = {r.round: r for r in done.first.transcript.rounds}
    for rid, r in asked.items():
        assert [a["text"] for a in r["asked"]] == [
            t.text for t in stored[rid].turns if t.role == "interviewer"
        ]
    assert asked["capacity"]["asked"][0]["kind"] == "prompt"
    assert any(a["kind"] == "followup" and a["id"] for a in asked["capacity"]["asked"])
    given = {g["name"]: g["value"] for g in asked["capacity"]["capacity"]["values"]}
    assert asked["capacity"]["capacity"]["variant_seed"] is None
    assert given["params"] == 40e9 and given["tp"] == 4 and given["gpu_gib"] == 80

    # the override: judge and effective score, who and why, and it is disputed evidence
    sheet = {r["round"]: r for r in data["score_sheet"]["rounds"]}
    acc = next(d for d in sheet["capacity"]["dimensions"] if d["dimension"] == "accuracy")
    assert acc["override"]["reviewer"] == REVIEWER and acc["override"]["reason"] == REASON
    assert acc["effective"] == acc["judge"] + 1 == acc["override"]["human_score"]
    assert sheet["capacity"]["effective_total"] == sheet["capacity"]["judge_total"] + 1
    assert data["score_sheet"]["override_log_intact"] is True
    over = [d for d in data["disputed"] if "override" in d["why"]]
    assert [(d["round"], d["dimension"]) for d in over] == [("capacity", "accuracy")]
    assert over[0]["sources"][0]["permalink"] == SNIPPET.permalink
    assert over[0]["sources"][0]["claim"]  # the claim it was checked against

    # the fallback: every incident score is disputed with the judge's failure
    assert sheet["incident"]["fallback"] is True and "judge_fallback" in sheet["incident"]["flags"]
    assert sheet["incident"]["provenance"]["kind"] == "vllm"
    fell = [d for d in data["disputed"] if "fallback" in d["why"]]
    assert {d["round"] for d in fell} == {"incident"} and len(fell) == 5
    assert all("connection refused" in d["fallback_reason"] and d["quotes"] for d in fell)
    assert data["score_sheet"]["judge"]["fallback"] is True

    # the unit error: re-derived quantities, the candidate's value beside the reference
    (f,) = data["formulas"]
    assert f["verdict"] == "unit_or_sharding_error" and f["answer"] == UNIT_ERROR
    steps = {s["quantity"]: s for s in f["steps"]}
    assert steps["weights_per_rank_gib"]["status"] == "unit_error"
    assert steps["weights_per_rank_gib"]["candidate"] == "20 GiB"
    assert steps["weights_per_rank_gib"]["reference"] == pytest.approx(18.626, abs=1e-3)
    assert steps["kv_bytes_per_token"]["status"] == "matched"
    assert "decimal GB taken for binary GiB" in f["unit_errors"]

    # failure evidence, each with its next action
    fails = {x["id"]: x for x in data["failures"]}
    assert fails["units_do_not_close"]["rounds"] == ["capacity"]
    assert any("20 GiB" in e for e in fails["units_do_not_close"]["evidence"])
    assert any("kv_cache_evictor.py" in e for e in fails["nonexistent_path"]["evidence"])
    assert all(x["next_action"] for x in data["failures"])

    # the assumption table: labelled by the candidate, inferred, with the answer they came from
    nums = [a for a in data["assumptions"] if a["round"] == "capacity"]
    assert any(
        a["text"] == "245,760" and a["label"] == "derived" and a["labelled_by"] == "candidate" for a in nums
    )
    assert any(a["labelled_by"] == "inferred" for a in nums)
    assert all(a["answer"] == 0 and a["sentence"] in UNIT_ERROR for a in nums)

    # the transcript with timings against each round's minutes
    tr = {r["round"]: r for r in data["transcript"]}
    assert tr["capacity"]["minutes"] == 15 and tr["capacity"]["used_s"] > 0
    assert tr["capacity"]["turns"][0]["round_elapsed_s"] == 0
    assert data["candidate_questions"] == ["How does the team review capacity plans?"]
    assert any("audio" in o["what"] for o in data["omitted"])


def test_package_json_validates_against_its_schema(done: Sessions) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(schema_json())
    jsonschema.Draft202012Validator.check_schema(schema)
    data = json.loads(to_json(build_package("first")))
    jsonschema.validate(data, schema)
    bad = dict(data, schema_version=2)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    assert EvidencePackage.model_validate(data) == build_package("first")


def test_two_runs_give_identical_bytes(done: Sessions, tmp_path: Path) -> None:
    for fmt in ("html", "md"):
        a = write(build_package("first"), tmp_path / f"a-{fmt}", fmt)
        b = write(build_package("first"), tmp_path / f"b-{fmt}", fmt)
        assert [p.name for p in a] == [p.name for p in b]
        for pa, pb in zip(a, b, strict=True):
            assert pa.read_bytes() == pb.read_bytes(), pa.name
    assert zip_bytes(build_package("first"), "x") == zip_bytes(build_package("first"), "x")
    text = (tmp_path / "a-html" / "package.json").read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), ensure_ascii=False, sort_keys=True, indent=2) + "\n"


def test_html_is_one_self_contained_page(done: Sessions) -> None:
    page = files(build_package("first"), "html")["index.html"].decode("utf-8")
    assert (
        "<link" not in page and "<script" not in page and "@import" not in page and "@font-face" not in page
    )
    assert not re.search(r"""(src|href)=["'](?!https://github\.com/vllm-project/vllm/blob/)""", page)
    assert "WenQuanYi Micro Hei" in page and "Noto Sans CJK SC" in page
    for needle in (REASON, "connection refused", "decimal GB taken for binary GiB", SNIPPET.permalink):
        assert needle in page or needle.replace("&", "&amp;") in page


def test_redo_session_shows_both_attempts_side_by_side(done: Sessions, rubric: Rubric) -> None:
    first = done.first
    assert first.report is not None
    picked = {a.round for a in weakest(first.report.rounds)}
    v = start_session("redo first", "en", session_id="second")
    texts: dict[str | None, str] = {rid: strong(rubric, rid) for rid in picked}
    v = drive(v, texts, {})
    data = json.loads(to_json(build_package("second")))
    assert data["session"]["previous_session"] == "first"
    retry = data["retry"]
    assert retry["previous_session"] == "first"
    assert {r["round"] for r in retry["rounds"]} == picked
    before = {a.round: a for a in first.report.rounds}
    assert v.report is not None
    after = {a.round: a for a in v.report.rounds}
    for r in retry["rounds"]:
        assert r["before_total"] == before[r["round"]].total and r["after_total"] == after[r["round"]].total
        assert [d["dimension"] for d in r["dimensions"]] == list(before[r["round"]].scores)
        for d in r["dimensions"]:
            assert d["before"] == before[r["round"]].scores[d["dimension"]]
            assert d["after"] == after[r["round"]].scores[d["dimension"]]
            assert d["delta"] == d["after"] - d["before"]
            assert d["quotes_before"] == before[r["round"]].quotes.get(d["dimension"], [])
        if r["round"] == "capacity":  # the first attempt's override shows as its effective score
            acc = next(d for d in r["dimensions"] if d["dimension"] == "accuracy")
            assert acc["before_effective"] == acc["before"] + 1
    page = files(build_package("second"), "html")["index.html"].decode("utf-8")
    assert "Second attempt compared with first" in page


def test_unfinished_session_names_what_it_could_not_include(flaky: GraphContext) -> None:
    v = start_session("capacity", "en", session_id="halfway")
    answer(v.session_id, UNIT_ERROR, at_s=30)
    pkg = build_package("halfway")
    assert pkg.score_sheet is None and pkg.formulas == [] and pkg.retry is None
    assert any("not finished" in o.why for o in pkg.omitted)
    assert pkg.transcript[0].turns[1].text == UNIT_ERROR


def test_a_chinese_package_says_what_it_left_out_in_chinese(flaky: GraphContext) -> None:
    """What a package could not include is read by the coach in the session's language."""
    v = start_session("capacity", "zh", session_id="zh-halfway")
    answer(v.session_id, UNIT_ERROR_ZH, at_s=30)
    pkg = build_package("zh-halfway")
    assert len(pkg.omitted) == 2
    for o in pkg.omitted:
        assert not re.search(r"[A-Za-z]{3,}", o.what + o.why), o
    assert any("尚未结束" in o.why for o in pkg.omitted)


@pytest.mark.parametrize("seed", [None, 1, 42, 7777])
def test_formulas_evaluate_to_the_checker_reference(seed: int | None) -> None:
    p = capacity.variant(seed).params if seed is not None else capacity.CapacityParams()
    ref = capacity.reference(p).model_dump()
    for qty, _unit, _formula, substituted, value in derivation(p):
        expr = (
            substituted.replace("×", "*")
            .replace("−", "-")
            .replace("2^30", "2**30")
            .replace("floor", "math.floor")
        )
        expr = re.sub(r"\b(GiB|B)\b", "", expr)
        assert eval(expr, {"math": math}) == pytest.approx(value, rel=1e-4), qty
        assert value == pytest.approx(ref[qty])


def test_chinese_session_package(flaky: GraphContext, rubric: Rubric) -> None:
    v = start_session("capacity", "zh", session_id="zh-one")
    v = drive(v, {"capacity": "我会先问：权重是否复制？block size 是多少？"}, {"capacity": UNIT_ERROR_ZH})
    pkg = build_package("zh-one")
    assert pkg.language == "zh"
    assert {a.label_text for a in pkg.assumptions} <= {"题设", "推导", "观测", "估计", "未标注"}
    assert any(a.label_text == "推导" and a.labelled_by == "candidate" for a in pkg.assumptions)
    assert pkg.formulas[0].verdict == "unit_or_sharding_error"
    given = pkg.question_version.rounds[0].capacity
    assert given is not None and given.values[0].description == "参数量"
    page = files(pkg, "html")["index.html"].decode("utf-8")
    assert '<html lang="zh-CN">' in page and "面试证据包" in page and "单位未闭合" in page


def test_full_session_fixture_is_reusable(flaky: GraphContext, rubric: Rubric) -> None:
    """Two sessions in one data dir: each package holds its own overrides only."""
    a = full_session(rubric, "a")
    b = full_session(rubric, "b")
    override_capacity(a)
    assert build_package("b").score_sheet is not None
    assert not [d for d in build_package("b").disputed if "override" in d.why]
    assert [d.dimension for d in build_package("a").disputed if "override" in d.why] == ["accuracy"]
    assert get_session("b").report == b.report


def test_each_failure_seen_becomes_the_next_action(flaky: GraphContext) -> None:
    """A candidate who never asks for a missing input: the interviewer had to prompt, and the package says
    what to do next time, with the follow-ups that had to be asked as evidence."""
    v = start_session("capacity", "en", session_id="silent")
    v = drive(v, {"capacity": "No."}, {"capacity": "Weights 40e9 x 2 bytes = 80 GB, so 20 GiB per rank."})
    pkg = build_package("silent")
    got = {f.id: f for f in pkg.failures}
    assert list(got) == ["prompted_for_requirements", "units_do_not_close"]  # the seed's order
    asked = [t.text for t in v.transcript.rounds[0].turns if t.role == "interviewer"][1:]
    assert asked and set(asked) <= set(got["prompted_for_requirements"].evidence)
    assert got["prompted_for_requirements"].next_action.startswith("Before the first number")


def test_disputed_round_without_source_snippets_says_why(
    flaky: GraphContext, rubric: Rubric, monkeypatch: pytest.MonkeyPatch
) -> None:
    bare = dataclasses.replace(flaky, sources=None)
    monkeypatch.setattr(session, "graph_context", lambda rubric=None: bare)
    v = start_session("capacity", "en", session_id="no-index")
    v = drive(v, {"capacity": "No."}, {"capacity": UNIT_ERROR})
    override_capacity(v)
    pkg = build_package("no-index")
    (d,) = [d for d in pkg.disputed if "override" in d.why]
    assert d.sources == []
    assert [o.what for o in pkg.omitted if "snippets" in o.what] == [
        f"vLLM source snippets for the disputed round {rubric.round('capacity').title.en}"
    ]
