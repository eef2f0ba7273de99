"""A model on loopback that speaks the OpenAI chat-completions and the Anthropic messages APIs,
answering from a script: for wire-level tests of both providers (tool-call round trips,
429 and 500 retries, timeouts) and for agent runs without a real model.

Each reply is ``{"text": str, "tool_calls": [{"name", "arguments"}], "usage": [in, out]}``, or a
callable that makes one from the request (``Request``). A call is sent as a model could get it
wrong: a ``name`` that is null or not text is sent as it is, a call without ``name`` has none on
the wire, and ``raw_arguments`` is the OpenAI ``arguments`` text verbatim (JSON or not).
``failures`` are answered first, one per request: ``(status, headers)``, with the message
``error_text`` makes (as a gateway that echoes the key it was sent); ``delay`` seconds before
every answer.

A 1-token request (``max_tokens`` 1: the agent's preflight and its tool-list count) is a probe:
recorded in ``probes``, not ``requests``, and answered "ok" without using a scripted reply, its
prompt tokens the size of its messages and tools (a tenth of their JSON's characters), after
``probe_failures`` (answered first, as ``failures`` are) and ``probe_delay`` seconds. ``paths``
counts every request by path.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Request:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    at: float = field(default_factory=time.monotonic)  # when it came (time.monotonic)

    @property
    def probe(self) -> bool:
        """A 1-token request: the agent's preflight, or its count of the tool list's tokens."""
        return self.body.get("max_tokens") == 1

    @property
    def api(self) -> str:
        return "anthropic" if self.path.endswith("/messages") else "openai"

    def tool_results(self) -> list[str]:
        """The tool results this request carries, in order (both APIs)."""
        found: list[str] = []
        for message in self.body.get("messages", []):
            if message.get("role") == "tool":
                found.append(str(message.get("content")))
            content = message.get("content")
            if isinstance(content, list):
                found += [str(block.get("content")) for block in content if block.get("type") == "tool_result"]
        return found

    def user_text(self) -> str:
        for message in self.body.get("messages", []):
            if message.get("role") == "user" and isinstance(message.get("content"), str):
                return str(message["content"])
        return ""


Reply = dict[str, Any] | Callable[[Request], dict[str, Any]]


@dataclass
class FakeLLM:
    replies: list[Reply] = field(default_factory=list)
    failures: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    error_text: Callable[[Request, int], str] | None = None  # a failure's message (default: "scripted N")
    delay: float = 0.0
    requests: list[Request] = field(default_factory=list)
    probe_failures: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    probe_delay: float = 0.0
    probes: list[Request] = field(default_factory=list)
    paths: Counter[str] = field(default_factory=Counter)

    def __enter__(self) -> FakeLLM:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                request = Request(self.path, body, {k.lower(): v for k, v in self.headers.items()})
                fake.paths[self.path] += 1
                if request.probe:
                    self._probe(request)
                    return
                fake.requests.append(request)
                if fake.delay:
                    time.sleep(fake.delay)
                if fake.failures:
                    status, headers = fake.failures.pop(0)
                    text = fake.error_text(request, status) if fake.error_text else f"scripted {status}"
                    self._send(status, {"error": {"message": text, "type": "error"}}, headers)
                    return
                reply = fake.replies.pop(0) if fake.replies else {"text": "(no more replies)"}
                made = reply(request) if callable(reply) else reply
                self._send(200, _render(request, made), {})

            def _probe(self, request: Request) -> None:
                fake.probes.append(request)
                if fake.probe_delay:
                    time.sleep(fake.probe_delay)
                if fake.probe_failures:
                    status, headers = fake.probe_failures.pop(0)
                    self._send(status, {"error": {"message": f"scripted {status}", "type": "error"}}, headers)
                    return
                size = len(json.dumps([request.body.get("messages"), request.body.get("tools")])) // 10
                self._send(200, _render(request, {"text": "ok", "usage": [size, 1]}), {})

            def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


def _render(request: Request, reply: dict[str, Any]) -> dict[str, Any]:
    text = reply.get("text", "")
    calls = reply.get("tool_calls", [])
    tokens_in, tokens_out = reply.get("usage", [11, 7])
    if request.api == "anthropic":
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content += [
            {"type": "tool_use", "id": f"toolu_{i}", **_name(call), "input": call.get("arguments", {})}
            for i, call in enumerate(calls)
        ]
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": request.body.get("model", "fake"),
            "content": content,
            "stop_reason": "tool_use" if calls else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
        }
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {
                    **_name(call),
                    "arguments": call.get("raw_arguments", json.dumps(call.get("arguments", {}))),
                },
            }
            for i, call in enumerate(calls)
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": request.body.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out, "total_tokens": tokens_in + tokens_out},
    }


def _name(call: dict[str, Any]) -> dict[str, Any]:
    """The call's name as scripted: left out when the script has none."""
    return {"name": call["name"]} if "name" in call else {}
