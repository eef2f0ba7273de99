"""Before the first run: where each role (the model, the judge) goes, said in one line, and
every endpoint the run needs checked with one minimal request (a 1-token completion), so that
an endpoint that cannot be used stops the agent in seconds, naming the role, the model, the
URL (credentials masked) and what to do, before any server is started or any run is paid for.

Also the one-off count of the tool list's size in tokens (two 1-token requests, with and
without the tools: the difference of the prompt tokens the API reports).

The judge's endpoint: ``--judge-base-url`` when given; else, a judge of the model's provider
goes where the model goes (the model's ``--base-url`` and ``--api-key-env``); a judge of the
other provider goes to that provider's own API.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import orjson

from mcpaql_conformance.agent.endpoints import AgentError, Endpoint
from mcpaql_conformance.agent.loop import SYSTEM
from mcpaql_conformance.agent.providers import (
    RETRIES,
    AnthropicProvider,
    OpenAIProvider,
    Provider,
    _retry_delay,
    _retryable,
    open_provider,
)
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.secrecy import masked_url

PREFLIGHT_TIMEOUT = 30.0  # at most (--model-timeout if shorter) for the 1-token request
CONNECTION_RETRIES = 1  # a refused connection is asked again once (half a second later), not four times
REACHED = frozenset({400, 413, 422})  # it answered, refusing only this tiny request: usable
PING = "Reply with one word: ok."
CHARACTERS_PER_TOKEN = 16  # at most, on average, in a tool list (English and JSON run about 4)


def judge_endpoint(
    model: str | None, base_url: str | None, key_env: str | None, judge: str | None, judge_base_url: str | None,
    judge_key_env: str | None,
) -> tuple[str | None, str | None]:  # fmt: skip
    """``(base URL, key variable)`` of the judge: a judge of the model's provider without
    ``--judge-base-url`` goes to the model's ``--base-url`` with the model's key variable
    (unless ``--judge-api-key-env`` names another); otherwise as given."""
    if judge is None or model is None or judge_base_url is not None or base_url is None:
        return judge_base_url, judge_key_env
    if judge.partition(":")[0] != model.partition(":")[0]:
        return judge_base_url, judge_key_env
    return base_url, judge_key_env if judge_key_env is not None else key_env


@dataclass(frozen=True)
class Role:
    name: str  # "model" or "judge"
    endpoint: Endpoint
    source: str  # where its URL comes from, as the startup line says it
    url_option: str
    key_option: str

    @property
    def who(self) -> str:
        return f"the {self.name} {self.endpoint.spec} at {plain(masked_url(self.endpoint.url))}"


def roles(model: Endpoint | None, judge: Endpoint | None) -> list[Role]:
    found = []
    if model is not None:
        url_option = f"the URL after @ in --model {model.name}" if model.own_url else "--base-url"
        source = "--model's @URL" if model.own_url else "--base-url" if model.base_url else "the provider's API"
        key_option = f"--model-key-env {model.name}=VAR" if model.own_url else "--api-key-env"
        found.append(Role("model", model, source, url_option, key_option))
    if judge is not None:
        if judge.base_url is None:
            source = "the provider's API"
        elif model is not None and judge.base_url == model.base_url:
            source = "the model's endpoint"
        else:
            source = "--judge-base-url"
        found.append(Role("judge", judge, source, "--judge-base-url", "--judge-api-key-env"))
    return found


def startup_line(model: Endpoint | None, judge: Endpoint | None) -> str:
    """``the model openai:m at http://127.0.0.1:8080/v1 (--base-url); the judge ... (the model's endpoint)``."""
    return "; ".join(f"{role.who} ({role.source})" for role in roles(model, judge))


