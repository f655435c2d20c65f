"""agent/contracts/labels.py reads its names and lines from messages/labels.yaml: every id the judge can put
in a report (a flag of `Flag`, a judge kind, a name in a dimension's caps) has a label in both languages, so
the app and the Markdown report never fall back to showing the id. A label lacking a part fails loudly."""

from __future__ import annotations

import ast
from typing import get_args

import pytest

from agent.config import repo_root
from agent.contracts import labels
from agent.contracts.labels import FLAGS, GATES, JUDGES, cap_text, flag_line, flag_name, judge_line, rule_name
from agent.contracts.report import Flag, JudgeInfo
from agent.rubric.loader import default_rubric
from agent.util.messages import LANGS, MessageError, catalogue, t

JUDGE = repo_root() / "agent" / "judge"


def _cap_names_in_the_judge() -> tuple[set[str], set[str]]:
    """The names the judge's code gives its bounds (`Bounds.cap` / `Bounds.take`, their third argument):
    (names written as strings, prefixes of names written as f-strings such as f"weak signal {w.id}"). A name
    computed some other way fails here, so that this test is taught where it comes from."""
    names: set[str] = set()
    prefixes: set[str] = set()
    for path in sorted(JUDGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("cap", "take")
                and len(node.args) == 3
            ):
                continue
            why = node.args[2]
            where = f"{path.relative_to(repo_root())}:{node.lineno}"
            if isinstance(why, ast.Constant) and isinstance(why.value, str):
                names.add(why.value)
            elif (
                isinstance(why, ast.JoinedStr)
                and isinstance(why.values[0], ast.Constant)
                and str(why.values[0].value).endswith(" ")
            ):
                prefixes.add(str(why.values[0].value).strip())
            elif isinstance(why, ast.Name) and why.id == "flag" and path.name == "gates.py":
                continue  # a raised flag's effect (lexicon flag_effects): named by the flag, checked below
            else:
                raise AssertionError(
                    f"{where}: a bound named in a way this test does not read: {ast.unparse(why)}"
                )
    return names, prefixes


def _known() -> dict[str, set[str]]:
    lex = default_rubric().lexicon
    names, prefixes = _cap_names_in_the_judge()
    # agent/judge/scoring.py: a 5 elsewhere needs `five_needs` of its dimension: f"five_needs_{dimension} (≤4)"
    five = {f"five_needs_{d}" for d in lex.scoring.five_needs}
    return {
        "flag": set(get_args(Flag)) | set(lex.flag_effects),
        "cap": names | prefixes | five,
        "judge": set(get_args(JudgeInfo.model_fields["kind"].annotation)),
    }


def test_the_scan_finds_the_bounds_of_the_gates_and_of_scoring() -> None:
    names, prefixes = _cap_names_in_the_judge()
    assert {"happy_path_cap", "ask_for_inputs", "few_specifics", "wrong_core", "moved_path"} <= names
    assert prefixes == {"weak signal", "misconception"}


def test_every_id_the_judge_can_produce_has_a_name_and_a_line_in_both_languages() -> None:
    tables = {"flag": FLAGS, "cap": GATES, "judge": JUDGES}
    known = _known()
    assert len(known["flag"]) >= 12 and len(known["cap"]) >= 15 and known["judge"] == {"embedded", "vllm"}
    missing = [
        f"labels.{group}.{i}" for group, ids in known.items() for i in sorted(ids) if i not in tables[group]
    ]
    assert not missing, f"no label in messages/labels.yaml for {missing}"
    cat = catalogue()
    for group, ids in known.items():
        for i in ids:
            for part in ("name", "line"):
                entry = cat[f"labels.{group}.{i}.{part}"]
                assert set(entry) == set(LANGS), (group, i, part)
            for lg in LANGS:
                name, line = tables[group][i][lg]
                assert name == t(f"labels.{group}.{i}.name", lg) and line == t(f"labels.{group}.{i}.line", lg)
                assert name.strip() and line.strip() and "_" not in name, (group, i, lg)


def test_what_the_report_shows_for_each_known_id_is_its_label_never_the_id() -> None:
    known = _known()
    for lg in LANGS:
        for f in known["flag"]:
            name, line = FLAGS[f][lg][0], flag_line(f, lg)
            assert flag_name(f, lg) == name and line.startswith(name) and f not in line, (f, lg, line)
        for c in known["cap"]:
            # as the judge records it: "happy_path_cap (≤3)", "weak signal hpa-180 (≤2)", "misconception m-1 (-1)"
            recorded = f"{c} x-1 (≤2)" if c in ("weak signal", "misconception") else f"{c} (≤2)"
            assert rule_name(c, lg) == GATES[c][lg][0]
            assert cap_text(recorded, lg).startswith(GATES[c][lg][0]), (c, lg, cap_text(recorded, lg))
        for f in known["flag"]:  # a flag's effect is named by the flag
            shown = cap_text(f"{f} (-1)", lg)
            assert shown.startswith(rule_name(f, lg)) and f not in shown, (f, lg, shown)
        for kind in known["judge"]:
            info = JudgeInfo(kind=kind, model="m", rubric_version="v")  # type: ignore[arg-type]
            name, line = JUDGES[kind][lg]
            assert judge_line(info, lg).startswith(name) and judge_line(info, lg).endswith(line)


