"""Both providers on the wire, against the loopback fake model (``tests/fake_llm.py``): tool-call
round trips in each API's format, tokens as reported, retries of 429 and 5xx, timeouts, an
unreachable model, a refused key, and the key kept out of every error line."""

from __future__ import annotations

import functools
import json
import socket
import socketserver
import sys
from collections.abc import Awaitable, Callable
from http.server import ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import anyio
import pytest

from mcpaql_conformance.agent import endpoints, providers
from mcpaql_conformance.agent.endpoints import LOCAL_KEY, AgentError, Endpoint, ModelSpec, ModelTurnFailed, is_loopback
from mcpaql_conformance.agent.providers import MAX_TOKENS, RETRIES, Conversation, Reply, ToolCall, open_provider

if str(ROOT := Path(__file__).resolve().parents[2]) not in sys.path:  # tests/fake_llm.py, as acceptance imports it
    sys.path.insert(0, str(ROOT))
from tests.fake_llm import FakeLLM, Request

T = TypeVar("T")
PROVIDERS = ["openai", "anthropic"]
KEY_VARIABLE = "MCPAQL_CONFORMANCE_TEST_KEY"
KEY = "sk-test-0123456789abcdef"
MODEL = "test-model"
SYSTEM = "You are a test assistant."
USER = "Show me note n1."
TOOLS = [
    {
        "name": "mcp_aql_read",
        "description": "Read operations.",
        "inputSchema": {"type": "object", "properties": {"operation": {"type": "string"}}},
    }
]
ARGUMENTS = {"operation": "get_note", "params": {"note_id": "n1"}}
COMPACT_ARGUMENTS = '{"operation":"get_note","params":{"note_id":"n1"}}'  # as the model's JSON is resent
RESULT = '{"success":true,"data":{"title":"Groceries"}}'
FAST = {"retry-after-ms": "1"}  # the SDKs wait what the server says: 1 ms


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test key in its own variable; nothing from the environment reaches the SDKs."""
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_ORG_ID",
        "OPENAI_PROJECT_ID",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(KEY_VARIABLE, KEY)
    # The fake's server notices shutdown at its next poll: 10 ms instead of 500 ms per test.
    fast_poll = functools.partialmethod(socketserver.BaseServer.serve_forever, poll_interval=0.01)
    monkeypatch.setattr(ThreadingHTTPServer, "serve_forever", fast_poll, raising=False)


@pytest.fixture
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Failures without a retry-after header (refused connections) back off 1 ms."""
    monkeypatch.setattr(providers, "BACKOFF", 0.001)


def endpoint(provider: str, url: str, timeout: float = 10.0, key_variable: str = KEY_VARIABLE) -> Endpoint:
    return Endpoint(ModelSpec(provider, MODEL), base_url=url, key_variable=key_variable, timeout=timeout)


def converse(where: Endpoint, script: Callable[[Conversation], Awaitable[T]], tools: list[Any] = TOOLS) -> T:
    """Open the provider, run ``script`` on one conversation, close the provider."""

    async def main() -> T:
        provider = open_provider(where)
        try:
            return await script(provider.conversation(SYSTEM, USER, tools))
        finally:
            await provider.aclose()

    return anyio.run(main)


async def one_reply(conversation: Conversation) -> Reply:
    return await conversation.reply()


def failure(where: Endpoint) -> str:
    with pytest.raises(AgentError) as caught:
        converse(where, one_reply)
    return str(caught.value)


def sent_key(request: Request) -> str | None:
    """The key a request carried: ``Authorization: Bearer`` or ``x-api-key``."""
    bearer = request.headers.get("authorization", "")
    return bearer.removeprefix("Bearer ") if bearer.startswith("Bearer ") else request.headers.get("x-api-key")


def described(provider: str, fake: FakeLLM) -> str:
    return f"the model {provider}:{MODEL} at {fake.url}"


# The tool-call round trip


