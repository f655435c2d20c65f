"""The language switch: every component's text is registered with its string key and re-rendered on switch."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import gradio as gr

from agent.rubric.model import Lang
from agent.util.messages import t

B = TypeVar("B", bound=gr.blocks.Block)
TextSpec = str | Callable[[Lang], Any]
"""A message key (`ui.…`, messages/ui.yaml; agent/util/messages.py), or a function of the language (for choices
and composed text)."""


def _resolve(spec: TextSpec, lang: Lang) -> Any:
    return t(spec, lang) if isinstance(spec, str) else spec(lang)


class Texts:
    """Creates components with their text in the start language and remembers how to translate them."""

    def __init__(self, lang: Lang) -> None:
        self.lang = lang
        self._items: list[tuple[gr.blocks.Block, dict[str, TextSpec]]] = []

    def __call__(self, cls: Callable[..., B], texts: Mapping[str, TextSpec], **kwargs: Any) -> B:
        block = cls(**{k: _resolve(v, self.lang) for k, v in texts.items()}, **kwargs)
        self._items.append((block, dict(texts)))
        return block

    def register(self, block: B, texts: Mapping[str, TextSpec]) -> B:
        """For blocks made elsewhere (tabs, which are context managers)."""
        self._items.append((block, dict(texts)))
        return block

    @property
    def blocks(self) -> list[gr.blocks.Block]:
        return [b for b, _ in self._items]

    def updates(self, lang: Lang) -> list[dict[str, Any]]:
        return [gr.update(**{k: _resolve(v, lang) for k, v in texts.items()}) for _, texts in self._items]
