"""The vLLM judge: any OpenAI-compatible endpoint, asked for the checklist in structured output.

One request per round assessment. The JSON schema is generated from a pydantic model built for the
round (one required field per evidence item and signal, every string and list bounded), sent as
`response_format` json_schema strict. Output that is invalid or cut off is retried once; then the
judge raises JudgeUnavailable and the caller falls back to the embedded judge, flagged.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast
from urllib.parse import urlparse

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from agent.judge import prompt
from agent.judge.base import Fill, JudgeUnavailable
from agent.judge.checklist import Checks, Holistic, ItemFinding, SignalFinding
from agent.judge.matching import Sentence
from agent.report import JudgeInfo
from agent.rubric.loader import Rubric
from agent.rubric.model import DIMENSIONS, Lang, RoundId

QUOTE_MAX = 200


class Mark(BaseModel):
    model_config = ConfigDict(extra="forbid")
    covered: bool
    quote: str = Field(max_length=QUOTE_MAX)


class Score(BaseModel):
    model_config = ConfigDict(extra="forbid")
    score: int = Field(ge=1, le=5)
    reason: str = Field(max_length=160)


def _fields(ids: list[str]) -> dict[str, Any]:
    return {f"f{k}": (Mark, Field(alias=i)) for k, i in enumerate(ids)}


_MODELS: dict[tuple[str, str, bool], type[BaseModel]] = {}


def checklist_model(rubric: Rubric, round_id: RoundId, holistic: bool) -> type[BaseModel]:
    """The round's output model: {items: {id: Mark}, strong: {...}, weak: {...}, holistic?: {dim: Score}}."""
    key = (rubric.version, round_id, holistic)
    if key not in _MODELS:
        _MODELS[key] = _build_model(rubric, round_id, holistic)
    return _MODELS[key]


def _build_model(rubric: Rubric, round_id: RoundId, holistic: bool) -> type[BaseModel]:
    cfg = ConfigDict(extra="forbid", populate_by_name=True)
    items = create_model(f"Items_{round_id.replace('-', '_')}", __config__=cfg, **_fields([e.id for e in rubric.evidence(round_id)]))
    strong = create_model(f"Strong_{round_id.replace('-', '_')}", __config__=cfg, **_fields([s.id for s in rubric.strong_signals(round_id)]))
    weak = create_model(f"Weak_{round_id.replace('-', '_')}", __config__=cfg, **_fields([s.id for s in rubric.weak_signals(round_id)]))
    fields: dict[str, Any] = {"items": (items, ...), "strong": (strong, ...), "weak": (weak, ...)}
    if holistic:
        hol_fields: dict[str, Any] = {d: (Score, ...) for d in DIMENSIONS}
        hol = create_model("Holistic", __config__=cfg, **hol_fields)
        fields["holistic"] = (hol, ...)
    return create_model(f"Checklist_{round_id.replace('-', '_')}", __config__=cfg, **fields)


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(by_alias=True)


