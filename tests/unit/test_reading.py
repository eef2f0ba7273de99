"""Lenient reading of introspection: best readings, the readings taken, and safety that never loosens."""

from __future__ import annotations

from typing import Any

import pytest

from mcpaql_conformance.evidence.reading import (
    Readings,
    category_of,
    declared_categories,
    declares_destructive,
    detail_of,
    name_of,
    operations_of,
    parameters_of,
    read_detail,
    read_entry,
    read_tool,
    types_of,
)


@pytest.mark.parametrize(
    ("entry", "name", "key"),
    [
        ({"name": "get_note"}, "get_note", None),
        ({"element_name": "addEntry"}, "addEntry", "element_name"),
        ({"operation": "list_notes"}, "list_notes", "operation"),
        ({"id": "x"}, "x", "id"),
        ({"name": "", "element_name": "y"}, "y", "element_name"),
        ({"description": "nameless"}, None, None),
        ("not an object", None, None),
    ],
)
def test_names_are_read_from_the_first_key_that_carries_one(entry: Any, name: str | None, key: str | None) -> None:
    assert name_of(entry) == (name, key)


@pytest.mark.parametrize(
    ("entry", "category", "reading"),
    [
        ({"semantic_category": "READ", "endpoint": "read"}, "READ", None),
        (
            {"endpoint": "CREATE"},
            "CREATE",
            "read the CRUDE word in `endpoint` as the semantic category (no `semantic_category`)",
        ),
        (
            {"semantic_category": "delete "},
            "DELETE",
            "read a `semantic_category` in another case or spacing as the semantic category",
        ),
        ({"category": "Update"}, "UPDATE", "read `category` as the semantic category"),
        ({"endpoint": "notes"}, None, None),
    ],
)
def test_categories_are_read_from_any_field_that_names_one(entry: Any, category: str | None, reading: Any) -> None:
    assert category_of(entry) == (category, reading)


def test_every_declared_category_counts_for_safety() -> None:
    list_entry = {"name": "x", "semantic_category": "READ", "endpoint": "read"}
    detail = {"name": "x", "semantic_category": "READ", "endpoint": "delete", "mcpTool": "mcp_aql_execute"}
    assert declared_categories(list_entry, detail) == {"READ", "DELETE", "EXECUTE"}
    assert declared_categories({"semantic_category": " delete"}) == {"DELETE"}


@pytest.mark.parametrize(
    ("entry", "destructive"),
    [
        ({"permissions": {"readOnly": True, "destructive": False}}, False),
        ({"permissions": {"destructive": True}}, True),
        ({"permissions": {"destructive": "false"}}, True),  # not a plain false: fail safe
        ({"destructiveHint": True}, True),
        ({"danger_level": "dangerous"}, True),
        ({"danger_level": "safe"}, False),
        ({}, False),
    ],
)
def test_destructive_is_any_declaration_that_is_not_plainly_false(entry: Any, destructive: bool) -> None:
    assert declares_destructive(entry) is destructive


def test_an_operations_list_is_read_from_where_servers_put_it() -> None:
    entries, readings = operations_of({"success": True, "data": [{"name": "a"}]})
    assert entries == [{"name": "a"}]
    assert readings.lines("list") == ["read a bare array as the operations list"]
    grouped = {"success": True, "data": {"operations": [{"endpoint": "READ", "operations": [{"name": "g"}]}]}}
    entries, readings = operations_of(grouped)
    assert entries == [{"endpoint": "READ", "name": "g"}]
    assert "read operations grouped by endpoint as one list" in readings.taken
    assert operations_of({"success": True, "data": {"nothing": 1}})[0] is None
    assert operations_of(None)[0] is None


def test_a_types_list_may_sit_beside_the_operations_in_one_answer() -> None:
    entries, readings = types_of({"success": True, "data": {"operations": [], "types": [{"name": "T"}]}})
    assert entries == [{"name": "T"}] and not readings


def test_list_entries_are_reshaped_and_the_readings_named() -> None:
    readings = Readings()
    entry = read_entry({"element_name": "addEntry", "endpoint": "CREATE", "description": "d"}, readings)
    assert entry == {"element_name": "addEntry", "endpoint": "create", "description": "d", "name": "addEntry",
                     "semantic_category": "CREATE"}  # fmt: skip
    assert sorted(readings.taken) == [
        "read `element_name` as the operation name",
        "read the CRUDE word in `endpoint` as the semantic category (no `semantic_category`)",
    ]


