"""Chat models the agent loop drives: an OpenAI-compatible client and a scripted, offline model.

Every model has one method, ``stream(messages, tools)``: an async iterator of ``TextDelta``
events followed by exactly one ``ModelTurn`` (the assembled text and tool calls, each call with
its id, name and *raw* arguments string — parsing them is gate 2's job, so malformed JSON from a
model becomes an error result the model can fix, not a crash).

``messages`` are in the OpenAI chat format (system / user / assistant with ``tool_calls`` /
tool); ``tools`` are the toolkit's neutral schemas ``{"name", "description", "input_schema"}``.
The ``openai`` package is imported only when an OpenAIChatModel first talks to its server;
``litellm`` (the optional extra ``jupyter-agenttools[litellm]``) only when a LiteLLMModel does.
A turn carries the tokens it used (``ModelTurn.usage``) when the server reports them, and its
cost in US dollars when LiteLLM knows the model's price.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import os
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Protocol

from ..errors import ModelError

__all__ = [
    "TextDelta",
    "ToolCallRequest",
    "ModelTurn",
    "ModelEvent",
    "ChatModel",
    "ScriptedModel",
    "OpenAIChatModel",
    "LiteLLMModel",
    "Usage",
    "load_model",
    "NO_MODEL_MESSAGE",
]


@dataclass
class TextDelta:
    """A piece of the model's text as it streams."""

    text: str


