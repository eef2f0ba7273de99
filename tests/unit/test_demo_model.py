"""The scripted stand-in for a model (``python -m mcpaql_conformance.demo_model``): what it
decides from the task, the tools and the answers so far, and its OpenAI-compatible API on
loopback."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from typing import Any

from mcpaql_conformance.demo_model.server import completion, decide

TOOLS = [{"type": "function", "function": {"name": name}} for name in ("mcp_aql_create", "mcp_aql_read")]
LISTING = json.dumps(
    {
        "success": True,
        "data": {
            "operations": [
                {"name": "introspect", "semantic_category": "READ", "description": "Discover operations."},
                {"name": "create_note", "semantic_category": "CREATE", "description": "Create a note."},
                {"name": "list_notes", "semantic_category": "READ", "description": "List the notes."},
                {"name": "list_tags", "semantic_category": "READ", "description": "List every tag."},
            ]
        },
    }
)
INTROSPECT = {"operation": "introspect", "params": {"query": "operations"}}


def test_it_lists_the_operations_first_and_names_them_when_asked() -> None:
    assert decide("Which operations are there?", TOOLS, []) == ("mcp_aql_read", INTROSPECT)
    answer = decide("Which operations does this server offer?", TOOLS, [(INTROSPECT, LISTING)])
    assert answer == "The server offers: introspect, create_note, list_notes, list_tags"
    assert decide("Anything", [{"type": "function", "function": {"name": "search"}}], []) == (
        "I see no MCP-AQL tool to use."
    )


def test_it_calls_the_read_operation_its_task_describes_and_never_another_kind() -> None:
    assert decide("Tell me every tag.", TOOLS, [(INTROSPECT, LISTING)]) == (
        "mcp_aql_read",
        {"operation": "list_tags", "params": {}},
    )
    # asked to create, it still only reads: it picks the READ operation closest to the words
    called = decide("Create a new note for me.", TOOLS, [(INTROSPECT, LISTING)])
    assert called == ("mcp_aql_read", {"operation": "list_notes", "params": {}})


def test_it_calls_again_once_after_an_error_answer_then_says_what_it_got() -> None:
    call = {"operation": "list_notes", "params": {}}
    error = json.dumps({"success": False, "error": {"code": "VALIDATION_INVALID_PARAMS", "message": "bad"}})
    ok = json.dumps({"success": True, "data": {"items": []}})
    steps = [(INTROSPECT, LISTING), (call, error)]
    assert decide("Use the list_notes operation.", TOOLS, steps) == ("mcp_aql_read", call)
    steps.append((call, error))
    final = decide("Use the list_notes operation.", TOOLS, steps)
    assert isinstance(final, str) and final.startswith("Here is what list_notes answered: ")  # not a third time
    assert decide("Use the list_notes operation.", TOOLS, [(INTROSPECT, LISTING), (call, ok)]) == (
        f"Here is what list_notes answered: {ok}"
    )


def test_asked_for_few_fields_it_reads_the_details_and_asks_for_the_first_field_offered() -> None:
    task = "Use the list_notes operation, but ask for as few fields as possible."
    details_call = {"operation": "introspect", "params": {"query": "operations", "name": "list_notes"}}
    assert decide(task, TOOLS, [(INTROSPECT, LISTING)]) == ("mcp_aql_read", details_call)
    parameters = [{"name": "fields", "presets": {"minimal": ["note_id", "title"]}}]
    details = json.dumps({"success": True, "data": {"operation": {"name": "list_notes", "parameters": parameters}}})
    steps = [(INTROSPECT, LISTING), (details_call, details)]
    assert decide(task, TOOLS, steps) == (
        "mcp_aql_read",
        {"operation": "list_notes", "params": {"fields": ["note_id"]}},
    )
    steps.append(({"operation": "list_notes"}, '{"success": true}'))
    assert str(decide(task, TOOLS, steps)).startswith("I asked list_notes for the field note_id")


def test_a_completion_is_the_openai_shape_with_its_usage_and_a_probe_is_answered_ok() -> None:
    body: dict[str, Any] = {"model": "stand-in", "messages": [{"role": "user", "content": "Hi"}], "tools": TOOLS}
    answer = completion(body, "stand-in")
    (choice,) = answer["choices"]
    (call,) = choice["message"]["tool_calls"]
    assert choice["finish_reason"] == "tool_calls" and json.loads(call["function"]["arguments"]) == INTROSPECT
    assert answer["usage"]["prompt_tokens"] > 0 and answer["usage"]["completion_tokens"] >= 1
    probe = completion({**body, "max_tokens": 1}, "stand-in")
    assert probe["choices"][0]["message"]["content"] == "ok" and probe["choices"][0]["finish_reason"] == "stop"


def test_it_serves_on_loopback_says_where_and_stops_on_sigterm() -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "mcpaql_conformance.demo_model"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        request = urllib.request.Request(
            f"{url}/chat/completions",
            data=json.dumps({"model": "m", "messages": [{"role": "user", "content": "Which operations?"}]}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            said = json.loads(answer.read())
        assert said["choices"][0]["message"]["content"] == "I see no MCP-AQL tool to use."
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=10) == 0