def expected_second_request(provider: str) -> dict[str, Any]:
    """The messages and tools of the request that carries the tool result, in each API's format."""
    if provider == "openai":
        return {
            "path": "/chat/completions",
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": USER},
                {
                    "role": "assistant",
                    "content": "Let me look.",
                    "tool_calls": [
                        {
                            "id": "call_0",
                            "type": "function",
                            "function": {
                                "name": "mcp_aql_read",
                                "arguments": '{"operation":"get_note","params":{"note_id":"n1"}}',
                            },
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_0", "content": RESULT},
            ],
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "mcp_aql_read",
                        "description": "Read operations.",
                        "parameters": TOOLS[0]["inputSchema"],
                    },
                }
            ],
        }
    return {
        "path": "/v1/messages",
        "system": SYSTEM,
        "messages": [
            {"role": "user", "content": USER},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me look."},
                    {"type": "tool_use", "id": "toolu_0", "name": "mcp_aql_read", "input": ARGUMENTS},
                ],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_0", "content": RESULT}]},
        ],
        "tools": [{"name": "mcp_aql_read", "description": "Read operations.", "input_schema": TOOLS[0]["inputSchema"]}],
    }


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_tool_call_round_trip_in_the_providers_wire_format(provider: str) -> None:
    replies = [
        {"text": "Let me look.", "tool_calls": [{"name": "mcp_aql_read", "arguments": ARGUMENTS}], "usage": [123, 45]},
        {"text": "Note n1 is Groceries.", "usage": [200, 12]},
    ]

    async def script(conversation: Conversation) -> tuple[Reply, Reply]:
        first = await conversation.reply()
        conversation.add_tool_results([(first.tool_calls[0], RESULT)])
        return first, await conversation.reply()

    with FakeLLM(replies=replies) as fake:
        first, final = converse(endpoint(provider, fake.url), script)
    call_id = "call_0" if provider == "openai" else "toolu_0"
    assert first.text == "Let me look."
    assert first.tool_calls == [ToolCall(call_id, "mcp_aql_read", ARGUMENTS)]
    assert (first.input_tokens, first.output_tokens) == (123, 45)
    assert final.text == "Note n1 is Groceries." and final.tool_calls == []
    assert (final.input_tokens, final.output_tokens) == (200, 12)
    assert final.seconds >= 0
    assert len(fake.requests) == 2
    second = fake.requests[1]
    expected = expected_second_request(provider)
    assert second.path == expected.pop("path")
    assert second.tool_results() == [RESULT]
    for key, value in expected.items():
        assert second.body[key] == value, key
    assert second.body["model"] == MODEL and second.body["max_tokens"] == MAX_TOKENS
    assert fake.requests[0].user_text() == USER


def test_openai_leaves_the_tool_choice_to_the_model_explicitly() -> None:
    with FakeLLM(replies=[{"text": "hi"}]) as fake:
        converse(endpoint("openai", fake.url), one_reply)
        converse(endpoint("openai", fake.url), one_reply, tools=[])
    assert fake.requests[0].body["tool_choice"] == "auto"
    assert "tools" not in fake.requests[1].body and "tool_choice" not in fake.requests[1].body


@pytest.mark.parametrize(
    ("provider", "last"),
    [
        (
            "openai",
            [{"role": "tool", "tool_call_id": "call_0", "content": RESULT}, {"role": "user", "content": "More"}],
        ),
        # Roles must alternate: the user's text joins the user turn that carries the tool result.
        (
            "anthropic",
            [
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_0", "content": RESULT},
                        {"type": "text", "text": "More"},
                    ],
                }
            ],
        ),
    ],
)
def test_a_user_message_after_tool_results(provider: str, last: list[dict[str, Any]]) -> None:
    replies = [{"tool_calls": [{"name": "mcp_aql_read", "arguments": ARGUMENTS}]}, {"text": "ok"}]

    async def script(conversation: Conversation) -> Reply:
        first = await conversation.reply()
        conversation.add_tool_results([(first.tool_calls[0], RESULT)])
        conversation.add_user("More")
        return await conversation.reply()

    with FakeLLM(replies=replies) as fake:
        assert converse(endpoint(provider, fake.url), script).text == "ok"
    messages = fake.requests[1].body["messages"]
    assert messages[-len(last) :] == last