def check_endpoints(
    model: Endpoint | None, judge: Endpoint | None, progress: Callable[[str], None] = lambda line: None
) -> None:
    """One 1-token request to each endpoint the run needs (once for a judge that is the model
    itself); an AgentError (exit 3), one line, for the first that cannot be used."""
    checked = roles(model, judge)
    if not checked:
        return
    progress(startup_line(model, judge))
    distinct: dict[tuple[str, str, str], Role] = {}
    for role in checked:
        distinct.setdefault((str(role.endpoint.spec), role.endpoint.url, role.endpoint.variable), role)
    seconds: dict[str, float] = {}
    failures: dict[str, AgentError] = {}

    async def one(role: Role) -> None:
        try:
            seconds[role.name] = await ping(role)
        except AgentError as exc:
            failures[role.name] = exc

    async def every() -> None:
        async with anyio.create_task_group() as group:
            for role in distinct.values():
                group.start_soon(one, role)

    anyio.run(every)
    for role in checked:  # the model's failure first
        if role.name in failures:
            raise failures[role.name]
    said = [f"the {role.name} in {seconds[role.name]:.1f} s" for role in distinct.values()]
    same = " (the judge is the same model at the same endpoint)" if len(distinct) < len(checked) else ""
    progress(f"endpoints checked: {', '.join(said).replace(' in ', ' answered in ', 1)}{same}")


@dataclass(frozen=True)
class Unusable:
    """A model the preflight could not use: its runs are skipped, said in one line."""

    model: Endpoint
    reason: str

    def evidence(self) -> dict[str, str]:
        return {"model": self.model.name, "reason": self.reason}


def check_models(
    models: Sequence[Endpoint], judge: Endpoint | None, progress: Callable[[str], None] = lambda line: None
) -> tuple[list[Endpoint], list[Unusable]]:
    """The models that can be used, and those that cannot (each said in one line). One model is
    checked as ``check_endpoints`` checks it (an AgentError when it cannot be used); of several,
    one that cannot be used is skipped and the others go on: an AgentError only when none can be
    used, or when the judge cannot."""
    if len(models) <= 1:
        check_endpoints(models[0] if models else None, judge, progress)
        return list(models), []
    if judge is not None:
        check_endpoints(None, judge, progress)
    usable: list[Endpoint] = []
    unusable: list[Unusable] = []
    for model in models:
        try:
            check_endpoints(model, None, progress)
        except AgentError as exc:
            unusable.append(Unusable(model, str(exc)))
            progress(f"model {model.name} cannot be used, its runs are skipped: {exc}")
        else:
            usable.append(model)
    if not usable:
        said = "; ".join(f"{gone.model.name}: {gone.reason}" for gone in unusable)
        raise AgentError(f"none of the {len(models)} models can be used ({said})")
    return usable, unusable


async def ping(role: Role) -> float:
    """Seconds the 1-token request took; an AgentError naming the role when it failed."""
    provider = open_provider(role.endpoint)
    timeout = min(role.endpoint.timeout, PREFLIGHT_TIMEOUT)
    started = time.perf_counter()
    try:
        await attempt(provider, lambda: _request(provider, timeout, None))
    except provider.errors as exc:
        status = getattr(exc, "status_code", None)
        if status not in REACHED:
            raise failure(role, exc, timeout) from None
    finally:
        with anyio.CancelScope(shield=True):
            await provider.aclose()
    return time.perf_counter() - started


async def attempt(provider: Provider, request: Callable[[], Awaitable[Any]]) -> Any:
    """The request, retried as runs are (a 429 or 5xx up to RETRIES times, as long as the
    API's retry-after asks), but a refused connection only once and a timeout never: an
    endpoint that is not there is said in seconds."""
    refused = 0
    for number in range(RETRIES + 1):
        try:
            return await request()
        except provider.errors as exc:
            again = number < RETRIES and _retryable(exc)
            if again and getattr(exc, "status_code", None) is None:  # no HTTP answer at all
                refused += 1
                again = refused <= CONNECTION_RETRIES
            if not again:
                raise
            await asyncio.sleep(_retry_delay(exc, number))
    raise AssertionError("unreachable")


