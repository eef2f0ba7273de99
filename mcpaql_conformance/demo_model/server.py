"""python -m mcpaql_conformance.demo_model [--port PORT] [--latency-ms N]

A scripted stand-in for a model: an OpenAI-compatible chat-completions API on loopback, for
trying `agent` (several models side by side, the discoverability table) with no network and no
model. It trusts the server's documentation and nothing else: it asks ``introspect`` for the
operations, calls the READ operation whose name and description share the most words with its
task (see ``decide``), and answers with what that call returned. It never calls an operation
that is not READ, so it cannot create anything. A real model reads more; the stand-in is for
trying the tool and for the docs' worked example, never a verdict on a server.

It serves only 127.0.0.1, prints its URL on its first line, and stops on SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

STOPWORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "do", "for", "from", "i", "in", "is", "it", "me", "of", "on"}
    | {"or", "the", "to", "use", "what", "which", "with", "you"}
)
CHARACTERS_PER_TOKEN = 4  # the usage it reports: a rough count, the same for the same text


def words(text: str) -> set[str]:
    return {word for word in re.findall(r"[a-z]+", text.lower().replace("_", " ")) if word not in STOPWORDS}


def _tool_of(tools: list[dict[str, Any]]) -> str | None:
    """The tool that serves reads: the READ endpoint, else the single tool."""
    names = [str((tool.get("function") or {}).get("name")) for tool in tools if isinstance(tool, dict)]
    return next((name for name in names if name.endswith("mcp_aql_read")), None) or next(
        (name for name in names if name.endswith("mcp_aql")), None
    )


def _operations(result: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(result)
    except ValueError:
        return []
    listed = (data.get("data") or {}).get("operations") if isinstance(data, dict) else None
    return [op for op in listed if isinstance(op, dict)] if isinstance(listed, list) else []


def _is_read(operation: dict[str, Any]) -> bool:
    said = str(operation.get("semantic_category") or operation.get("category") or operation.get("endpoint") or "")
    return said.upper() == "READ" and operation.get("name") != "introspect"


Call = tuple[str, dict[str, Any]]  # a tool call: the tool, its arguments
Step = tuple[dict[str, Any], str]  # a call the stand-in made (its arguments) and what it was answered
MAX_CALLS = 4


def decide(task: str, tools: list[dict[str, Any]], steps: list[Step]) -> str | Call:
    """The next reply: a final answer (text), or a tool call. It lists the operations first; asked
    which operations there are, it names them; else it calls the READ operation whose name and
    description share the most words with the task (asked for few fields, with the first field its
    details offer), calls it again once after an error answer, and says what it got."""
    tool = _tool_of(tools)
    if tool is None:
        return "I see no MCP-AQL tool to use."
    if not steps:
        return tool, {"operation": "introspect", "params": {"query": "operations"}}
    listed = _operations(steps[0][1])
    if "which operations" in task.lower():
        return "The server offers: " + ", ".join(str(op.get("name")) for op in listed)
    reads = [op for op in listed if _is_read(op)]
    if not reads:
        return "The server lists no operation that reads."
    wanted = words(task)
    best = str(max(reads, key=lambda op: len(wanted & words(f"{op.get('name')} {op.get('description')}"))).get("name"))
    called, answer = steps[-1]
    if "field" in task.lower():
        return _one_field(tool, best, steps)
    if len(steps) == 1:
        return tool, {"operation": best, "params": {}}
    if len(steps) < MAX_CALLS and _failed(answer) and not any(_failed(text) for _, text in steps[1:-1]):
        return tool, {"operation": best, "params": {}}  # once again, after the error answer
    return f"Here is what {called.get('operation')} answered: {answer[:400]}"


def _one_field(tool: str, operation: str, steps: list[Step]) -> str | Call:
    """Asked for few fields: the operation's details first, then the call with the first field
    its ``fields`` parameter offers (in a preset), then what it answered."""
    if len(steps) == 1:
        return tool, {"operation": "introspect", "params": {"query": "operations", "name": operation}}
    field = _offered_field(steps[1][1]) or "id"
    if len(steps) == 2:
        return tool, {"operation": operation, "params": {"fields": [field]}}
    return f"I asked {operation} for the field {field}; it answered: {steps[-1][1][:300]}"


def _offered_field(details: str) -> str | None:
    """The first field a preset of the operation's ``fields`` parameter names."""
    try:
        data = json.loads(details)
    except ValueError:
        return None
    found = data.get("data") if isinstance(data, dict) else None
    detail = found.get("operation", found) if isinstance(found, dict) else None
    parameters = detail.get("parameters") if isinstance(detail, dict) else None
    for parameter in parameters if isinstance(parameters, list) else []:
        presets = (
            parameter.get("presets") if isinstance(parameter, dict) and parameter.get("name") == "fields" else None
        )
        for listed in presets.values() if isinstance(presets, dict) else []:
            if isinstance(listed, list) and listed:
                return str(listed[0])
    return None