def test_the_openai_judge_asks_for_json_and_falls_back_where_json_modes_are_refused() -> None:
    async def judge_twice(where: Endpoint) -> tuple[int, list[str]]:
        provider = open_provider(where)
        modes = len(provider.json_modes)  # type: ignore[attr-defined]
        texts = []
        try:
            for _ in range(2):
                conversation = provider.conversation(SYSTEM, USER, [])
                conversation.json_reply = True
                texts.append((await conversation.reply()).text)
        finally:
            await provider.aclose()
        return modes, texts

    with FakeLLM(replies=[{"text": '{"verdict": "pass"}'}] * 2) as fake:
        modes, texts = anyio.run(judge_twice, endpoint("openai", fake.url))
    assert modes >= 1 and texts == ['{"verdict": "pass"}'] * 2
    formats = [request.body.get("response_format") for request in fake.requests]
    assert len(formats) == 2 and formats[0] == formats[1]
    assert formats[0]["type"] in ("json_object", "json_schema")
    # An endpoint that refuses every JSON mode (400) is asked by the prompt alone, and the
    # provider remembers: its next conversation does not try the modes again.
    with FakeLLM(replies=[{"text": "{}"}] * 2, failures=[(400, {})] * modes) as fake:
        assert anyio.run(judge_twice, endpoint("openai", fake.url))[1] == ["{}", "{}"]
    sent = [("response_format" in request.body) for request in fake.requests]
    assert sent == [True] * modes + [False, False]


# Retries


@pytest.mark.parametrize("status", [429, 500, 503])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_rate_limit_or_server_error_is_retried(provider: str, status: int) -> None:
    with FakeLLM(replies=[{"text": "fine now", "usage": [3, 4]}], failures=[(status, FAST)]) as fake:
        reply = converse(endpoint(provider, fake.url), one_reply)
    assert (reply.text, reply.input_tokens, reply.output_tokens) == ("fine now", 3, 4)
    assert len(fake.requests) == 2
    assert fake.requests[0].body == fake.requests[1].body


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_persistent_rate_limit_is_one_error_line_after_the_retries(provider: str) -> None:
    with FakeLLM(failures=[(429, FAST)] * (RETRIES + 1)) as fake:
        message = failure(endpoint(provider, fake.url))
        where = described(provider, fake)
    assert len(fake.requests) == RETRIES + 1
    assert message.startswith(f"{where} is still rate-limited after {RETRIES} retries: ")
    assert "scripted 429" in message and "\n" not in message


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_persistent_server_error_names_the_status(provider: str) -> None:
    with FakeLLM(failures=[(500, FAST)] * (RETRIES + 1)) as fake:
        message = failure(endpoint(provider, fake.url))
        where = described(provider, fake)
    assert len(fake.requests) == RETRIES + 1
    assert message.startswith(f"{where} answered HTTP 500: ") and "scripted 500" in message


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_model_slower_than_the_timeout(provider: str, fast_backoff: None) -> None:
    with FakeLLM(replies=[{"text": "too late"}] * (RETRIES + 1), delay=1.0) as fake:
        message = failure(endpoint(provider, fake.url, timeout=0.2))
        where = described(provider, fake)
    assert message == f"{where} did not answer within 0.2 s"
    assert len(fake.requests) == 1  # the model had its time: a timeout is not asked again


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_model_that_cannot_be_reached(provider: str, fast_backoff: None) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    message = failure(endpoint(provider, url))
    assert message.startswith(f"cannot reach the model {provider}:{MODEL} at {url}: ")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_refused_key_is_not_retried(provider: str) -> None:
    with FakeLLM(failures=[(401, FAST)]) as fake:
        message = failure(endpoint(provider, fake.url))
        where = described(provider, fake)
    assert len(fake.requests) == 1
    assert message.startswith(f"{where} refused the API key (HTTP 401): ") and "scripted 401" in message


