"""Gradio's look-ups of a component class's constructor, made once per class instead of on every event.

Gradio reads a component class's `__init__` signature (`inspect.signature`, `inspect.getfullargspec`)
each time it builds a component or its config: for each of the page's blocks when a page opens (172 in
this app), and for each output of each event (an update, `gr.skip()` included, builds the component
and its config again). A function's signature does not change while the app runs, so `remember()` has
Gradio's two modules that do this look each function up once. Anything else they ask of `inspect`
(bound methods, which would keep their component alive, included) goes to `inspect` as before.

Measured on this app: a page opened (Gradio's state of a new session) 10.6-13.5 -> 5.5-8.0 ms of CPU; a
practice session through the server (start + 3 answers, `bench/replica_bench.py`'s client) 10 % less.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable
from typing import Any

MAX_FUNCTIONS = 4096
"""Functions remembered at most (Gradio's component classes are a few dozen)."""


@functools.lru_cache(maxsize=MAX_FUNCTIONS)
def _signature(fn: Callable[..., Any]) -> inspect.Signature:
    return inspect.signature(fn)


@functools.lru_cache(maxsize=MAX_FUNCTIONS)
def _argspec(fn: Callable[..., Any]) -> inspect.FullArgSpec:
    return inspect.getfullargspec(fn)


class RememberingInspect(types.ModuleType):
    """`inspect` as a module sees it, with `signature` and `getfullargspec` of a plain function remembered."""

    def __init__(self) -> None:
        super().__init__("inspect", inspect.__doc__)

    def __getattr__(self, name: str) -> Any:
        return getattr(inspect, name)

    @staticmethod
    def signature(obj: Callable[..., Any], *args: Any, **kwargs: Any) -> inspect.Signature:
        if args or kwargs or not inspect.isfunction(obj):
            return inspect.signature(obj, *args, **kwargs)
        return _signature(obj)

    @staticmethod
    def getfullargspec(func: Any) -> inspect.FullArgSpec:
        return _argspec(func) if inspect.isfunction(func) else inspect.getfullargspec(func)


def remember() -> None:
    """Gradio's blocks and component classes look each constructor up once (again a no-op)."""
    import gradio.blocks
    import gradio.component_meta

    for module in (gradio.blocks, gradio.component_meta):
        if getattr(module, "inspect", None) is inspect:
            module.inspect = RememberingInspect()  # type: ignore[attr-defined]