@dataclass
class ToolCallRequest:
    """One tool call as the model sent it; ``arguments`` is the raw JSON string."""

    id: str
    name: str
    arguments: str

    def to_message(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": self.arguments}}


@dataclass
class Usage:
    """Tokens (and, when the price is known, US dollars) of one model call or a whole run."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    #: None while no call of the sum had a known price
    cost_usd: float | None = None
    model_calls: int = 0

    def add(self, other: "Usage | None") -> None:
        if other is None:
            return
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.total_tokens += other.total_tokens
        if other.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + other.cost_usd
        self.model_calls += other.model_calls

    def to_dict(self) -> dict[str, Any]:
        return {"prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens, "cost_usd": self.cost_usd,
                "model_calls": self.model_calls}

    def __str__(self) -> str:
        cost = "" if self.cost_usd is None else f", ${self.cost_usd:.4f}"
        return (f"{self.total_tokens} tokens ({self.prompt_tokens} in, "
                f"{self.completion_tokens} out){cost} over {self.model_calls} model call(s)")


@dataclass
class ModelTurn:
    """The assembled answer of one model call.

    ``stop_reason`` is "stop", "tool_calls", "length", … as the model said, or "script_end" when
    a ScriptedModel has no turn left (the loop then ends the run with ``text`` as its result).
    ``usage``: what the call cost, when the server said (None otherwise).
    """

    text: str = ""
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    stop_reason: str = "stop"
    usage: Usage | None = None

    def to_message(self) -> dict[str, Any]:
        msg: dict[str, Any] = {"role": "assistant", "content": self.text or None}
        if self.tool_calls:
            msg["tool_calls"] = [c.to_message() for c in self.tool_calls]
        return msg


ModelEvent = TextDelta | ModelTurn


class ChatModel(Protocol):
    """What the agent loop needs of a model: ``stream`` yields text deltas, then one turn."""

    def stream(self, messages: list[dict[str, Any]],
               tools: list[dict[str, Any]]) -> AsyncIterator[ModelEvent]: ...

NO_MODEL_MESSAGE = (
    "No model is configured: this agent runs an empty ScriptedModel, so it stops here. "
    "Use a real model with load_model('openai:gpt-4.1-mini') (reads OPENAI_API_KEY, and "
    "OPENAI_BASE_URL for vLLM, Ollama, LM Studio or any OpenAI-compatible server), or script "
    "the turns offline with ScriptedModel([...])."
)


# --- ScriptedModel ---------------------------------------------------------------------------


def _split_for_streaming(text: str, pieces: int = 3) -> list[str]:
    """Cut text at spaces into a few deltas, so UIs see streaming even offline."""
    if len(text) < 8:
        return [text] if text else []
    step = max(1, len(text) // pieces)
    out, start = [], 0
    while start < len(text):
        end = text.find(" ", start + step)
        end = len(text) if end == -1 else end + 1
        out.append(text[start:end])
        start = end
    return out


class ScriptedModel:
    """Replays a script of turns — the offline model for tutorials and tests.

    Each turn is one of:

    - a string: the final answer;
    - a list of tool calls ``{"name": …, "input": {…} or a raw JSON string, "id"?: …}``;
    - ``{"text": …, "tool_calls": [...]}``;
    - a callable ``(messages, tools) -> turn`` (sync or async), asked when its turn comes.

    ``turns`` may itself be such a callable, consulted for every turn (return None to stop).
    When the script runs out the run ends with a message saying so.
    """

    def __init__(self, turns: Any = (), *, end_message: str | None = None):
        self._source: Callable[..., Any] | None = None
        if callable(turns):
            self._source = turns
            self._turns: list[Any] = []
        else:
            if isinstance(turns, (str, dict)):
                raise ModelError(
                    f"ScriptedModel expects a list of turns, got a single {type(turns).__name__}; "
                    "wrap it in a list"
                )
            self._turns = list(turns)
            for i, turn in enumerate(self._turns):
                if not callable(turn):
                    self._normalize(turn, i)  # fail early on a malformed script
        self._end_message = end_message
        self.position = 0
        self._ids = itertools.count(1)

    @classmethod
    def from_yaml(cls, text: str) -> "ScriptedModel":
        """Build from YAML: a list of turns, or a mapping with a ``turns`` list."""
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ModelError(f"ScriptedModel.from_yaml: not valid YAML: {exc}") from None
        if isinstance(data, dict) and "turns" in data:
            data = data["turns"]
        if data is None:
            data = []
        if not isinstance(data, list):
            raise ModelError(
                f"ScriptedModel.from_yaml: expected a list of turns, got {type(data).__name__}"
            )
        return cls(data)

    @property
    def remaining(self) -> int:
        return max(0, len(self._turns) - self.position)

    def _normalize(self, turn: Any, index: int) -> tuple[str, list[dict[str, Any]]]:
        where = f"ScriptedModel turn {index}"
        if isinstance(turn, str):
            return turn, []
        if isinstance(turn, list):
            text, calls = "", turn
        elif isinstance(turn, dict) and ("text" in turn or "tool_calls" in turn):
            text, calls = turn.get("text") or "", turn.get("tool_calls") or []
            if not isinstance(text, str) or not isinstance(calls, list):
                raise ModelError(f"{where}: expected text to be a string and tool_calls a list")
        elif isinstance(turn, dict) and "name" in turn:
            text, calls = "", [turn]  # a single tool call, forgiven
        else:
            raise ModelError(
                f"{where}: expected a string, a list of tool calls or "
                f"{{'text', 'tool_calls'}}, got {turn!r:.200}"
            )
        for call in calls:
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                raise ModelError(f"{where}: a tool call needs a 'name', got {call!r:.200}")
        return text, calls

    def _end_text(self) -> str:
        if self._end_message:
            return self._end_message
        if not self._turns and self._source is None:
            return NO_MODEL_MESSAGE
        return (f"[ScriptedModel] the script has no turn left ({self.position} played), so the "
                "run ends here. Add turns to the ScriptedModel to go further.")

    async def _next_turn(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        if self._source is not None:
            turn = self._source(messages, tools)
        elif self.position < len(self._turns):
            turn = self._turns[self.position]
            if callable(turn):
                turn = turn(messages, tools)
        else:
            return None
        if inspect.isawaitable(turn):
            turn = await turn
        self.position += 1
        return turn

    async def stream(self, messages: list[dict[str, Any]],
                     tools: list[dict[str, Any]]) -> AsyncIterator[ModelEvent]:
        turn = await self._next_turn(messages, tools)
        if turn is None:
            yield ModelTurn(self._end_text(), [], "script_end")
            return
        text, calls = self._normalize(turn, self.position - 1)
        for piece in _split_for_streaming(text):
            await asyncio.sleep(0)  # a real yield point, like a network read
            yield TextDelta(piece)
        requests = []
        for call in calls:
            raw = call.get("input", call.get("arguments", {}))
            if not isinstance(raw, str):
                raw = json.dumps(raw, ensure_ascii=False)
            requests.append(ToolCallRequest(str(call.get("id") or f"call_{next(self._ids)}"),
                                            call["name"], raw))
        yield ModelTurn(text, requests, "tool_calls" if requests else "stop")

    def __repr__(self) -> str:
        return f"<ScriptedModel {self.position}/{len(self._turns)} turns played>"


# --- OpenAIChatModel -------------------------------------------------------------------------


def openai_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Neutral schemas → the chat-completions ``tools`` parameter."""
    return [{"type": "function",
             "function": {"name": t["name"], "description": t.get("description", ""),
                          "parameters": t.get("input_schema") or {"type": "object",
                                                                  "properties": {}}}}
            for t in tools]


class OpenAIChatModel:
    """A chat-completions client on the ``openai`` SDK, streaming text and tool calls.

    Works with any OpenAI-compatible endpoint (OpenAI, Azure's compatible route, vLLM, Ollama,
    LM Studio). ``api_key``/``base_url`` default to ``OPENAI_API_KEY``/``OPENAI_BASE_URL``; a
    local endpoint needs no key. HTTP errors worth retrying (429, 5xx, timeouts) are retried by
    the SDK (``max_retries``); a stream that breaks before anything was received is retried
    here (``stream_retries``). Other ``params`` (temperature, max_tokens, …) go to every request.
    """

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, *,
                 max_retries: int = 3, stream_retries: int = 2, timeout: float = 120.0,
                 **params: Any):
        if not isinstance(model, str) or not model:
            raise ModelError(f"OpenAIChatModel: expected a model name, got {model!r}")
        self.model = model
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY") or None
        self.max_retries = max_retries
        self.stream_retries = stream_retries
        self.timeout = timeout
        self.params = params
        #: ask for the token count in the stream's last chunk (dropped for a server that
        #: refuses ``stream_options``)
        self.include_usage = True
        self._client: Any = None

    def _get_client(self) -> Any:
        if self._client is None:
            import openai

            key = self.api_key
            if key is None:
                if self.base_url is None:
                    raise ModelError(
                        f"OpenAIChatModel({self.model!r}): no API key. Set OPENAI_API_KEY, pass "
                        "api_key=…, or point base_url / OPENAI_BASE_URL at a local server"
                    )
                key = "no-key"  # local servers (vLLM, Ollama) ignore it; the SDK wants one
            self._client = openai.AsyncOpenAI(api_key=key, base_url=self.base_url,
                                              max_retries=self.max_retries, timeout=self.timeout)
        return self._client

    async def stream(self, messages: list[dict[str, Any]],
                     tools: list[dict[str, Any]]) -> AsyncIterator[ModelEvent]:
        import openai

        client = self._get_client()
        kwargs: dict[str, Any] = dict(self.params)
        if tools:
            kwargs["tools"] = openai_tools(tools)
        attempt = 0
        while True:
            turn = _TurnAssembler()
            if self.include_usage:
                kwargs["stream_options"] = {"include_usage": True}
            else:
                kwargs.pop("stream_options", None)
            try:
                stream = await client.chat.completions.create(
                    model=self.model, messages=messages, stream=True, **kwargs)
                async for chunk in stream:
                    for piece in turn.feed(chunk):
                        yield TextDelta(piece)
                break
            except Exception as exc:
                if (self.include_usage and not turn.received
                        and _refuses_stream_options(exc, openai)):
                    self.include_usage = False  # an older compatible server: go on without
                    continue
                if _transient(exc, openai) and not turn.received \
                        and attempt < self.stream_retries:
                    attempt += 1
                    await asyncio.sleep(0.5 * attempt)
                    continue
                raise ModelError(f"model {self.model!r} at {self._where()}: "
                                 f"{_describe(exc, openai)}") from exc
        yield turn.result(cost=None)  # the OpenAI API does not say what a call costs

    def _where(self) -> str:
        return self.base_url or "api.openai.com"

    def __repr__(self) -> str:
        return f"<OpenAIChatModel {self.model!r} at {self._where()}>"


