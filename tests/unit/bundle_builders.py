"""Small evidence bundles built in Python for the unit tests.

``conformant_bundle()`` returns a fresh, fully conformant Level 2 bundle (every
test of every category passes) that a test mutates to provoke one verdict.
"""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.bundle import bundle_from_data
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.base import CheckFunction, Outcome
from mcpaql_conformance.verdict.model import Report
from mcpaql_conformance.verdict.runner import evaluate

JsonObject = dict[str, Any]


def ok(data: Any = None, **extra: Any) -> JsonObject:
    """A success result."""
    return {"success": True, "data": {} if data is None else data, **extra}


def fail(code: str, message: str, **details: Any) -> JsonObject:
    """A failure result with a structured error."""
    error: JsonObject = {"code": code, "message": message}
    if details:
        error["details"] = details
    return {"success": False, "error": error}


def param(name: str, required: bool = False, **extra: Any) -> JsonObject:
    return {"name": name, "type": "string", "required": required, "description": f"The {name}.", **extra}


PERMISSIONS = {
    "CREATE": (False, False),
    "READ": (True, False),
    "UPDATE": (False, True),
    "DELETE": (False, True),
    "EXECUTE": (False, True),
}


def detail(name: str, category: str, parameters: list[JsonObject], **overrides: Any) -> JsonObject:
    """An OperationDetails entry routed as the CRUDE profile documents it."""
    endpoint = category.lower()
    read_only, destructive = PERMISSIONS[category]
    entry: JsonObject = {
        "name": name,
        "semantic_category": category,
        "endpoint": endpoint,
        "mcpTool": f"mcp_aql_{endpoint}",
        "description": f"The {name} operation.",
        "permissions": {"readOnly": read_only, "destructive": destructive},
        "parameters": parameters,
        "returns": {"name": "Widget", "kind": "object"},
    }
    entry.update(overrides)
    return entry


def summary_of(entry: JsonObject) -> JsonObject:
    return {
        "name": entry["name"],
        "semantic_category": entry["semantic_category"],
        "endpoint": entry["endpoint"],
        "description": entry["description"],
    }


