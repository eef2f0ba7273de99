"""The model behind an agent run, through the official SDKs: ``openai`` (any OpenAI-compatible
endpoint: OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio) and ``anthropic``.

A provider opens conversations; a conversation keeps the messages in the provider's own
format and gives replies in one neutral shape (text, tool calls, tokens, seconds). Keys come
only from environment variables. Rate limits (429), server errors (5xx) and lost connections
are retried with backoff (as long as the API asks, where it says); a timeout is not retried.
What still fails is one clean line: a ``ModelTurnFailed`` for what concerns one reply (a
timeout, a conversation the endpoint refuses), which ends that run only; an AgentError
otherwise (no key, unreachable, still rate-limited), which ends the agent run (exit 3).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import orjson

from mcpaql_conformance.agent.endpoints import (
    AgentError,
    Endpoint,
    ModelTurnFailed,
)
from mcpaql_conformance.files.values import json_safe
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.secrecy import masked_url

RETRIES = 4  # retries of a rate-limited or failed request
BACKOFF = 0.5  # seconds before the first retry, doubled each time (at most MAX_BACKOFF) unless the API says
MAX_BACKOFF = 8.0
MAX_RETRY_AFTER = 60.0  # a longer retry-after is not waited for
RETRIED_STATUSES = frozenset({408, 409, 429})  # and every 5xx
TURN_STATUSES = frozenset({400, 413, 422})  # refusals of this conversation (too long, malformed): this run only
MAX_TOKENS = 1024  # per reply (the Anthropic API requires a limit)


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: Any  # the parsed JSON object, or the raw text when the model sent no valid JSON


@dataclass(frozen=True)
class Reply:
    text: str
    tool_calls: list[ToolCall]
    input_tokens: int | None  # as the API reports them (None when it does not)
    output_tokens: int | None
    seconds: float


# The judge's reply (see ``judge``), for the endpoints that can constrain a reply to a schema.
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdict": {"type": "string", "enum": ["pass", "fail"]}, "reason": {"type": "string"}},
    "required": ["verdict", "reason"],
    "additionalProperties": False,
}


class Conversation:
    """One run's messages. ``reply`` asks the model; tool results and user messages are added.
    ``json_reply``: ask for the judge's verdict object where the API can constrain a reply."""

    json_reply = False

    async def reply(self) -> Reply:
        raise NotImplementedError

    def add_tool_results(self, results: list[tuple[ToolCall, str]]) -> None:
        raise NotImplementedError

    def add_user(self, text: str) -> None:
        raise NotImplementedError


def open_provider(endpoint: Endpoint) -> Provider:
    """The provider for an endpoint (its SDK imported here: only agent runs pay for it)."""
    if endpoint.spec.provider == "openai":
        return OpenAIProvider(endpoint)
    return AnthropicProvider(endpoint)


class Provider:
    errors: Any = ()  # the SDK's base error class

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        # The shared backoff gate: no request to this endpoint starts before this moment
        # (time.monotonic), so that one 429 or retry-after pauses every run in flight.
        self.paused_until = 0.0

    def conversation(self, system: str, user: str, tools: list[dict[str, Any]]) -> Conversation:
        raise NotImplementedError

    async def aclose(self) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        where = f" at {plain(masked_url(self.endpoint.base_url))}" if self.endpoint.base_url else ""
        return f"{self.endpoint.spec}{where}"

    async def with_retries(self, request: Callable[[], Awaitable[Any]]) -> Any:
        """The request, retried up to RETRIES times when it was rate-limited, met a server error
        or lost its connection; the SDK's own error when it still fails (or timed out). The
        backoff (or the API's retry-after) pauses every request to this endpoint, not only this one."""
        for attempt in range(RETRIES + 1):
            while (wait := self.paused_until - time.monotonic()) > 0:  # another run's backoff holds every run
                await asyncio.sleep(wait)
            try:
                return await request()
            except self.errors as exc:
                if attempt == RETRIES or not _retryable(exc):
                    raise
                self.paused_until = max(self.paused_until, time.monotonic() + _retry_delay(exc, attempt))
        raise AssertionError("unreachable")

    def error(self, exc: BaseException) -> AgentError:
        """One line for what the SDK raised (after its retries)."""
        name = type(exc).__name__
        status = getattr(exc, "status_code", None)
        message = str(getattr(exc, "message", None) or exc)
        for secret in self.endpoint.secrets:  # an API that echoes the key back in its error
            message = message.replace(secret, "***")
        message = plain(message, max_len=300)
        if "Timeout" in name:
            return ModelTurnFailed(f"the model {self.describe()} did not answer within {self.endpoint.timeout:g} s")
        if "Connection" in name:
            return AgentError(f"cannot reach the model {self.describe()}: {message}")
        if status == 401 or "Authentication" in name:
            hint = (
                f"; no key was sent to {plain(masked_url(self.endpoint.base_url))}: name the variable that holds"
                " its key with --api-key-env"
                if self.endpoint.base_url is not None and self.endpoint.keyless
                else ""
            )
            return AgentError(f"the model {self.describe()} refused the API key (HTTP 401): {message}{hint}")
        if status == 429 or "RateLimit" in name:
            return AgentError(f"the model {self.describe()} is still rate-limited after {RETRIES} retries: {message}")
        if status in TURN_STATUSES:
            return ModelTurnFailed(f"the model {self.describe()} refused this conversation (HTTP {status}): {message}")
        if status is not None:
            return AgentError(f"the model {self.describe()} answered HTTP {status}: {message}")
        return AgentError(f"the model {self.describe()} failed: {name}: {message}")


