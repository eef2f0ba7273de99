"""What the server's MCP tools say of themselves (verdict/checks/tools.py): each finding names
the tool and cites its mcp-integration rule; a capture that did not record annotations is not
judged on them."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from bundle_builders import conformant_bundle, run

from mcpaql_conformance.verdict.checks.introspection import operation_details
from mcpaql_conformance.verdict.checks.tools import schema_problems
from mcpaql_conformance.verdict.model import Result

BASE = {
    "type": "object",
    "properties": {"operation": {"type": "string"}, "params": {"type": "object", "additionalProperties": True}},
    "required": ["operation"],
}
HINTS = {"read": (True, False), "create": (False, False), "update": (False, True), "delete": (False, True)}


def tool(family: str, **changes: Any) -> dict[str, Any]:
    read_only, destructive = HINTS.get(family, (False, True))
    entry = {
        "name": f"mcp_aql_{family}",
        "description": f"{family.upper()} operations. Use introspect on mcp_aql_read to discover them.",
        "inputSchema": copy.deepcopy(BASE),
        "annotations": {"readOnlyHint": read_only, "destructiveHint": destructive},
    }
    return {**entry, **changes}


@pytest.fixture
def bundle() -> dict[str, Any]:
    data = conformant_bundle()
    families = sorted({d["endpoint"] for d in data["introspection"]["operation_details"]})
    data["mcp_tools"] = [tool(family, description=described(data, family)) for family in families]
    return data


def described(data: dict[str, Any], family: str) -> str:
    """A description with the parts of its template (mcp-integration §2.1.1): purpose, operations, a call."""
    served = [d["name"] for d in data["introspection"]["operation_details"] if d["endpoint"] == family]
    first = next((name for name in served if name != "introspect"), served[0])
    return (
        f"{family.upper()} operations on the notes.\n\nSupported operations: {', '.join(served)}\n\n"
        f'Quick start example:\n{{ operation: "{first}", params: {{}} }}\n\nDiscover parameters with '
        "introspect on mcp_aql_read."
    )


def findings(data: dict[str, Any]) -> tuple[Result, list[tuple[str, str]]]:
    outcome = run(operation_details, data)
    return outcome.result, [(str(f), getattr(f, "rule", "")) for f in outcome.findings]


def test_tools_as_the_spec_registers_them_pass(bundle: dict[str, Any]) -> None:
    assert findings(bundle) == (Result.PASS, [])


def test_introspect_named_in_any_case_counts(bundle: dict[str, Any]) -> None:
    entry = bundle["mcp_tools"][0]
    entry["description"] = entry["description"].replace("introspect", "Introspect")
    assert findings(bundle) == (Result.PASS, [])


def test_a_description_without_introspect_warns(bundle: dict[str, Any]) -> None:
    entry = bundle["mcp_tools"][0]
    entry["description"] = entry["description"].replace("Discover parameters with introspect on mcp_aql_read.", "")
    result, found = findings(bundle)
    name = bundle["mcp_tools"][0]["name"]
    assert result is Result.WARN
    assert found == [
        (f"tool {name}: its description does not mention introspect", "mcp:2.1:introspect-in-descriptions")
    ]


def test_missing_or_understated_annotations_warn_and_unrecorded_ones_are_not_judged(bundle: dict[str, Any]) -> None:
    delete = next(t for t in bundle["mcp_tools"] if t["name"] == "mcp_aql_delete")
    read = next(t for t in bundle["mcp_tools"] if t["name"] == "mcp_aql_read")
    delete["annotations"] = {"readOnlyHint": False, "destructiveHint": False}
    read["annotations"] = None
    result, found = findings(bundle)
    assert result is Result.WARN
    assert found == [
        ("tool mcp_aql_delete: destructiveHint is false, but it serves DELETE operations",
         "mcp:2.3:conservative-annotations"),
        ("tool mcp_aql_read: carries no readOnlyHint or destructiveHint annotation", "mcp:2.3:tool-annotations"),
    ]  # fmt: skip
    del delete["annotations"], read["annotations"]  # a bundle of an older capture: not recorded
    assert findings(bundle) == (Result.PASS, [])


def test_a_read_only_hint_on_a_tool_that_writes_warns(bundle: dict[str, Any]) -> None:
    create = next(t for t in bundle["mcp_tools"] if t["name"] == "mcp_aql_create")
    create["annotations"] = {"readOnlyHint": True}
    _, found = findings(bundle)
    assert found == [("tool mcp_aql_create: readOnlyHint is true, but it serves CREATE operations",
                      "mcp:2.3:conservative-annotations")]  # fmt: skip


def test_a_long_prefix_warns(bundle: dict[str, Any]) -> None:
    for entry in bundle["mcp_tools"]:
        entry["name"] = "reading_list_adapter_v2_" + entry["name"]
    details = bundle["introspection"]["operation_details"]
    for detail in details:
        detail["mcpTool"] = "reading_list_adapter_v2_" + detail["mcpTool"]
    _, found = findings(bundle)
    assert ("tool name prefix 'reading_list_adapter_v2_' is 24 characters long", "mcp:6.4:prefix-short") in found


@pytest.mark.parametrize(
    ("schema", "problems"),
    [
        (BASE, []),
        # read leniently: nullable params, an operation typed through anyOf, none said at all
        ({**BASE, "properties": {"operation": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                                 "params": {"anyOf": [{"type": "object"}, {"type": "null"}]}}}, []),
        ({"properties": {"operation": {}}, "required": ["operation"]}, []),
        # a batch (`operations`) sends no operation: it may be optional then
        ({"type": "object", "properties": {"operation": {"type": "string"}, "operations": {"type": "array"}}}, []),
        ({"type": "object", "properties": {"operation": {"type": "string"}}},
         ["its input schema does not require `operation` (and takes no batch as `operations`)"]),
        ({**BASE, "properties": {"operation": {"type": "string"}, "params": {"type": "string"}}},
         ["its input schema's `params` is not an object"]),
        ({"type": "object", "properties": {"action": {"type": "string"}}},
         ["its input schema has no `operation` property"]),
        ({**BASE, "properties": {"operation": {"type": "integer"}}},
         ["its input schema's `operation` is not a string"]),
        ("object", ["its input schema is not an object schema"]),
    ],
)  # fmt: skip
def test_the_base_input_schema_is_read_leniently(schema: Any, problems: list[str]) -> None:
    assert schema_problems(schema) == problems


def test_a_schema_departing_from_the_base_fails_the_level_1_test(bundle: dict[str, Any]) -> None:
    bundle["mcp_tools"][0]["inputSchema"]["properties"]["params"] = {"type": "string"}
    result, found = findings(bundle)
    name = bundle["mcp_tools"][0]["name"]
    assert result is Result.FAIL  # core §10.1 makes the standard request format a Level 1 MUST
    assert found == [(f"tool {name}: its input schema's `params` is not an object", "mcp:3.1:base-input-schema")]
