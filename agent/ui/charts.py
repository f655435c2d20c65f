"""The radar chart of the five rubric dimensions, one polygon per round (matplotlib, no display)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

import matplotlib

matplotlib.use("Agg")

from matplotlib import pyplot as plt
from matplotlib.figure import Figure
from matplotlib.projections.polar import PolarAxes

# CJK-capable fonts first (Debian fonts-wqy-microhei / fonts-noto-cjk), then matplotlib's own.
matplotlib.rcParams["font.sans-serif"] = [
    "WenQuanYi Micro Hei",
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "DejaVu Sans",
]
matplotlib.rcParams["axes.unicode_minus"] = False


def radar(axes_labels: Sequence[str], series: Sequence[tuple[str, Sequence[int]]]) -> Figure:
    """`series`: (label, five scores 1-5 in the order of `axes_labels`); the legend sits below."""
    n = len(axes_labels)
    angles = [2 * math.pi * i / n for i in range(n)]
    fig = plt.figure(figsize=(6.4, 5.2), dpi=100)
    ax = cast(PolarAxes, fig.add_subplot(projection="polar"))
    ax.set_theta_offset(math.pi / 2)
    ax.set_theta_direction(-1)
    ax.set_xticks(angles, list(axes_labels))
    ax.set_ylim(0, 5)
    ax.set_yticks([1, 2, 3, 4, 5])
    for label, scores in series:
        values = [*scores, scores[0]]
        ax.plot([*angles, angles[0]], values, linewidth=1.8, label=label)
        ax.fill([*angles, angles[0]], values, alpha=0.12)
    if series:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=min(3, len(series)), fontsize=9)
    fig.tight_layout()
    plt.close(fig)  # the caller owns it; keep pyplot's registry empty
    return fig
