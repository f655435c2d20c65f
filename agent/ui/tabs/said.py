"""A line a session tab says in the interface language (a status line, the note under the question's player,
the override log's answer), written in both languages when it is said, so the language switch shows it in
the new one: what is already on screen never stays in the old language.

A handler returns the line's text in the interface language for the component (what the API gives), and
its `Said` for a `gr.State` beside it; `follow_switch` shows the state's other language on a switch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradio as gr

from agent.graph import Rejoined
from agent.graph.notice import Notice
from agent.rubric.model import Lang
from agent.ui.context import AppContext, lang_of, outputs
from agent.util.messages import LANGS, t

Said = dict[str, str]
"""A line in each interface language ({"en": …, "zh": …}); plain JSON, as a gr.State keeps it."""


def said(render: Callable[[Lang], str]) -> Said:
    """`render(lang)` in each interface language."""
    return {lang: render(lang) for lang in LANGS}


def says(key: str, mark: str = "", **fields: object) -> Said:
    """The message `key` with its `fields` in each language, after `mark` ("⚠️ ", "✓ ")."""
    return said(lambda lang: f"{mark}{t(key, lang, **fields)}")


def paused(back: Rejoined) -> Said | None:
    """What a person coming back to a session hears about the clock: the time away it left out
    (`graph.rejoin`), when it is worth saying."""
    minutes = back.told_minutes
    return None if minutes is None else says("ui.clock_paused", minutes=minutes)


def verbatim(text: str | None) -> Said:
    """A text that reads the same in either interface language: an error's message, a session's notice
    stored as text before notices were keyed."""
    return said(lambda _lang: text or "")


def keyed(message: Notice | None, text: str | None) -> Said:
    """What a session says (its `notice`, or its `message` on bad input) in each interface language, from
    its key and fields (`graph.notice`); `text` as it is when the session has only that (an old session)."""
    return said(message.text) if message else verbatim(text)


def joined(*parts: Said | None) -> Said:
    """The parts that say something, a paragraph each."""
    return said(lambda lang: "\n\n".join(p[lang] for p in parts if p and p.get(lang)))


def in_ui(line: Said | None, ui: Lang) -> str:
    """The line in the interface language `ui` ("" for none)."""
    return (line or {}).get(ui, "")


def follow_switch(ctx: AppContext, tab: str, lines: list[tuple[gr.State, Any]]) -> None:
    """Each line, a component whose text the tab's handlers write with its `Said` in the state beside it, shown
    again in the interface language on each switch (a line never said is left as it is)."""
    states = [state for state, _ in lines]

    def again(ui_v: str, *saids: Said | None) -> Any:
        ui = lang_of(ui_v)
        return outputs([gr.update() if s is None else in_ui(s, ui) for s in saids])

    ctx.ui.change(
        again,
        [ctx.ui, *states],
        [shown for _, shown in lines],
        api_name=f"{tab}_lines_follow_switch",
        show_progress="hidden",
    )
