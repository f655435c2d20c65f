"""The app's stylesheet and script, kept as files in `agent/ui/static/` (package data, so an installed
package has them) and read when the app is launched: `launch_kwargs` passes them to Gradio as `css` and
`head`."""

from __future__ import annotations

from functools import cache
from importlib.resources import files

STATIC = "static"


def _read(name: str) -> str:
    return files("agent.ui").joinpath(STATIC).joinpath(name).read_text(encoding="utf-8")


@cache
def css() -> str:
    """`static/app.css`: the round progress box and its clock, report tables."""
    return _read("app.css")


@cache
def head() -> str:
    """`static/app.js` as a `<script>` for the page head: the round clock, counted in the browser."""
    return f"<script>\n{_read('app.js')}</script>\n"
