"""Synthetic, conformant Level 1 evidence bundles of any size, for benchmarks and tests."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.verdict.checks.introspection import PERMISSION_TABLE

CATEGORY_CYCLE = ("READ", "CREATE", "UPDATE", "DELETE", "EXECUTE", "READ", "READ", "CREATE")
VERBS = {"CREATE": "create", "READ": "get", "UPDATE": "update", "DELETE": "delete", "EXECUTE": "execute"}


def _failure(code: str, message: str) -> dict[str, Any]:
    return {"success": False, "error": {"code": code, "message": message}}


def _operation(index: int) -> tuple[dict[str, Any], dict[str, Any]]:
    category = CATEGORY_CYCLE[index % len(CATEGORY_CYCLE)]
    name = f"{VERBS[category]}_record_{index}"
    endpoint = category.lower()
    parameters = [
        {"name": "record_id", "type": "string", "required": True, "description": "Record identifier."},
        {"name": "limit", "type": "integer", "required": False, "description": "Page size.", "default": 20},
        {"name": "label", "type": "string", "required": False, "description": "Optional label."},
    ]
    if category == "UPDATE":  # the fields an UPDATE changes go in an `input` object (core §4.5)
        parameters.append({"name": "input", "type": "object", "required": True, "description": "Fields to change."})
    read_only, destructive = PERMISSION_TABLE[category]
    summary = {"name": name, "semantic_category": category, "endpoint": endpoint, "description": f"Operation {index}."}
    detail = {
        **summary,
        "mcpTool": f"mcp_aql_{endpoint}",
        "permissions": {"readOnly": read_only, "destructive": destructive},
        "parameters": parameters,
        "returns": {"name": "Record", "kind": "object"},
    }
    return summary, detail


# The record type every operation returns, the introspection payload, and the two protocol types.
TYPES = [
    {"name": "Record", "kind": "object"},
    {"name": "IntrospectionData", "kind": "union"},
    {"name": "SemanticCategory", "kind": "enum"},
    {"name": "OperationResult", "kind": "union"},
]


def make_bundle(operations: int) -> dict[str, Any]:
    """A bundle that passes every Level 1 test, with ``operations`` operations plus introspect."""
    summaries = [{"name": "introspect", "semantic_category": "READ", "endpoint": "read", "description": "Discovery."}]
    details = [
        {
            **summaries[0],
            "mcpTool": "mcp_aql_read",
            "permissions": {"readOnly": True, "destructive": False},
            "parameters": [{"name": "query", "type": "string", "required": True}],
            "returns": {"name": "IntrospectionData", "kind": "union"},
        }
    ]
    for index in range(operations):
        summary, detail = _operation(index)
        summaries.append(summary)
        details.append(detail)
    accepted = {d["name"]: [p["name"] for p in d["parameters"]] for d in details}
    missing = [
        {
            "operation": d["name"],
            "parameter": p["name"],
            "response": _failure(
                "VALIDATION_MISSING_PARAM", f"Missing required parameter '{p['name']}'. Expected: string."
            ),
        }
        for d in details
        for p in d["parameters"]
        if p["required"]
    ]
    unknown = [
        {
            "operation": d["name"],
            "parameter": "bogus_flag",
            "response": _failure(
                "VALIDATION_UNKNOWN_PARAM", f"Unknown parameter 'bogus_flag' for operation '{d['name']}'."
            ),
        }
        for d in details
    ]
    defaults = [
        {
            "operation": d["name"],
            "parameter": "limit",
            "expected_value_path": "data.applied.limit",
            "expected_value": 20,
            "response": {"success": True, "data": {"items": [], "applied": {"limit": 20}}},
        }
        for d in details
        if d["name"] != "introspect"
    ]
    creates = [d["name"] for d in details if d["semantic_category"] == "CREATE"]
    updates = [d["name"] for d in details if d["semantic_category"] == "UPDATE"]
    record = {"success": True, "data": {"record_id": "r1", "label": "alpha", "limit": 20}}
    return {
        "implementation": f"synthetic-{operations}",
        "version": "1.0.0",
        "spec_version": "1.0.0-draft",
        "expected_level": 1,
        "expected_exit_code": 0,
        "endpoint_modes": ["crude"],
        "introspection": {
            "operations_list": {
                "success": True,
                "data": {"_protocol": {"version": "1.0.0-draft", "mode": "semantic"}, "operations": summaries},
            },
            "types_list": {"success": True, "data": {"types": TYPES}},
            "operation_details": details,
        },
        "accepted_parameters": accepted,
        "parameter_tests": {"missing_required": missing, "unknown_parameter": unknown, "optional_defaults": defaults},
        "error_tests": [
            {"name": "missing-record-id", "must_mention": ["record_id"], "response": missing[1]["response"]}
        ],
        "round_trip_tests": [
            {
                "name": f"cycle-{op}",
                "operation": op,
                "expected_fields": {"data.label": "alpha"},
                "read_response": record,
            }
            for op in creates
        ],
        "update_preservation_tests": [
            {
                "name": f"keep-{op}",
                "operation": op,
                "preserved_fields": {"data.record_id": "r1"},
                "read_response": record,
            }
            for op in updates
        ],
    }
