"""`interview index …`: build, describe, query and evaluate the index of the pinned vLLM source."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
import yaml
from rich.console import Console
from rich.table import Table

from agent.knowledge import (
    EmbedderError,
    KnowledgeIndexError,
    Scope,
    SourceError,
    SourceIndex,
    check_path,
    evaluate,
    load_queries,
    open_source,
)

app = typer.Typer(
    help="Index of the pinned vLLM source: build it, see what it holds, query it, measure retrieval.",
    no_args_is_help=True,
)
console = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


def _fail(exc: Exception) -> typer.Exit:
    err.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
    return typer.Exit(1)


@app.command()
def build(
    source: Annotated[
        Path | None,
        typer.Option(
            "--source",
            help="a vLLM git checkout, unpacked tree or wheel file "
            "(default: the vllm 0.26.0 wheel, downloaded once into the cache)",
        ),
    ] = None,
    all_files: Annotated[
        bool, typer.Option("--all", help="index every .py under vllm/, not only the source trail")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress lines")] = False,
) -> None:
    """Build (or incrementally update) the index; a failed build leaves the existing index as it was."""
    index = SourceIndex()
    try:
        with open_source(source) as src:
            console.print(f"source: {src.describe()}", highlight=False)
            report = index.build(
                src,
                Scope.ALL if all_files else Scope.TRAIL,
                progress=None if quiet else (lambda m: console.print(f"  {m}", highlight=False)),
            )
    except (SourceError, KnowledgeIndexError, EmbedderError) as exc:
        raise _fail(exc) from exc
    console.print(
        f"indexed {report.files} files, {report.chunks} chunks "
        f"({report.embedded_chunks} embedded from {report.embedded_files} changed files, "
        f"{report.reused_chunks} re-used, {report.removed_files} files removed) in {report.seconds:.1f} s",
        highlight=False,
    )
    console.print(f"vs pin: {report.relation_to_pin}", highlight=False)


@app.command()
def status(as_json: Annotated[bool, typer.Option("--json", help="machine-readable")] = False) -> None:
    """What the index holds, and plainly how it differs from the pinned commit."""
    st = SourceIndex().status()
    if as_json:
        print(st.model_dump_json(indent=2))
        return
    if not st.built:
        console.print(f"no index at {st.location}: {st.relation_to_pin}", highlight=False)
        raise typer.Exit(1)
    rows = [
        ("index", st.location),
        ("source", st.source or "?"),
        ("vllm version", st.version or "unknown"),
        ("indexed commit", st.commit or "unknown"),
        ("pinned commit", st.pin_commit),
        ("matches pin", "yes" if st.matches_pin else "no"),
        ("scope", f"{st.scope}: {st.files} files, {st.chunks} chunks"),
        ("embedder", st.embedder or "?"),
        ("built at", st.built_at or "?"),
    ]
    table = Table(show_header=False, box=None)
    for key, value in rows:
        table.add_row(key, value)
    console.print(table)
    console.print(f"vs pin: {st.relation_to_pin}", highlight=False)


@app.command()
def query(
    text: Annotated[str, typer.Argument(help="a question in English or Chinese")],
    k: Annotated[int, typer.Option("-k", help="how many snippets")] = 5,
    lines: Annotated[int, typer.Option("--lines", help="snippet lines to print")] = 12,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable")] = False,
) -> None:
    """The source snippets that best answer TEXT: path:lines, symbol, score, code, permalink."""
    try:
        snippets = SourceIndex().query(text, k)
    except (KnowledgeIndexError, EmbedderError) as exc:
        raise _fail(exc) from exc
    if as_json:
        print(json.dumps([s.model_dump() for s in snippets], ensure_ascii=False, indent=2))
        return
    for i, s in enumerate(snippets, 1):
        console.print(
            f"[bold]{i}. {s.location}[/bold]  {s.symbol} ({s.kind})  score {s.score:.3f}", highlight=False
        )
        console.print(s.excerpt(lines), markup=False, highlight=False)
        console.print(f"   {s.permalink}", style="dim", highlight=False)


@app.command("eval")
def eval_(
    k: Annotated[int, typer.Option("-k", help="recall@k")] = 5,
    queries: Annotated[
        Path | None, typer.Option("--queries", help="labelled set (default eval/retrieval/queries.yaml)")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable")] = False,
) -> None:
    """Recall@k and MRR of the index over the labelled query set, overall and per language."""
    index = SourceIndex()
    try:
        labelled = load_queries(queries)
    except (OSError, ValueError, KeyError, TypeError, yaml.YAMLError) as exc:
        raise _fail(ValueError(f"cannot read the labelled queries: {exc}")) from exc
    try:
        report = evaluate(index, labelled, k=k)
    except (KnowledgeIndexError, EmbedderError) as exc:
        raise _fail(exc) from exc
    report.index_commit = index.status().commit
    if as_json:
        print(report.model_dump_json(indent=2))
        return
    table = Table(title=f"retrieval over {report.overall.queries} labelled queries")
    for col in ("set", "queries", f"recall@{k}", "MRR", f"symbol recall@{k}", "symbol MRR"):
        table.add_column(col)
    for name, m in [("all", report.overall), *report.by_lang.items()]:
        table.add_row(
            name,
            str(m.queries),
            f"{m.recall_at_k:.3f}",
            f"{m.mrr:.3f}",
            "-" if m.symbol_recall_at_k is None else f"{m.symbol_recall_at_k:.3f}",
            "-" if m.symbol_mrr is None else f"{m.symbol_mrr:.3f}",
        )
    console.print(table)
    misses = [r for r in report.results if r.file_rank is None]
    for r in misses:
        console.print(f"miss {r.id} ({r.lang}): {r.query}", highlight=False)
        for top in r.top[:3]:
            console.print(f"    got {top}", highlight=False)
    console.print(
        f"recall@{k} {report.overall.recall_at_k:.3f}  MRR {report.overall.mrr:.3f}", highlight=False
    )


@app.command()
def check(
    citations: Annotated[
        list[str],
        typer.Argument(help="paths as an answer cites them, e.g. 'scheduler.py:Scheduler.schedule'"),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="machine-readable")] = False,
) -> None:
    """Check cited paths (and symbols, when the index covers the file) against the pinned tree."""
    index = SourceIndex()
    try:
        symbols = index.symbols() if index.current_generation() else None
    except KnowledgeIndexError:
        symbols = None
    results = [check_path(c, symbols=symbols) for c in citations]
    if as_json:
        print(json.dumps([r.model_dump(mode="json") for r in results], ensure_ascii=False, indent=2))
    else:
        for r in results:
            console.print(f"{r.status.value:15} {r.cited}  {r.reason}", highlight=False, markup=False)
    if any(not r.ok for r in results):
        raise typer.Exit(1)