def test_an_unknown_id_is_still_shown_as_it_is() -> None:
    """A report of an older version may name an id this one has no label for: shown, not an error."""
    assert (
        flag_name("retired_flag", "zh") == "retired_flag"
        and flag_line("retired_flag", "en") == "retired_flag"
    )
    assert cap_text("retired_rule (≤3)", "en") == "retired_rule: at most 3"


def test_a_label_without_its_name_or_its_line_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    both = {"en": "x", "zh": "x"}
    monkeypatch.setattr(labels, "catalogue", lambda: {"labels.flag.unit_error.name": both})
    with pytest.raises(MessageError, match=r"labels.flag.unit_error: a label is a name and a line, not name"):
        labels._table("flag")
    monkeypatch.setattr(labels, "catalogue", lambda: {"labels.flag.unit_error": both})
    with pytest.raises(MessageError, match=r"labels.flag.unit_error: a label is a name and a line"):
        labels._table("flag")
    monkeypatch.setattr(labels, "catalogue", dict)
    with pytest.raises(MessageError, match=r"no labels labels.flag.\*"):
        labels._table("flag")


def test_labels_py_holds_no_words_of_either_language() -> None:
    """The words around the labels (a bound, a dimension's coverage, a judge's model) are messages/labels.yaml's
    `labels.text.…` entries: no string in labels.py's code is Chinese, and none of its code asks which
    language it writes (the catalogue's punctuation helpers do, in agent/util/messages.py)."""
    tree = ast.parse((repo_root() / "agent" / "contracts" / "labels.py").read_text(encoding="utf-8"))
    docs = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    chinese = [
        f"line {n.lineno}: {n.value!r}"
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and id(n) not in docs
        and any("\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef" for ch in n.value)
    ]
    branches = [
        f"line {n.lineno}: {ast.unparse(n)}"
        for n in ast.walk(tree)
        if isinstance(n, ast.Compare)
        and any(isinstance(c, ast.Constant) and c.value in LANGS for c in [n.left, *n.comparators])
    ]
    assert not chinese and not branches, chinese + branches


def test_a_count_takes_its_one_or_other_form_in_each_language() -> None:
    from agent.contracts.labels import coverage_text, reason_text
    from agent.contracts.report import Coverage

    for n in (1, 2):
        c = Coverage(covered=1, expected=2, share=0.5, strong_signals=n, weak_signals=["w"] * n)
        en, zh = coverage_text(c, "en"), coverage_text(c, "zh")
        assert f"{n} strong signal{'s' if n > 1 else ''}; {n} weak signal{'s' if n > 1 else ''}" in en
        assert f"{n} 个强信号；{n} 个弱信号" in zh
        old = reason_text(f"1/2 expected items covered (50%); {n} strong signal(s)", "en")
        assert old.endswith(f"{n} strong signal{'s' if n > 1 else ''}")


def test_several_caps_in_the_why_text_are_joined_as_each_language_joins_them() -> None:
    """Issue 12: in Chinese the caps that bounded a score were joined with "; ", an English separator."""
    from agent.contracts.labels import why_text
    from agent.contracts.report import Coverage, DimensionScore

    ds = DimensionScore(
        dimension="accuracy",
        score=2,
        level="…",
        reason="(unused)",
        band=(1, 3),
        caps=["happy_path_cap (≤3)", "misconception paged-as-cpu-swap (-2)"],
        coverage=Coverage(covered=1, expected=2, share=0.5),
    )
    zh = why_text(ds, "zh")
    caps = [cap_text(c, "zh") for c in ds.caps]
    assert zh.endswith("；".join(caps)) and "; " not in zh, zh
    en = why_text(ds, "en")
    assert en.endswith("Happy path only: at most 3; Wrong claim: 2 taken off"), en


def test_a_demonstration_models_scores_are_named_a_check_of_the_setup() -> None:
    """The CPU judge's default model (SmolLM2-135M) shows the vLLM pipeline runs and does not grade: a report
    it scored says so after the judge's line, in both languages (seen: a strong capacity answer at 5/25 in
    the team setup, whose report only named the model). Another model's line is the judge's alone."""
    from agent.contracts.labels import DEMONSTRATION_MODELS, is_demonstration
    from agent.judge.runtime.pins import SMOLLM2_SERVED_NAME

    assert SMOLLM2_SERVED_NAME in DEMONSTRATION_MODELS
    for model in (SMOLLM2_SERVED_NAME, f"/models/{SMOLLM2_SERVED_NAME.upper()}/"):
        demo = JudgeInfo(kind="vllm", model=model, rubric_version="v")
        assert is_demonstration(demo)
        assert "demonstration model" in judge_line(demo, "en") and "JUDGE_MODEL" in judge_line(demo, "en")
        assert "演示模型" in judge_line(demo, "zh") and "内置评分器" in judge_line(demo, "zh")
    for info in (
        JudgeInfo(kind="vllm", model="Qwen/Qwen2.5-7B-Instruct", rubric_version="v"),
        JudgeInfo(kind="embedded", model=SMOLLM2_SERVED_NAME, rubric_version="v"),
    ):
        assert not is_demonstration(info)
        assert judge_line(info, "en").endswith(JUDGES[info.kind]["en"][1])
        assert "演示模型" not in judge_line(info, "zh")