# --- LiteLLMModel ---------------------------------------------------------------------------


def _import_litellm() -> Any:
    """litellm, imported on first use. Its price table is the copy it ships: importing it must
    not fetch one from the network (LiteLLM's default) — a notebook may have none, and the
    table is only used to put a price on the tokens."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError:
        raise ModelError("LiteLLM is not installed; install the extra with "
                         "pip install 'jupyter-agenttools[litellm]'") from None
    return litellm


class LiteLLMModel:
    """Any model LiteLLM reaches (Anthropic, Gemini, Bedrock, Vertex, Mistral, Ollama, …), e.g.
    ``LiteLLMModel("anthropic/claude-sonnet-4-5")`` or ``load_model("litellm:anthropic/…")``.

    Keys come from the environment variables LiteLLM documents per provider
    (``ANTHROPIC_API_KEY``, ``GEMINI_API_KEY``, …) or ``api_key=``; ``base_url`` (LiteLLM's
    ``api_base``) points at a proxy or a local server. Text and tool calls stream as with
    OpenAIChatModel; each turn's usage carries its cost when LiteLLM knows the model's price.
    Other ``params`` go to every ``litellm.acompletion`` call.
    """

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, *,
                 stream_retries: int = 2, timeout: float = 120.0, **params: Any):
        if not isinstance(model, str) or not model.strip():
            raise ModelError(f"LiteLLMModel: expected a model such as "
                             f"'anthropic/claude-sonnet-4-5', got {model!r}")
        self.model = model.strip()
        self.base_url = base_url
        self.api_key = api_key
        self.stream_retries = stream_retries
        self.timeout = timeout
        self.params = params

    async def stream(self, messages: list[dict[str, Any]],
                     tools: list[dict[str, Any]]) -> AsyncIterator[ModelEvent]:
        litellm = _import_litellm()
        kwargs: dict[str, Any] = dict(self.params)
        if tools:
            kwargs["tools"] = openai_tools(tools)
        if self.base_url:
            kwargs["api_base"] = self.base_url
        if self.api_key:
            kwargs["api_key"] = self.api_key
        attempt = 0
        while True:
            turn = _TurnAssembler()
            try:
                stream = await litellm.acompletion(
                    model=self.model, messages=messages, stream=True, timeout=self.timeout,
                    stream_options={"include_usage": True}, **kwargs)
                async for chunk in stream:
                    for piece in turn.feed(chunk):
                        yield TextDelta(piece)
                break
            except Exception as exc:
                if _litellm_transient(exc) and not turn.received \
                        and attempt < self.stream_retries:
                    attempt += 1
                    await asyncio.sleep(0.5 * attempt)
                    continue
                status = getattr(exc, "status_code", None)
                what = f"HTTP {status}: " if isinstance(status, int) else ""
                raise ModelError(f"model {self.model!r} via LiteLLM"
                                 f"{' at ' + self.base_url if self.base_url else ''}: "
                                 f"{what}{type(exc).__name__}: {exc}") from exc
        yield turn.result(cost=self._cost(litellm, turn.usage))

    def _cost(self, litellm: Any, usage: Usage | None) -> float | None:
        """US dollars for the call from LiteLLM's price table; None for an unknown model."""
        if usage is None:
            return None
        try:
            prompt_cost, completion_cost = litellm.cost_per_token(
                model=self.model, prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens)
        except Exception:  # not in the table (a local or custom model)
            return None
        return float(prompt_cost) + float(completion_cost)

    def __repr__(self) -> str:
        return f"<LiteLLMModel {self.model!r}{' at ' + self.base_url if self.base_url else ''}>"


