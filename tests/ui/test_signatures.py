"""Gradio looks a component class's constructor up once (agent/ui/signatures.py), not for every block of
every page and every output of every event; what it builds from it is the same."""

from __future__ import annotations

import inspect
from collections import Counter
from pathlib import Path
from typing import Any

import gradio as gr
import gradio.blocks
import gradio.component_meta
import pytest

from agent.ui import Services, build_app, signatures


@pytest.fixture(scope="module")
def app(ui_data_dir: Path) -> gr.Blocks:
    return build_app(Services(retriever=lambda: lambda text, k: [], reviewers=frozenset()))


def configs(app: gr.Blocks) -> list[dict[str, Any]]:
    """Every block's config as a page opening gets it, and each component built again as an update does."""
    config_for_block = gradio.blocks.BlocksConfig.config_for_block
    out = [config_for_block(i, [], b) for i, b in app.blocks.items()]
    for b in app.blocks.values():
        # (a BrowserState built without its secret draws a new one)
        if isinstance(b, gr.components.Component) and not isinstance(b, gr.BrowserState):
            kwargs = {**b.constructor_args, "render": False}
            kwargs.pop("value", None)
            again = b.__class__(**kwargs)
            out.append(config_for_block(b._id, [], again))
    return out


def test_configs_are_the_same_with_and_without(app: gr.Blocks, monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(gradio.blocks.inspect, signatures.RememberingInspect)
    assert isinstance(gradio.component_meta.inspect, signatures.RememberingInspect)
    remembered = configs(app)
    monkeypatch.setattr(gradio.blocks, "inspect", inspect)
    monkeypatch.setattr(gradio.component_meta, "inspect", inspect)
    assert configs(app) == remembered


def test_each_constructor_is_looked_up_once(app: gr.Blocks, monkeypatch: pytest.MonkeyPatch) -> None:
    looked_up: Counter[object] = Counter()
    real_signature, real_argspec = inspect.signature, inspect.getfullargspec

    def signature(obj: Any, *args: Any, **kwargs: Any) -> inspect.Signature:
        looked_up[obj] += 1
        return real_signature(obj, *args, **kwargs)

    def getfullargspec(func: Any) -> inspect.FullArgSpec:
        looked_up[func] += 1
        return real_argspec(func)

    monkeypatch.setattr(inspect, "signature", signature)
    monkeypatch.setattr(inspect, "getfullargspec", getfullargspec)
    signatures._signature.cache_clear()
    signatures._argspec.cache_clear()
    configs(app)
    configs(app)  # a second page, the same updates again
    assert looked_up, "Gradio no longer asks inspect: agent/ui/signatures.py is not needed"
    kinds = {type(b) for b in app.blocks.values()}
    assert max(looked_up.values()) == 1, looked_up.most_common(3)
    # once per class: its constructor, and the few look-ups of the class itself
    assert len(looked_up) <= 3 * len(kinds) + 10


def test_bound_methods_are_not_kept(app: gr.Blocks) -> None:
    """A bound method would keep its component (one is built for every update) alive in the cache."""
    box = gr.Textbox(render=False)
    before = signatures._signature.cache_info().currsize
    assert gradio.blocks.inspect.signature(box.postprocess) == inspect.signature(box.postprocess)
    assert signatures._signature.cache_info().currsize == before