def max_tokens_for(rubric: Rubric, round_id: RoundId, holistic: bool) -> int:
    n = len(rubric.evidence(round_id)) + len(rubric.strong_signals(round_id)) + len(rubric.weak_signals(round_id))
    return 64 + n * (QUOTE_MAX // 3 + 24) + (5 * 60 if holistic else 0)


class VllmJudge:
    """Judge client. `fill` raises JudgeUnavailable on any failure; it never returns a silent default."""

    kind = "vllm"

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        *,
        timeout: float = 120.0,
        retries: int = 1,
        seed: int = 0,
        temperature: float = 0.0,
        holistic: bool = True,
        api_key: str = "EMPTY",
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.retries = retries
        self.seed = seed
        self.temperature = temperature
        self.holistic = holistic
        self._http = httpx.Client(timeout=timeout, headers={"Authorization": f"Bearer {api_key}"})
        self.model = model or self._served_model()

    def _served_model(self) -> str:
        try:
            r = self._http.get(f"{self.base_url}/models", timeout=10)
            r.raise_for_status()
            return str(r.json()["data"][0]["id"])
        except (httpx.HTTPError, KeyError, IndexError, ValueError) as e:
            raise JudgeUnavailable(f"cannot read the served model from {self.base_url}/models: {e}") from e

    def server_version(self) -> str | None:
        root = self.base_url[: -len("/v1")] if self.base_url.endswith("/v1") else self.base_url
        try:
            r = self._http.get(f"{root}/version", timeout=5)
            r.raise_for_status()
            return str(r.json().get("version"))
        except (httpx.HTTPError, ValueError):
            return None

    def info(self, rubric: Rubric) -> JudgeInfo:
        return JudgeInfo(
            kind="vllm",
            model=self.model,
            rubric_version=rubric.version,
            prompt_hash=prompt.load_templates().hash,
            endpoint=urlparse(self.base_url).netloc,
            vllm_version=self.server_version(),
            seed=self.seed,
            temperature=self.temperature,
        )

    def request_body(self, rubric: Rubric, round_id: RoundId, answer: str, lang: Lang, checks: Checks, snippets: str = "") -> dict[str, Any]:
        model = checklist_model(rubric, round_id, self.holistic)
        return {
            "model": self.model,
            "messages": prompt.messages(rubric, round_id, answer, lang, checks, snippets, self.holistic),
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": model.__name__, "schema": json_schema(model), "strict": True},
            },
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": max_tokens_for(rubric, round_id, self.holistic),
        }

    def fill(
        self,
        rubric: Rubric,
        round_id: RoundId,
        answer: str,
        lang: Lang,
        checks: Checks,
        sents: Sequence[Sentence],
        snippets: str = "",
    ) -> Fill:
        body = self.request_body(rubric, round_id, answer, lang, checks, snippets)
        model = checklist_model(rubric, round_id, self.holistic)
        last = "no attempt"
        for _attempt in range(1 + self.retries):
            try:
                r = self._http.post(f"{self.base_url}/chat/completions", json=body)
            except httpx.TimeoutException as e:
                last = f"timed out after {self.timeout:g} s: {e}"
                continue
            except httpx.HTTPError as e:
                raise JudgeUnavailable(f"judge unreachable at {self.base_url}: {e}") from e
            if r.status_code >= 400:
                last = f"HTTP {r.status_code}: {r.text[:200]}"
                continue
            try:
                choice = r.json()["choices"][0]
                content = choice["message"]["content"] or ""
                if choice.get("finish_reason") == "length":
                    last = "output cut off at max_tokens"
                    continue
                parsed = model.model_validate(json.loads(content))
            except (ValueError, KeyError, IndexError, ValidationError) as e:
                last = f"invalid structured output: {str(e)[:200]}"
                continue
            return self._to_fill(rubric, round_id, parsed)
        raise JudgeUnavailable(last)

    def _to_fill(self, rubric: Rubric, round_id: RoundId, parsed: BaseModel) -> Fill:
        data = parsed.model_dump(by_alias=True)

        def marks(key: str) -> dict[str, dict[str, Any]]:
            return cast(dict[str, dict[str, Any]], data.get(key) or {})

        items = [
            ItemFinding(id=i, covered=bool(m["covered"]), quote=m["quote"] or None, by="model")
            for i, m in marks("items").items()
        ]
        strong = [SignalFinding(id=i, kind="strong", present=bool(m["covered"]), quote=m["quote"] or None, by="model") for i, m in marks("strong").items()]
        weak = [SignalFinding(id=i, kind="weak", present=bool(m["covered"]), quote=m["quote"] or None, by="model") for i, m in marks("weak").items()]
        hol = {d: Holistic(score=v["score"], reason=v["reason"]) for d, v in (data.get("holistic") or {}).items()}
        return Fill(items=items, strong=strong, weak=weak, holistic=hol)
