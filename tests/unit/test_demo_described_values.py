"""The described-values dialect of the demo adapter, without MCP in between: valid values are
stated only in prose (no `enum`), and a refused value is quoted in the refusal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcpaql_conformance.demo_adapter.adapter import NotesAdapter
from mcpaql_conformance.demo_adapter.dialects import DIALECTS, dialect, speak

SPEECH = dialect("described-values")
# operation -> parameter -> the description stating its values
DESCRIPTIONS = {
    "introspect": {"query": "Query type: 'operations' or 'types'", "name": "Operation or type name, e.g. get_note"},
    "export_notes": {"format": "Export format, one of: text, markdown"},
    "reindex_notes": {"scope": 'What to reindex: "titles" (titles only) or "all" (titles and bodies)'},
    "get_note": {"note_id": "Note id (e.g. note_1)"},
    "duplicate_note": {"note_id": "Id of the note to copy, e.g. note_1"},
    "update_note": {"note_id": "Identifier of the note, as returned by create_note or list_notes"},
    "tag_note": {"note_id": "Identifier of the note, as returned by create_note or list_notes"},
    "delete_note": {"note_id": "ID of the note to delete (see list_notes)"},
}
ENDPOINT = {
    "introspect": "mcp_aql_read",
    "get_note": "mcp_aql_read",
    "list_notes": "mcp_aql_read",
    "create_note": "mcp_aql_create",
    "duplicate_note": "mcp_aql_create",
    "update_note": "mcp_aql_update",
    "tag_note": "mcp_aql_update",
    "delete_note": "mcp_aql_delete",
    "delete_tag": "mcp_aql_delete",
    "export_notes": "mcp_aql_execute",
    "reindex_notes": "mcp_aql_execute",
}


def call(adapter: NotesAdapter, operation: str, tool: str | None = None, **params: Any) -> dict[str, Any]:
    return speak(SPEECH, adapter.handle, tool or ENDPOINT[operation], {"operation": operation, "params": params})


def detail(adapter: NotesAdapter, name: str) -> dict[str, Any]:
    return call(adapter, "introspect", query="operations", name=name)["data"]["operation"]  # type: ignore[no-any-return]


def test_it_is_registered_naming_the_test_that_owns_its_deviation():
    assert "discriminated-union" in DIALECTS["described-values"]
    assert SPEECH.name == "described-values"


@pytest.mark.parametrize("operation", list(ENDPOINT))
def test_no_parameter_carries_an_enum_and_the_values_are_in_the_descriptions(operation: str):
    described = detail(NotesAdapter(), operation)
    conformant = NotesAdapter().handle("mcp_aql_read", {"operation": "introspect", "params": {"query": "operations"}})
    assert any(op["name"] == operation for op in conformant["data"]["operations"])
    original = NotesAdapter().handle(
        "mcp_aql_read", {"operation": "introspect", "params": {"query": "operations", "name": operation}}
    )["data"]["operation"]
    assert all("enum" not in parameter for parameter in described["parameters"])
    descriptions = {parameter["name"]: parameter["description"] for parameter in described["parameters"]}
    for name, description in DESCRIPTIONS.get(operation, {}).items():
        assert descriptions[name] == description
    # the rest of the detail is the conformant one: names, categories, types, required flags, defaults
    for parameter in original["parameters"]:
        parameter.pop("enum", None)
        parameter["description"] = descriptions[parameter["name"]]
    assert {key: value for key, value in described.items() if key != "examples"} == original


def test_the_operations_list_and_the_types_are_the_conformant_ones():
    for params in ({"query": "operations"}, {"query": "types"}, {"query": "types", "name": "JobStatus"}):
        conformant = NotesAdapter().handle("mcp_aql_read", {"operation": "introspect", "params": params})
        assert call(NotesAdapter(), "introspect", **params) == conformant


def test_examples_carry_valid_values():
    assert detail(NotesAdapter(), "introspect")["examples"] == [
        '{"operation": "introspect", "params": {"query": "types"}}'
    ]
    assert detail(NotesAdapter(), "export_notes")["examples"] == [
        {
            "description": "Export every note as Markdown",
            "request": {"operation": "export_notes", "params": {"format": "markdown"}},
        }
    ]


@pytest.mark.parametrize(
    ("operation", "params", "error"),
    [
        ("introspect", {"query": "probe"}, "Unknown query type: probe"),
        ("introspect", {"query": "probe", "name": "get_note"}, "Unknown query type: probe"),
        ("introspect", {"query": 1}, "Unknown query type: 1"),
        (
            "export_notes",
            {"format": "probe"},
            {"code": "VALIDATION_INVALID_VALUE", "message": "Invalid format 'probe': expected one of text, markdown"},
        ),
        (
            "reindex_notes",
            {"scope": "probe"},
            {"code": "VALIDATION_INVALID_VALUE", "message": "scope must be 'titles' or 'all', got 'probe'"},
        ),
        ("get_note", {"note_id": "probe"}, {"code": "NOT_FOUND_RESOURCE", "message": "No note with note_id 'probe'."}),
        (
            "duplicate_note",
            {"note_id": "probe"},
            {"code": "NOT_FOUND_RESOURCE", "message": "No note with note_id 'probe'."},
        ),
        (
            "update_note",
            {"note_id": "probe", "input": {"title": "t"}},
            {"code": "NOT_FOUND_RESOURCE", "message": "No note with note_id 'probe'."},
        ),
        (
            "tag_note",
            {"note_id": "probe", "input": {"tags": ["a"]}},
            {"code": "NOT_FOUND_RESOURCE", "message": "No note with note_id 'probe'."},
        ),
        (
            "delete_note",
            {"note_id": "probe"},
            {"code": "NOT_FOUND_RESOURCE", "message": "No note with note_id 'probe'."},
        ),
    ],
)
def test_a_value_outside_the_described_ones_is_refused_quoting_it(operation: str, params: dict[str, Any], error: Any):
    assert call(NotesAdapter(), operation, **params) == {"success": False, "error": error}


def test_introspect_refuses_an_unknown_query_before_looking_at_other_parameters():
    for tool in ("mcp_aql_read", "mcp_aql"):
        refused = call(NotesAdapter(), "introspect", tool, query="probe", colour="red")
        assert refused == {"success": False, "error": "Unknown query type: probe"}
        assert json.loads(SPEECH.wire(refused).text) == refused


def test_other_operations_keep_the_order_of_their_refusals():
    unknown = call(NotesAdapter(), "export_notes", format="probe", colour="red")["error"]
    assert unknown["code"] == "VALIDATION_UNKNOWN_PARAM" and unknown["details"]["unknown_params"] == ["colour"]
    missing = call(NotesAdapter(), "reindex_notes")["error"]
    assert missing["code"] == "VALIDATION_MISSING_PARAM" and missing["details"]["param_name"] == "scope"
    typed = call(NotesAdapter(), "export_notes", format=1)["error"]
    assert typed == {
        "code": "VALIDATION_INVALID_TYPE",
        "message": "Parameter 'format' must be of type string.",
        "details": {"param_name": "format"},
    }
    extra = call(NotesAdapter(), "introspect", query="operations", colour="red")["error"]
    assert extra["code"] == "VALIDATION_UNKNOWN_PARAM" and extra["details"]["unknown_params"] == ["colour"]
    assert call(NotesAdapter(), "introspect")["error"]["code"] == "VALIDATION_MISSING_PARAM"


@pytest.mark.parametrize(
    ("operation", "params"),
    [
        ("introspect", {"query": "operations"}),
        ("introspect", {"query": "types"}),
        ("export_notes", {"format": "text"}),
        ("export_notes", {"format": "markdown"}),
        ("reindex_notes", {"scope": "titles"}),
        ("reindex_notes", {"scope": "all"}),
    ],
)
def test_each_described_value_is_accepted_as_the_conformant_demo_accepts_it(operation: str, params: dict[str, Any]):
    adapter, conformant = NotesAdapter(), NotesAdapter()
    call(adapter, "create_note", title="t")
    conformant.handle("mcp_aql_create", {"operation": "create_note", "params": {"title": "t"}})
    answer = call(adapter, operation, **params)
    assert answer["success"] is True
    assert answer == conformant.handle(ENDPOINT[operation], {"operation": operation, "params": params})


def test_ids_from_create_and_list_answers_are_accepted():
    adapter, conformant = NotesAdapter(), NotesAdapter()

    def both(operation: str, **params: Any) -> dict[str, Any]:
        answer = call(adapter, operation, **params)
        assert answer == conformant.handle(ENDPOINT[operation], {"operation": operation, "params": params})
        assert answer["success"] is True, answer
        return answer

    created = both("create_note", title="t", tags=["a"])["data"]["note_id"]
    listed = both("list_notes")["data"]["items"][0]["note_id"]
    assert listed == created
    assert both("get_note", note_id=listed)["data"]["title"] == "t"
    both("update_note", note_id=created, input={"title": "u"})
    both("tag_note", note_id=listed, input={"tags": ["b"]})
    copy = both("duplicate_note", note_id=created)["data"]["note_id"]
    assert both("delete_note", note_id=copy)["data"] == {"deleted": copy}
    both("export_notes", format="markdown")


def test_a_batch_speaks_the_dialect_in_each_of_its_results():
    adapter = NotesAdapter()
    arguments = {
        "operations": [
            {"operation": "introspect", "params": {"query": "probe"}},
            {"operation": "export_notes", "params": {"format": "probe"}},
            {"operation": "introspect", "params": {"query": "operations", "name": "reindex_notes"}},
        ]
    }
    answer = speak(SPEECH, adapter.handle, "mcp_aql", arguments)
    results = [entry["result"] for entry in answer["results"]]
    assert results[0] == {"success": False, "error": "Unknown query type: probe"}
    assert results[1]["error"]["message"] == "Invalid format 'probe': expected one of text, markdown"
    assert "enum" not in results[2]["data"]["operation"]["parameters"][0]
    assert answer["summary"] == {"total": 3, "succeeded": 1, "failed": 2}


def test_the_conformant_dialect_speaks_as_the_adapter_answers():
    adapter = NotesAdapter()
    arguments = {"operation": "export_notes", "params": {"format": "probe"}}
    assert speak(dialect(None), adapter.handle, "mcp_aql_execute", arguments) == adapter.handle(
        "mcp_aql_execute", arguments
    )