def _litellm_transient(exc: BaseException) -> bool:
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status in (408, 409, 429) or status >= 500
    name = type(exc).__name__
    return isinstance(exc, OSError) or name in ("APIConnectionError", "Timeout",
                                               "ServiceUnavailableError")


class _TurnAssembler:
    """Builds a ModelTurn from chat-completions stream chunks (the openai SDK's objects or
    LiteLLM's, which have the same shape): text, tool calls by index, finish reason, usage."""

    def __init__(self) -> None:
        self.received = False
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish = "stop"
        self.usage: Usage | None = None

    def feed(self, chunk: Any) -> list[str]:
        """Take one chunk; return the text pieces it carried."""
        self.received = True
        pieces: list[str] = []
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
            completion = int(getattr(usage, "completion_tokens", 0) or 0)
            total = int(getattr(usage, "total_tokens", 0) or 0) or prompt + completion
            self.usage = Usage(prompt, completion, total, None, 1)
        for choice in getattr(chunk, "choices", None) or ():
            delta = choice.delta
            if delta is not None and delta.content:
                self.text.append(delta.content)
                pieces.append(delta.content)
            for tc in (getattr(delta, "tool_calls", None) if delta is not None else None) or ():
                index = tc.index if tc.index is not None else len(self.calls)
                slot = self.calls.setdefault(index, {"id": None, "name": "", "arguments": ""})
                if tc.id:
                    slot["id"] = tc.id
                if tc.function is not None:
                    if tc.function.name and tc.function.name != slot["name"]:
                        slot["name"] += tc.function.name
                    if tc.function.arguments:
                        slot["arguments"] += tc.function.arguments
            if choice.finish_reason:
                self.finish = choice.finish_reason
        return pieces

    def result(self, *, cost: float | None) -> ModelTurn:
        requests = [ToolCallRequest(slot["id"] or f"call_{index}", slot["name"],
                                    slot["arguments"])
                    for index, slot in sorted(self.calls.items())]
        usage = self.usage
        if usage is not None:
            usage.cost_usd = cost
        return ModelTurn("".join(self.text), requests, self.finish, usage)