def conformant_bundle() -> JsonObject:
    """A fresh bundle for which every Level 1 and Level 2 test passes."""
    details = [
        detail("introspect", "READ", [param("query", required=True), param("name")]),
        detail("create_widget", "CREATE", [param("widget_name", required=True), param("color", default="blue")]),
        detail(
            "get_widget",
            "READ",
            [
                param("id", required=True),
                param(
                    "fields",
                    type="array",
                    description="Field selection: a preset (minimal, standard, full) or field names.",
                ),
            ],
        ),
        detail("update_widget", "UPDATE", [param("id", required=True), param("input", required=True, type="object")]),
        detail("delete_widget", "DELETE", [param("id", required=True)]),
    ]
    required = [(d["name"], p["name"]) for d in details for p in d["parameters"] if p["required"]]
    widget = {"id": "w1", "widget_name": "Sprocket", "color": "blue", "tags": ["a", "b"], "size": 3}
    return {
        "implementation": "unit-adapter",
        "version": "0.0.1",
        "spec_version": "1.0.0-draft",
        "expected_level": 2,
        "expected_exit_code": 0,
        "endpoint_modes": ["crude", "single"],
        "capabilities": {"field_selection": True, "batch_operations": True},
        "introspection": {
            "operations_list": ok(
                {
                    "_protocol": {
                        "version": "1.0.0-draft",
                        "conformance": "level-2",
                        "mode": "semantic",
                        "limits": {"max_nesting_depth": 32, "max_array_elements": 10000},
                    },
                    "operations": [summary_of(d) for d in details],
                }
            ),
            "types_list": ok(
                {
                    "types": [
                        {"name": "Widget", "kind": "object", "description": "A widget."},
                        {"name": "SemanticCategory", "kind": "enum", "description": "The five categories."},
                        {"name": "OperationResult", "kind": "union", "description": "A success or a failure."},
                    ]
                }
            ),
            "operation_details": details,
        },
        "accepted_parameters": {d["name"]: [p["name"] for p in d["parameters"]] for d in details},
        "parameter_tests": {
            "missing_required": [
                {
                    "operation": op,
                    "parameter": name,
                    "response": fail("VALIDATION_MISSING_PARAM", f"Missing required parameter '{name}'."),
                }
                for op, name in required
            ],
            "unknown_parameter": [
                {
                    "operation": d["name"],
                    "parameter": "bogus",
                    "response": fail(
                        "VALIDATION_UNKNOWN_PARAM", "Unknown parameter 'bogus'.", unknown_params=["bogus"]
                    ),
                }
                for d in details
            ],
            "optional_defaults": [
                {
                    "operation": "create_widget",
                    "parameter": "color",
                    "expected_value_path": "data.color",
                    "expected_value": "blue",
                    "response": ok(widget),
                }
            ],
        },
        "error_tests": [
            {
                "name": "size out of range",
                "must_mention": ["size", "at least 1"],
                "response": fail("VALIDATION_OUT_OF_RANGE", "Parameter size must be at least 1."),
            }
        ],
        "round_trip_tests": [
            {
                "name": "create then read",
                "operation": "create_widget",
                "expected_fields": {"data.widget_name": "Sprocket", "data.tags.1": "b"},
                "read_response": ok(widget),
            }
        ],
        "update_preservation_tests": [
            {
                "name": "update keeps color",
                "operation": "update_widget",
                "preserved_fields": {"data.color": "blue"},
                "read_response": ok(widget),
            }
        ],
        "batch_example": ok(
            {},
            results=[
                {"index": 0, "operation": "get_widget", "result": ok(widget)},
                {
                    "index": 1,
                    "operation": "delete_widget",
                    "result": fail("NOT_FOUND_RESOURCE", "Widget w9 not found."),
                },
            ],
            summary={"total": 2, "succeeded": 1, "failed": 1},
        ),
        "constraint_tests": [
            {
                "name": "id is read-only",
                "documented": True,
                "response": fail("VALIDATION_READ_ONLY", "Field id is read-only."),
            }
        ],
        "semantic_tests": [
            {
                "name": "Find a widget",
                "prompt": "How do I fetch one widget?",
                "response_text": "Call get_widget through mcp_aql_read with the id parameter.",
                "tool_calls": [{"operation": "get_widget", "params": {"id": "w1"}}],
                "structural": {"required_patterns": ["get_widget", "mcp_aql_read"]},
                "semantic": {
                    "phrase_groups": [["fetch", "call"], ["id parameter", "identifier"]],
                    "expected_operations": ["get_widget"],
                    "expected_parameters": ["id"],
                },
            }
        ],
    }


def halted_batch(**summary: int) -> JsonObject:
    """A batch answer that halted at a confirmation-gated delete (operations §7.5.2): one result,
    the operation it halted at, one pending; ``summary`` overrides the correct counts."""
    gated = fail("CONFIRMATION_REQUIRED", "This operation requires confirmation")
    counts = {"total": 3, "succeeded": 1, "failed": 0, "halted": 1, "pending": 1, **summary}
    return ok(
        None,
        results=[{"index": 0, "operation": "get_widget", "result": ok({"id": "w1"})}],
        halted_at={"index": 1, "operation": "delete_widget", "result": gated},
        pending_operations=[{"index": 2, "operation": "get_widget", "params": {"id": "w1"}}],
        summary=counts,
    )


def context(data: JsonObject, tier: str = "both") -> Context:
    return Context(bundle=bundle_from_data(data), tier=tier)


def run(check: CheckFunction, data: JsonObject, tier: str = "both") -> Outcome:
    """Run one check function on a bundle dict."""
    return check(context(data, tier))


def report(data: JsonObject, level: int = 1, tier: str = "both", category: str | None = None) -> Report:
    return evaluate(bundle_from_data(data), level, tier, category)


def operation_detail(data: JsonObject, name: str) -> JsonObject:
    """The OperationDetails entry named ``name`` in a bundle dict (for mutation)."""
    for entry in data["introspection"]["operation_details"]:
        if entry["name"] == name:
            return entry
    raise KeyError(name)


def parameter_case(data: JsonObject, kind: str, operation: str, parameter: str) -> JsonObject:
    for case in data["parameter_tests"][kind]:
        if case["operation"] == operation and case["parameter"] == parameter:
            return case
    raise KeyError((kind, operation, parameter))
