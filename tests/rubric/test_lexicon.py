"""rubrics/lexicon.yaml is validated on load (agent/rubric/lexicon.py): the shipped file loads into typed fields,
and a key it may not hold, a value of the wrong type or a term that is no regex is refused, naming the file and
the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from agent.config import repo_root
from agent.rubric import RubricError, default_rubric
from agent.rubric.lexicon import Floor, Lexicon
from agent.rubric.loader import load_lexicon


def _shipped() -> dict[str, Any]:
    data = yaml.safe_load((repo_root() / "rubrics" / "lexicon.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _load(tmp_path: Path, data: dict[str, Any]) -> Lexicon:
    (tmp_path / "lexicon.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return load_lexicon(tmp_path)


def test_the_shipped_lexicon_loads() -> None:
    lex = load_lexicon()
    assert isinstance(lex, Lexicon)
    assert default_rubric().lexicon == lex
    assert "restart" in lex.mutation
    assert lex.number_labels.terms("derived") == lex.number_labels.derived
    assert lex.number_labels.terms("unlabelled") == []
    assert lex.scoring.band == 1 and lex.scoring.coverage_prior > 0
    # a single floor in the file is a list of one
    assert lex.scoring.floors["tradeoffs"] == [Floor(level=2, min_coverage=0.3)]
    assert lex.flag_effects["nonexistent_path"]["evidence"].minus == 1
    assert lex.flag_effects["happy_path_only"]["all"].cap == 3
    assert lex.messages.no_inputs_asked.get("zh") and lex.next_actions["accuracy"].get("en")


def test_a_copy_of_the_shipped_file_loads_the_same(tmp_path: Path) -> None:
    assert _load(tmp_path, _shipped()) == load_lexicon()


@pytest.mark.parametrize(
    ("edit", "key"),
    [
        (lambda d: d.update(mutations=["restart"]), "mutations"),
        (lambda d: d["scoring"].update(coverage_prio=1.0), "scoring.coverage_prio"),
        (lambda d: d["number_labels"].update(measured=["measured"]), "number_labels.measured"),
        (
            lambda d: d["flag_effects"]["unit_error"]["accuracy"].update(minimum=1),
            "flag_effects.unit_error.accuracy.minimum",
        ),
        (
            lambda d: d["messages"].update(unknown_note={"zh": "未知", "en": "unknown"}),
            "messages.unknown_note",
        ),
        (lambda d: d["messages"]["risk"].update(fr="risque"), "messages.risk.fr"),
    ],
)
def test_an_unknown_key_is_refused_by_name(tmp_path: Path, edit: Any, key: str) -> None:
    data = _shipped()
    edit(data)
    with pytest.raises(RubricError) as e:
        _load(tmp_path, data)
    assert f"lexicon.yaml: {key}: Extra inputs are not permitted" in str(e.value)
    assert str(tmp_path) in str(e.value)


@pytest.mark.parametrize(
    ("edit", "key", "says"),
    [
        (lambda d: d.update(mutation="restart"), "mutation", "valid list"),
        (lambda d: d["number_labels"].update(given="given"), "number_labels.given", "valid list"),
        (lambda d: d["injection"].append(5), "injection.", "valid string"),
        (lambda d: d["scoring"].update(band="one"), "scoring.band", "valid integer"),
        (
            lambda d: d["scoring"]["floors"]["accuracy"][0].update(min_coverage="a third"),
            "scoring.floors.accuracy.0.min_coverage",
            "valid number",
        ),
        (
            lambda d: d["scoring"]["wrong_core_caps"].update(speed=1),
            "scoring.wrong_core_caps.speed",
            "Input should be",
        ),
        (
            lambda d: d["flag_effects"]["unit_error"].update(speed={"cap": 2}),
            "flag_effects.unit_error.speed",
            "Input should be",
        ),
        (
            # a flag the judge never raises (a typo of unit_error) would never act: refused by name
            lambda d: d["flag_effects"].update(unit_errors={"accuracy": {"cap": 2}}),
            "flag_effects.unit_errors.[key]",
            "Input should be",
        ),
        (
            lambda d: d["flag_effects"]["unit_error"]["accuracy"].update(cap=9),
            "flag_effects.unit_error.accuracy.cap",
            "less than or equal to 5",
        ),
        (
            lambda d: d["flag_thresholds"].update(unlabeled_numbers=[2]),
            "flag_thresholds.unlabeled_numbers",
            "valid integer",
        ),
        (lambda d: d["messages"].update(risk="a risk"), "messages.risk", "valid dictionary"),
        (lambda d: d["next_actions"].pop("tradeoffs"), "next_actions", "missing ['tradeoffs']"),
        (lambda d: d["rollback"].append("/(unclosed/"), "rollback", "not a valid regex"),
        (lambda d: d.pop("messages"), "messages", "Field required"),
        (
            lambda d: d.update(alternative_required_in=["design"]),
            "alternative_required_in.0",
            "Input should be",
        ),
    ],
)
def test_a_wrong_value_is_refused_naming_the_key(tmp_path: Path, edit: Any, key: str, says: str) -> None:
    data = _shipped()
    edit(data)
    with pytest.raises(RubricError) as e:
        _load(tmp_path, data)
    line = next((x for x in str(e.value).splitlines() if f"lexicon.yaml: {key}" in x), None)
    assert line is not None, str(e.value)
    assert says in line, line


def test_what_the_file_leaves_out_takes_the_defaults_the_checks_used(tmp_path: Path) -> None:
    data = _shipped()
    for key in ("flag_thresholds", "happy_path", "retractions", "flag_effects"):
        data.pop(key)
    for key in ("coverage_prior", "unjudged_cap", "misconception_minus_max", "floors", "five_needs"):
        data["scoring"].pop(key)
    lex = _load(tmp_path, data)
    assert (lex.flag_thresholds.unlabeled_numbers, lex.flag_thresholds.unlabeled_share) == (2, 0.0)
    assert lex.happy_path.failure_item is None and lex.happy_path.rollback_item is None
    assert lex.retractions == [] and lex.flag_effects == {}
    assert lex.failure_terms == ["fail", "故障", "oom", "超时", "timeout"]
    s = lex.scoring
    assert (s.coverage_prior, s.unjudged_cap, s.misconception_minus_max, s.floors, s.five_needs) == (
        0.0,
        2,
        3,
        {},
        {},
    )


def test_the_model_is_frozen() -> None:
    lex = load_lexicon()
    with pytest.raises(ValueError):
        lex.scoring.band = 2  # type: ignore[misc]