def _failed(answer: str) -> bool:
    try:
        data = json.loads(answer)
    except ValueError:
        return answer.startswith("Error")
    return isinstance(data, dict) and data.get("success") is False


def _steps(messages: list[dict[str, Any]]) -> list[Step]:
    """The calls made so far (from the assistant's tool calls) with their answers, in order."""
    made: list[dict[str, Any]] = []
    for message in messages:
        for call in message.get("tool_calls") or [] if message.get("role") == "assistant" else []:
            try:
                arguments = json.loads((call.get("function") or {}).get("arguments") or "{}")
            except ValueError:
                arguments = {}
            made.append(arguments if isinstance(arguments, dict) else {})
    answers = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
    return list(zip(made, answers, strict=False))


def completion(body: dict[str, Any], model: str) -> dict[str, Any]:
    """The chat-completions answer to a request."""
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    task = next((str(m.get("content")) for m in messages if m.get("role") == "user"), "")
    tools = [tool for tool in body.get("tools") or [] if isinstance(tool, dict)]
    steps = _steps(messages)
    reply = "ok" if body.get("max_tokens") == 1 else decide(task, tools, steps)
    message: dict[str, Any] = {"role": "assistant", "content": reply if isinstance(reply, str) else None}
    call_of = None if isinstance(reply, str) else reply
    if call_of is not None:
        name, arguments = call_of
        call = {"id": f"call_{len(steps) + 1}", "type": "function"}
        message["tool_calls"] = [{**call, "function": {"name": name, "arguments": json.dumps(arguments)}}]
    prompt = len(json.dumps(messages) + json.dumps(tools)) // CHARACTERS_PER_TOKEN
    written = max(1, len(json.dumps(message)) // CHARACTERS_PER_TOKEN)
    return {
        "id": f"demo-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if call_of else "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": written, "total_tokens": prompt + written},
    }


def handler(latency: float) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _send(self, status: int, data: dict[str, Any]) -> None:
            body = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": "demo", "object": "model"}]})
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._send(400, {"error": {"message": "the request is not JSON"}})
                return
            if not self.path.rstrip("/").endswith("/chat/completions") or not isinstance(body, dict):
                self._send(404, {"error": {"message": "only /v1/chat/completions is served"}})
                return
            time.sleep(latency)
            self._send(200, completion(body, str(body.get("model") or "demo")))

    return Handler


def main(argv: list[str] | None = None) -> None:
    about = (__doc__ or "").splitlines()[2]
    parser = argparse.ArgumentParser(prog="python -m mcpaql_conformance.demo_model", description=about)
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--latency-ms", type=float, default=0.0, metavar="N", help="wait N ms before each answer")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535 or not 0 <= args.latency_ms <= 600_000:
        parser.error("--port must be 0-65535 and --latency-ms 0-600000")
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler(args.latency_ms / 1000))
    server.daemon_threads = True
    print(f"http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    stop = threading.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, lambda *_: stop.set())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stop.wait()
    server.shutdown()
    server.server_close()
    sys.exit(0)
