"""The app through its API (`gradio_client`), against the real graph, override log and voice."""

from __future__ import annotations

import html
import json
import re
import sqlite3
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from gradio_client import Client, handle_file

from agent.overrides import OverrideLog
from tests.ui.conftest import USERS, Served

# what each event returns, in order (gr.State outputs are not part of the API)
P_SID, P_PROGRESS, P_QUESTION, P_AUDIO, P_ANSWER, P_STATUS, P_RESULT, P_SOURCES, P_REPORT, P_VIEW = range(10)
(
    C_SID,
    C_PROGRESS,
    C_QUESTION,
    C_WAITING,
    C_ANSWER,
    C_SUGG,
    C_PICK,
    C_NEXT,
    C_DRAFT,
    C_SOURCES,
    C_STATUS,
    C_VIEW,
) = range(12)
R_STATUS, R_SUMMARY, R_TABLE, R_ROUND, R_LOG = range(5)
SCORE_ROW = re.compile(
    r"data-round='(?P<round>[^']*)' data-dimension='(?P<dim>[^']*)' "
    r"data-judge='(?P<judge>\d+)' data-effective='(?P<effective>\d+)'.*?</details>",
    re.S,
)
LOG_ROW = re.compile(
    r"<tr data-id='(?P<id>\d+)' data-round='(?P<round>[^']*)' data-dimension='(?P<dim>[^']*)'>(?P<cells>.*?)</tr>"
)


def score_rows(table: str) -> dict[tuple[str, str], dict[str, Any]]:
    """Review's scores (HTML, a row per round and dimension) by (round id, dimension id): the judge and
    the effective score from the row's data attributes, and the row's text."""
    return {
        (m["round"], m["dim"]): {
            "judge": int(m["judge"]),
            "effective": int(m["effective"]),
            "text": html.unescape(re.sub(r"<[^>]+>", " ", m.group(0))),
        }
        for m in SCORE_ROW.finditer(table)
    }


