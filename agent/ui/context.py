"""What every tab of the app works with, passed to its builder and its handlers as one `AppContext`.

A handler is a module-level function `handler(ctx, *inputs)`; `ctx.bind(handler)` is what Gradio calls.
Gradio shows a handler's parameter names and docstring on the app's API page: they are part of the API.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Container, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import gradio as gr

from agent.contracts.report import Report
from agent.graph import SessionSummary
from agent.graph.plan import with_self_check
from agent.overrides import EffectiveScore, OverrideLog, OverrideLogError, effective_scores
from agent.rubric.loader import Rubric, default_rubric
from agent.rubric.model import DIMENSIONS, ROUND_IDS, SELF_CHECK, Lang
from agent.ui import views
from agent.ui.auth import load_reviewers
from agent.ui.sources import Retriever, default_retriever
from agent.ui.texts import Texts
from agent.util.messages import colon, t
from agent.voice import SpeechToText, TextToSpeech, default_stt, default_tts

R = TypeVar("R")

LANG_CHOICES: list[tuple[str, str]] = [("English", "en"), ("中文", "zh")]
MAX_PAGES = 10_000
"""Pages whose shown question is remembered (the oldest is forgotten first)."""


@dataclass
class Services:
    """What the app talks to; tests swap any of them."""

    rubric: Rubric = field(default_factory=default_rubric)
    stt: Callable[[], SpeechToText] = default_stt
    tts: Callable[[], TextToSpeech] = default_tts
    overrides: OverrideLog = field(default_factory=OverrideLog)
    retriever: Callable[[], Retriever] = default_retriever
    require_login: bool = False
    """True when the app has users: the owner and the reviewer are then the signed-in user."""
    reviewers: Container[str] = field(default_factory=load_reviewers)
    """Signed-in users who may review (override) any session; none without a login."""
    users: Collection[str] = ()
    """The names that may sign in: a reviewer's list of sessions in Review is theirs (with the login's
    users, `main.py`); none without a login."""


def lang_of(value: object) -> Lang:
    """A language from a component's value: "zh", else "en"."""
    return "zh" if value == "zh" else "en"


def outputs(values: list[Any]) -> Any:
    """An event's return for its list of output components: Gradio takes one output's value bare, not in a
    list of one (a list given to a single Markdown fails to render)."""
    return values if len(values) != 1 else values[0]


class ShownQuestions:
    """Page (Gradio session) -> the question it shows now, so late speech of an older one is dropped."""

    def __init__(self, limit: int = MAX_PAGES) -> None:
        self._limit = limit
        self._shown: OrderedDict[str, str | None] = OrderedDict()
        self._lock = threading.Lock()

    def show(self, page: str, say: str | None) -> None:
        with self._lock:
            self._shown[page] = say
            while len(self._shown) > self._limit:
                self._shown.popitem(last=False)

    def showing(self, page: str, default: str | None) -> str | None:
        with self._lock:
            return self._shown.get(page, default)


class SentAnswers:
    """(tab, page) -> how many answers that tab sent from that page (Practice's Send, Co-pilot's Save answer):
    a transcription begun before one of them is dropped when it ends, not pasted into the box the answer
    left (issue 12)."""

    def __init__(self, limit: int = MAX_PAGES) -> None:
        self._limit = limit
        self._sent: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._lock = threading.Lock()

    def send(self, tab: str, page: str | None) -> None:
        with self._lock:
            key = (tab, page or "")
            self._sent[key] = self._sent.pop(key, 0) + 1
            while len(self._sent) > self._limit:
                self._sent.popitem(last=False)

    def count(self, tab: str, page: str | None) -> int:
        with self._lock:
            return self._sent.get((tab, page or ""), 0)