def _retryable(exc: BaseException) -> bool:
    if "Timeout" in type(exc).__name__:
        return False  # the model had its time; asking again would double the wait
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return status in RETRIED_STATUSES or status >= 500
    return "Connection" in type(exc).__name__


def _retry_delay(exc: BaseException, attempt: int) -> float:
    """What the API asked for (``retry-after-ms``, ``retry-after`` in seconds), else backoff."""
    response = getattr(exc, "response", None)
    headers: Any = getattr(response, "headers", None) or {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            asked = float(str(headers.get(name))) * scale
        except ValueError:
            continue
        if 0 <= asked <= MAX_RETRY_AFTER:
            return asked
    return float(min(BACKOFF * 2**attempt, MAX_BACKOFF))


def _sdk(name: str) -> Any:
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError:
        raise AgentError(
            f"the {name} package is not installed; install the agent extra: pip install 'mcpaql-conformance[agent]'"
        ) from None


def _arguments(raw: Any) -> Any:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            parsed = orjson.loads(raw or "{}")
        except orjson.JSONDecodeError:
            return raw
        return parsed
    return raw


class OpenAIProvider(Provider):
    def __init__(self, endpoint: Endpoint) -> None:
        super().__init__(endpoint)
        sdk = _sdk("openai")
        self.errors = sdk.OpenAIError
        self.client = sdk.AsyncOpenAI(
            api_key=endpoint.api_key(), base_url=endpoint.url, timeout=endpoint.timeout, max_retries=0
        )
        self.json_modes: list[dict[str, Any]] = [
            {"type": "json_object", "schema": VERDICT_SCHEMA},
            {"type": "json_schema", "json_schema": {"name": "verdict", "schema": VERDICT_SCHEMA, "strict": True}},
        ]

    def conversation(self, system: str, user: str, tools: list[dict[str, Any]]) -> Conversation:
        functions = [
            {
                "type": "function",
                "function": {
                    "name": tool["name"],
                    "description": tool.get("description") or "",
                    "parameters": tool.get("inputSchema") or {"type": "object"},
                },
            }
            for tool in tools
        ]
        return _OpenAIConversation(self, system, user, functions)

    async def aclose(self) -> None:
        await self.client.close()


class _OpenAIConversation(Conversation):
    def __init__(self, provider: OpenAIProvider, system: str, user: str, tools: list[dict[str, Any]]) -> None:
        self.provider = provider
        self.tools = tools
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": system}, {"role": "user", "content": user}]

    async def reply(self) -> Reply:
        provider = self.provider
        # "auto" is OpenAI's default with tools, but some compatible servers (llama.cpp's
        # function-calling formats) leave the tools out of the prompt unless it is said.
        options: dict[str, Any] = {"tools": self.tools, "tool_choice": "auto"} if self.tools else {}
        started = time.perf_counter()
        try:
            answer = await self._create(options)
        except provider.errors as exc:
            raise provider.error(exc) from None
        seconds = time.perf_counter() - started
        if not answer.choices:
            raise AgentError(f"the model {provider.describe()} answered without a choice")
        message = answer.choices[0].message
        calls = [
            ToolCall(call.id or f"call_{index}", call.function.name, _arguments(call.function.arguments))
            for index, call in enumerate(message.tool_calls or [])
            if getattr(call, "function", None) is not None
        ]
        said: dict[str, Any] = {"role": "assistant", "content": message.content or ""}
        if calls:
            said["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    # echoed as JSON the SDK can send, whatever the model wrote (lone surrogates, NaN)
                    "function": {
                        "name": json_safe(call.name),
                        "arguments": orjson.dumps(json_safe(call.arguments)).decode(),
                    },
                }
                for call in calls
            ]
        self.messages.append(said)
        usage = answer.usage
        return Reply(
            message.content or "",
            calls,
            getattr(usage, "prompt_tokens", None),
            getattr(usage, "completion_tokens", None),
            seconds,
        )

    async def _create(self, options: dict[str, Any]) -> Any:
        """One completion; a JSON reply is constrained by the first of the endpoint's JSON modes
        it accepts (llama.cpp's schema-in-json_object, then OpenAI's json_schema); an endpoint
        that refuses both is asked by the prompt alone. What it refused is remembered."""
        provider = self.provider
        client, model = provider.client, provider.endpoint.spec.model
        while self.json_reply and provider.json_modes:
            mode = provider.json_modes[0]
            try:
                return await provider.with_retries(
                    lambda mode=mode: client.chat.completions.create(  # type: ignore[misc]
                        model=model, messages=self.messages, max_tokens=MAX_TOKENS, response_format=mode, **options
                    )
                )
            except provider.errors as exc:
                if getattr(exc, "status_code", None) not in (400, 422):
                    raise
                provider.json_modes = provider.json_modes[1:]
        return await provider.with_retries(
            lambda: client.chat.completions.create(
                model=model, messages=self.messages, max_tokens=MAX_TOKENS, **options
            )
        )

    def add_tool_results(self, results: list[tuple[ToolCall, str]]) -> None:
        self.messages += [{"role": "tool", "tool_call_id": call.id, "content": text} for call, text in results]

    def add_user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})


