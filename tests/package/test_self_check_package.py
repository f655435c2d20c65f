"""The self-check round in the evidence package (issue 13): its four questions in the question version,
its scores in the score sheet, its turns in the timed transcript, named in the session's language on the
page and in the Markdown, like any round; and from the terminal, `interview practice --plan self-check`
then `interview package`."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from agent.graph import SessionView, answer, get_session, start_session
from agent.graph.report import session_markdown
from agent.package import build_package, schema_json, to_json
from agent.package.folder import files
from agent.rubric import Lang, Rubric
from tests import self_check_answers
from tests.graph.script import strong
from tests.package.test_terminal import _interview


def _self_check(v: SessionView, rubric: Rubric, at: float) -> SessionView:
    """The good answers to the four questions (a good answer gets no follow-up)."""
    lang: Lang = v.language
    for text in self_check_answers.answers(lang, good=True):
        assert v.round == "self-check"
        at += 60
        v = answer(v.session_id, text, at_s=at)
        assert v.message is None, v.message
    return v


def test_a_session_with_the_self_check_round_has_it_in_its_package(rubric: Rubric) -> None:
    v = start_session("concepts self-check", "en", session_id="with-sc")
    v = answer(v.session_id, strong(rubric, "concepts"), at_s=60)
    while v.round == "concepts":  # a follow-up, should the strong answer leave one open
        v = answer(v.session_id, strong(rubric, "concepts"), at_s=90)
    v = _self_check(v, rubric, 120)
    assert v.status == "done" and v.report is not None
    data = json.loads(to_json(build_package("with-sc")))
    jsonschema.validate(data, json.loads(schema_json()))
    assert data["session"]["plan"] == "concepts self-check"

    qv = data["question_version"]
    assert qv["round_ids"] == ["concepts", "self-check"]
    sc = next(r for r in qv["rounds"] if r["round"] == "self-check")
    assert (sc["title"], sc["minutes"]) == ("Self-check", 8)
    assert [a["kind"] for a in sc["asked"]] == ["prompt", "question", "question", "question"]
    assert [a["text"] for a in sc["asked"]] == self_check_answers.questions("en", rubric)
    assert [a["id"] for a in sc["asked"][1:]] == [q.id for q in rubric.round("self-check").questions]

    sheet = next(r for r in data["score_sheet"]["rounds"] if r["round"] == "self-check")
    live = next(r for r in v.report.rounds if r.round == "self-check")
    assert sheet["judge_total"] == sheet["effective_total"] == live.total >= 20
    assert [d["dimension"] for d in sheet["dimensions"]] == list(live.scores)
    assert {d["dimension"]: d["judge"] for d in sheet["dimensions"]} == live.scores

    tr = next(r for r in data["transcript"] if r["round"] == "self-check")
    said = [t["text"] for t in tr["turns"] if t["role"] == "candidate"]
    assert said == list(self_check_answers.answers("en")) and tr["minutes"] == 8

    page = files(build_package("with-sc"), "html")["index.html"].decode("utf-8")
    assert "Concept quick-fire + Self-check" in page and "Self-check, question 2" in page
    md = files(build_package("with-sc"), "md")["index.md"].decode("utf-8")
    assert "Concept quick-fire + Self-check" in md and "Self-check" in md
    # the session's report, as the app's Markdown export writes it
    report = get_session("with-sc").report
    assert report is not None and "Self-check" in session_markdown(report, rubric)


def test_a_chinese_self_check_package_names_it_in_chinese(rubric: Rubric) -> None:
    v = _self_check(start_session("self-check", "zh", session_id="zh-sc"), rubric, 0.0)
    assert v.status == "done"
    pkg = build_package("zh-sc")
    assert pkg.question_version.round_ids == ["self-check"]
    assert pkg.question_version.rounds[0].title == "自检"
    page = files(pkg, "html")["index.html"].decode("utf-8")
    assert "自检第 4 题：项目结果没有历史看板（dashboard）时，怎样诚实又有价值地回答？" in page
    assert '<html lang="zh-CN">' in page and "自检" in page


def test_self_check_from_the_terminal_then_its_package(tmp_path: Path) -> None:
    data = tmp_path / "data"
    stdin = "".join(f"{a}\n.\n" for a in self_check_answers.answers("zh")) + "不太确定。\n.\n" * 4
    r = _interview(["practice", "--plan", "self-check", "--lang", "zh", "--session", "sc1"], data, stdin)
    assert r.returncode == 0, r.stderr
    assert "Q: 自检第 1 题" in r.stdout and "Q: 自检第 4 题" in r.stdout and "自检" in r.stdout
    out = tmp_path / "pkg"
    r = _interview(["package", "sc1", "--out", str(out), "--format", "md"], data)
    assert r.returncode == 0, r.stderr
    pkg = json.loads((out / "package.json").read_text(encoding="utf-8"))
    assert pkg["question_version"]["round_ids"] == ["self-check"]
    assert pkg["score_sheet"]["rounds"][0]["round"] == "self-check"
    assert "自检" in (out / "index.md").read_text(encoding="utf-8")