@dataclass
class AppContext:
    """The services, the interface language with its translated components, and the components that
    more than one tab reads."""

    services: Services
    texts: Texts
    """Every component with translatable text; the language switch re-renders them."""
    ui_lang: Lang
    """The interface language the app starts in."""
    ui: gr.Radio
    """The interface language switch."""
    owner_state: gr.State
    """Whose sessions this page sees (see `owner_of`)."""
    report_state: gr.State
    """The report open in Review (Reports can show it)."""
    shown: ShownQuestions = field(default_factory=ShownQuestions)
    sent: SentAnswers = field(default_factory=SentAnswers)

    @property
    def rubric(self) -> Rubric:
        return self.services.rubric

    def standing_scores(self, report: Report, key: str | None = None) -> list[EffectiveScore]:
        """`report`'s scores as they stand after the overrides logged under `key` (default: its id); the judge's
        when the log cannot be read (naming the log's problem is Review's: `review.log_problem`)."""
        return self.scores_and_log_problem(report, key)[0]

    def scores_and_log_problem(
        self, report: Report, key: str | None = None
    ) -> tuple[list[EffectiveScore], str | None]:
        """`standing_scores`, and why the log could not be read (None when it was): for a screen to say so."""
        try:
            rows = self.services.overrides.rows(key or report.id)
        except OverrideLogError as e:
            return effective_scores(report, [], key=key), str(e)
        return effective_scores(report, rows, key=key), None

    @property
    def common(self) -> list[Any]:
        """The inputs most handlers end with: the interface language and the owner."""
        return [self.ui, self.owner_state]

    def bind(self, handler: Callable[..., R], *args: Any) -> Callable[..., R]:
        """`handler(self, *args, *inputs)` as Gradio calls it, with `inputs` only.

        Gradio reads the handler's signature and type hints: a `gr.Request` parameter is filled in
        rather than taken from an input, and the parameter names name the API's parameters. The bound
        function keeps both, less the parameters bound here."""
        signature = inspect.signature(handler)

        def called(*inputs: Any, **kwargs: Any) -> R:
            return handler(self, *args, *inputs, **kwargs)

        def streamed(*inputs: Any, **kwargs: Any) -> Any:  # Gradio streams a generator function's yields
            yield from cast(Iterator[Any], handler(self, *args, *inputs, **kwargs))

        bound = functools.wraps(handler)(streamed if inspect.isgeneratorfunction(handler) else called)
        rest = list(signature.parameters.values())[1 + len(args) :]
        bound.__signature__ = signature.replace(parameters=rest)  # type: ignore[attr-defined]
        return bound

    def owner_of(self, owner_state: str | None, request: gr.Request) -> str:
        if self.services.require_login:
            if not request.username:
                raise gr.Error(t("ui.need_login", self.ui_lang))
            return str(request.username)
        return owner_state or f"tab:{request.session_hash}"

    def is_reviewer(self, request: gr.Request) -> bool:
        s = self.services
        return s.require_login and bool(request.username) and str(request.username) in s.reviewers

    def may_review(self, found: SessionSummary, owner: str, request: gr.Request) -> bool:
        return found.owner == owner or self.is_reviewer(request)

    def plan_choices(self, lang: Lang) -> list[tuple[str, str]]:
        rubric = self.rubric
        rounds = [
            (
                t(
                    "ui.plan_round",
                    lang,
                    title=rubric.round(r).title.get(lang),
                    minutes=rubric.round(r).minutes,
                ),
                r,
            )
            for r in ROUND_IDS
            if r not in ("project-experience", SELF_CHECK)
        ]
        return [
            (t("ui.plan_full", lang), "full"),
            *rounds,
            (t("ui.plan_project", lang), "project"),
            (t("ui.plan_self_check", lang, minutes=rubric.round(SELF_CHECK).minutes), SELF_CHECK),
            (t("ui.plan_redo", lang), "redo"),
        ]

    def plan_name(self, plan: str, lang: Lang) -> str:
        """A session's plan by the name the plan list gives it: "redo ID" as the redo of ID, "full fresh" as
        the full mock, a plan with the self-check round added as that plan "+ self-check"."""
        base, added = with_self_check(plan)
        names = {value: label for label, value in self.plan_choices(lang)}
        words = base.split()
        if len(words) > 1 and words[0] == "redo":
            name = f"{names['redo']}{colon(lang)}{words[1]}"
        else:  # a plan with "fresh" by the name of its kind
            name = names.get(base) or names.get(words[0] if words else base, base)
        return t("ui.plan_plus_self_check", lang, plan=name) if added else name

    def dim_choices(self, lang: Lang) -> list[tuple[str, str]]:
        return [(views.dim_title(self.rubric, d, lang), d) for d in DIMENSIONS]
