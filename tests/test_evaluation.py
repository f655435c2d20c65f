"""The graded sets: a frozen test split by authors who never saw the rubric, prompts or code."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from agent.calibration.evaluation import GradedSet, frozen_digest, graded_dir, load_graded_set
from agent.rubric.model import INTERVIEW_ROUND_IDS


def test_the_test_split_is_frozen() -> None:
    pinned = {}
    for line in (graded_dir("test") / "FROZEN.sha256").read_text(encoding="utf-8").splitlines():
        digest, name = line.split()
        pinned[name] = digest
    assert frozen_digest() == pinned, "a file of the frozen test split changed: it is not to be edited"


def test_every_test_answer_was_labelled_twice_by_authors_outside_dev() -> None:
    test, dev = load_graded_set(split="test"), load_graded_set(split="dev")
    dev_authors = {a.author for a in dev.answers if a.author}
    for a in test.answers:
        assert a.author and a.author not in dev_authors, a.id
        assert len({lb.by for lb in a.labels}) == 2, a.id
        assert a.resolution, a.id


def test_the_graded_set_is_large_bilingual_and_covers_every_interview_round() -> None:
    sets = {s: load_graded_set(split=s) for s in ("dev", "test")}
    answers = [a for gs in sets.values() for a in gs.answers]
    assert len(answers) >= 160
    assert sum(a.language == "zh" for a in answers) / len(answers) >= 0.4
    for gs in sets.values():
        # the six interview rounds in both splits; the self-check round (the seed's closing 自检) has blind
        # graded answers in dev only (author a15)
        assert set(INTERVIEW_ROUND_IDS) == {
            "concepts", "source-trace", "capacity", "system-design", "incident", "project-experience"
        }
        assert set(INTERVIEW_ROUND_IDS) <= {a.round for a in gs.answers} <= {*INTERVIEW_ROUND_IDS, "self-check"}
        kinds = {a.kind for a in gs.answers}
        assert {"strong", "medium", "stripped", "wrong", "injected"} <= kinds
        assert any(len(a.turns) > 1 for a in gs.answers)


def test_a_multi_turn_answer_keeps_each_question(tmp_path: Path) -> None:
    a = next(a for a in load_graded_set(split="dev").answers if len(a.turns) > 1)
    ans = a.as_answer()
    assert [t.question for t in ans.turns] == [t.question for t in a.turns]
    assert {s.turn for s in ans.sents} == set(range(len(a.turns)))


def _write(tmp_path: Path, data: dict) -> Path:
    p = tmp_path / "set.yaml"
    p.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return p


def _answer(i: str, **extra: object) -> dict:
    scores = {d: [1, 2] for d in ("accuracy", "evidence", "tradeoffs", "validation", "communication")}
    return {
        "id": i,
        "round": "concepts",
        "language": "en",
        "kind": "weak",
        "answer": "x",
        "expected": {"scores": scores},
        **extra,
    }


def test_a_set_naming_an_unknown_base_or_a_twice_used_id_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown base"):
        load_graded_set(_write(tmp_path, {"answers": [_answer("a", base="nope", kind="stripped")]}))
    with pytest.raises(ValueError, match="used twice"):
        load_graded_set(_write(tmp_path, {"answers": [_answer("a"), _answer("a")]}))
    with pytest.raises(ValueError, match="neither"):
        load_graded_set(_write(tmp_path, {"answers": [{**_answer("a"), "answer": ""}]}))


def test_frozen_digest_is_sha256_of_each_file(tmp_path: Path) -> None:
    (tmp_path / "x.yaml").write_text("answers: []\n", encoding="utf-8")
    assert frozen_digest(tmp_path) == {"x.yaml": hashlib.sha256(b"answers: []\n").hexdigest()}
    assert isinstance(GradedSet(answers=[]), GradedSet)