def _refuses_stream_options(exc: BaseException, openai: Any) -> bool:
    return (isinstance(exc, openai.BadRequestError)
            and "stream_options" in str(getattr(exc, "message", exc)))


def _transient(exc: BaseException, openai: Any) -> bool:
    """Worth another try: rate limits, server errors, timeouts, broken connections."""
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    if isinstance(exc, (openai.APIConnectionError, OSError)):
        return True
    # transport errors of the HTTP stack that escape the SDK's wrapping mid-stream
    return type(exc).__module__.split(".")[0] in ("httpx", "httpx2", "httpcore", "h11")


def _describe(exc: BaseException, openai: Any) -> str:
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message}"
    return f"{type(exc).__name__}: {exc}"


# --- load_model ------------------------------------------------------------------------------


def load_model(spec: Any = "scripted", **kwargs: Any) -> ChatModel:
    """Resolve a model: ``"openai:gpt-4.1-mini"``, ``"litellm:anthropic/claude-sonnet-4-5"``
    (any LiteLLM model; the optional extra), ``"scripted"`` (an empty script that ends at
    once with a message explaining how to configure a model), a list of scripted turns, or an
    already-built model object (anything with a ``stream`` method), returned as is."""
    if hasattr(spec, "stream") and not isinstance(spec, (str, list)):
        return spec
    if isinstance(spec, list):
        return ScriptedModel(spec, **kwargs)
    if not isinstance(spec, str) or not spec.strip():
        raise ModelError(f"expected a model spec such as 'openai:gpt-4.1-mini' or 'scripted', "
                         f"got {spec!r}")
    provider, _, name = spec.strip().partition(":")
    provider = provider.lower()
    if provider == "scripted":
        return ScriptedModel([], **kwargs)
    if provider == "openai":
        if not name:
            raise ModelError(f"model spec {spec!r} names no model; expected openai:<model>")
        return OpenAIChatModel(name, **kwargs)
    if provider == "litellm":
        if not name:
            raise ModelError(f"model spec {spec!r} names no model; expected "
                             "litellm:<provider>/<model>, e.g. litellm:anthropic/claude-…")
        return LiteLLMModel(name, **kwargs)
    raise ModelError(f"unknown model provider {provider!r} in {spec!r}; expected "
                     "'openai:<model>' (any OpenAI-compatible server), "
                     "'litellm:<provider>/<model>' (any LiteLLM model) or 'scripted'")