def log_rows(log: str) -> list[list[str]]:
    """Review's override log (HTML): each row's round id, dimension id, then its cells as shown."""
    return [
        [m["round"], m["dim"], *(html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", m["cells"]))]
        for m in LOG_ROW.finditer(log)
    ]


GOOD_ANSWER = (
    "Paged KV cache splits the KV cache into fixed-size blocks, so memory is not reserved for the maximum "
    "length and fragmentation stays low; the block table maps logical tokens to physical blocks. Continuous "
    "batching reschedules at every step so finished requests leave and new ones join. Prefix caching reuses "
    "the KV blocks of a shared prefix by hashing full blocks. I would verify in vllm/v1/core/kv_cache_manager.py "
    "and roll back if p95 latency regresses after the change."
)


def client(served: Served, tmp_path: Path, auth: tuple[str, str] | None = None) -> Client:
    return Client(served.url, verbose=False, download_files=str(tmp_path), analytics_enabled=False, auth=auth)


def finished_practice(c: Client, answer: str = GOOD_ANSWER, plan: str = "concepts") -> tuple[Any, ...]:
    c.predict(plan, "en", "", api_name="/start_practice")
    c.predict(answer, api_name="/send_answer")
    return tuple(c.predict(api_name="/finish_round"))


def test_every_event_has_an_api_name(served: Served) -> None:
    fns = served.app.fns.values()  # type: ignore[attr-defined]
    assert fns
    assert [f for f in fns if not f.api_name] == []


def test_practice_by_typing_shows_the_question_then_scores_with_quotes(
    served: Served, tmp_path: Path
) -> None:
    c = client(served, tmp_path)
    out = c.predict("concepts", "en", "", api_name="/start_practice")
    sid = out[P_SID]
    assert sid and "paged KV cache" in out[P_QUESTION]
    assert "Round 1 of 1" in out[P_PROGRESS] and "/ 05:00" in out[P_PROGRESS]
    audio, note = c.predict("en", api_name="/speak_question")  # the page runs it when the question changes
    assert Path(audio).stat().st_size > 10_000 and note == ""
    out = c.predict(GOOD_ANSWER, api_name="/send_answer")
    assert out[P_VIEW]["status"] == "waiting" and out[P_ANSWER] == ""
    assert out[P_VIEW]["question"] != "paged KV cache"  # a follow-up
    out = c.predict(api_name="/finish_round")
    view = out[P_VIEW]
    assert view["status"] == "done" and view["session_id"] == sid
    assert "| Accuracy |" in out[P_REPORT] and "Quotes" in out[P_REPORT]
    assert "fixed-size blocks" in out[P_REPORT]  # a verbatim quote from the answer
    assert "kv_cache_manager.py" in out[P_SOURCES] and "github.com/vllm-project/vllm/blob/" in out[P_SOURCES]


def test_an_empty_answer_gets_a_message_and_the_question_stays(served: Served, tmp_path: Path) -> None:
    c = client(served, tmp_path)
    first = c.predict("capacity", "en", "", api_name="/start_practice")
    out = c.predict("   ", api_name="/send_answer")
    assert "empty" in out[P_STATUS].lower()
    assert out[P_VIEW]["question"] == first[P_VIEW]["question"] and out[P_VIEW]["status"] == "waiting"


def test_a_session_can_be_left_and_resumed(served: Served, tmp_path: Path) -> None:
    c = client(served, tmp_path)
    sid = c.predict("full", "en", "", api_name="/start_practice")[P_SID]
    c.predict("I would first ask which inputs are given.", api_name="/send_answer")
    again = client(served, tmp_path)  # a new page: another API session, so another owner
    assert "no such session" in again.predict(sid, api_name="/resume_practice")[P_STATUS]
    out = c.predict(sid, api_name="/resume_practice")  # the same client resumes
    assert out[P_SID] == sid and "resumed" in out[P_STATUS]
    turns = out[P_VIEW]["transcript"]["rounds"][0]["turns"]
    assert any(t["text"] == "I would first ask which inputs are given." for t in turns)


def test_a_spoken_answer_is_transcribed_into_the_editable_answer(
    served: Served, tmp_path: Path, speak_wav: Callable[[str], Path]
) -> None:
    c = client(served, tmp_path)
    c.predict("incident", "en", "", api_name="/start_practice")
    wav = speak_wav("I would roll back the deployment and check the latency.")
    text, status = c.predict(handle_file(str(wav)), "First,", "en", api_name="/transcribe_practice")
    assert text.startswith("First, ") and "roll back" in text.lower() and "latency" in text.lower()
    assert "Transcribed" in status


def test_undecodable_audio_gets_a_clear_message_and_keeps_the_typed_text(
    served: Served, tmp_path: Path
) -> None:
    c = client(served, tmp_path)
    bad = tmp_path / "answer.wav"
    bad.write_bytes(b"RIFF\x00\x00\x00\x00WAVE" + b"this is not audio" * 50)
    text, status = c.predict(handle_file(str(bad)), "typed so far", "en", api_name="/transcribe_practice")
    assert text == "typed so far"
    assert "could not decode the audio" in status and "type the answer" in status


def test_no_upload_path_reads_a_file_outside_the_upload_folder(served: Served) -> None:
    """A request that names a server file instead of uploading one is refused, and nothing leaks."""
    for endpoint, data in [
        ("open_report_file", [{"path": "/etc/passwd", "meta": {"_type": "gradio.FileData"}}, "en"]),
        (
            "transcribe_practice",
            [{"path": "/etc/hostname", "meta": {"_type": "gradio.FileData"}}, "", "en", "en"],
        ),
    ]:
        r = httpx.post(f"{served.url}gradio_api/call/{endpoint}", json={"data": data}, timeout=30)
        assert r.status_code == 200, r.text
        event_id = r.json()["event_id"]
        stream = httpx.get(f"{served.url}gradio_api/call/{endpoint}/{event_id}", timeout=60).text
        assert "event: error" in stream or "refused" in stream or "only from uploads" in stream, stream
        assert "root:" not in stream


def test_copilot_suggests_followups_with_why_and_records_decisions(served: Served, tmp_path: Path) -> None:
    c = client(served, tmp_path)
    out = c.predict("capacity", "en", api_name="/start_copilot")
    sid = out[C_SID]
    assert "Given" in out[C_QUESTION] and "candidate" in out[C_WAITING]
    out = c.predict(
        "Weights are 40e9 x 2 B = 80e9 B, about 74.5 GiB (derived), 18.6 GiB per rank.",
        api_name="/record_answer",
    )
    assert out[C_VIEW]["awaiting"] == "interviewer"
    assert out[C_QUESTION].startswith("**Question (answered):** Given")  # it stays until the next is asked
    suggestions = out[C_VIEW]["suggestions"]
    assert suggestions and all(s["why"] for s in suggestions)
    assert suggestions[0]["text"] in out[C_SUGG] and suggestions[0]["why"][0][:30] in out[C_SUGG]
    assert "Draft scores" in out[C_DRAFT] and "kv_cache_manager.py" in out[C_SOURCES]
    pick = suggestions[1]["text"]
    assert c.predict(pick, "", api_name="/use_followup") == pick
    out = c.predict(pick, api_name="/ask_question")
    assert out[C_VIEW]["question"] == pick and out[C_VIEW]["awaiting"] == "candidate"
    # each decision answers with its line and the draft again, the decisions standing under it
    msg, draft = c.predict("accuracy", 3, "", "Dana", "en", api_name="/copilot_accept")
    assert msg.startswith("✓ Accepted") and "→" not in msg  # an accept is no "3 → 3" (issue 12)
    assert "Your decisions on this round" in draft and "Accuracy" in draft and "accepted (Dana)" in draft
    msg, draft = c.predict(
        "validation", 4, "named the N+1 reserve out loud", "Dana", "en", api_name="/copilot_override"
    )
    assert msg.startswith("✓") and "→ 4" in msg and "→ 4 (Dana)" in draft
    rows = OverrideLog(served.data_dir / "overrides.sqlite").rows(sid)
    assert [(r.dimension, r.human_score == r.judge_score, r.reviewer) for r in rows] == [
        ("accuracy", True, "Dana"),
        ("validation", False, "Dana"),
    ]
    assert rows[1].reason == "named the N+1 reserve out loud" and rows[1].round == "capacity"
    assert rows[0].judge_model and rows[0].rubric_version.startswith("rubric-")
    msg, _ = c.predict("validation", 2, "", "Dana", "en", api_name="/copilot_override")
    assert "reason" in msg.lower() and len(OverrideLog(served.data_dir / "overrides.sqlite").rows(sid)) == 2
    # Accept after an override would undo it: refused, saying how to go back; accepting again adds nothing
    msg, _ = c.predict("validation", 3, "", "Dana", "en", api_name="/copilot_accept")
    assert msg.startswith("⚠️ Not accepted: Capacity math · Validation / rollback has your override 4/5")
    assert "save an override of" in msg
    msg, _ = c.predict("accuracy", 3, "", "Dana", "en", api_name="/copilot_accept")
    assert msg.startswith("✓ Already in the log") and "log row 1" in msg
    assert len(OverrideLog(served.data_dir / "overrides.sqlite").rows(sid)) == 2


def _report_file(tmp_path: Path, c: Client) -> tuple[Path, str]:
    sid = finished_practice(c)[P_SID]
    view = c.predict(sid, "en", api_name="/open_session_report")
    assert view[R_STATUS].startswith("Opened")
    out = tmp_path / "report.json"
    download = c.predict(sid, "en", api_name="/open_report")[3]["value"]
    out.write_text(Path(download).read_text(encoding="utf-8"), encoding="utf-8")
    return out, sid


def test_review_a_report_file_override_with_reason_and_see_the_log_row(
    served: Served, tmp_path: Path
) -> None:
    c = client(served, tmp_path)
    path, sid = _report_file(tmp_path, c)
    out = c.predict(handle_file(str(path)), "en", api_name="/open_report_file")
    assert (
        out[R_STATUS]
        == f"Opened {sid} (the stored session's report; the uploaded file's scores are not used)."
    )
    rows = score_rows(out[R_TABLE])
    assert len(rows) == 5 and "Concept quick-fire" in rows["concepts", "tradeoffs"]["text"]
    judge = rows["concepts", "tradeoffs"]["judge"]
    assert rows["concepts", "tradeoffs"]["effective"] == judge
    new = 5 if judge != 5 else 4
    saved = c.predict(
        "concepts",
        "tradeoffs",
        new,
        "weighed block size against waste",
        "Rui",
        "en",
        api_name="/save_override",
    )
    msg, _summary, table, log = saved
    assert msg.startswith("✓") and f"→ {new}" in msg and "Rui" in msg
    row = score_rows(table)["concepts", "tradeoffs"]
    assert (row["judge"], row["effective"]) == (judge, new)
    assert "overridden by Rui" in row["text"] and "weighed block size against waste" in row["text"]
    assert log_rows(log)[-1][:2] == ["concepts", "tradeoffs"]
    assert log_rows(log)[-1][4:] == [
        "Concept quick-fire",
        "Tradeoffs",
        str(judge),
        str(new),
        "Rui",
        "weighed block size against waste",
    ]


def test_review_refuses_an_override_without_reason_or_reviewer(served: Served, tmp_path: Path) -> None:
    c = client(served, tmp_path)
    sid = finished_practice(c)[P_SID]
    c.predict(sid, "en", api_name="/open_session_report")
    before = len(OverrideLog(served.data_dir / "overrides.sqlite").rows(sid))
    assert (
        "reason"
        in c.predict("concepts", "accuracy", 3, " ", "Rui", "en", api_name="/save_override")[0].lower()
    )
    assert (
        "reviewer"
        in c.predict("concepts", "accuracy", 3, "why", "", "en", api_name="/save_override")[0].lower()
    )
    assert len(OverrideLog(served.data_dir / "overrides.sqlite").rows(sid)) == before


def test_a_locked_override_log_says_so_and_keeps_the_entry(served: Served, tmp_path: Path) -> None:
    c = client(served, tmp_path)
    sid = finished_practice(c)[P_SID]
    c.predict(sid, "en", api_name="/open_session_report")
    log = served.data_dir / "overrides.sqlite"
    c.predict("concepts", "accuracy", 2, "warm-up row", "Rui", "en", api_name="/save_override")
    holder = sqlite3.connect(log, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        msg = c.predict("concepts", "accuracy", 4, "second opinion", "Rui", "en", api_name="/save_override")[
            0
        ]
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert msg.startswith("⚠️ Not saved") and "locked by another process" in msg and "kept in the form" in msg
    assert "second opinion" not in [r.reason for r in OverrideLog(log).rows(sid)]


def test_a_lost_override_log_is_said_in_review_not_shown_as_empty(served: Served, tmp_path: Path) -> None:
    """The log file removed after a row was written: Review warns (in both languages) instead of reading
    'No override yet.', and the judge's scores are what it shows."""
    c = client(served, tmp_path)
    sid = finished_practice(c)[P_SID]
    c.predict(sid, "en", api_name="/open_session_report")
    c.predict("concepts", "accuracy", 2, "kept row", "Rui", "en", api_name="/save_override")
    log = served.data_dir / "overrides.sqlite"
    saved = log.read_bytes()
    log.unlink()
    try:
        out = c.predict(sid, "en", api_name="/open_session_report")
        assert "No override yet" not in out[R_LOG], out[R_LOG]
        assert "could not be verified" in out[R_LOG] and "interview override verify" in out[R_LOG], out[R_LOG]
        zh = c.predict(sid, "zh", api_name="/open_session_report")
        assert "改分记录校验未通过" in zh[R_LOG], zh[R_LOG]
    finally:
        log.write_bytes(saved)
    out = c.predict(sid, "en", api_name="/open_session_report")
    assert "could not be verified" not in out[R_LOG] and "kept row" in out[R_LOG]


def test_review_grades_an_uploaded_transcript_and_names_a_bad_file(served: Served, tmp_path: Path) -> None:
    c = client(served, tmp_path)
    transcript = {
        "id": "t-upload",
        "language": "en",
        "rounds": [{"round": "concepts", "turns": [{"role": "candidate", "text": GOOD_ANSWER}]}],
    }
    p = tmp_path / "t.json"
    p.write_text(json.dumps(transcript), encoding="utf-8")
    out = c.predict(handle_file(str(p)), "en", api_name="/open_report_file")
    assert out[R_STATUS].startswith("Opened t-upload (transcript, graded now). It names no stored session")
    assert ":t-upload." in out[R_STATUS] and len(score_rows(out[R_TABLE])) == 5
    bad = tmp_path / "bad.json"
    bad.write_text('{"id": "x", "rounds": [{"round": "nope"}]}', encoding="utf-8")
    out = c.predict(handle_file(str(bad)), "en", api_name="/open_report_file")
    assert out[R_STATUS].startswith("⚠️ Cannot open this file") and "unknown round" in out[R_STATUS]


def test_reports_chart_history_comparison_and_downloads(served: Served, tmp_path: Path) -> None:
    c = client(served, tmp_path)
    first = finished_practice(c, "I don't know; I would read the scheduler source to find out.")[P_SID]
    second = finished_practice(c)[P_SID]
    sessions, history, a, b = c.predict("en", api_name="/list_reports")
    assert sessions["value"] == second
    assert [row[0] for row in history["data"]][:2] == [second, first]
    assert history["data"][0][1] == "Concept quick-fire (5 min) · practice"  # the plan by name, and its mode
    assert [c[1] for c in sessions["choices"]][:2] == [second, first]
    assert sessions["choices"][0][0].startswith("Concept quick-fire (5 min) · ")
    assert (a["value"], b["value"]) == (first, second)
    status, plot, summary, json_file, md_file, pkg_zip, pkg_page = c.predict(
        second, "en", api_name="/open_report"
    )
    assert status == "" and plot is not None and "Concept quick-fire" in summary
    # the session's evidence package: the zip (page, package.json, its schema) and the page alone, now
    # enabled (an update: its value and interactive)
    assert pkg_zip["interactive"] is True and pkg_page["interactive"] is True
    pkg_zip, pkg_page = pkg_zip["value"], pkg_page["value"]
    assert json_file["interactive"] is True and md_file["interactive"] is True  # so are the report's own
    json_file, md_file = json_file["value"], md_file["value"]
    with zipfile.ZipFile(pkg_zip) as z:
        assert sorted(z.namelist()) == sorted(
            f"evidence-{second}/{n}" for n in ("index.html", "package.json", "package.schema.json")
        )
        assert json.loads(z.read(f"evidence-{second}/package.json"))["session"]["id"] == second
    assert Path(pkg_zip).name == f"evidence-{second}.zip"
    assert f"Evidence package: {second}" in Path(pkg_page).read_text(encoding="utf-8")
    doc = json.loads(Path(json_file).read_text(encoding="utf-8"))
    assert doc["id"] == second and len(doc["effective_scores"]) == 5 and doc["judge"]["rubric_version"]
    md = Path(md_file).read_text(encoding="utf-8")
    assert md.startswith(f"# Interview report: {second}")
    # the full transcript in both exports, not only quoted fragments
    turns = [t for r in doc["transcript"]["rounds"] for t in r["turns"]]
    assert [t["role"] for t in turns][:2] == ["interviewer", "candidate"] and turns[1]["text"] == GOOD_ANSWER
    assert "## Transcript" in md and GOOD_ANSWER in md
    cmp, said = c.predict(first, second, "en", api_name="/compare_attempts")
    assert [r[1] for r in cmp["data"]][-1] == "Total" and len(cmp["data"]) == 6 and said == ""
    assert all(int(r[4]) == r[3] - r[2] for r in cmp["data"])
    # an attempt that cannot be compared: said in place, in the page's language, not raised as an error
    for lang, refused in (("en", "⚠️ No such session: nope"), ("zh", "⚠️ 没有这个会话：nope")):
        cmp, said = c.predict("nope", second, lang, api_name="/compare_attempts")
        assert said == refused and not any(any(r) for r in cmp["data"])


def test_two_users_do_not_see_each_others_sessions(served: Served, tmp_path: Path) -> None:
    a, b = client(served, tmp_path), client(served, tmp_path)
    sid_a = a.predict("concepts", "en", "", api_name="/start_practice")[P_SID]
    a.predict("Alice's secret answer about paged blocks.", api_name="/send_answer")
    sid_b = b.predict("concepts", "en", "", api_name="/start_practice")[P_SID]
    out_b = b.predict("Bob answers differently.", api_name="/send_answer")
    assert "Alice" not in json.dumps(out_b[P_VIEW])
    assert "no such session" in b.predict(sid_a, api_name="/resume_practice")[P_STATUS]
    assert "no such session" in b.predict(sid_a, "en", api_name="/open_session_report")[R_STATUS]
    assert "no such session" in b.predict(sid_a, "en", api_name="/open_report")[0]
    _, history, _, _ = b.predict("en", api_name="/list_reports")
    assert sid_a not in json.dumps(history)
    assert sid_b != sid_a


def test_the_language_switch_translates_the_labels(served: Served, tmp_path: Path) -> None:
    c = client(served, tmp_path)
    updates = c.predict("zh", api_name="/set_ui_language")
    text = json.dumps(updates, ensure_ascii=False)
    for zh in ("界面语言", "面试计划", "或按编号继续", "选择追问", "你的评分", "理由（必填）", "历次面试"):
        assert zh in text  # (tabs and buttons are not API output: the browser test sees them switch)
    out = c.predict("concepts", "zh", "", "zh", api_name="/start_practice")
    assert "第 1 / 1 轮" in out[P_PROGRESS] and out[P_STATUS] == f"会话 {out[P_SID]} 已开始。"
    assert out[P_VIEW]["language"] == "zh" and any(
        "\u4e00" <= ch <= "\u9fff" for ch in out[P_VIEW]["question"]
    )


def test_with_a_login_sessions_and_overrides_belong_to_the_signed_in_user(
    served_login: Served, tmp_path: Path
) -> None:
    with pytest.raises(Exception):  # noqa: B017 - gradio_client raises its own kinds on a refused login
        client(served_login, tmp_path, auth=("alice", "wrong-password"))
    alice = client(served_login, tmp_path, auth=("alice", USERS["alice"]))
    bob = client(served_login, tmp_path, auth=("bob", USERS["bob"]))
    sid = finished_practice(alice)[P_SID]
    assert "no such session" in bob.predict(sid, api_name="/resume_practice")[P_STATUS]
    alice.predict(sid, "en", api_name="/open_session_report")
    msg = alice.predict(
        "concepts", "accuracy", 4, "reviewed the recording", "Mallory", "en", api_name="/save_override"
    )[0]
    assert msg.startswith("✓") and "alice" in msg and "Mallory" not in msg
    [row] = OverrideLog(served_login.data_dir / "overrides.sqlite").rows(sid)
    assert row.reviewer == "alice"
    anonymous = httpx.post(
        f"{served_login.url}gradio_api/call/start_practice", json={"data": ["concepts", "en", "", "en"]}
    )
    assert anonymous.status_code in (401, 403)


# ------------------------------------------------------------------ overrides stay with their session


def _login(served: Served, tmp_path: Path, name: str) -> Client:
    d = tmp_path / name
    d.mkdir(exist_ok=True)
    return client(served, d, auth=(name, USERS[name]))


def _judge(out: Any, dimension: str) -> int:
    return int(score_rows(out[R_TABLE])["concepts", dimension]["judge"])


def test_an_uploaded_report_of_another_users_session_is_refused(served_login: Served, tmp_path: Path) -> None:
    """Bob uploads Alice's report: he sees none of her overrides and cannot write one on her session."""
    alice, bob = _login(served_login, tmp_path, "alice"), _login(served_login, tmp_path, "bob")
    path, sid = _report_file(tmp_path, alice)
    alice.predict(sid, "en", api_name="/open_session_report")
    note = "alice's private note on the recording"
    assert alice.predict("concepts", "accuracy", 1, note, "", "en", api_name="/save_override")[0].startswith(
        "✓"
    )
    log = OverrideLog(served_login.data_dir / "overrides.sqlite")
    before = log.rows(sid)
    out = bob.predict(handle_file(str(path)), "en", api_name="/open_report_file")
    assert out[R_STATUS].startswith("⚠️") and "not yours" in out[R_STATUS] and sid in out[R_STATUS]
    shown = json.dumps(out)
    assert note not in shown and "alice" not in shown
    saved = bob.predict("concepts", "accuracy", 5, "bob says 5", "", "en", api_name="/save_override")[0]
    assert not saved.startswith("✓")
    assert log.rows(sid) == before  # Alice's effective scores are hers alone


def test_a_reviewer_reviews_another_users_session_with_its_stored_scores(
    served_login: Served, tmp_path: Path
) -> None:
    """A reviewer (INTERVIEW_REVIEWERS) may open and override anyone's session; the judge score in the
    log is the stored report's, never the uploaded file's, whoever uploads it."""
    alice, bob = _login(served_login, tmp_path, "alice"), _login(served_login, tmp_path, "bob")
    rita = _login(served_login, tmp_path, "rita")
    path, sid = _report_file(tmp_path, alice)
    doc = json.loads(path.read_text(encoding="utf-8"))
    stored = doc["rounds"][0]["scores"]["tradeoffs"]
    doc["rounds"][0]["scores"]["tradeoffs"] = forged = 1 if stored != 1 else 2
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(doc), encoding="utf-8")
    for who in (alice, rita):
        out = who.predict(handle_file(str(tampered)), "en", api_name="/open_report_file")
        assert out[R_STATUS].startswith(f"Opened {sid}"), out[R_STATUS]
        assert _judge(out, "tradeoffs") == stored != forged
    msg = rita.predict(
        "concepts", "tradeoffs", 5, "second reviewer", "Mallory", "en", api_name="/save_override"
    )[0]
    assert msg.startswith("✓") and "rita" in msg
    row = OverrideLog(served_login.data_dir / "overrides.sqlite").rows(sid)[-1]
    assert (row.judge_score, row.human_score, row.reviewer) == (stored, 5, "rita")
    assert rita.predict(sid, "en", api_name="/open_session_report")[R_STATUS].startswith(f"Opened {sid}")
    assert "no such session" in bob.predict(sid, "en", api_name="/open_session_report")[R_STATUS]


def test_an_upload_naming_no_stored_session_is_kept_apart_per_uploader(
    served_login: Served, tmp_path: Path
) -> None:
    alice, bob = _login(served_login, tmp_path, "alice"), _login(served_login, tmp_path, "bob")
    transcript = {
        "id": "t-shared",
        "language": "en",
        "rounds": [{"round": "concepts", "turns": [{"role": "candidate", "text": GOOD_ANSWER}]}],
    }
    p = tmp_path / "t.json"
    p.write_text(json.dumps(transcript), encoding="utf-8")
    for who, name in ((alice, "alice"), (bob, "bob")):
        out = who.predict(handle_file(str(p)), "en", api_name="/open_report_file")
        assert out[R_STATUS].startswith("Opened t-shared") and f"upload:{name}:t-shared" in out[R_STATUS]
        saved = who.predict(
            "concepts", "evidence", 2, f"{name}'s reading", "", "en", api_name="/save_override"
        )
        assert saved[0].startswith("✓")
        assert [r[-1] for r in log_rows(saved[3])] == [f"{name}'s reading"]  # only the uploader's own rows
    log = OverrideLog(served_login.data_dir / "overrides.sqlite")
    assert log.rows("t-shared") == []
    assert [r.reviewer for r in log.rows("upload:alice:t-shared")] == ["alice"]
    assert [r.reviewer for r in log.rows("upload:bob:t-shared")] == ["bob"]
    transcript["id"] = "upload:alice:t-shared"  # naming Alice's key gets Bob a key of his own
    p.write_text(json.dumps(transcript), encoding="utf-8")
    out = bob.predict(handle_file(str(p)), "en", api_name="/open_report_file")
    assert "alice's reading" not in json.dumps(out) and "upload:bob:upload:alice:t-shared" in out[R_STATUS]
