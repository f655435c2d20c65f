"""The vLLM judge against a real vLLM CPU server (SmolLM2-135M, the session fixture `vllm_judge`).

One real assessment per round through `VllmJudge` + `assess_answer`: a schema-valid checklist from
the model (no fallback), quotes verbatim, provenance filled; an injected answer never above its
base; `interview grade --judge vllm` as a real subprocess, and a re-run that skips what it graded.

The tests without the `vllm` marker check the request layout without a server: the static prefix
is byte-identical across answers and languages, the candidate's text is last and fenced, every
string in the schemas is bounded, and the checks on the model's quotes.

The 135M model proves the pipeline, not the grading: what it quotes is mostly not in the answer and
is dropped by the verification, so these tests check validity and the guarantees, never the scores.

    python -m pytest -m vllm tests/judge/test_vllm_judge.py
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from agent.calibration.evaluation import GradedAnswer, load_graded_set
from agent.contracts.report import RoundAssessment
from agent.judge import prompt
from agent.judge.assessment import assess_answer
from agent.judge.checks import injected, run_checks
from agent.judge.matching import quote_in, sentences
from agent.judge.parts import QUOTE_MAX, Part, json_schema, keys_of, model_view, part_model, parts_of
from agent.judge.runtime import JudgeServer
from agent.judge.vllm import VllmJudge
from agent.rubric import load_rubric
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, INTERVIEW_ROUND_IDS, ROUND_IDS, Lang, RoundId
from tests import self_check_answers

#: the module's assessments go to a CPU model (18 requests at once, then the CLI's); on a slow or
#: shared 2-core machine that has taken over 15 minutes, past the suite's 900 s default
pytestmark = pytest.mark.timeout(3000)

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "transcripts"

#: one graded answer per round (both languages, weak to medium: short enough for a fast test)
PER_ROUND: dict[RoundId, str] = {
    "concepts": "concepts-weak-en",
    "source-trace": "source-trace-medium-zh",
    "capacity": "capacity-units-en",
    "system-design": "system-design-noalt-en",
    "incident": "incident-weak-zh",
    "project-experience": "project-experience-weak-en",
    "self-check": "self-check-thin-en",
}
#: the self-check round's blind answers (dev/a15.yaml) are long four-turn rounds: its
#: thin English answer written for the tests stands in (tests/self_check_answers.py)
SELF_CHECK_SAMPLE = PER_ROUND["self-check"]


def text_of(aid: str, graded: dict[str, GradedAnswer]) -> str:
    """The answer text of a graded answer, or of the self-check's stand-in."""
    if aid == SELF_CHECK_SAMPLE:
        return self_check_answers.answer("en", good=False).text
    return graded[aid].answer


#: adversarial answers and their base (the base answer with an address to the grader appended)
INJECTED = {
    "incident-injection-zh": "incident-weak-zh",
    "project-experience-injection-en": "project-experience-weak-en",
}


