"""The vLLM judge: any OpenAI-compatible endpoint, asked for the checklist in structured output.

The round's checklist is one JSON object per part: the round's keys (one per evidence item and
signal, its value the verbatim quote or "") in parts of at most `PART_KEYS`, the holistic scores in
the last part. Every part sends the same messages, so after the first one vLLM's prefix cache holds
the whole prompt, answer included, and a part costs only its output. Each part's JSON schema is
generated from a pydantic model (every string bounded) and sent as `response_format` json_schema
strict. Invalid output, a timeout, an HTTP error or output cut off at `max_tokens` is retried once
where a retry can help; then the judge raises JudgeUnavailable and the caller falls back to the
embedded judge, flagged. A request byte-identical to one this judge already answered (or is
answering) is not sent again: it gets that answer. vLLM on CPU is not batch-invariant (the same
prompt can decode differently next to other requests), so without this an answer and the same
answer with an injected paragraph cut (which the model sees as the same text) could score apart.
Quotes are verified here against the text the model was shown (and again by the caller against
the whole answer); a quote given for many keys at once counts for none.

Requests in flight: a judge sends at most `max_in_flight` requests at once (shared by its resampled
copies). Above one, a round's parts go out together and wait for a free slot, so a batch keeps the
server's batch full down to its last few requests instead of its last few answers (a batch of
answers in flight, each sending its parts one after another, leaves the server with fewer
sequences than slots while the longest answers finish), and one answer in the app is graded in
about the time of its longest part. At one, parts go in order, one request at a time.

Why parts, short keys and short quotes (measured with SmolLM2-135M on vLLM CPU, max-model-len 4,096,
rubric of 32 to 61 keys a round): one request per round with {"covered": bool, "quote": ≤200 chars}
per id asked for `max_tokens` above the context (HTTP 400 for three rounds); where it fitted, the
small model filled every quote with text up to its bound (2,056 output tokens for 30 keys) and
every assessment of the larger rounds was cut off at the context. The prompt is 2,350 to 3,450
tokens for the graded answers (static part 2,100 to 2,800), which leaves 650 to 1,750: the small
model writes about 15 to 30 tokens a key, so a part of ≤16 keys with ≤40-character quotes fits.
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Literal
from urllib.parse import urlparse

import httpx
from pydantic import BaseModel, ValidationError

from agent.contracts.checklist import Checks, Holistic, ItemFinding, SignalFinding
from agent.contracts.report import JudgeInfo
from agent.judge import prompt
from agent.judge.base import Fill, JudgeUnavailable
from agent.judge.in_flight import InFlight
from agent.judge.matching import Sentence, normalise_ws, quote_in
from agent.judge.parts import (
    GROUPS,
    QUOTE_MAX,
    SAME_QUOTE_MAX_KEYS,
    Part,
    json_schema,
    keys_of,
    model_view,
    part_model,
    parts_of,
)
from agent.rubric.loader import Rubric
from agent.rubric.model import Lang, RoundId

#: answers kept for identical requests (one entry is a part's validated JSON, a few hundred bytes)
MEMO_SIZE = 4096
#: used when the server does not say its context length
DEFAULT_MAX_MODEL_LEN = 4096


class VllmJudge:
    """Judge client. `fill` raises JudgeUnavailable on any failure; it never returns a silent default."""

    kind = "vllm"

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        *,
        timeout: float = 300.0,
        retries: int = 1,
        seed: int = 0,
        temperature: float = 0.0,
        holistic: bool = True,
        api_key: str = "EMPTY",
        max_in_flight: int = 1,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        #: requests at the server at once (see the module docstring); `set_in_flight` changes it
        self.in_flight = InFlight(max_in_flight)
        self.timeout = timeout
        self.retries = retries
        self.seed = seed
        self.temperature = temperature
        self.holistic = holistic
        self.max_model_len: int | None = None
        #: what the requests ended in: requests, valid, timeout, unreachable, http_error, malformed,
        #: cut_off, invalid; shared: answered from an identical request (for benchmarks and logs)
        self.stats: Counter[str] = Counter()
        self._stats_lock = threading.Lock()
        #: request hash -> its answer (done) or the request in flight; failures are not kept
        self._memo: OrderedDict[str, Future[dict[str, Any]]] = OrderedDict()
        self._memo_lock = threading.Lock()
        self._http = httpx.Client(timeout=timeout, headers={"Authorization": f"Bearer {api_key}"})
        self.model = self._models(model)

    def _models(self, wanted: str | None) -> str:
        """The served model id (the first one unless `wanted`), and from vLLM its context length."""
        try:
            r = self._http.get(f"{self.base_url}/models", timeout=10.0)
            r.raise_for_status()
            data = r.json()["data"]
            ids = [str(d["id"]) for d in data]
            if not ids:
                raise IndexError("no model served")
        except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as e:
            raise JudgeUnavailable(f"cannot read the served model from {self.base_url}/models: {e}") from e
        name = wanted or ids[0]
        entry = next((d for d in data if isinstance(d, dict) and d.get("id") == name), {})
        mml = entry.get("max_model_len")
        self.max_model_len = mml if isinstance(mml, int) and mml > 0 else None
        return name

    @property
    def root_url(self) -> str:
        return self.base_url.removesuffix("/v1")

    def server_version(self) -> str | None:
        try:
            r = self._http.get(f"{self.root_url}/version", timeout=10.0)
            r.raise_for_status()
            v = r.json().get("version")
        except (httpx.HTTPError, ValueError, AttributeError):
            return None
        return str(v) if v else None

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
            holistic=self.holistic,
        )

    def _count(self, what: str) -> None:
        with self._stats_lock:
            self.stats[what] += 1

    def close(self) -> None:
        self._http.close()

    def resampled(self, seed: int, temperature: float) -> VllmJudge:
        """This judge with another sampling seed and temperature (one of K self-consistency samples).

        It shares the HTTP client, the statistics and the memo of identical requests: a request now
        differs by its seed, so a sample is sent, and the same sample asked twice is answered once.
        """
        other = copy.copy(self)
        other.seed = seed
        other.temperature = temperature
        return other

    @property
    def max_in_flight(self) -> int:
        return self.in_flight.limit

    def set_in_flight(self, n: int) -> None:
        """At most `n` requests at once from this judge and its resampled copies (n ≥ 1)."""
        self.in_flight.set_limit(n)

    def forget(self) -> None:
        """Drop the answers kept for identical requests (benchmarks: the next batch is sent in full)."""
        with self._memo_lock:
            self._memo.clear()

    def _ask_once(self, body: dict[str, Any], model: type[BaseModel], part: Part) -> dict[str, Any]:
        """`_ask`, once per distinct request: an identical request waits for and shares its answer."""
        key = hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        with self._memo_lock:
            fut = self._memo.get(key)
            owner = fut is None
            if fut is None:
                fut = self._memo[key] = Future()
                while len(self._memo) > MEMO_SIZE:
                    self._memo.popitem(last=False)
            else:
                self._memo.move_to_end(key)
        if not owner:
            self._count("shared")
            return dict(fut.result())
        try:
            out = self._ask(body, model, part)
        except BaseException as e:
            with self._memo_lock:
                if self._memo.get(key) is fut:
                    del self._memo[key]  # a failure is not an answer: the next identical request is sent
            fut.set_exception(e)
            raise
        fut.set_result(out)
        return dict(out)

    def request_bodies(
        self,
        rubric: Rubric,
        round_id: RoundId,
        answer: str,
        checks: Checks,
        snippets: str = "",
    ) -> list[tuple[Part, dict[str, Any]]]:
        """The round's chat-completions requests, one per part (`answer`: the text the model sees).

        The messages are the same for every part; only the schema and `max_tokens` differ.
        """
        messages = prompt.messages(rubric, round_id, answer, checks, snippets, self.holistic, QUOTE_MAX)
        limit = (self.max_model_len or DEFAULT_MAX_MODEL_LEN) - 1
        out = []
        for part in parts_of(rubric, round_id, self.holistic):
            model = part_model(rubric, round_id, part)
            body = {
                "model": self.model,
                "messages": messages,
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": model.__name__, "schema": json_schema(model), "strict": True},
                },
                "temperature": self.temperature,
                "seed": self.seed,
                # vLLM lowers it to what the context leaves after the prompt; more than the context is refused
                "max_tokens": min(part.max_tokens(), limit),
            }
            out.append((part, body))
        return out

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
        del lang  # the prompt is the same for both languages (prompt.JUDGE_LANG)
        seen = model_view(answer, sents)
        bodies = self.request_bodies(rubric, round_id, seen, checks, snippets)

        def ask(pb: tuple[Part, dict[str, Any]]) -> dict[str, Any]:
            return self._ask_once(pb[1], part_model(rubric, round_id, pb[0]), pb[0])

        if self.max_in_flight > 1 and len(bodies) > 1:
            # all parts at once (each waits for a slot); the first failure, in part order, is raised
            with ThreadPoolExecutor(max_workers=len(bodies), thread_name_prefix="judge-part") as pool:
                answers = list(pool.map(ask, bodies))
        else:
            answers = [ask(pb) for pb in bodies]  # stops at the first failure: later parts are not sent
        merged: dict[str, Any] = {g: {} for g in GROUPS}
        for data in answers:
            for g in GROUPS:
                merged[g].update(data.get(g) or {})
            if "holistic" in data:
                merged["holistic"] = data["holistic"]
        return self._to_fill(merged, seen, keys_of(rubric, round_id))

    def _ask(self, body: dict[str, Any], model: type[BaseModel], part: Part) -> dict[str, Any]:
        """One part's request, retried once where a retry can help; its validated JSON as a dict."""
        where = f"part {part.index + 1}"
        last = "no attempt"
        for _attempt in range(1 + self.retries):
            self._count("requests")
            try:
                with self.in_flight:
                    r = self._http.post(f"{self.base_url}/chat/completions", json=body)
            except httpx.TimeoutException as e:
                self._count("timeout")
                last = f"{where}: timed out after {self.timeout:g} s ({type(e).__name__})"
                continue
            except httpx.HTTPError as e:
                self._count("unreachable")
                raise JudgeUnavailable(
                    f"{where}: judge unreachable at {self.base_url}: {type(e).__name__}: {e}"
                ) from e
            if r.status_code >= 400:
                self._count("http_error")
                last = f"{where}: HTTP {r.status_code}: {r.text[:200]}"
                if r.status_code < 500 and r.status_code not in (408, 429):
                    break  # the request itself is refused: sending it again gets the same answer
                continue
            try:
                data = r.json()
                choice = data["choices"][0]
                content = choice["message"]["content"] or ""
            except (ValueError, KeyError, IndexError, TypeError) as e:
                self._count("malformed")
                last = f"{where}: malformed response: {str(e)[:200]}"
                continue
            if choice.get("finish_reason") == "length":
                self._count("cut_off")
                usage = data.get("usage") or {}
                p, c = usage.get("prompt_tokens"), usage.get("completion_tokens")
                last = f"{where}: output cut off at max_tokens ({c} output tokens after a {p}-token prompt"
                if self.max_model_len and isinstance(p, int) and isinstance(c, int):
                    last += f", context {self.max_model_len}"
                    if p + c >= self.max_model_len:
                        raise JudgeUnavailable(last + "): the context is full, a retry cannot help")
                    body = {**body, "max_tokens": min(2 * int(body["max_tokens"]), self.max_model_len - p)}
                last += ")"
                continue
            try:
                out = model.model_validate(json.loads(content)).model_dump()
            except (ValueError, ValidationError) as e:
                self._count("invalid")
                last = f"{where}: schema-invalid output: {str(e)[:200]}"
                continue
            self._count("valid")
            return out
        raise JudgeUnavailable(last)

    def _to_fill(self, data: dict[str, Any], seen: str, keys: dict[str, dict[str, str]]) -> Fill:
        """The model's checklist under the rubric's ids, its quotes checked.

        A quote counts only when it is verbatim (whitespace aside) in the text the model was shown,
        and when it is not the same quote given for more than SAME_QUOTE_MAX_KEYS keys (a small
        model pastes one sentence into every key). The caller verifies again against the whole answer.
        """
        raw = {(g, k): str((data.get(g) or {}).get(k, "")) for g in GROUPS for k in keys[g]}
        uses: dict[str, int] = {}
        for q in raw.values():
            if q.strip():
                uses[normalise_ws(q)] = uses.get(normalise_ws(q), 0) + 1

        def why_not(q: str) -> str | None:
            if not q.strip():
                return "no quote"
            if not quote_in(q, seen):
                return f"quote not found verbatim in the answer: {q[:60]!r}"
            n = uses[normalise_ws(q)]
            if n > SAME_QUOTE_MAX_KEYS:
                return f"the same quote was given for {n} keys: {q[:60]!r}"
            return None

        items: list[ItemFinding] = []
        signals: dict[str, list[SignalFinding]] = {"strong": [], "weak": []}
        for (g, k), q in raw.items():
            rid = keys[g][k]
            bad = why_not(q)
            good = q if bad is None else None
            if g == "items":
                note = None if bad in (None, "no quote") else bad
                items.append(ItemFinding(id=rid, covered=good is not None, quote=good, by="model", note=note))
            else:
                kind: Literal["strong", "weak"] = "strong" if g == "strong" else "weak"
                signals[kind].append(
                    SignalFinding(id=rid, kind=kind, present=good is not None, quote=good, by="model")
                )
        hol = {
            d: Holistic(score=v["score"], reason=v["reason"]) for d, v in (data.get("holistic") or {}).items()
        }
        return Fill(items=items, strong=signals["strong"], weak=signals["weak"], holistic=hol)
