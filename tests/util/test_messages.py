"""agent.util.messages: the one catalogue of the app's own sentences (messages/*.yaml) and its one `t()`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from agent.config import repo_root
from agent.util.messages import (
    LANGS,
    MESSAGES_DIR,
    MessageError,
    UnknownMessage,
    catalogue,
    fields_of,
    has,
    load,
    t,
)

AGENT = repo_root() / "agent"
ROOMS = {"ui", "interview", "package", "report", "labels", "voice"}


def test_every_message_has_both_languages_naming_the_same_fields() -> None:
    cat = catalogue()
    assert {k.split(".", 1)[0] for k in cat} == ROOMS
    assert len(cat) > 400
    for key, entry in cat.items():
        assert set(entry) == set(LANGS), key
        assert all(isinstance(entry[lg], str) and entry[lg] for lg in LANGS), key
        assert fields_of(entry["en"]) == fields_of(entry["zh"]), key


def test_no_text_a_person_reads_points_to_a_document_they_do_not_have() -> None:
    """A session report's heading read "Project narrative (seed §3)" / "项目经历叙事（模板 §3）": the seed and its
    sections are the authors' sources, not something a candidate or a coach has."""
    import re

    outside = re.compile(r"seed\s*§|模板\s*§|DESIGN\.md|shared/seeds", re.IGNORECASE)
    for key, entry in catalogue().items():
        for lg in LANGS:
            assert not outside.search(entry[lg]), f"{key} [{lg}]: {entry[lg]!r}"


