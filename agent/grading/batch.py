"""Grading a batch of transcript files: one report each, a batch that goes on past a bad file.

Each transcript is graded by `replay` (the interview graph's grade mode, which `interview grade` passes
in: `agent.graph.grade_with_graph`) or else by `agent.grading.single.grade_transcript`; with
`samples` > 1 by `agent.grading.samples.grade_samples` over either.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import pickle
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Protocol

from agent.contracts.report import JudgeInfo, Report
from agent.contracts.transcript import Transcript, TranscriptError, load_transcript
from agent.grading.samples import grade_samples
from agent.grading.single import grade_transcript
from agent.judge.base import Judge
from agent.judge.checks import PathChecker
from agent.judge.sources import Sources
from agent.rubric.loader import Rubric


class Replay(Protocol):
    """One transcript graded through the interview graph's grade mode: `agent.graph.grade_with_graph`."""

    def __call__(
        self,
        t: Transcript,
        *,
        rubric: Rubric | None = None,
        judge: Judge | None = None,
        info: JudgeInfo | None = None,
        sources: Sources | None = None,
    ) -> Report: ...


@dataclass
class Inputs:
    files: list[Path] = field(default_factory=list)
    """what to grade: every path given that is not a folder, and every entry named *.json in a given
    folder (searched recursively, sorted) that is not a folder, readable or not: a dangling link, a
    link loop, a FIFO, a device or a socket is kept so that grading names it and says what it is."""
    skipped: list[str] = field(default_factory=list)
    """one line each, not failures: a folder named *.json inside a given folder (not graded itself;
    its *.json files are searched like any other folder's unless it is a link, which is not followed)."""
    errors: list[str] = field(default_factory=list)
    """one line each, failures: a folder inside a given folder that could not be listed."""


def find_inputs(paths: Iterable[Path]) -> Inputs:
    """The batch for `paths`, in a reproducible order; the same path twice is graded once."""
    found = Inputs()
    seen: set[str] = set()

    def add(p: Path) -> None:
        key = os.path.abspath(p)
        if key not in seen:
            seen.add(key)
            found.files.append(p)

    for p in paths:
        if not p.is_dir():
            add(p)
            continue
        entries: list[tuple[Path, bool]] = []  # (path, is a folder)
        for top, dirs, names in os.walk(p, onerror=partial(_unlisted, found, p)):  # links not followed
            entries += [(Path(top, d), True) for d in dirs if d.endswith(".json")]
            entries += [(Path(top, n), False) for n in names if n.endswith(".json")]
        for x, is_folder in sorted(entries):
            if not is_folder:
                add(x)  # a dangling link or a loop is here too: grading names it
            elif x.is_symlink():
                found.skipped.append(
                    f"{x}: a link to a folder, named *.json: skipped (links are not followed)"
                )
            else:
                found.skipped.append(
                    f"{x}: a folder named *.json, not a transcript: skipped (the *.json files in it are graded)"
                )
    return found


def _unlisted(found: Inputs, top: Path, e: OSError) -> None:
    found.errors.append(f"{e.filename or top}: cannot list this folder ({e.strerror or e}): not searched")


def find_transcripts(paths: Iterable[Path]) -> Iterator[Path]:
    """`find_inputs(paths).files`."""
    yield from find_inputs(paths).files


def report_names(files: Iterable[Path]) -> dict[Path, str]:
    """The report's file name (without extension) for each input, distinct across the batch whatever
    the inputs are called: its stem, or, when inputs in different folders share a stem, `stem-<first 8
    hex digits of the SHA-256 of the input's absolute path>` for each of them. Every name is reserved
    for the whole batch, compared as a case-insensitive disk would (`name_key`): an input keeps its own
    stem (no other input has it), and a hashed name that another input already has (a file named like
    it, `same-1a2b3c4d.json`) gets a further `-2`, `-3`, … (the first one free). The hashed names are
    given in the order of the inputs' absolute paths, so the same inputs give the same names in any
    order, and a re-run of them overwrites its own reports, never another's."""
    files = list(dict.fromkeys(files))
    by_stem: dict[str, list[Path]] = {}
    for f in files:
        by_stem.setdefault(name_key(f.stem), []).append(f)
    names = {f: f.stem for f in files if len(by_stem[name_key(f.stem)]) == 1}
    taken = {name_key(n) for n in names.values()}
    shared = sorted((f for f in files if f not in names), key=_abs)
    for f in shared:
        base = name = hashed_name(f)
        k = 1
        while name_key(name) in taken:
            k += 1
            name = f"{base}-{k}"
        taken.add(name_key(name))
        names[f] = name
    return {f: names[f] for f in files}


def hashed_name(f: Path) -> str:
    """`stem-<first 8 hex digits of the SHA-256 of the input's absolute path>`: the report name of an
    input that shares its file name with another (before any further suffix)."""
    digest = hashlib.sha256(_abs(f).encode("utf-8", "surrogateescape")).hexdigest()
    return f"{f.stem}-{digest[:8]}"


