"""The Gradio app: Practice, Co-pilot, Review and Reports on one interview graph and one override log.

This module makes the shared header (title, interface language, who is signed in) and the owner of
the page, then lets each tab in `agent.ui.tabs` build itself over one `AppContext`.

Every event has an `api_name`, so everything the pages do can be driven with `gradio_client`.
Sessions belong to an owner: the signed-in user when the app requires a login, else the browser
(a random id kept in its local storage) or, for an API client, its Gradio session. A request never
sees another owner's session: the graph answers "no such session". Overrides belong to the session
they correct, so to its owner, or to a reviewer (see `agent.ui.tabs.review`).
"""

from __future__ import annotations

import secrets
from typing import Any

import gradio as gr

from agent.rubric.model import Lang
from agent.ui import signatures
from agent.ui.auth import browser_secret
from agent.ui.context import LANG_CHOICES, AppContext, Services, lang_of, outputs
from agent.ui.tabs import copilot, practice, reports, review
from agent.ui.tabs.shared import SessionPane, progress, question_md
from agent.ui.texts import Texts
from agent.util.messages import t

__all__ = ["AppContext", "Services", "build_app"]


def build_app(services: Services | None = None, *, ui_lang: Lang = "en") -> gr.Blocks:
    """The whole app, not launched. `main()` launches it with the safe defaults."""
    signatures.remember()  # Gradio looks a component class's constructor up once, not on every event
    T = Texts(ui_lang)
    with gr.Blocks(title=t("ui.app_title", ui_lang), analytics_enabled=False) as app:
        owner_state = gr.State(None)
        # what the browser keeps is read with the key every process shares: on any replica, after a restart
        shared = browser_secret()
        browser_id = gr.BrowserState(None, storage_key="interview-coach-browser", secret=shared)
        # the interface language this browser chose last: a reload keeps it
        ui_saved = gr.BrowserState(None, storage_key="interview-coach-ui-language", secret=shared)
        report_state = gr.State(None)
        with gr.Row(equal_height=True):
            with gr.Column(scale=4):
                T(gr.Markdown, {"value": header_md})
            with gr.Column(scale=1, min_width=180):
                ui = T(
                    gr.Radio,
                    {"label": "ui.ui_language"},
                    choices=LANG_CHOICES,
                    value=ui_lang,
                    elem_id="ui-language",
                )
        who = gr.Markdown("")
        # the switch's language, each switch a new value: the labels' event (`set_ui_language`) follows this,
        # not the radio, so it starts at once; Gradio's page runs the radio's own listeners (the tabs'
        # re-renders) one after another, and the labels, registered after them, came a dozen round trips late
        switched = gr.Textbox(visible=False, elem_id="ui-switched")
        ui.change(None, ui, switched, js=SWITCHED_JS, show_progress="hidden")  # in the page: no endpoint
        ctx = AppContext(services or Services(), T, ui_lang, ui, owner_state, report_state)

        panes = [practice.build(ctx), copilot.build(ctx)]
        review.build(ctx, sessions=[p.state for p in panes])
        reports.build(ctx)

        switched.change(
            ctx.bind(switch, panes),
            [ui, *(p.state for p in panes), owner_state, *(x for p in panes for x in p.rerender_inputs)],
            [
                *T.blocks,
                *(p.question for p in panes),
                *(p.progress for p in panes),
                *(c for p in panes for c in p.rerendered),
            ],
            api_name="set_ui_language",
        ).then(lambda v: lang_of(v), ui, ui_saved, api_name="remember_ui_language", show_progress="hidden")
        loaded = app.load(
            ctx.bind(restore_owner),
            [browser_id, ui],
            [browser_id, owner_state, who],
            api_name="restore_owner",
        )
        # the language this browser chose last, set in the page at once (no round trip to the server)
        app.load(None, [ui_saved, ui], ui, js=SAVED_LANGUAGE_JS, show_progress="hidden")
        for pane in panes:
            if pane.on_load is not None:
                pane.on_load(loaded)
        follow_gradio_locale(app, ui, [switched.change, loaded.then])
        ui.change(ctx.bind(signed_in), ui, who, api_name="signed_in_rerender", show_progress="hidden")
    return app


SWITCHED_JS = "(v) => `${v} ${Date.now()}`"
"""The switch's language and the time: a new value on every switch, so `switched` changes each time."""


SAVED_LANGUAGE_JS = "(saved, current) => (saved === 'en' || saved === 'zh' ? saved : current)"
"""The interface language this browser chose last, else the switch as it is (the same value changes nothing)."""


GRADIO_LOCALE_JS = (
    "async (v, ...values) => [window.coachGradioLocale && (await window.coachGradioLocale(v)) ? v : '', ...values]"
)
"""Sets the locale of Gradio's frontend to the switch's language (`static/app.js`); hands the language on
when that changed the locale, else '', and the values of the blocks that show Gradio's strings as they are."""


def gradio_string_blocks(app: gr.Blocks) -> list[gr.components.Component]:
    """The components that show Gradio's own strings, which they render once, when mounted: an upload
    (gr.File: "Drop File Here", "Click to Upload", …) and every gr.Audio (the microphone's "Record" and
    "Stop", a player's "Download", "Share", "Clear", "Play"). None of them is ever hidden by the app (they are
    hidden and shown again to follow the locale)."""
    return [b for b in app.blocks.values() if isinstance(b, (gr.File, gr.Audio))]


