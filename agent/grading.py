"""Grading transcripts: one report per transcript, a batch that goes on past a bad file."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from agent.judge import capacity
from agent.judge.answer import Answer
from agent.judge.assessment import assess_answer
from agent.judge.base import Judge
from agent.judge.checks import PathChecker
from agent.judge.scoring import risks_and_actions
from agent.judge.sources import Sources
from agent.report import JudgeInfo, Report, RoundAssessment
from agent.rubric.loader import Rubric
from agent.transcript import Transcript, TranscriptError, load_transcript


def grade_transcript(
    rubric: Rubric,
    t: Transcript,
    *,
    judge: Judge | None = None,
    info: JudgeInfo | None = None,
    path_checker: PathChecker | None = None,
    sources: Sources | None = None,
) -> Report:
    rounds: list[RoundAssessment] = []
    for r in t.rounds:
        params = (
            capacity.variant(r.variant_seed).params
            if r.round == "capacity" and r.variant_seed is not None
            else None
        )
        rounds.append(
            assess_answer(
                rubric,
                r.round,
                Answer.of_pairs(r.answer_turns()),
                t.language,
                judge=judge,
                info=info,
                path_checker=path_checker,
                capacity_params=params,
                sources=sources,
            )
        )
    risks, actions = risks_and_actions(rubric, rounds, t.language)
    base = info or rounds[0].judge
    assert base is not None
    fallback = any(r.judge is not None and r.judge.fallback for r in rounds)
    judge_info = base.model_copy(update={"fallback": fallback}) if fallback != base.fallback else base
    return Report(
        id=t.id, judge=judge_info, rounds=rounds, risks=risks, next_actions=actions, language=t.language
    )


def _graph_replay() -> Callable[..., Report] | None:
    """The interview graph's grade mode (the same nodes a live session runs), when LangGraph is installed."""
    try:
        from agent.graph import grade_with_graph
    except ImportError:
        return None
    return grade_with_graph


def find_transcripts(paths: Iterable[Path]) -> Iterator[Path]:
    """Files as given; folders searched for *.json, sorted, so a batch is reproducible."""
    for p in paths:
        if p.is_dir():
            yield from sorted(x for x in p.rglob("*.json") if x.is_file())
        else:
            yield p


@dataclass
class Outcome:
    source: Path
    report: Report | None = None
    error: str | None = None


def grade_files(
    rubric: Rubric,
    files: list[Path],
    *,
    judge: Judge | None = None,
    info: JudgeInfo | None = None,
    path_checker: PathChecker | None = None,
    sources: Sources | None = None,
    on_done: Callable[[Outcome], None] | None = None,
    concurrency: int = 1,
    use_graph: bool = True,
    samples: int = 1,
    sample_temperature: float | None = None,
) -> list[Outcome]:
    """Grade every file; a bad one becomes an Outcome with one clear error and the batch goes on.

    `samples` > 1: each transcript graded that many times, the median report with its spread
    (`agent.samples.grade_samples`; `sample_temperature` for the vLLM judge).
    """
    replay = _graph_replay() if use_graph else None

    def one(f: Path) -> Outcome:
        try:
            t = load_transcript(f)
            if samples > 1:
                from agent.samples import grade_samples  # it builds on this module

                def by_graph(tr: Transcript, j: Judge | None, i: JudgeInfo | None) -> Report:
                    assert replay is not None
                    return replay(tr, rubric=rubric, judge=j, info=i, sources=sources)

                graded = grade_samples(
                    rubric,
                    t,
                    samples,
                    judge=judge,
                    info=info,
                    path_checker=path_checker,
                    sources=sources,
                    temperature=sample_temperature,
                    grade=by_graph if replay is not None and path_checker is None else None,
                )
                return Outcome(f, report=graded)
            if replay is not None and path_checker is None:
                return Outcome(f, report=replay(t, rubric=rubric, judge=judge, info=info, sources=sources))
            report = grade_transcript(
                rubric, t, judge=judge, info=info, path_checker=path_checker, sources=sources
            )
            return Outcome(f, report=report)
        except TranscriptError as e:
            return Outcome(f, error=str(e))

    outcomes: list[Outcome] = []
    if concurrency <= 1:
        for f in files:
            o = one(f)
            outcomes.append(o)
            if on_done:
                on_done(o)
        return outcomes
    # several transcripts in flight, so a vLLM judge batches them (continuous batching); the largest
    # go first, so a long one does not start last and leave the server with one request at the end
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        futures = [pool.submit(one, f) for f in sorted(files, key=_size, reverse=True)]
        for fut in as_completed(futures):
            o = fut.result()
            outcomes.append(o)
            if on_done:
                on_done(o)
    order = {f: k for k, f in enumerate(files)}
    return sorted(outcomes, key=lambda o: order[o.source])


def _size(f: Path) -> int:
    try:
        return f.stat().st_size
    except OSError:
        return 0  # unreadable: `one` reports it


def same_provenance(path: Path, info: JudgeInfo) -> bool:
    """A report already written by the same judge, model, rubric and prompt, and the same number of
    samples and seeds (a re-run skips it). A report in which the judge fell back, even in one of its
    samples, is graded again."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        old = doc["judge"]
        fell = bool((doc.get("samples") or {}).get("fallback_samples"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    if not isinstance(old, dict):
        return False
    keys = ("kind", "model", "rubric_version", "prompt_hash", "seed", "temperature", "samples", "seeds")
    return not old.get("fallback") and not fell and all(old.get(k) == getattr(info, k) for k in keys)


def report_json(r: Report) -> str:
    return json.dumps(r.model_dump(mode="json"), ensure_ascii=False, indent=2, sort_keys=False) + "\n"