# The key


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_key_is_sent_in_the_auth_header_and_kept_for_the_redactor(provider: str) -> None:
    where = endpoint(provider, "http://127.0.0.1:1")
    with FakeLLM(replies=[{"text": "hi"}]) as fake:
        where.base_url = fake.url
        converse(where, one_reply)
    request = fake.requests[0]
    if provider == "openai":
        assert request.headers["authorization"] == f"Bearer {KEY}"
    else:  # the installed anthropic SDK decides: x-api-key, or (2.x) Authorization: Bearer
        assert sent_key(request) == KEY
    assert KEY not in json.dumps(request.body)
    assert where.secrets == [KEY]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_key_never_appears_in_an_error_line(provider: str, fast_backoff: None) -> None:
    messages = []
    for failures in ([(401, {})], [(403, {})], [(429, FAST)] * (RETRIES + 1), [(500, FAST)] * (RETRIES + 1)):
        with FakeLLM(failures=list(failures)) as fake:
            messages.append(failure(endpoint(provider, fake.url)))
            assert all(sent_key(request) == KEY for request in fake.requests)
    messages.append(failure(endpoint(provider, f"http://127.0.0.1:{closed_port()}")))
    with FakeLLM(delay=1.0) as fake:
        messages.append(failure(endpoint(provider, fake.url, timeout=0.2)))
    assert len(messages) == 6 and all(message.startswith(("the model", "cannot reach")) for message in messages)
    assert not [message for message in messages if KEY in message]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_key_the_api_echoes_back_is_masked_in_the_error_line(provider: str) -> None:
    def echo(request: Request, status: int) -> str:
        return f"Incorrect API key provided: {sent_key(request)}"  # as some gateways do

    with FakeLLM(failures=[(401, {})], error_text=echo) as model:
        message = failure(endpoint(provider, model.url))
        assert model.requests and sent_key(model.requests[0]) == KEY
    assert "refused the API key (HTTP 401)" in message
    assert KEY not in message


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_local_model_without_a_key_gets_a_placeholder(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_VARIABLE)
    where = endpoint(provider, "http://127.0.0.1:1")
    with FakeLLM(replies=[{"text": "hi"}]) as fake:
        where.base_url = fake.url
        assert converse(where, one_reply).text == "hi"
    assert sent_key(fake.requests[0]) == LOCAL_KEY
    assert where.secrets == []


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_remote_model_without_a_key_is_refused_before_any_request(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_VARIABLE)
    with pytest.raises(AgentError) as caught:
        open_provider(endpoint(provider, "https://api.example.com/v1"))
    assert str(caught.value) == (f"set ${KEY_VARIABLE} to the {provider} API key (or name another with --api-key-env)")


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://localhost:8080/v1", True),
        ("http://127.0.0.2:1234", True),
        ("http://[::1]:8080/v1", True),
        ("https://api.openai.com/v1", False),
        ("http://localhost.example.com", False),
        ("http://10.0.0.1", False),
        ("http://0.0.0.0:8080", False),
        ("http://[::ffff:127.0.0.1]:8080", True),
        ("http://localhost.:8080", True),
        ("http://[::1", False),
    ],
)
def test_loopback_urls(url: str, loopback: bool) -> None:
    assert is_loopback(url) is loopback


def test_model_specs_are_provider_and_model() -> None:
    assert ModelSpec.parse("openai:gpt-4o-mini") == ModelSpec("openai", "gpt-4o-mini")
    assert str(ModelSpec.parse("anthropic:claude:x")) == "anthropic:claude:x"
    for text in ("gpt-4o", "openai:", "google:gemini"):
        with pytest.raises(AgentError, match=r"^--model '.*': expected PROVIDER:MODEL with PROVIDER one of"):
            ModelSpec.parse(text)


# --- what ends one run, what ends them all ------------------------------------------------------


def failure_kind(where: Endpoint) -> type[AgentError]:
    with pytest.raises(AgentError) as caught:
        converse(where, one_reply)
    return type(caught.value)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_timeout_or_a_refused_conversation_ends_one_run_and_the_rest_end_them_all(provider: str) -> None:
    with FakeLLM(replies=[{"text": "late"}], delay=1.0) as fake:
        assert failure_kind(endpoint(provider, fake.url, timeout=0.2)) is ModelTurnFailed
    with FakeLLM(failures=[(400, {})]) as fake:
        assert failure_kind(endpoint(provider, fake.url)) is ModelTurnFailed
    with FakeLLM(failures=[(400, {})]) as fake:
        message = failure(endpoint(provider, fake.url))
        assert message.startswith(f"{described(provider, fake)} refused this conversation (HTTP 400): ")
    for status in (401, 404):
        with FakeLLM(failures=[(status, {})]) as fake:
            assert failure_kind(endpoint(provider, fake.url)) is AgentError


@pytest.mark.parametrize(
    ("headers", "attempt", "seconds"),
    [
        ({"retry-after-ms": "250"}, 0, 0.25),
        ({"retry-after": "2"}, 0, 2.0),
        ({"retry-after-ms": "10", "retry-after": "5"}, 3, 0.01),  # the finer one first
        ({"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"}, 1, 1.0),  # a date: backoff instead
        ({"retry-after": "3600"}, 2, 2.0),  # too long to wait for: backoff instead
        ({"retry-after": "nan"}, 0, 0.5),
        ({}, 10, 8.0),  # backoff doubles up to its cap
    ],
)
def test_a_retry_waits_as_long_as_the_api_asks_within_reason(headers: dict[str, str], attempt: int, seconds: float):
    failed = SimpleNamespace(response=SimpleNamespace(headers=headers))
    assert providers._retry_delay(failed, attempt) == pytest.approx(seconds)  # type: ignore[arg-type]