def remounted(block: gr.components.Component, value: Any) -> bool:
    """Whether the locale's switch mounts `block` again (hidden, then shown): not a gr.Audio holding audio.

    Gradio 6 keeps a hidden component's value and mounts it again with it when shown, but a player mounted
    again loads and decodes its audio anew: it is gone for a moment, then shows 0:00 / 0:00 until the audio
    is decoded (seconds on a busy machine; issue 12). A player with audio stays mounted: the few strings of
    Gradio's it shows then (its "Download", "Share", "Clear", "Play" / "Pause") are put in the new language
    by the page (`gradio_player` in `messages/ui.yaml`, `static/gradio_fixed.js`); what Gradio draws after
    the switch is in the new locale. `value`: the block's value as the page has it (not preprocessed)."""
    return not (isinstance(block, gr.Audio) and bool(value))


def follow_gradio_locale(app: gr.Blocks, ui: gr.Radio, triggers: list[Any]) -> None:
    """Gradio's own strings follow the language switch, on load and on each switch.

    Gradio's frontend takes its locale from the browser's language when the page loads; the page sets it to
    the switch's language (`GRADIO_LOCALE_JS`: Gradio's own `changeLocale`). A component renders those
    strings when it is mounted, so when the locale changed, the components that show them are hidden
    (unmounted) and shown again (mounted in the new locale), their values kept, but for the players that
    hold audio (`remounted`), which stay as they are, their audio and its duration on screen."""
    blocks = gradio_string_blocks(app)

    def hide_for_locale(ui_v: str | None, *values: Any) -> list[Any]:
        """Hidden when the locale changed (`ui_v`: the switch's language; '' when it did not), each block
        `remounted`; last, which were hidden."""
        moved = ui_v in ("en", "zh")
        hidden = [moved and remounted(b, v) for b, v in zip(blocks, values, strict=True)]
        return [*[gr.update(visible=False) if h else gr.update() for h in hidden], hidden]

    def show_in_locale(hidden: list[bool] | None) -> Any:
        """Shown again, so mounted in the new locale: those `hide_for_locale` hid."""
        return outputs([gr.update(visible=True) if h else gr.update() for h in hidden or [False] * len(blocks)])

    for i, trigger in enumerate(triggers):
        suffix = "" if i == 0 else "_on_load"
        changed = gr.State([])  # one per trigger: a load and a switch may run at once
        trigger(
            hide_for_locale,
            [ui, *blocks],
            [*blocks, changed],
            js=GRADIO_LOCALE_JS,
            preprocess=False,  # '' is no choice of the switch; the values are only looked at
            api_name=f"gradio_locale{suffix}",
            show_progress="hidden",
            concurrency_limit=None,
        ).then(
            show_in_locale,
            changed,
            blocks,
            api_name=f"gradio_locale_shown{suffix}",
            show_progress="hidden",
            concurrency_limit=None,
        )


def header_md(lang: Lang) -> str:
    return f"## {t('ui.app_title', lang)}\n{t('ui.app_intro', lang)}"


def switch(
    ctx: AppContext,
    panes: list[SessionPane],
    ui_v: str,
    p: dict[str, Any],
    c: dict[str, Any],
    owner_v: str | None,
    request: gr.Request,
    *more_v: Any,
) -> list[Any]:
    """Every label in the new language, the rendered question and progress of both tabs, and what else
    a tab shows (Practice: the insight, the round's scores, the conversation; Co-pilot: its decisions and
    status lines, from the values of its `rerender_inputs`, `more_v` holding each tab's in turn)."""
    lang = lang_of(ui_v)
    questions = [question_md(st, lang) for st in (p, c)]
    owner = ctx.owner_of(owner_v, request)
    again: list[Any] = []
    more = list(more_v)
    for pane, st in zip(panes, (p, c), strict=True):
        mine, more = more[: len(pane.rerender_inputs)], more[len(pane.rerender_inputs) :]
        if pane.rerender is not None:
            again += pane.rerender(ctx, st, lang, owner, *mine)
    return [*ctx.texts.updates(lang), *questions, progress(ctx, p, lang), progress(ctx, c, lang), *again]


def signed_in(ctx: AppContext, ui_v: str, request: gr.Request) -> Any:
    """Who is signed in, in the new interface language (nothing to say without a login)."""
    user = str(request.username or "") if ctx.services.require_login else ""
    return t("ui.signed_in_as", lang_of(ui_v), user=user) if user else gr.update()


def restore_owner(ctx: AppContext, saved: str | None, ui_v: str, request: gr.Request) -> tuple[str, str, str]:
    if ctx.services.require_login:
        user = str(request.username or "")
        return saved or "", user, t("ui.signed_in_as", lang_of(ui_v), user=user) if user else ""
    bid = saved if saved and len(saved) <= 64 and saved.replace("-", "").replace("_", "").isalnum() else None
    bid = bid or secrets.token_urlsafe(16)
    return bid, f"browser:{bid}", ""
