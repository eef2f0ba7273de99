"""The demo adapter's MCP-AQL engine, without MCP in between."""

from __future__ import annotations

import pytest

from mcpaql_conformance.demo_adapter.adapter import FAULTS, NotesAdapter


def call(adapter: NotesAdapter, tool: str, operation: str, **params: object) -> dict:
    return adapter.handle(tool, {"operation": operation, "params": params})


def test_missing_and_unknown_parameters_are_structured_errors_naming_them():
    adapter = NotesAdapter()
    missing = call(adapter, "mcp_aql_create", "create_note")
    assert missing["error"]["code"] == "VALIDATION_MISSING_PARAM" and "'title'" in missing["error"]["message"]
    unknown = call(adapter, "mcp_aql_create", "create_note", title="t", colour="red")
    assert unknown["error"]["code"] == "VALIDATION_UNKNOWN_PARAM"
    assert unknown["error"]["details"]["unknown_params"] == ["colour"]


def test_operations_on_the_wrong_endpoint_are_refused():
    refused = call(NotesAdapter(), "mcp_aql_read", "create_note", title="t")
    assert refused["error"]["code"] == "VALIDATION_WRONG_ENDPOINT"
    assert call(NotesAdapter(fault="wrong-endpoint"), "mcp_aql_read", "create_note", title="t")["success"] is True


def test_create_read_update_round_trip_and_read_only_fields():
    adapter = NotesAdapter()
    created = call(adapter, "mcp_aql_create", "create_note", title="t", tags=["a"])["data"]
    read = call(adapter, "mcp_aql_read", "get_note", note_id=created["note_id"])["data"]
    assert read["tags"] == ["a"] and read["title"] == "t"
    updated = call(adapter, "mcp_aql_update", "update_note", note_id=created["note_id"], input={"title": "u"})["data"]
    assert updated["tags"] == ["a"] and updated["title"] == "u"
    refused = call(adapter, "mcp_aql_update", "update_note", note_id=created["note_id"], input={"created_at": "x"})
    assert refused["error"]["code"] == "VALIDATION_READ_ONLY_FIELD"


def test_batch_answers_each_operation_with_a_matching_summary():
    answer = NotesAdapter().handle(
        "mcp_aql", {"operations": [{"operation": "list_notes"}, {"operation": "get_note", "params": {"note_id": "n"}}]}
    )
    assert [r["index"] for r in answer["results"]] == [0, 1]
    assert answer["summary"] == {"total": 2, "succeeded": 1, "failed": 1}


def test_faults_change_exactly_what_they_say():
    leaky = call(NotesAdapter(fault="leaky-errors"), "mcp_aql_create", "create_note")
    assert "notes.ts:42:7" in leaky["error"]["message"]
    assert call(NotesAdapter(fault="silent-unknown"), "mcp_aql_create", "create_note", title="t", colour="r")["success"]
    lossy = call(NotesAdapter(fault="lossy-round-trip"), "mcp_aql_create", "create_note", title="t", tags=["a"])
    assert lossy["data"]["tags"] == []
    accepted = call(NotesAdapter(fault="undocumented-param"), "mcp_aql_create", "create_note", title="t", priority=1)
    assert accepted["success"] is True


def test_unknown_faults_are_refused():
    with pytest.raises(ValueError, match="unknown fault 'nope'"):
        NotesAdapter(fault="nope")
    assert len(FAULTS) >= 4


def test_single_mode_introspection_routes_everything_through_mcp_aql():
    adapter = NotesAdapter(mode="single")
    detail = call(adapter, "mcp_aql", "introspect", query="operations", name="get_note")["data"]["operation"]
    assert detail["mcpTool"] == "mcp_aql" and detail["endpoint"] == "read"


def test_fields_take_the_standard_presets_and_refuse_names_a_note_lacks():
    adapter = NotesAdapter()
    created = call(adapter, "mcp_aql_create", "create_note", title="Plan", body="b", tags=["x"])["data"]
    minimal = call(adapter, "mcp_aql_read", "get_note", note_id=created["note_id"], fields="minimal")
    assert minimal == {"success": True, "data": {"note_id": created["note_id"], "title": "Plan"}}
    listed = call(adapter, "mcp_aql_read", "list_notes", fields="standard")["data"]["items"]
    assert all(set(item) == {"note_id", "title", "tags", "updated_at"} for item in listed)
    refused = call(adapter, "mcp_aql_read", "list_notes", fields=["title", "colour"])
    assert refused["success"] is False and refused["error"]["code"] == "VALIDATION_INVALID_TYPE"
    assert "unknown note field(s): colour" in refused["error"]["message"]