class AnthropicProvider(Provider):
    def __init__(self, endpoint: Endpoint) -> None:
        super().__init__(endpoint)
        sdk = _sdk("anthropic")
        self.errors = sdk.AnthropicError
        self.client = sdk.AsyncAnthropic(
            api_key=endpoint.api_key(), base_url=endpoint.url, timeout=endpoint.timeout, max_retries=0
        )

    def conversation(self, system: str, user: str, tools: list[dict[str, Any]]) -> Conversation:
        described = [
            {
                "name": tool["name"],
                "description": tool.get("description") or "",
                "input_schema": tool.get("inputSchema") or {"type": "object"},
            }
            for tool in tools
        ]
        return _AnthropicConversation(self, system, user, described)

    async def aclose(self) -> None:
        await self.client.close()


class _AnthropicConversation(Conversation):
    def __init__(self, provider: AnthropicProvider, system: str, user: str, tools: list[dict[str, Any]]) -> None:
        self.provider = provider
        self.system = system
        self.tools = tools
        self.messages: list[dict[str, Any]] = [{"role": "user", "content": user}]

    async def reply(self) -> Reply:
        provider = self.provider
        options: dict[str, Any] = {"tools": self.tools} if self.tools else {}
        started = time.perf_counter()
        try:
            answer = await provider.with_retries(
                lambda: provider.client.messages.create(
                    model=provider.endpoint.spec.model,
                    max_tokens=MAX_TOKENS,
                    system=self.system,
                    messages=self.messages,
                    **options,
                )
            )
        except provider.errors as exc:
            raise provider.error(exc) from None
        seconds = time.perf_counter() - started
        texts: list[str] = []
        calls: list[ToolCall] = []
        blocks: list[dict[str, Any]] = []
        for block in answer.content or []:
            kind = getattr(block, "type", None)
            if kind == "text":
                texts.append(block.text)
                blocks.append({"type": "text", "text": block.text})
            elif kind == "tool_use":
                calls.append(ToolCall(block.id, block.name, _arguments(block.input)))
                echoed = {"id": block.id, "name": json_safe(block.name), "input": json_safe(block.input)}
                blocks.append({"type": "tool_use", **echoed})  # as JSON the SDK can send back
        self.messages.append({"role": "assistant", "content": blocks or [{"type": "text", "text": ""}]})
        usage = answer.usage
        return Reply(
            "".join(texts),
            calls,
            getattr(usage, "input_tokens", None),
            getattr(usage, "output_tokens", None),
            seconds,
        )

    def add_tool_results(self, results: list[tuple[ToolCall, str]]) -> None:
        content = [{"type": "tool_result", "tool_use_id": call.id, "content": text} for call, text in results]
        self.messages.append({"role": "user", "content": content})

    def add_user(self, text: str) -> None:
        last = self.messages[-1]
        if last["role"] == "user":  # the API wants the roles to alternate: one user turn
            blocks = (
                last["content"] if isinstance(last["content"], list) else [{"type": "text", "text": last["content"]}]
            )
            last["content"] = [*blocks, {"type": "text", "text": text}]
        else:
            self.messages.append({"role": "user", "content": text})
