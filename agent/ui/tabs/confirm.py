"""The browser's question before Start or Resume replaces a session under way (Practice's and Co-pilot's):
"keep" sends `KEEP` in place of one input, and the handler leaves the session on screen as it is."""

from __future__ import annotations

import json

from agent.util.messages import t

KEEP = "__keep__"
"""What Start or Resume sends when the person chose to keep the session under way (`confirm_js`)."""


def confirm_js(prefix: str, index: int) -> str:
    """Before Start or Resume replaces a session under way (an id in `#{prefix}-sid`, the progress in
    `#{prefix}-progress` not 'done'): the browser's confirm, in the interface language; "keep" sends KEEP as
    the input at `index` (an input that takes any value: Gradio checks a dropdown's value against its
    choices unless it allows custom values, as the session to redo and the unfinished sessions do)."""
    ask = {lang: t("ui.confirm_replace", lang) for lang in ("en", "zh")}
    return (
        f"(...args) => {{ const sid = document.querySelector('#{prefix}-sid :is(input, textarea)')?.value;"
        f" const done = document.querySelector('#{prefix}-progress .coach-progress.done');"
        " const zh = document.querySelector('#ui-language input[value=zh]')?.checked;"
        f" const ask = zh ? {json.dumps(ask['zh'])} : {json.dumps(ask['en'])};"
        f" if (sid && !done && !window.confirm(ask)) {{ args[{index}] = {json.dumps(KEEP)}; }}"
        " return args; }"
    )