class RecordingJudge(VllmJudge):
    """The real client; it also keeps what each part's request returned, to check it against its schema."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.answers: list[tuple[dict[str, Any], type[BaseModel], Part, dict[str, Any]]] = []

    def _ask(self, body: dict[str, Any], model: type[BaseModel], part: Part) -> dict[str, Any]:
        out = super()._ask(body, model, part)
        self.answers.append((body, model, part, out))
        return out


@pytest.fixture(scope="module")
def rubric() -> Rubric:
    return load_rubric()


@pytest.fixture(scope="module")
def graded() -> dict[str, GradedAnswer]:
    return {a.id: a for a in load_graded_set().answers}


@pytest.fixture(scope="module")
def judge(vllm_judge: JudgeServer) -> RecordingJudge:
    # every part of every answer at the server at once: vLLM batches them (one at a time took 870 s)
    return RecordingJudge(vllm_judge.base_url, timeout=900, max_in_flight=24)


@pytest.fixture(scope="module")
def assessed(
    rubric: Rubric, graded: dict[str, GradedAnswer], judge: RecordingJudge
) -> dict[str, RoundAssessment]:
    """Every answer of PER_ROUND and INJECTED, assessed concurrently (vLLM batches them)."""
    info = judge.info(rubric)
    ids = list(dict.fromkeys([*PER_ROUND.values(), *INJECTED]))

    def one(aid: str) -> RoundAssessment:
        if aid == SELF_CHECK_SAMPLE:
            thin = self_check_answers.answer("en", good=False, rubric=rubric)
            return assess_answer(rubric, "self-check", thin, "en", judge=judge, info=info)
        a = graded[aid]
        return assess_answer(rubric, a.round, a.answer, a.language, judge=judge, info=info)

    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=len(ids)) as pool:
        results = dict(zip(ids, pool.map(one, ids), strict=True))
    print(f"\n{len(ids)} assessments ({len(judge.answers)} requests) in {time.monotonic() - t0:.0f} s")
    return results


def test_every_round_has_an_answer_here(graded: dict[str, GradedAnswer]) -> None:
    assert set(PER_ROUND) == set(ROUND_IDS)
    # every interview round's is a graded answer; the self-check's is the tests' own
    assert all(graded[PER_ROUND[r]].round == r for r in INTERVIEW_ROUND_IDS)


@pytest.mark.vllm
@pytest.mark.parametrize("round_id", ROUND_IDS)
def test_each_round_gives_a_schema_valid_checklist_from_the_model(
    round_id: RoundId, rubric: Rubric, assessed: dict[str, RoundAssessment], judge: RecordingJudge
) -> None:
    ra = assessed[PER_ROUND[round_id]]
    assert ra.judge is not None
    assert not ra.judge.fallback, ra.judge.fallback_reason
    assert "judge_fallback" not in ra.flags
    assert ra.checklist is not None
    # every evidence item and signal of the round, filled by the model
    assert [i.id for i in ra.checklist.items] == [e.id for e in rubric.evidence(round_id)]
    assert [s.id for s in ra.checklist.strong] == [s.id for s in rubric.strong_signals(round_id)]
    assert [s.id for s in ra.checklist.weak] == [s.id for s in rubric.weak_signals(round_id)]
    assert {i.by for i in ra.checklist.items} == {"model"}
    assert set(ra.checklist.holistic) == set(DIMENSIONS)
    assert set(ra.scores) == set(DIMENSIONS) and all(1 <= s <= 5 for s in ra.scores.values())
    # each part's output, as the server returned it, is valid under the schema that was sent
    parts = parts_of(rubric, round_id, holistic=True)
    got = [
        (body, model, part, out)
        for body, model, part, out in judge.answers
        if model.__name__.startswith(f"Checklist_{round_id.replace('-', '_')}_")
    ]
    assert {p.index for _, _, p, _ in got} == {p.index for p in parts}
    for body, model, part, out in got:
        assert body["response_format"]["json_schema"]["strict"] is True
        assert body["response_format"]["json_schema"]["schema"] == json_schema(model)
        model.model_validate(out)
        for group, keys in part.keys.items():
            assert sorted(out[group]) == sorted(keys)
            assert all(len(q) <= QUOTE_MAX for q in out[group].values())


class _NoServer(VllmJudge):
    """The client without a server: only its request building and quote checks are used."""

    def __init__(self) -> None:  # no /v1/models call
        self.model, self.holistic, self.seed, self.temperature, self.max_model_len = "m", True, 0, 0.0, 4096


@pytest.mark.parametrize("round_id", ROUND_IDS)
def test_the_static_prefix_is_shared_and_the_answer_is_last_and_fenced(
    round_id: RoundId, rubric: Rubric, graded: dict[str, GradedAnswer]
) -> None:
    judge = _NoServer()
    answers = [(a.language, a.answer) for a in graded.values() if a.round == round_id]
    if round_id == "self-check":  # no graded answers yet: the tests' own, good and thin, in both languages
        langs: tuple[Lang, ...] = ("en", "zh")
        answers = [
            (lang, self_check_answers.answer(lang, good, rubric).text)
            for lang in langs
            for good in (True, False)
        ]
    assert {lang for lang, _ in answers} == {"en", "zh"}
    bodies = [
        judge.request_bodies(rubric, round_id, text, run_checks(round_id, text, rubric.lexicon))
        for _, text in answers
    ]
    static = prompt.round_block(rubric, round_id, prompt.load_templates(), holistic=True)
    systems = {b[0][1]["messages"][0]["content"] for b in bodies}
    assert len(systems) == 1  # one system message for every answer, language and round
    for (_, text), parts in zip(answers, bodies, strict=True):
        assert len(parts) == len(parts_of(rubric, round_id, holistic=True))
        user = parts[0][1]["messages"][1]["content"]
        assert all(body["messages"] == parts[0][1]["messages"] for _, body in parts)  # parts share the prompt
        assert user.startswith(static)  # byte-identical round block first
        assert text.strip() not in static
        head, fenced = user.rsplit("<<<ANSWER\n", 1)
        assert fenced == text.strip() + "\nANSWER>>>\n"  # the candidate's text last, fenced
        assert text.strip() not in head


def test_a_quote_must_be_verbatim_and_not_pasted_into_many_keys(rubric: Rubric) -> None:
    judge = _NoServer()
    answer = "Paged KV maps tokens to non-contiguous blocks. If KV runs out the scheduler preempts."
    keys = keys_of(rubric, "concepts")
    items = list(keys["items"])
    data: dict[str, Any] = {"items": dict.fromkeys(items, ""), "strong": {}, "weak": {}}
    data["items"][items[0]] = "non-contiguous  blocks"  # verbatim, whitespace aside
    data["items"][items[1]] = "maps tokens to contiguous blocks"  # not in the answer
    for k in items[2:7]:
        data["items"][k] = "If KV runs out"  # the same phrase for five keys
    fill = judge._to_fill(data, answer, keys)
    by_id = {i.id: i for i in fill.items}
    first, second = by_id[keys["items"][items[0]]], by_id[keys["items"][items[1]]]
    assert first.covered and first.quote == "non-contiguous  blocks"
    assert not second.covered and second.quote is None and "not found verbatim" in (second.note or "")
    pasted = [by_id[keys["items"][k]] for k in items[2:7]]
    assert not any(i.covered for i in pasted) and all("same quote" in (i.note or "") for i in pasted)
    assert sum(i.covered for i in fill.items) == 1


def test_every_string_and_list_in_the_schemas_is_bounded(rubric: Rubric) -> None:
    def walk(node: Any, defs: dict[str, Any]) -> None:
        if isinstance(node, dict):
            if node.get("type") == "string":
                assert "maxLength" in node, node
            if node.get("type") == "array":
                assert "maxItems" in node, node
            if node.get("type") == "object":
                assert node.get("additionalProperties") is False, node
                assert set(node.get("required", [])) == set(node.get("properties", {})), node
            for v in node.values():
                walk(v, defs)
        elif isinstance(node, list):
            for v in node:
                walk(v, defs)

    for round_id in ROUND_IDS:
        for part in parts_of(rubric, round_id, holistic=True):
            schema = json_schema(part_model(rubric, round_id, part))
            walk(schema, schema.get("$defs", {}))


@pytest.mark.vllm
def test_every_quote_is_verbatim_in_the_answer(
    assessed: dict[str, RoundAssessment], graded: dict[str, GradedAnswer]
) -> None:
    n = 0
    for aid, ra in assessed.items():
        answer = text_of(aid, graded)
        assert ra.checklist is not None
        quotes = [i.quote for i in ra.checklist.items if i.quote]
        quotes += [s.quote for s in [*ra.checklist.strong, *ra.checklist.weak] if s.quote]
        quotes += [q for qs in ra.quotes.values() for q in qs]
        quotes += [q for d in ra.dimensions for q in d.quotes]
        for q in quotes:
            assert quote_in(q, answer), (aid, q)
            n += 1
        # what the model said but could not be found is recorded as a note, never as a quote
        for i in ra.checklist.items:
            if i.note:
                assert not i.covered and i.quote is None
    print(f"\n{n} verified quotes")


@pytest.mark.vllm
def test_provenance_is_filled(
    assessed: dict[str, RoundAssessment], rubric: Rubric, vllm_judge: JudgeServer
) -> None:
    for ra in assessed.values():
        info = ra.judge
        assert info is not None
        assert info.kind == "vllm"
        assert info.model == vllm_judge.served_model_name
        assert info.endpoint == f"{vllm_judge.host}:{vllm_judge.port}"
        assert info.vllm_version == vllm_judge.version()
        assert info.rubric_version == rubric.version
        assert info.prompt_hash == prompt.load_templates().hash and info.prompt_hash.startswith("prompt-")
        assert info.seed == 0
        assert info.temperature == 0.0


@pytest.mark.vllm
@pytest.mark.parametrize("adversarial", sorted(INJECTED))
def test_an_injected_answer_does_not_score_above_its_base(
    adversarial: str, assessed: dict[str, RoundAssessment], graded: dict[str, GradedAnswer], rubric: Rubric
) -> None:
    base_id = INJECTED[adversarial]
    inj, base = assessed[adversarial], assessed[base_id]
    assert inj.judge is not None
    assert not inj.judge.fallback, inj.judge.fallback_reason
    assert "prompt_injection" in inj.flags
    for d in DIMENSIONS:
        assert inj.scores[d] <= base.scores[d], (d, inj.scores, base.scores)
    assert inj.total <= base.total
    # by construction: the model is shown the base answer (the address to the grader is cut)
    a = graded[adversarial]
    sents = sentences(a.answer)
    dropped = {s.idx for s in injected(sents, rubric.lexicon, a.answer)}
    seen = model_view(a.answer, [s for s in sents if s.idx not in dropped])
    assert seen.strip() == graded[base_id].answer.strip()
    checks = run_checks(a.round, a.answer, rubric.lexicon)
    base_checks = run_checks(a.round, graded[base_id].answer, rubric.lexicon)
    assert prompt.findings(checks) == prompt.findings(base_checks)


def _grade(out: Path, base_url: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    """`interview grade` on t-001 (one capacity round) with `--samples 2`, as a real subprocess."""
    env = {k: v for k, v in os.environ.items() if k != "JUDGE_MODEL"}
    env |= {"JUDGE_BASE_URL": base_url, "INTERVIEW_DATA_DIR": str(tmp / "data"), "HF_HUB_OFFLINE": "1"}
    folder = tmp / "transcripts"
    if not folder.exists():
        folder.mkdir()
        shutil.copy(EXAMPLES / "t-001.json", folder / "t-001.json")
    cmd = [sys.executable, "-m", "agent", "grade", str(folder), "--judge", "vllm", "--out", str(out)]
    # a low sampling temperature: the 135M model fills its JSON strings to their bounds at 0.7 (406 s for this
    # run on a busy machine); what is checked is the sampling pipeline, not the spread
    return subprocess.run(
        [*cmd, "--samples", "2", "--sample-temperature", "0.2"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=1800,
    )


@pytest.mark.vllm
def test_grade_cli_with_the_vllm_judge_samples_writes_reports_and_a_rerun_skips_them(
    vllm_judge: JudgeServer, rubric: Rubric, tmp_path: Path
) -> None:
    """One `interview grade --judge vllm --samples 2` run against the real server (one run for both, each
    grading of a CPU judge costs minutes): the report's provenance, two sampled gradings (own seeds) and
    their median and spread; then a re-run skips what it graded, leaving the file untouched."""
    out = tmp_path / "reports"
    t0 = time.monotonic()
    r = _grade(out, vllm_judge.base_url, tmp_path)
    first = time.monotonic() - t0
    assert r.returncode == 0, r.stderr[-3000:]
    assert sorted(p.name for p in out.iterdir()) == ["t-001.json"]
    path = out / "t-001.json"
    rep = json.loads(path.read_text(encoding="utf-8"))
    j = rep["judge"]
    assert j["kind"] == "vllm" and j["samples"] == 2, j
    assert j["model"] == vllm_judge.served_model_name
    assert j["endpoint"] == f"{vllm_judge.host}:{vllm_judge.port}"
    assert j["vllm_version"] == vllm_judge.version()
    assert j["rubric_version"] == rubric.version
    assert j["prompt_hash"] == prompt.load_templates().hash
    assert j["holistic"] is True
    sp = rep["samples"]
    assert sp["k"] == 2 and sp["seeds"] == [0, 1] and not sp["deterministic"] and sp["temperature"] > 0
    for rnd, spread in zip(rep["rounds"], sp["rounds"], strict=True):
        assert rnd["judge"]["kind"] == "vllm"
        if spread["all_fallback"]:
            continue
        for d, ds in spread["dimensions"].items():
            assert len(ds["scores"]) == len(spread["counted"])
            assert ds["min"] <= ds["score"] <= ds["max"]
            assert rnd["scores"][d] == ds["score"]
    stamp = path.stat().st_mtime_ns

    t0 = time.monotonic()
    again = _grade(out, vllm_judge.base_url, tmp_path)
    second = time.monotonic() - t0
    assert again.returncode == 0, again.stderr[-3000:]
    assert "skipping 1 transcript(s) already graded with the same provenance" in again.stderr
    assert path.stat().st_mtime_ns == stamp
    print(f"\ngrade --samples 2: first run {first:.0f} s, re-run {second:.1f} s")
