"""Batch grading: the order transcripts are sent in when several are in flight."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent.contracts.checklist import Checks
from agent.contracts.report import Report
from agent.contracts.transcript import Transcript
from agent.grading.batch import Outcome, grade_files
from agent.grading.render import report_json
from agent.graph import grade_with_graph
from agent.judge.base import Fill
from agent.judge.embedded import EmbeddedJudge
from agent.judge.matching import Sentence
from agent.rubric import load_rubric
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang, RoundId

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "transcripts"


class OrderJudge(EmbeddedJudge):
    """The embedded judge, slowed down, noting the order it saw the answers in."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.lock = threading.Lock()

    def fill(
        self,
        rubric: Rubric,
        round_id: RoundId,
        answer: str,
        lang: Lang,
        checks: Checks,
        sents: Sequence[Sentence],
        snippets: str = "",
    ) -> Fill:
        with self.lock:
            self.seen.append(answer)
        time.sleep(0.5)  # a judge server takes seconds a round: both workers are busy at once
        return super().fill(rubric, round_id, answer, lang, checks, sents, snippets=snippets)


def test_the_largest_transcripts_are_sent_first_and_outcomes_keep_the_file_order(tmp_path: Path) -> None:
    rubric = load_rubric()
    files = sorted(EXAMPLES.glob("*.json"))
    by_size = sorted(files, key=lambda f: f.stat().st_size, reverse=True)
    assert by_size != files  # the example files are not already largest first
    first_answer = {}
    for f in files:
        t = json.loads(f.read_text(encoding="utf-8"))
        first_answer[f] = next(
            turn["text"] for turn in t["rounds"][0]["turns"] if turn["role"] == "candidate"
        )
    judge = OrderJudge()
    outcomes = grade_files(rubric, files, judge=judge, concurrency=2)
    assert [o.source for o in outcomes] == files and all(o.report is not None for o in outcomes)
    # two workers: the two largest start at once, the smallest waits for one of them to finish
    start = {f: next(k for k, a in enumerate(judge.seen) if first_answer[f] in a) for f in files}
    smallest = by_size[-1]
    assert all(start[smallest] > start[f] for f in by_size[:-1]), start


def test_report_names_are_distinct_whatever_the_inputs_are_called(tmp_path: Path) -> None:
    """Every input gets its own report name, compared without case (as a case-insensitive disk
    would), even when a file is named like another input's hashed name; the same inputs always give
    the same names, and a file keeps its own name whenever no other input had it first."""
    import hashlib
    import os

    from agent.grading.batch import report_names

    a = tmp_path / "sub1" / "same.json"
    h = f"same-{hashlib.sha256(os.path.abspath(a).encode()).hexdigest()[:8]}"
    files = [
        a,
        tmp_path / "sub2" / "same.json",
        tmp_path / "sub3" / f"{h}.json",
        tmp_path / "sub3" / f"{h.upper()}-2.json",
        tmp_path / "sub3" / f"{h}-3.json",
        tmp_path / "sub5" / "Same.json",
        tmp_path / "top.json",
    ]
    names = report_names(files)
    assert len({n.casefold() for n in names.values()}) == len(files), names
    assert names[files[2]] == h and names[files[3]] == f"{h.upper()}-2" and names[files[6]] == "top"
    assert report_names(files) == names and report_names(list(reversed(files))) == names


def _graph_in(t: Transcript, **kw: Any) -> Report:
    """`grade_with_graph`, the report's id marked with the process that graded it."""
    rep = grade_with_graph(t, **kw)
    return rep.model_copy(update={"id": f"{rep.id}@{os.getpid()}"})


def test_worker_processes_give_the_same_reports_and_a_bad_file_stays_one_line(tmp_path: Path) -> None:
    """The embedded judge is CPU-bound Python: `processes=2` grades in forked workers (other pids), with
    the reports byte for byte those of one process, the files' order kept and a bad file one error."""
    files = sorted(EXAMPLES.glob("*.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    files = [*files[:2], bad, *files[2:]]
    rubric = load_rubric()
    seen: list[Path] = []
    runs = {
        n: grade_files(rubric, files, replay=_graph_in, processes=n, on_done=lambda o: seen.append(o.source))
        for n in (1, 2)
    }
    assert sorted(seen) == sorted(files * 2)
    pids: dict[int, set[str]] = {}
    for n, outcomes in runs.items():
        assert [o.source for o in outcomes] == files
        assert outcomes[2].report is None and outcomes[2].error and str(bad) in outcomes[2].error
        assert not outcomes[2].internal
        pids[n] = {o.report.id.rsplit("@", 1)[1] for o in outcomes if o.report is not None}
    assert pids[1] == {str(os.getpid())}
    assert pids[2] and str(os.getpid()) not in pids[2]

    def plain(outcomes: list[Outcome]) -> list[str]:
        return [
            report_json(o.report.model_copy(update={"id": o.report.id.rsplit("@", 1)[0]}))
            for o in outcomes
            if o.report is not None
        ]

    assert plain(runs[2]) == plain(runs[1])


_PARENT = os.getpid()


def _dies_in_a_worker(t: Transcript, **kw: Any) -> Report:
    if t.id == "t-002" and os.getpid() != _PARENT:
        os._exit(9)  # a worker killed mid-file (no exception, no cleanup)
    return grade_with_graph(t, **kw)


def test_a_worker_that_dies_loses_no_file() -> None:
    files = sorted(EXAMPLES.glob("*.json"))
    outcomes = grade_files(load_rubric(), files, replay=_dies_in_a_worker, processes=2)
    assert [o.source for o in outcomes] == files
    assert all(o.report is not None and o.error is None for o in outcomes), [o.error for o in outcomes]


def test_a_chinese_reports_round_table_lists_flags_with_the_chinese_enumeration_comma(tmp_path: Path) -> None:
    """Items of one kind side by side read "a、b" in Chinese, "a, b" in English (the round table's flags)."""
    from agent.contracts.labels import flag_name
    from agent.grading.render import report_markdown

    rubric = load_rubric()
    src = Path(__file__).parent.parent / "examples" / "transcripts" / "t-001.json"
    tr = Transcript.model_validate_json(src.read_text(encoding="utf-8"))
    report = grade_with_graph(tr, rubric=rubric)
    for lang in ("zh", "en"):
        ra = report.rounds[0].model_copy(update={"flags": ["happy_path_only", "validation_1"]})
        r = report.model_copy(update={"language": lang, "rounds": [ra, *report.rounds[1:]]})
        md = report_markdown(r, rubric)
        names = [flag_name(f, lang) for f in ra.flags]  # type: ignore[arg-type]
        sep = "、" if lang == "zh" else ", "
        assert f"| {sep.join(names)} |" in md, md
