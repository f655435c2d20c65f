"""The app's stylesheet and scripts, kept as files in `agent/ui/static/` (package data, so an installed
package has them) and read when the app is launched: `launch_kwargs` passes them to Gradio as `css` and
`head`; the messages Gradio's own frontend lacks (`gradio_i18n`), passed as its `i18n`; and the Chinese for
what Gradio writes as fixed English (`gradio_fixed`), which the page swaps in itself."""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files

import gradio as gr

from agent.util.messages import LANGS, Lang, catalogue, t

STATIC = "static"


def _read(name: str) -> str:
    return files("agent.ui").joinpath(STATIC).joinpath(name).read_text(encoding="utf-8")


@cache
def css() -> str:
    """`static/app.css`: the round progress box and its clock, report tables."""
    return _read("app.css")


GRADIO_FIXED = "ui.gradio_fixed."
"""The group of `messages/ui.yaml` that holds Gradio's fixed English and its Chinese."""


def gradio_fixed() -> list[tuple[str, str]]:
    """(English as Gradio writes it, Chinese) for each text Gradio 6 writes as fixed English in its components
    (no message key its locale could change: "Adjust volume", "Copy table data", "processing |", …); a `{field}`
    stands for a part Gradio fills in (`Skip forward by {seconds} seconds`)."""
    return _pairs(GRADIO_FIXED)


GRADIO_PLAYER = "ui.gradio_player."
"""The group of `messages/ui.yaml` that holds Gradio's own messages a player holding audio shows, in its en and
zh-CN."""


def gradio_player() -> list[tuple[str, str]]:
    """(Gradio's English, Gradio's Chinese) for each of its messages a player holding audio shows ("Download",
    "Play", …): the page puts them in the new language on a switch, as the player is not mounted again
    (`agent.ui.app.remounted`)."""
    return _pairs(GRADIO_PLAYER)


def _pairs(group: str) -> list[tuple[str, str]]:
    """(en, zh) of each message of `group` (a key prefix of the catalogue), in the file's order."""
    return [(e["en"], e["zh"]) for key, e in catalogue().items() if key.startswith(group)]


@cache
def head() -> str:
    """The page head's scripts: `static/app.js` (the round clock, counted in the browser, and Gradio's locale
    set by the language switch) and `static/gradio_fixed.js` with its pairs (`gradio_fixed`, `gradio_player`)
    as `window.coachGradioFixed` and `window.coachGradioPlayer`."""
    pairs = json.dumps(gradio_fixed(), ensure_ascii=False).replace("</", "<\\/")
    player = json.dumps(gradio_player(), ensure_ascii=False).replace("</", "<\\/")
    return (
        f"<script>\n{_read('app.js')}</script>\n"
        f"<script>\nwindow.coachGradioFixed = {pairs};\nwindow.coachGradioPlayer = {player};\n"
        f"{_read('gradio_fixed.js')}</script>\n"
    )


GRADIO_MESSAGES = {
    "common.complete": "ui.gradio_complete",  # the screen reader's word when an event is done (no English either)
    "status.queue_position": "ui.gradio_queue_position",
    "common.progress": "ui.gradio_progress",
    "dataframe.filter": "ui.gradio_filter",
    "dataframe.clear_filter": "ui.gradio_clear_filter",
    "audio.recording_error": "ui.gradio_recording_error",
    "common.download_all": "ui.gradio_download_all",
}
"""Gradio's message keys that its components in this app look up and its frontend has no Chinese for (Gradio
6: its zh-CN messages lack them; `common.complete` has no English either, so it showed as itself), with the
app's messages for them. Its labels written as fixed English (no key) cannot be reached by its i18n:
`gradio_fixed` has them."""


def gradio_locale(lang: Lang) -> str:
    """The locale of Gradio's frontend for an interface language (`static/app.js` sets it)."""
    return "zh-CN" if lang == "zh" else "en"


def gradio_i18n() -> gr.I18n:
    """The messages of `GRADIO_MESSAGES` for Gradio's frontend, which adds them to its own (its `i18n`); the
    fields are Gradio's `{position}` and `{size}`, filled by Gradio."""
    return gr.I18n(
        **{
            gradio_locale(lang): {
                key: t(ours, lang, position="{position}", size="{size}")
                for key, ours in GRADIO_MESSAGES.items()
            }
            for lang in LANGS
        }
    )
