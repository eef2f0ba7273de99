"""No request reaches a tool or operation that any name or declaration calls destructive without
--allow-destructive: not the introspect fallback, not a probe, not a model's call. Names say
destructive in every case style and at any length (tests/acceptance/servers.py KIND trap)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcpaql_conformance.live.safety import UNKNOWN_OPERATION
from tests.acceptance.conftest import run_cli, warm
from tests.acceptance.servers import TRAP_OPERATIONS, TRAP_TOOLS

SERVERS = Path(__file__).with_name("servers.py")
TRAP = (sys.executable, str(SERVERS), "trap")
NAMED_SAFE = {"get_item"}  # the only listed operation whose name says nothing destructive


def calls(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def capture_trap(tmp_path: Path, *extra: str) -> tuple[Any, list[dict[str, Any]]]:
    log = tmp_path / "calls.jsonl"
    bundle = tmp_path / "bundle.json"
    args = ["capture", "--bundle", str(bundle), "--capture-dir", str(tmp_path / "r"), *extra, "--", *warm(*TRAP)]
    result = run_cli(*args, env={"TRAP_LOG": str(log)})
    return result, calls(log)


def test_introspect_falls_back_to_safe_tools_only_and_names_what_it_skipped(tmp_path):
    result, sent = capture_trap(tmp_path)
    assert result.returncode == 0, result.stderr
    assert [c for c in sent if c["tool"] in TRAP_TOOLS] == []
    assert {c["tool"] for c in sent} == {"mcp_aql_read", "mcp_aql_create"}
    # The safe fallback answered the list: the operations were read, and only the safe one probed.
    probed = {c["operation"] for c in sent if c["operation"] not in ("introspect", UNKNOWN_OPERATION)}
    assert probed == NAMED_SAFE
    notes = json.loads((tmp_path / "bundle.json").read_text())["capture_notes"]
    [skipped] = [n for n in notes if n["probe"] == "introspection"]
    assert skipped["reason"].startswith("introspect was not sent to ")
    assert skipped["count"] == len(TRAP_TOOLS) and "mcpAqlDelete" in skipped["reason"]
    assert "pass --allow-destructive" in skipped["reason"]
    for name in set(TRAP_OPERATIONS) - NAMED_SAFE:
        assert any(n["operation"] == name and n["cause"] == "destructive" for n in notes), name


def test_with_allow_destructive_the_same_tools_are_asked(tmp_path):
    result, sent = capture_trap(tmp_path, "--allow-destructive")
    assert result.returncode == 0, result.stderr
    assert {c["tool"] for c in sent} & set(TRAP_TOOLS)  # the guard, not the server, kept them quiet
    assert {c["operation"] for c in sent} >= set(TRAP_OPERATIONS)


def test_a_models_calls_to_tools_and_operations_named_destructive_are_refused(tmp_path):
    calls_made = [{"name": tool, "input": {"operation": "get_item", "params": {}}} for tool in TRAP_TOOLS]
    calls_made += [
        {"name": "mcp_aql_read", "input": {"operation": name, "params": {}}}
        for name in TRAP_OPERATIONS
        if name not in NAMED_SAFE
    ]
    events = [{"type": "llm_response", "tool_calls": [call]} for call in calls_made]
    events.append({"type": "llm_response", "text": "done"})
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps({"name": "Calls that must not go out", "events": events}))
    log = tmp_path / "calls.jsonl"
    bundle = tmp_path / "agent.json"
    args = ["agent", "--bundle", str(bundle), "--transcripts", str(tmp_path / "t"), "--scenario", str(scenario)]
    result = run_cli(*args, "--timeout", "15", "--", *warm(*TRAP), env={"TRAP_LOG": str(log)})
    assert result.returncode == 0, result.stderr
    sent = calls(log)
    assert [c for c in sent if c["tool"] in TRAP_TOOLS] == []
    assert [c for c in sent if c["operation"] in TRAP_OPERATIONS] == []
    recorded = json.loads(bundle.read_text())["agent_tests"][0]["runs"][0]["tool_calls"]
    assert len(recorded) == len(calls_made)
    assert {c["outcome"] for c in recorded} == {"refused"}
    messages = [c["response"]["error"]["message"] for c in recorded]
    assert all("destructive" in message for message in messages), messages