def test_what_is_retried() -> None:
    class APITimeoutError(Exception):
        status_code = None

    class APIConnectionError(Exception):
        status_code = None

    def status(code: int) -> Exception:
        failed = Exception()
        failed.status_code = code  # type: ignore[attr-defined]
        return failed

    assert not providers._retryable(APITimeoutError())
    assert providers._retryable(APIConnectionError())
    assert [
        code for code in (400, 401, 403, 404, 408, 409, 422, 429, 500, 503) if providers._retryable(status(code))
    ] == [
        408,
        409,
        429,
        500,
        503,
    ]


# --- where a key goes (issue 17: a key only where it is meant to go) ---------------------------------


def test_the_providers_own_key_goes_only_to_the_providers_api(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    default = Endpoint(ModelSpec("openai", MODEL))
    assert default.api_key() == KEY and default.url == "https://api.openai.com/v1"
    for url in ("http://127.0.0.1:8080/v1", "https://gateway.example/v1"):
        elsewhere = Endpoint(ModelSpec("openai", MODEL), base_url=url)
        assert elsewhere.api_key() == LOCAL_KEY and elsewhere.secrets == [] and elsewhere.keyless
    named = Endpoint(ModelSpec("openai", MODEL), base_url="https://gateway.example/v1", key_variable="OPENAI_API_KEY")
    assert named.api_key() == KEY and named.secrets == [KEY]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_default_key_is_not_sent_to_a_local_base_url(provider: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(endpoints.DEFAULT_KEY_VARIABLES[provider], KEY)
    with FakeLLM(replies=[{"text": "hi"}]) as fake:
        assert converse(endpoint(provider, fake.url, key_variable=None), one_reply).text == "hi"
    assert sent_key(fake.requests[0]) == LOCAL_KEY


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_key_over_plain_http_to_a_host_not_loopback_is_refused_before_any_request(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeLLM(replies=[{"text": "hi"}]) as fake:
        insecure = endpoint(provider, fake.url.replace("127.0.0.1", "0.0.0.0"))
        with pytest.raises(AgentError) as caught:
            open_provider(insecure)
        assert str(caught.value) == (
            f"refusing to send ${KEY_VARIABLE} to {insecure.base_url} over plain http (not loopback): use https,"
            " or --allow-insecure-base-url to send it all the same"
        )
        assert fake.requests == []
        insecure.allow_insecure = True
        assert converse(insecure, one_reply).text == "hi"
    assert sent_key(fake.requests[0]) == KEY
    assert endpoint(provider, "https://api.example.com/v1").api_key() == KEY  # https: anywhere


def test_prepare_keeps_the_key_variable_from_the_server_and_registers_the_key() -> None:
    from mcpaql_conformance import secrecy

    where = endpoint("openai", "http://user:BASE-PASSWORD@127.0.0.1:1/v1?api-key=QUERY-KEY-1")
    where.prepare()
    assert KEY_VARIABLE not in secrecy.server_environment()
    assert {KEY, "BASE-PASSWORD", "QUERY-KEY-1"} <= secrecy.registered()
    provider = open_provider(where)
    assert provider.describe() == "openai:test-model at http://user:***@127.0.0.1:1/v1?api-key=***"
    with pytest.raises(AgentError, match="refusing to send"):
        endpoint("openai", "http://10.1.2.3/v1").prepare()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_401_after_no_key_was_sent_says_how_to_name_one(provider: str) -> None:
    with FakeLLM(failures=[(401, {})]) as fake:
        message = failure(endpoint(provider, fake.url, key_variable=None))
    assert message.endswith(f"no key was sent to {fake.url}: name the variable that holds its key with --api-key-env")


def test_plain_http_to_a_host_not_loopback_is_refused_while_the_providers_key_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    where = Endpoint(ModelSpec("openai", MODEL), base_url="http://10.1.2.3/v1")
    assert where.api_key() == LOCAL_KEY  # no key set: nothing to protect
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with pytest.raises(AgentError) as caught:
        where.prepare()
    assert str(caught.value).startswith(
        "refusing plain http to http://10.1.2.3/v1 (not loopback) while $OPENAI_API_KEY is set: use https,"
    )
    where.allow_insecure = True
    assert where.api_key() == LOCAL_KEY  # said so: on with the placeholder, never the key