async def _request(
    provider: Provider, timeout: float, tools: list[dict[str, Any]] | None, system: str | None = None
) -> Any:
    """A 1-token completion (with the runs' system prompt and the tools shown as the runs show
    them, when given: some servers put the tools in the prompt only beside a system prompt)."""
    model = provider.endpoint.spec.model
    messages = [{"role": "user", "content": PING}]
    if isinstance(provider, OpenAIProvider):
        options: dict[str, Any] = {}
        if system is not None:
            messages = [{"role": "system", "content": system}, *messages]
        if tools is not None:
            shown = getattr(provider.conversation("", PING, tools), "tools", [])
            options = {"tools": shown, "tool_choice": "auto"} if shown else {}
        return await provider.client.chat.completions.create(
            model=model, messages=messages, max_tokens=1, timeout=timeout, **options
        )
    if isinstance(provider, AnthropicProvider):
        if tools is not None:
            shown = getattr(provider.conversation("", PING, tools), "tools", [])
            options = {"tools": shown} if shown else {}
        else:
            options = {}
        if system is not None:
            options["system"] = system
        return await provider.client.messages.create(
            model=model, max_tokens=1, messages=messages, timeout=timeout, **options
        )
    raise AgentError(f"no preflight request for {provider.endpoint.spec}")


def failure(role: Role, exc: BaseException, timeout: float) -> AgentError:
    """One line: the role, the model, the URL, what went wrong and what to do."""
    name, status = type(exc).__name__, getattr(exc, "status_code", None)
    message = str(getattr(exc, "message", None) or exc)
    for secret in role.endpoint.secrets:  # an API that echoes the key back in its error
        message = message.replace(secret, "***")
    message = plain(message, max_len=200)
    who = role.who
    if "Timeout" in name:
        return AgentError(
            f"{who} did not answer a 1-token request within {timeout:g} s: is its server up and serving"
            f" {role.endpoint.spec.model}? (one that loads the model on its first request may need a second try)"
        )
    if status is None:
        return AgentError(f"{who} cannot be reached ({message}): {_reach_hint(role)}")
    if status in (401, 403):
        return AgentError(
            f"{who} refused the key (HTTP {status}): {message}; name the variable that holds its key with"
            f" {role.key_option}"
        )
    if status == 429:
        return AgentError(f"{who} is still rate-limited after {RETRIES} retries: {message}; try again later")
    if status == 404:
        return AgentError(
            f"{who} answered HTTP 404 ({message}): check the model name {plain(role.endpoint.spec.model)!r} and"
            f" {role.url_option} (an OpenAI-compatible URL usually ends in /v1)"
        )
    return AgentError(f"{who} answered HTTP {status}: {message}")


def _reach_hint(role: Role) -> str:
    if role.name == "judge" and role.endpoint.base_url is None:
        return "give --judge-base-url, or --judge on the same endpoint as --model"
    if role.source == "the model's endpoint":
        return "check --base-url (the judge uses it too), and that its server is running"
    if role.endpoint.base_url is None:
        return f"check the network, or give {role.url_option}"
    return f"check {role.url_option}, and that its server is running"


async def tool_list_tokens(provider: Provider, tools: list[dict[str, Any]]) -> int | None:
    """The tool list's size in tokens, as the API counts them: the prompt tokens of a 1-token
    request (the runs' system prompt and a short message) with the tools minus those of the
    same request without (None when the API does
    not report them, reports too few to be the tool list's, or either request failed: the runs
    go on)."""
    if not tools:
        return None
    timeout = min(provider.endpoint.timeout, PREFLIGHT_TIMEOUT)
    counted: dict[bool, int | None] = {}

    async def count(with_tools: bool) -> None:
        try:
            answer = await attempt(provider, lambda: _request(provider, timeout, tools if with_tools else None, SYSTEM))
        except provider.errors:
            counted[with_tools] = None
            return
        usage = getattr(answer, "usage", None)
        tokens = getattr(usage, "prompt_tokens", None) or getattr(usage, "input_tokens", None)
        counted[with_tools] = tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None

    async with anyio.create_task_group() as group:
        group.start_soon(count, True)
        group.start_soon(count, False)
    shown, bare = counted.get(True), counted.get(False)
    if shown is None or bare is None:
        return None
    # A token is rarely longer than CHARACTERS_PER_TOKEN characters: a smaller count is not the
    # tool list's (llama-cpp-python's function calling reports the tokens of its last step only).
    plausible = len(orjson.dumps(tools)) / CHARACTERS_PER_TOKEN
    return shown - bare if shown - bare >= plausible else None
