"""The one guard on every call (live/guard.py), what a run changed (live/changes.py), safety
switches and their safe values (live/safety.py, capture/candidates.py), and the provenance line
each permission level gives the reports."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from mcpaql_conformance.capture.candidates import SAFE, candidates
from mcpaql_conformance.live.changes import answer_identifiers, change_entries
from mcpaql_conformance.live.guard import Guard, Withheld, operations_named
from mcpaql_conformance.live.levels import Need, Permission, permission_of
from mcpaql_conformance.live.redact import Redactor
from mcpaql_conformance.live.safety import SAFE_OFF, SAFE_ON, harmless_value, operation_need, safety_switch
from mcpaql_conformance.verdict.runner import change_lines, provenance_line

TOOLS = ["mcp_aql_read", "mcp_aql_create", "mcp_aql_update", "mcp_aql_delete", "mcp_aql"]
CATEGORIES = {"get_note": "READ", "create_note": "CREATE", "update_note": "UPDATE", "delete_note": "DELETE"}
RO, W, D = Permission.READ_ONLY, Permission.WRITES, Permission.DESTRUCTIVE


def guard(permission: Permission = RO, dry_run: bool = False) -> Guard:
    found = Guard(permission, dry_run=dry_run)
    found.learn_tools(TOOLS)
    for name, category in CATEGORIES.items():
        found.learn(name, operation_need([{"name": name, "semantic_category": category}], []))
    return found


def needed(tool: str, arguments: Any, permission: Permission = RO) -> Need:
    return guard(permission).call_need(tool, arguments)


def test_the_options_give_the_level_and_destructive_implies_writes() -> None:
    assert permission_of(False, False) is RO and permission_of(True, False) is W
    assert permission_of(False, True) is D and permission_of(True, True) is D
    assert [level.flag for level in Permission] == ["", "--allow-writes", "--allow-destructive"]
    assert [level.run for level in Permission] == [
        "a read-only run",
        "a run with --allow-writes",
        "a run with --allow-destructive",
    ]


@pytest.mark.parametrize(
    ("tool", "arguments", "level", "reason"),
    [
        ("mcp_aql_read", {"operation": "get_note"}, RO, ""),
        ("mcp_aql_create", {"operation": "get_note"}, RO, ""),  # a routing probe: the operation decides
        ("mcp_aql_create", {"operation": "create_note"}, W, "create_note: declared CREATE"),
        ("mcp_aql", {"operation": "update_note"}, D, "update_note: declared UPDATE"),
        ("mcp_aql_update", {"operation": "get_note"}, D, "mcp_aql_update is the UPDATE endpoint"),
        ("mcp_aql_delete", {"operation": "introspect"}, D, "mcp_aql_delete is the DELETE endpoint"),
        ("mcp_aql_read", {"operation": "introspect"}, RO, ""),  # the reserved READ, listed or not
        ("shell_exec", {"operation": "get_note"}, D, "shell_exec is not an MCP-AQL tool of this server"),
        ("mcp_aql_read", {"operation": "drop_tables"}, D, "drop_tables is not an operation introspection lists"),
        ("mcp_aql", {}, D, "the call names no operation"),
        ("mcp_aql", {"operations": []}, D, "the empty batch names no operation"),
        ("mcp_aql", {"operations": [{"operation": "get_note"}, {"op": "x"}]}, D, "item 1 of the batch names no"),
        ("mcp_aql", {"operations": [{"operation": "get_note"}, {"operation": "create_note"}]}, W, "create_note"),
        ("mcp_aql", {"operation": "get_note", "operations": [{"operation": "delete_note"}]}, D, "delete_note"),
        ("evil\x1b[31m\ntool", {}, D, "evil tool is not an MCP-AQL tool"),
    ],
)
def test_a_call_needs_its_tool_s_bar_and_every_operation_it_names(
    tool: str, arguments: Any, level: Permission, reason: str
) -> None:
    need = needed(tool, arguments)
    assert need.level is level and need.reason.startswith(reason), need


def test_check_lets_through_what_the_level_allows_and_refuses_the_rest_saying_how() -> None:
    for permission, allowed in ((RO, {"get_note"}), (W, {"get_note", "create_note"}), (D, set(CATEGORIES))):
        found = guard(permission)
        for name in CATEGORIES:
            if name in allowed:
                assert found.check("mcp_aql", {"operation": name}).level <= permission
            else:
                with pytest.raises(Withheld) as refused:
                    found.check("mcp_aql", {"operation": name})
                flag = "--allow-writes" if name == "create_note" else "--allow-destructive"
                assert f"not called in {permission.run} (pass {flag}" in str(refused.value)


def test_a_guard_that_knows_nothing_lets_only_introspect_through_a_known_tool() -> None:
    blank = Guard()
    with pytest.raises(Withheld):
        blank.check("mcp_aql_read", {"operation": "introspect"})  # not even the tool is known yet
    blank.learn_tools(["mcp_aql_read"])
    assert not blank.check("mcp_aql_read", {"operation": "introspect"})
    with pytest.raises(Withheld):
        blank.check("mcp_aql_read", {"operation": "get_note"})


@pytest.mark.parametrize(
    "params",
    [{"force": True}, {"dry_run": False}, {"confirmDeletions": "yes"}, {"dryRun": "false"}, {"overwrite": 1}],
)
def test_a_request_that_sets_a_switch_the_unsafe_way_needs_allow_destructive(params: dict[str, Any]) -> None:
    need = needed("mcp_aql_read", {"operation": "get_note", "params": params})
    assert need.level is D and need.reason.startswith("the request asks ")
    batch = {"operations": [{"operation": "get_note"}, {"operation": "get_note", "params": params}]}
    assert needed("mcp_aql", batch).level is D
    safe = {"force": False, "dry_run": True, "confirm_deletions": "no", "preview": 1, "title": "force"}
    assert not needed("mcp_aql_read", {"operation": "get_note", "params": safe})


def test_a_dry_run_sends_nothing_but_introspect_whatever_the_level() -> None:
    dry = guard(D, dry_run=True)
    assert not dry.check("mcp_aql_read", {"operation": "introspect", "params": {"query": "operations"}})
    batch = {"operations": [{"operation": "introspect"}, {"operation": "introspect"}]}
    assert not dry.check("mcp_aql", batch)
    for arguments in ({"operation": "get_note"}, {"operations": [{"operation": "introspect"}, {"operation": "x"}]}):
        with pytest.raises(Withheld, match="a dry run sends nothing but introspect"):
            dry.check("mcp_aql", arguments)


def test_an_operation_listed_twice_keeps_the_stricter_need() -> None:
    found = guard()
    found.learn("twin", Need(D, "declared DELETE"))
    found.learn("twin", Need(RO))
    assert found.call_need("mcp_aql", {"operation": "twin"}).level is D


def test_the_log_keeps_calls_above_read_only_that_were_not_refused() -> None:
    found = guard(D)
    read = {"operation": "get_note", "params": {"note_id": "n1"}}
    create = {"operation": "create_note", "params": {"title": "t"}}
    found.answered("mcp_aql", read, found.check("mcp_aql", read), {"success": True, "data": {}})
    found.answered("mcp_aql", create, found.check("mcp_aql", create), {"success": False, "error": {"code": "X"}})
    assert found.changes == []  # a read changes nothing; a refusal changed nothing
    found.answered("mcp_aql", create, Need(W, "declared CREATE"), {"success": True, "data": {"note_id": "n2"}})
    found.answered("mcp_aql", create, Need(W, "declared CREATE"), {"_timeout": "no answer in 20 s"})
    assert [change.response for change in found.changes][1] == {"_timeout": "no answer in 20 s"}  # may have run
    entries = change_entries(found.changes, Redactor(), "capture", {0: "deleted by delete_note"})
    assert entries[0]["identifiers"] == {"note_id": "n2"} and entries[0]["needed"] == "writes"
    assert entries[0]["cleanup"] == "deleted by delete_note" and "cleanup" not in entries[1]
    assert entries[0]["request"] == {"title": "t"} and entries[0]["answer"] == "succeeded"


def test_a_connection_refuses_before_anything_is_sent() -> None:
    from mcpaql_conformance.live.connection import Connection

    class Session:
        def __init__(self) -> None:
            self.sent: list[Any] = []

        async def call_tool(self, tool: str, arguments: Any) -> Any:
            self.sent.append(tool)
            raise AssertionError("never reached")

    session = Session()
    connection = Connection(session, 5, {}, guard=guard())

    async def call() -> Any:
        return await connection.call("mcp_aql_create", {"operation": "create_note", "params": {}})

    with pytest.raises(Withheld):
        anyio.run(call)
    assert session.sent == []


def test_sensitive_values_are_masked_in_the_changes() -> None:
    found = guard(W)
    redactor = Redactor()
    redactor.sensitive.add(("create_note", "passphrase"))
    redactor.add_secret("hunter22")
    arguments = {"operation": "create_note", "params": {"title": "t", "passphrase": "hunter22"}}
    found.answered("mcp_aql", arguments, Need(W, "declared CREATE"), {"success": True, "data": {"echo": "hunter22"}})
    entries = change_entries(found.changes, redactor, "agent")
    assert "hunter22" not in str(entries) and entries[0]["source"] == "agent"


@pytest.mark.parametrize(
    ("response", "found"),
    [
        ({"success": True, "data": {"note_id": "n1", "title": "t"}}, {"note_id": "n1"}),
        ({"success": True, "data": {"note": {"id": 7, "size": 3}}}, {"id": 7}),
        (
            {"success": True, "data": {"repo": {"full_name": "o/r"}, "path": "x.txt"}},
            {"path": "x.txt", "full_name": "o/r"},
        ),
        ({"success": False, "error": {"code": "X", "message": "m"}}, {}),
        ({"success": True, "data": "created n1"}, {}),
        ({"success": True, "data": {"valid": True, "paid": "yes"}}, {}),
    ],
)
def test_identifiers_are_read_from_a_successful_answer(response: Any, found: Any) -> None:
    assert answer_identifiers(response) == found


def test_identifiers_are_looked_for_in_bounded_time() -> None:
    wide: dict[str, Any] = {f"k{i}": {"x": i} for i in range(100_000)}
    assert answer_identifiers({"success": True, "data": wide}) == {}
    assert operations_named({"operations": [{"operation": "a"}] * 3}) == ["a", "a", "a"]


@pytest.mark.parametrize(
    ("parameter", "switch"),
    [
        ({"name": "dry_run", "type": "boolean"}, SAFE_ON),
        ({"name": "dryRun"}, SAFE_ON),
        ({"name": "preview"}, SAFE_ON),
        ({"name": "simulate"}, SAFE_ON),
        ({"name": "check_mode", "type": "boolean", "description": "Only a dry run: nothing is written"}, SAFE_ON),
        ({"name": "force", "type": "boolean"}, SAFE_OFF),
        ({"name": "confirm_deletions"}, SAFE_OFF),
        ({"name": "overwrite"}, SAFE_OFF),
        ({"name": "recursive"}, SAFE_OFF),
        ({"name": "cascade"}, SAFE_OFF),
        ({"name": "deleteSource"}, SAFE_OFF),
        ({"name": "purge_cache"}, SAFE_OFF),
        ({"name": "hard"}, SAFE_OFF),
        ({"name": "title"}, None),
        ({"name": "include_deleted"}, None),
        ({"name": "limit"}, None),
        ("not a parameter", None),
    ],
)
def test_safety_switches_are_read_from_names_and_descriptions(parameter: Any, switch: str | None) -> None:
    assert safety_switch(parameter) == switch


@pytest.mark.parametrize(
    ("parameter", "value"),
    [
        # in the parameter's own type, whatever its default or enum
        ({"name": "publish", "type": ["boolean", "null"], "default": True}, False),
        ({"name": "preview", "type": "string", "default": "false"}, "true"),
        ({"name": "force", "type": "integer", "default": 1}, 0),
        ({"name": "dry_run", "type": "string"}, "true"),
        ({"name": "cascade", "type": "boolean | null"}, False),
        ({"name": "recursive", "type": "string", "default": "true"}, "false"),
        ({"name": "dir", "type": "string", "enum": ["push", "pull"]}, "pull"),
        ({"name": "target", "type": "string", "enum": ["apply", "plan"]}, "plan"),  # apply asks for something done
        ({"name": "dry_run", "type": "boolean", "default": False}, True),
        ({"name": "force", "type": "boolean", "default": True}, False),
        ({"name": "confirm_deletions", "type": "boolean"}, False),
        ({"name": "recursive"}, False),
        ({"name": "direction", "type": "string", "enum": ["push", "pull"]}, "pull"),
        ({"name": "mode", "type": "string", "description": "Either 'apply' or 'check'"}, "check"),
        ({"name": "sync_mode", "type": "string", "enum": ["PUSH", "Preview"]}, "Preview"),
        ({"name": "force", "type": "string", "enum": ["yes", "no"]}, "no"),
        ({"name": "dry_run", "type": "string", "enum": ["true", "false"]}, "true"),
    ],
)
def test_a_switch_or_mode_is_sent_with_its_safe_value_alone(parameter: Any, value: Any) -> None:
    found = candidates("sync", parameter)
    assert [(c.value, c.source) for c in found] == [(value, SAFE)]  # no other value to retry with


def test_a_mode_without_a_harmless_value_and_other_parameters_keep_their_candidates() -> None:
    assert [c.value for c in candidates("sync", {"name": "direction", "enum": ["up", "down"]})] == ["up", "down"]
    assert harmless_value(["push", "pull"], mode=False) == "pull"  # push asks for something done
    assert harmless_value(["pull", "json"], mode=False) is None
    assert harmless_value(["pull", "json"], mode=True) == "pull"
    assert harmless_value(["a"], mode=True) is None and harmless_value([None, 3], mode=True) is None
    assert [c.value for c in candidates("list", {"name": "order", "enum": ["asc", "desc"]})] == ["asc", "desc"]


@pytest.mark.parametrize(
    ("provenance", "changes", "line"),
    [
        ({"permission": "read-only", "withheld_operations": 3}, None,
         "; read-only run: 3 operation(s) not called (see Not probed during capture)"),
        ({"permission": "read-only", "withheld_operations": 0}, None, "; read-only run: every operation called"),
        ({"permission": "writes", "withheld_operations": 2}, [{"operation": "c"}],
         "; run with --allow-writes: 2 operation(s) not called (see Not probed during capture); 1 call(s) may have"
         " created or changed data (see Changed during the run)"),
        ({"permission": "destructive", "withheld_operations": 0}, [],
         "; run with --allow-destructive: every operation called; 0 call(s) may have created or changed data"),
        ({"allow_destructive": True}, None, "; destructive operations called"),  # an older bundle
        ({"allow_destructive": False, "destructive_withheld": 2}, None, "; destructive operations withheld (2)"),
    ],
)  # fmt: skip
def test_the_provenance_line_says_the_run_s_level(provenance: dict[str, Any], changes: Any, line: str) -> None:
    shown = provenance_line({"captured": True, "transport": "stdio", **provenance}, [], changes)
    assert shown == f"captured over stdio{line}"


def test_change_lines_name_the_record_and_how_it_was_answered() -> None:
    change = {"operation": "create_note", "at": "T", "needed": "writes", "source": "capture", "answer": "succeeded"}
    lines = change_lines([{**change, "identifiers": {"note_id": "n1"}}, {**change, "identifiers": {}}] * 150)
    assert lines[0] == "create_note at T: note_id=n1 (capture, needed --allow-writes; answered: succeeded)"
    assert lines[1].startswith("create_note at T: no identifier")
    assert len(lines) == 201 and lines[-1] == "... and 100 more (the bundle's changes list them all)"


@pytest.mark.parametrize(
    ("plan", "where"),
    [
        ({"values": {"sync.force": True}}, "$.values: force: true"),
        ({"values": {"dry_run": False}}, "$.values: dry_run: false"),
        ({"examples": [{"operation": "sync", "params": {"confirm_deletions": "yes"}}]}, "$.examples[0].params"),
        (
            {"create_read": [{"name": "c", "create": {"operation": "a", "params": {"overwrite": 1}}, "read": {}}]},
            "$.create_read[0].create.params: overwrite: 1",
        ),
    ],
)
def test_a_plan_that_asks_for_harm_needs_allow_destructive(tmp_path: Any, plan: dict[str, Any], where: str) -> None:
    import json

    from mcpaql_conformance.errors import ConfigError
    from mcpaql_conformance.live.plan import Plan, check_plan_switches

    loaded = Plan(values=plan.get("values", {}), examples=plan.get("examples", []), source="plan.json")
    loaded.create_read = plan.get("create_read", [])
    for permission in (RO, W):
        with pytest.raises(ConfigError) as refused:
            check_plan_switches(loaded, permission)
        assert str(refused.value).startswith(f"plan.json: {where}") and "pass --allow-destructive" in str(refused.value)
    check_plan_switches(loaded, D)  # asked for, on a disposable instance
    safe = Plan(values={"force": False, "dry_run": True}, source=json.dumps("x"))
    check_plan_switches(safe, RO)
