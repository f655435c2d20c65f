"""The calibration report as Markdown, JSON and a PNG plot (judge vs human, per dimension)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from agent.calibration.calibrate import CalibrationReport, Point, SourceStats

JSON_NAME = "calibration.json"
MD_NAME = "calibration.md"
PNG_NAME = "calibration.png"


def _judge_line(r: CalibrationReport) -> str:
    j = r.judge
    parts = [f"{j.kind}:{j.model}", j.rubric_version]
    parts += [x for x in (j.endpoint, j.vllm_version, j.prompt_hash) if x]
    if j.fallback:
        parts.append(f"FALLBACK: {j.fallback_reason}")
    return " · ".join(parts)


def _source_md(s: SourceStats) -> list[str]:
    out = [f"### {s.source} ({s.n_items} items)", "", f"Labels: {s.labels}.", ""]
    out += [f"- {n}" for n in s.notes]
    if s.notes:
        out.append("")
    if s.n_items == 0:
        return [*out, "No labelled items.", ""]
    out += [
        "| dimension | exact | ±1 | quadratic weighted kappa | Spearman |",
        "| --- | --- | --- | --- | --- |",
    ]
    for d in s.dimensions:
        out.append(
            f"| {d.dimension} | {d.exact.fmt(pct=True)} | {d.within_one.fmt(pct=True)} | {d.kappa.fmt()} "
            f"| {d.spearman.fmt()} |"
        )
    out.append("")
    if s.pair_order.n:
        out.append(
            f"Pair order (the better answer has the higher total, a tie is a miss): "
            f"{s.pair_order.fmt(pct=True)}."
        )
        out += [f"- miss: {f}" for f in s.pair_failures]
        out.append("")
    if s.flags:
        out += [
            "| flag | recall | precision | strict precision | expected | hit | raised, forbidden | raised, unlabelled |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for f in s.flags:
            c = f.counts
            out.append(
                f"| {f.flag} | {f.recall.fmt(pct=True)} | {f.precision.fmt(pct=True)} | "
                f"{f.strict_precision.fmt(pct=True)} | {c.expected} | {c.hit} | {c.forbidden_raised} | "
                f"{c.unlabelled_raised} |"
            )
        out += [
            "",
            "Precision counts the raised flags a label speaks about (required or forbidden); strict precision "
            "counts every raised flag, an unlabelled one as false.",
            "",
        ]
    return out


def markdown(r: CalibrationReport, plot_name: str | None = PNG_NAME) -> str:
    out = [
        "# Judge calibration",
        "",
        f"Judge: {_judge_line(r)}  ",
        f"Run: {r.created_at} on {r.machine}",
        "",
    ]
    if r.fallbacks:
        out += [
            f"**{r.fallbacks} assessment(s) fell back to the embedded judge** (the chosen judge failed); "
            "they are left out of the figures below. Reasons:",
            "",
            *[f"- {why}" for why in r.fallback_reasons],
            "",
        ]
    if plot_name:
        out += [f"![judge vs human per dimension]({plot_name})", ""]
    out += _source_md(r.graded)
    out += _source_md(r.overrides)
    if r.spread:
        sp = r.spread
        out += [
            f"### Run-to-run spread ({sp.repeat} runs of {sp.n_items} answers the chosen judge scored every time)",
            "",
            "| dimension | largest range of one item | mean SD | items that changed |",
            "| --- | --- | --- | --- |",
        ]
        for d in [*sp.dimensions, sp.total]:
            out.append(f"| {d.dimension} | {d.max_range} | {d.mean_sd:.3f} | {d.items_changed} |")
        out.append("")
        if sp.left_out:
            out += [f"Left out (the chosen judge failed in some run): {', '.join(sp.left_out)}.", ""]
    return "\n".join(out) + "\n"


def _bubbles(ax: Any, points: list[Point], color: str, label: str, offset: float) -> None:
    counts = Counter((p.label, p.judge) for p in points)
    if not counts:
        return
    xs = [k[0] + offset for k in counts]
    ys = [k[1] for k in counts]
    sizes = [30 + 45 * c for c in counts.values()]
    ax.scatter(xs, ys, s=sizes, alpha=0.55, color=color, label=label, edgecolors="black", linewidths=0.4)
    for x, y, c in zip(xs, ys, counts.values(), strict=True):
        if c > 1:
            ax.annotate(str(c), (x, y), ha="center", va="center", fontsize=7)


def plot(r: CalibrationReport, path: Path) -> Path:
    """Five panels (one per dimension): the judge's score against the human label; bubble size = count."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    dims = [d.dimension for d in r.graded.dimensions if d.dimension != "total"]
    fig, axes = plt.subplots(1, len(dims), figsize=(3.2 * len(dims), 3.6), sharey=True)
    for ax, d in zip(axes, dims, strict=True):
        ax.plot([1, 5], [1, 5], color="grey", linewidth=0.8, linestyle="--")
        _bubbles(
            ax, [p for p in r.graded.points if p.dimension == d], "tab:blue", "graded set (midpoint)", -0.06
        )
        _bubbles(ax, [p for p in r.overrides.points if p.dimension == d], "tab:orange", "override log", 0.06)
        stats = next(x for x in r.graded.dimensions if x.dimension == d)
        ax.set_title(f"{d}\nκ={stats.kappa.fmt()}", fontsize=9)
        ax.set_xlim(0.5, 5.5)
        ax.set_ylim(0.5, 5.5)
        ax.set_xticks([1, 2, 3, 4, 5])
        ax.set_yticks([1, 2, 3, 4, 5])
        ax.set_xlabel("human label")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"judge ({r.judge.kind})")
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, markerscale=0.5)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write(r: CalibrationReport, out: Path, *, with_plot: bool = True) -> dict[str, Path]:
    """calibration.json, calibration.md and (with matplotlib) calibration.png in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / JSON_NAME, "md": out / MD_NAME}
    paths["json"].write_text(
        json.dumps(r.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    png: str | None = None
    if with_plot:
        try:
            paths["png"] = plot(r, out / PNG_NAME)
            png = PNG_NAME
        except ImportError:
            png = None
    paths["md"].write_text(markdown(r, png), encoding="utf-8")
    return paths