def test_the_catalogue_is_the_repo_roots_messages_folder_and_the_image_copies_it() -> None:
    """Found at run time the way rubrics/ and prompts/ are (beside agent/), and shipped the same way."""
    assert repo_root() / "messages" == MESSAGES_DIR
    assert {p.stem for p in MESSAGES_DIR.glob("*.yaml")} == ROOMS
    dockerfile = (repo_root() / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    assert "COPY messages ./messages" in dockerfile and "COPY rubrics ./rubrics" in dockerfile


def test_a_missing_key_raises_an_error_naming_it() -> None:
    with pytest.raises(UnknownMessage) as e:
        t("ui.no_such_message", "en")
    assert isinstance(e.value, KeyError)
    assert "'ui.no_such_message'" in str(e.value) and "messages/ui.yaml" in str(e.value)
    assert not has("ui.no_such_message") and has("ui.plan")
    with pytest.raises(KeyError, match=r"'interview.given' fills in \{facts\}"):
        t("interview.given", "en", fact="a field of another name")


def test_old_callers_render_the_same_text_as_before() -> None:
    """A few texts, through the functions that showed them before the tables moved to messages/."""
    from agent.graph.inputs import check_text
    from agent.package.assumptions import label_text
    from agent.package.labels import name, note_text
    from agent.ui.views import judge_name

    assert check_text("  ", "en") == (
        None,
        "The answer is empty. Type your answer and send it again; the question stays open.",
    )
    assert check_text("x" * 60_001, "zh")[1] == (
        "回答有 60,001 个字符，超过单轮上限 60,000。请缩短后重新发送；问题仍然有效。"
    )
    assert check_text("", "zh", kind="question")[1] == "问题为空；仍在等待面试官提问。"
    assert name("plan", "redo", "zh", s="s-1") == "重做 s-1 最弱的两轮"
    assert name("unit", "GiB per rank", "zh") == "GiB / rank"
    assert name("unit", "furlongs", "en") == "furlongs"  # an id without a name is shown as it is
    assert name("error", "", "en") == ""
    assert label_text(None, "zh") == "未标注" and label_text("derived", "en") == "derived"
    assert (
        note_text("asked: given-gpu-count, given-slo", "zh") == "asked: 2 项（见第 1 节“候选人问到的题设”）"
    )
    assert judge_name("embedded", "en") == "embedded judge (rubric cues, no LLM)"
    assert t("ui.transcribed", "en", seconds=2.25, engine="whisper") == (
        "Transcribed 2.2 s of audio (whisper). Check the text, edit it, then send."
    )
    assert t("ui.delivery_fillers_rate", "zh", per_min=4.25) == "每分钟 4.2 次"
    assert t("report.sample_fallbacks", "zh", n=1, k=3) == (
        "3 次中有 1 次在至少一轮回退到内置评分器：这些轮次不计入中位数。"
    )
    assert t("report.session.comparison", "en", s="first") == "Compared with session first"
    assert t("package.step.unit_error", "en") == "UNITS DO NOT CLOSE"
    # without fields a text is returned as it is, braces and all
    assert t("ui.plan_round", "en") == "{title} ({minutes} min)"


def _keys_in_code() -> list[tuple[str, int, str, bool]]:
    """Every key written in agent/ as the first argument of t() or messages.t(): (file, line, key or the
    constant start of an f-string key, whether it is only a start)."""
    found = []
    for path in sorted(AGENT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            f = node.func
            if not (
                (isinstance(f, ast.Name) and f.id == "t")
                or (
                    isinstance(f, ast.Attribute)
                    and f.attr == "t"
                    and getattr(f.value, "id", "") == "messages"
                )
            ):
                continue
            arg = node.args[0]
            where = str(path.relative_to(repo_root()))
            for a in (arg.body, arg.orelse) if isinstance(arg, ast.IfExp) else (arg,):
                if isinstance(a, ast.Constant) and isinstance(a.value, str):
                    found.append((where, a.lineno, a.value, False))
                elif isinstance(a, ast.JoinedStr) and isinstance(a.values[0], ast.Constant):
                    found.append((where, a.lineno, str(a.values[0].value), True))
    return found


def test_every_key_written_in_the_code_is_in_the_catalogue() -> None:
    keys = _keys_in_code()
    assert len(keys) > 300
    cat = catalogue()
    missing = [
        f"{where}:{line}: {key}"
        for where, line, key, start in keys
        if not (any(k.startswith(key) for k in cat) if start else key in cat)
    ]
    assert not missing, missing


def test_no_language_table_is_left_in_python() -> None:
    """The app's sentences are data now: no `"zh": "…"` table is left in agent/ but the bias probes' fixed
    sentences (agent/calibration/probes.py: inputs of a measurement, not messages). The flag, cap and judge
    labels are messages/labels.yaml (tests/contracts/test_labels.py)."""
    left = [
        str(p.relative_to(repo_root()))
        for p in AGENT.rglob("*.py")
        if any(s in p.read_text(encoding="utf-8") for s in ('"zh": "', '"zh": ('))
    ]
    assert sorted(left) == ["agent/calibration/probes.py"], left


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_load_refuses_an_entry_without_both_languages(tmp_path: Path) -> None:
    d = _write(tmp_path / "m", "ui.yaml", "plan: {en: Plan, zh: 计划}\nstart: {en: Start}\n")
    with pytest.raises(MessageError, match=r"ui.yaml: ui.start: no zh text"):
        load(d)
    d = _write(tmp_path / "n", "ui.yaml", "start: {en: Start, zh: 开始, fr: Commencer}\n")
    with pytest.raises(MessageError, match=r"ui.start: fr is not a language"):
        load(d)
    d = _write(tmp_path / "o", "ui.yaml", "start: {en: Start, zh: ''}\n")
    with pytest.raises(MessageError, match=r"ui.start: its zh text is not a non-empty string"):
        load(d)


def test_load_refuses_languages_that_name_different_fields(tmp_path: Path) -> None:
    d = _write(
        tmp_path / "m", "package.yaml", "ids:\n  plan:\n    redo: {en: 'Redo of {s}', zh: '重做 {x}'}\n"
    )
    with pytest.raises(MessageError, match=r"package.ids.plan.redo: the languages name different fields"):
        load(d)
    d = _write(tmp_path / "n", "ui.yaml", "x: {en: 'a {} b', zh: 'a {} b'}\n")
    with pytest.raises(MessageError, match=r"ui.x: its en text has a positional field"):
        load(d)
    d = _write(tmp_path / "o", "ui.yaml", "x: {en: 'a {b', zh: 'a b'}\n")
    with pytest.raises(MessageError, match=r"ui.x: its en text is not a valid format string"):
        load(d)


def test_load_refuses_a_key_written_twice_and_a_bare_value(tmp_path: Path) -> None:
    d = _write(tmp_path / "m", "ui.yaml", "plan: {en: Plan, zh: 计划}\nplan: {en: Plan, zh: 面试计划}\n")
    with pytest.raises(MessageError, match=r"ui.yaml: line 2: the key 'plan' is written twice"):
        load(d)
    d = _write(tmp_path / "n", "ui.yaml", "plan: Plan\n")
    with pytest.raises(MessageError, match=r"ui.plan: neither an entry"):
        load(d)
    with pytest.raises(MessageError, match="no messages files"):
        load(tmp_path / "empty")


def test_load_names_nested_entries_by_their_path(tmp_path: Path) -> None:
    d = _write(
        tmp_path / "m", "package.yaml", "step:\n  slip: {en: slip, zh: 小误差}\ntitle: {en: T, zh: 题}\n"
    )
    d = _write(d, "report.yaml", "session:\n  over: {en: over budget, zh: 超时}\n")
    assert load(d) == {
        "package.step.slip": {"en": "slip", "zh": "小误差"},
        "package.title": {"en": "T", "zh": "题"},
        "report.session.over": {"en": "over budget", "zh": "超时"},
    }
