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
import ipaddress
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

import orjson

from mcpaql_conformance import secrecy
from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.files.values import json_safe
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.secrecy import masked_url

PROVIDERS = ("openai", "anthropic")
DEFAULT_KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
# Where the provider's own API is: given to the SDK when --base-url is not, so that the SDKs'
# OPENAI_BASE_URL and ANTHROPIC_BASE_URL never send a key somewhere the options do not say.
PROVIDER_URLS = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
RETRIES = 4  # retries of a rate-limited or failed request
BACKOFF = 0.5  # seconds before the first retry, doubled each time (at most MAX_BACKOFF) unless the API says
MAX_BACKOFF = 8.0
MAX_RETRY_AFTER = 60.0  # a longer retry-after is not waited for
RETRIED_STATUSES = frozenset({408, 409, 429})  # and every 5xx
TURN_STATUSES = frozenset({400, 413, 422})  # refusals of this conversation (too long, malformed): this run only
MAX_TOKENS = 1024  # per reply (the Anthropic API requires a limit)
LOCAL_KEY = "not-needed"  # sent where no key is meant to go: local servers (llama.cpp, Ollama, vLLM) take any


class AgentError(ConfigError):
    """The model could not be used (not installed, no key, unreachable, refused): exit 3."""


class ModelTurnFailed(AgentError):
    """One reply failed (no answer in time, or the endpoint refused this conversation): the run
    records it as its error and the other runs go on."""


@dataclass(frozen=True)
class ModelSpec:
    provider: str
    model: str

    @classmethod
    def parse(cls, text: str, option: str = "--model") -> ModelSpec:
        provider, _, model = text.partition(":")
        if provider not in PROVIDERS or not model:
            raise AgentError(
                f"{option} {plain(text)!r}: expected PROVIDER:MODEL with PROVIDER one of {', '.join(PROVIDERS)}"
                " (e.g. openai:gpt-4o-mini, anthropic:claude-sonnet-4-5, openai:local with --base-url)"
            )
        return cls(provider, model)

    def __str__(self) -> str:
        return f"{self.provider}:{self.model}"


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


@dataclass
class Endpoint:
    """Where a model is and how to reach it.

    The key goes only where it is meant to: the provider's default variable to the provider's
    own API (no ``base_url``); to a ``base_url``, only the variable ``key_variable`` names
    (``--api-key-env``), and never over plain http to a host that is not loopback unless
    ``allow_insecure`` (``--allow-insecure-base-url``). Elsewhere (a keyless local server) the
    placeholder LOCAL_KEY is sent, which is no secret."""

    spec: ModelSpec
    base_url: str | None = None
    key_variable: str | None = None
    timeout: float = 120.0
    allow_insecure: bool = False
    secrets: list[str] = field(default_factory=list)  # the key, for the redactor

    @property
    def url(self) -> str:
        """Where the requests go: ``base_url``, else the provider's own API."""
        return self.base_url or PROVIDER_URLS[self.spec.provider]

    @property
    def variable(self) -> str:
        return self.key_variable or DEFAULT_KEY_VARIABLES[self.spec.provider]

    @property
    def keyless(self) -> bool:
        """Whether the placeholder is sent instead of a key (see ``api_key``)."""
        return self.api_key() == LOCAL_KEY

    def prepare(self) -> None:
        """Before any server starts: the key variable kept from the server's environment, the
        key (and what the base URL carries as credentials) registered as secrets, and where the
        key would go checked (an AgentError, exit 3, when it must not go there)."""
        secrecy.withhold([self.variable])
        secrecy.register_url(self.base_url)
        self.api_key()

    def api_key(self) -> str:
        """The key to send (registered as a secret), or LOCAL_KEY where none is meant to go."""
        variable = self.variable
        if self.base_url is not None and self.key_variable is None:
            # The provider's key is for the provider's API, not for this endpoint. Plain http to
            # a host that is not loopback is refused all the same while it is set: said so, it
            # goes on with the placeholder.
            if os.environ.get(variable) and not self.allow_insecure and not is_private_way(self.base_url):
                raise AgentError(
                    f"refusing plain http to {plain(masked_url(self.base_url))} (not loopback) while ${variable}"
                    " is set: use https, or --allow-insecure-base-url to go on all the same (that key goes"
                    " only to the provider's own API, or to --base-url when --api-key-env names it)"
                )
            return LOCAL_KEY
        key = os.environ.get(variable)
        if not key:
            if self.base_url is not None and is_loopback(self.base_url):
                return LOCAL_KEY
            raise AgentError(
                f"set ${plain(variable)} to the {self.spec.provider} API key (or name another with --api-key-env)"
            )
        secrecy.register(key)
        if key not in self.secrets:
            self.secrets.append(key)
        if self.base_url is not None and not self.allow_insecure and not is_private_way(self.base_url):
            raise AgentError(
                f"refusing to send ${plain(variable)} to {plain(masked_url(self.base_url))} over plain http"
                " (not loopback): use https, or --allow-insecure-base-url to send it all the same"
            )
        return key


def is_private_way(url: str) -> bool:
    """Whether a key may go to ``url``: over https, or to a loopback address."""
    try:
        scheme = urlparse(url).scheme.lower()
    except ValueError:
        return False
    return scheme == "https" or is_loopback(url)


def is_loopback(url: str) -> bool:
    """Whether ``url`` names this machine: ``localhost``, 127.0.0.0/8 or ::1 (also IPv4-mapped);
    ``0.0.0.0`` and names that merely resolve to loopback do not count."""
    try:
        host = (urlparse(url).hostname or "").rstrip(".")
    except ValueError:
        return False
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


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
