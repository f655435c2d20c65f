"""A spoken answer's delivery figures (pace, fillers, long pauses), beside its insight."""

from __future__ import annotations

import html

from agent.rubric.model import Lang
from agent.ui.views.text import labelled
from agent.util.messages import t
from agent.voice.delivery import Delivery


def delivery_md(d: Delivery, ui: Lang) -> str:
    """A spoken answer's delivery figures (pace, fillers, long pauses) with a plain hint each, headings
    and hints in the interface language `ui`; said to be no part of the five content scores."""
    unit = t(f"ui.delivery_unit_{d.unit}", ui)
    sep, dash, (po, pc) = ("，", "——", "（）") if ui == "zh" else (", ", " — ", "()")
    bands = {"slow": d.pace_bands.slow_below, "fast": d.pace_bands.fast_above, "unit": unit}
    if d.rate_per_min is None:
        pace = t("ui.delivery_too_short", ui)
    else:
        pace = (
            f"{t('ui.delivery_rate_value', ui, rate=d.rate_per_min, unit=unit, seconds=d.speaking_s)}{dash}"
        )
        pace += t(f"ui.delivery_{d.pace}", ui, **bands)
    if d.fillers:
        which = sep.join(f"{html.escape(u.text)} ×{u.count}" for u in d.filler_uses)
        fillers = t("ui.delivery_fillers_value", ui, n=d.fillers, which=which)
        if d.fillers_per_min is not None:
            fillers += f"{sep}{t('ui.delivery_fillers_rate', ui, per_min=d.fillers_per_min)}"
        if d.many_fillers:
            fillers += f"{dash}{t('ui.delivery_fillers_many', ui)}"
    else:
        fillers = t("ui.delivery_fillers_none", ui)
    if d.language == "en":
        fillers += f" <i>{po}{t('ui.delivery_fillers_en_note', ui)}{pc}</i>"
    if d.pauses is None:
        pauses = t("ui.delivery_pauses_unknown", ui)
    elif d.pauses and d.longest_pause_s is not None:
        pauses = t("ui.delivery_pauses_value", ui, n=d.pauses, longest=d.longest_pause_s)
    else:
        pauses = t("ui.delivery_pauses_none", ui)
    return "\n".join(
        [
            f"#### {t('ui.delivery_title', ui)}",
            "",
            f"<i>{t('ui.delivery_not_scored', ui)}</i>",
            "",
            f"- {labelled(t('ui.delivery_rate', ui), pace, ui)}",
            f"- {labelled(t('ui.delivery_fillers', ui), fillers, ui)}",
            f"- {labelled(t('ui.delivery_pauses', ui, s=d.pause_s), pauses, ui)}",
        ]
    )