def name_key(name: str) -> str:
    """What two report names must not share: the name as a case-insensitive (or Unicode-normalising)
    disk compares it."""
    return unicodedata.normalize("NFC", name).casefold()


def _abs(f: Path) -> str:
    return os.path.abspath(f)


@dataclass
class Outcome:
    source: Path
    report: Report | None = None
    error: str | None = None
    """one line, starting with the input's path: what is wrong with it (or with grading it)."""
    internal: bool = False
    """the error is a bug of the grader, not a problem of the input (`interview grade` exits 3)."""
    exc: BaseException | None = None
    """the exception of an internal error (for a traceback on request)."""


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
    replay: Replay | None = None,
    samples: int = 1,
    sample_temperature: float | None = None,
    processes: int = 1,
) -> list[Outcome]:
    """Grade every file; a bad one becomes an Outcome with one clear error and the batch goes on.

    `processes` > 1: that many forked worker processes grade the files (a judge without a server is
    CPU-bound Python: threads share one core, processes use them all); the results are the same as
    one process gives. Where fork is not available, one process grades them; the files of a worker that
    died (killed, out of memory) are graded again in this process.

    `replay`: each transcript through the interview graph's grade mode (`agent.graph.grade_with_graph`,
    as `interview grade` does), unless a `path_checker` is given; else `grade_transcript`.
    `samples` > 1: each transcript graded that many times, the median report with its spread
    (`agent.grading.samples.grade_samples`; `sample_temperature` for the vLLM judge).
    """

    def one(f: Path) -> Outcome:
        try:
            t = load_transcript(f)
            if samples > 1:

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
            return Outcome(f, error=_flat(str(e)))
        except Exception as e:  # a bug while grading this one: say so on its line and go on
            why = _flat(f"{type(e).__name__}: {e}", 300)
            return Outcome(f, error=f"{f}: internal error while grading ({why})", internal=True, exc=e)

    outcomes: list[Outcome] = []
    if processes > 1 and len(files) > 1 and "fork" in multiprocessing.get_all_start_methods():
        return _in_processes(one, files, min(processes, len(files)), on_done)
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
    return _in_file_order(outcomes, files)


def _in_file_order(outcomes: list[Outcome], files: list[Path]) -> list[Outcome]:
    order = {f: k for k, f in enumerate(files)}
    return sorted(outcomes, key=lambda o: order[o.source])


_WORK: Callable[[Path], Outcome] | None = None
"""The grading function of the batch in progress, inherited by its forked workers (closures do not pickle)."""


def _work(f: Path) -> Outcome:
    assert _WORK is not None
    o = _WORK(f)
    if o.exc is not None:
        try:
            pickle.dumps(o.exc)
        except Exception:  # an exception that does not pickle comes back as its text
            o = Outcome(o.source, error=o.error, internal=o.internal, exc=RuntimeError(repr(o.exc)))
    return o


def _in_processes(
    one: Callable[[Path], Outcome], files: list[Path], n: int, on_done: Callable[[Outcome], None] | None
) -> list[Outcome]:
    """`one` over `files` in `n` forked processes, the largest files first; outcomes in the files' order."""
    global _WORK
    _WORK = one
    outcomes: list[Outcome] = []
    lost: set[Path] = set()
    try:
        with ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("fork")) as pool:
            futures: dict[Future[Outcome], Path] = {
                pool.submit(_work, f): f for f in sorted(files, key=_size, reverse=True)
            }
            for fut in as_completed(futures):
                try:
                    o = fut.result()
                except BrokenProcessPool:  # a worker died (killed, out of memory): the pool is gone
                    lost.add(futures[fut])
                    continue
                outcomes.append(o)
                if on_done:
                    on_done(o)
    finally:
        _WORK = None
    for f in [f for f in files if f in lost]:  # graded again here, one at a time, in the files' order
        o = one(f)
        outcomes.append(o)
        if on_done:
            on_done(o)
    return _in_file_order(outcomes, files)


def _flat(text: str, limit: int = 1000) -> str:
    """One line: each line break becomes a space; at most `limit` characters."""
    flat = " ".join(text.splitlines())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _size(f: Path) -> int:
    try:
        return f.stat().st_size
    except OSError:
        return 0  # unreadable: `one` reports it


def same_provenance(path: Path, info: JudgeInfo) -> bool:
    """A report already written by the same judge, model, rubric and prompt, with or without the holistic
    part alike, and the same number of samples and seeds (a re-run skips it). A report in which the judge
    fell back, even in one of its samples, is graded again."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        old = doc["judge"]
        fell = bool((doc.get("samples") or {}).get("fallback_samples"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    if not isinstance(old, dict):
        return False
    keys = (
        "kind",
        "model",
        "rubric_version",
        "prompt_hash",
        "seed",
        "temperature",
        "holistic",
        "samples",
        "seeds",
    )
    return not old.get("fallback") and not fell and all(old.get(k) == getattr(info, k) for k in keys)