def test_a_conformant_entry_is_returned_as_it_is() -> None:
    raw = {"name": "get", "semantic_category": "READ", "endpoint": "read", "description": ""}
    readings = Readings()
    assert read_entry(raw, readings) is raw and not readings


@pytest.mark.parametrize(
    ("detail", "names", "reading"),
    [
        ({"parameters": [{"name": "id", "type": "string", "required": True}]}, ["id"], None),
        ({"params": [{"name": "id"}]}, ["id"], "read `params` as the parameter list"),
        ({"params": {"id": {"type": "string"}}}, ["id"], "read the `params` map keyed by name as the parameter list"),
        (
            {"inputSchema": {"properties": {"id": {"type": "string"}}, "required": ["id"]}},
            ["id"],
            "read `inputSchema` (a JSON Schema) as the parameter list",
        ),
    ],
)
def test_parameters_are_read_from_lists_maps_and_schemas(detail: Any, names: list[str], reading: Any) -> None:
    parameters, how = parameters_of(detail)
    assert parameters is not None and [p["name"] for p in parameters] == names
    assert how == reading


def test_a_detail_that_says_nothing_of_parameters_has_unknown_parameters() -> None:
    assert parameters_of({"name": "x"}) == (None, None)


def test_parameter_entries_are_read_leniently() -> None:
    readings = Readings()
    raw = {
        "element_name": "get_note",
        "endpoint": "READ",
        "parameters": [{"param_name": "note_id", "type": "string", "required": "yes"}],
    }
    detail = read_detail(raw, readings)
    assert detail["parameters"] == [{"param_name": "note_id", "type": "string", "required": True, "name": "note_id"}]
    assert "read `param_name` as the parameter name" in readings.taken
    assert 'read `required: "yes"` as required: true' in readings.taken


def test_detail_answers_are_found_or_their_problem_named() -> None:
    detail = {"name": "get", "parameters": []}
    assert detail_of({"success": True, "data": {"operation": detail}}, "get").detail is detail
    assert detail_of({"success": True, "data": {"operation": None}}, "get").problem == (
        "answered `operation: null` for a listed operation"
    )
    listed = {"success": True, "data": {"operations": [{"name": "get", "endpoint": "READ"}]}}
    assert detail_of(listed, "get").problem == "answered the operations list instead of the detail (ignored `name`)"
    other = {"success": True, "data": {"operation": {"name": "list", "parameters": []}}}
    assert detail_of(other, "get").problem == "answered the detail of 'list' instead"
    refused = {"success": False, "error": {"code": "NOT_FOUND", "message": "no"}}
    assert detail_of(refused, "get").problem == "refused: NOT_FOUND: no"
    bare = detail_of({"success": True, "data": detail}, "get")
    assert bare.detail is detail and "read the answer's data itself as the operation detail" in bare.readings.taken


@pytest.mark.parametrize(
    ("name", "schema", "family", "standard", "deviates"),
    [
        ("mcp_aql_read", None, "read", "mcp_aql_read", False),
        ("mcp_aql", None, "", "mcp_aql", False),
        ("github_mcp_aql_delete", None, "delete", "github_mcp_aql_delete", False),
        ("mcpaql_read", None, "read", "mcp_aql_read", True),
        ("mcp-aql-update", None, "update", "mcp_aql_update", True),
        ("MCP_AQL_EXECUTE", None, "execute", "mcp_aql_execute", True),
        ("notes_api", {"properties": {"operation": {"type": "string"}}}, "", "mcp_aql", True),
        ("hello", {"properties": {"name": {}}}, None, None, None),
    ],
)
def test_tools_are_read_for_their_family_and_the_name_the_spec_gives_them(
    name: str, schema: Any, family: str | None, standard: str | None, deviates: bool | None
) -> None:
    reading = read_tool(name, schema)
    if family is None:
        assert reading is None
        return
    assert reading is not None
    assert (reading.family, reading.standard, reading.deviation is not None) == (family, standard, deviates)


def test_overlong_or_odd_tool_names_are_not_mistaken_for_mcp_aql_tools() -> None:
    assert read_tool("mcp_aql_" + "_" * 200_000 + "x") is None  # longer than MCP allows, and no family
    assert read_tool("a_" * 100_000) is None
