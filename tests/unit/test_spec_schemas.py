"""Our schemas against the spec's normative ones (issue 36, part 2).

Core Appendix D makes four JSON schemas normative. Ours are written by us from the prose; this
test loads the spec's from ../shared/spec-schemas (AGPL-3.0: read here, never copied into the
project) and validates one corpus of documents, written here, with both: every document both
accept or both refuse, except where we read the spec otherwise, each such reading listed in
``DIFFERENCES`` with the sentence that decides it (and in docs/checks.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mcpaql_conformance.files.schemas import introspection_schema, operation_result_schema

SPEC_SCHEMAS = Path(__file__).resolve().parents[3] / "shared" / "spec-schemas"
pytestmark = pytest.mark.skipif(
    not SPEC_SCHEMAS.is_dir(),
    reason=f"the spec's normative schemas are not at {SPEC_SCHEMAS} (CI has them at ../shared/spec-schemas): "
    "our schemas cannot be compared with them here",
)
RESULT = None  # a whole answer: the operation-result schemas
OK = {"success": True, "data": {"id": "n1"}}
ERROR = {"code": "NOT_FOUND", "message": "No note n7"}
PARAMETER = {"name": "note_id", "type": "string", "required": True, "description": "The note to read"}
DETAILS = {
    "name": "get_note",
    "semantic_category": "READ",
    "endpoint": "read",
    "mcpTool": "mcp_aql_read",
    "description": "Read one note",
    "permissions": {"readOnly": True, "destructive": False},
    "parameters": [PARAMETER],
    "returns": {"name": "Note", "kind": "object"},
}
SUMMARY = {"name": "get_note", "semantic_category": "READ", "endpoint": "read", "description": "Read one note"}


def details(**changes: Any) -> dict[str, Any]:
    """DETAILS with fields changed (``...`` removes one)."""
    return {key: value for key, value in {**DETAILS, **changes}.items() if value is not ...}


# (name, definition: None for a whole answer, document, whether the spec's schema accepts it)
CORPUS: list[tuple[str, str | None, Any, bool]] = [
    ("a success", RESULT, OK, True),
    ("a success with null data", RESULT, {"success": True, "data": None}, True),
    ("a success without data", RESULT, {"success": True}, False),
    ("success as a string", RESULT, {"success": "yes", "data": 1}, False),
    ("a failure", RESULT, {"success": False, "error": ERROR}, True),
    ("a failure with error details", RESULT, {"success": False, "error": {**ERROR, "details": {"id": 7}}}, True),
    ("a failure without a message", RESULT, {"success": False, "error": {"code": "NOT_FOUND"}}, False),
    ("a failure with a lower-case code", RESULT, {"success": False, "error": {"code": "nope", "message": "x"}}, False),
    ("a failure carrying data", RESULT, {"success": False, "error": ERROR, "data": None}, False),
    ("an error with a key of its own", RESULT, {"success": False, "error": {**ERROR, "hint": "x"}}, False),
    ("an error as text", RESULT, {"success": False, "error": "boom"}, False),
    ("warnings on a failure", RESULT, {"success": False, "error": ERROR, "warnings": []}, False),
    ("a warning", RESULT, {**OK, "warnings": [{"code": "DEPRECATED_PARAM", "message": "old"}]}, True),
    ("a warning without a message", RESULT, {**OK, "warnings": [{"code": "DEPRECATED_PARAM"}]}, False),
    (
        "a warning of unknown severity",
        RESULT,
        {**OK, "warnings": [{"code": "W", "message": "m", "severity": "x"}]},
        False,
    ),
    ("a warning with a key of its own", RESULT, {**OK, "warnings": [{"code": "W", "message": "m", "at": 1}]}, False),
    ("_meta", RESULT, {**OK, "_meta": {"request_id": "r1", "duration_ms": 3, "trace": "t"}}, True),
    ("_meta with a negative duration", RESULT, {**OK, "_meta": {"duration_ms": -1}}, False),
    ("_meta with a numeric request id", RESULT, {**OK, "_meta": {"request_id": 5}}, False),
    ("_meta as text", RESULT, {**OK, "_meta": "x"}, False),
    ("a key of its own", RESULT, {**OK, "extra": 1}, False),
    ("metadata under another underscore key", RESULT, {**OK, "_trace": "abc"}, False),
    ("_meta on a failure", RESULT, {"success": False, "error": ERROR, "_meta": {"request_id": "r"}}, False),
    (
        "a batch",
        RESULT,
        {
            "success": True,
            "data": None,
            "results": [{"index": 0, "operation": "create_note", "result": OK}],
            "summary": {"total": 1, "succeeded": 1, "failed": 0},
        },
        True,
    ),
    ("a batch summary without failed", RESULT, {**OK, "summary": {"total": 1, "succeeded": 1}}, False),
    ("a batch item without its index", RESULT, {**OK, "results": [{"operation": "x", "result": OK}]}, False),
    (
        "a batch item whose result has no data",
        RESULT,
        {**OK, "results": [{"index": 0, "operation": "x", "result": {"success": True}}]},
        False,
    ),
    ("operation details", "OperationDetails", DETAILS, True),
    ("details without mcpTool", "OperationDetails", details(mcpTool=...), False),
    ("details without permissions", "OperationDetails", details(permissions=...), False),
    ("permissions as text", "OperationDetails", details(permissions="read-only"), False),
    ("returns as a name", "OperationDetails", details(returns="Note"), False),
    ("returns null", "OperationDetails", details(returns=None), False),
    ("an unknown category", "OperationDetails", details(semantic_category="FETCH"), False),
    ("an upper-case endpoint", "OperationDetails", details(endpoint="READ"), True),
    ("a custom endpoint family", "OperationDetails", details(endpoint="admin"), True),
    ("a parameter without required", "OperationDetails", details(parameters=[{"name": "a", "type": "string"}]), False),
    ("a parameter with a default", "OperationDetails", details(parameters=[{**PARAMETER, "default": "n1"}]), True),
    (
        "a parameter of two types",
        "OperationDetails",
        details(parameters=[{**PARAMETER, "type": ["string", "null"]}]),
        False,
    ),
    (
        "an example",
        "OperationDetails",
        details(
            examples=[{"description": "Read n1", "request": {"operation": "get_note", "params": {"note_id": "n1"}}}]
        ),
        True,
    ),
    ("an example as text", "OperationDetails", details(examples=["get_note note_id=n1"]), False),
    ("an example without its request", "OperationDetails", details(examples=[{"description": "x"}]), False),
    ("an example as a bare request", "OperationDetails", details(examples=[{"operation": "get_note"}]), False),
    ("examples as an object", "OperationDetails", details(examples={"a": 1}), False),
    ("a lifecycle", "OperationDetails", details(lifecycle={"states": ["pending"]}), True),
    ("details with a field of their own", "OperationDetails", details(deprecated=True), False),
    (
        "a parameter with a field of its own",
        "OperationDetails",
        details(parameters=[{**PARAMETER, "deprecated": True}]),
        False,
    ),
    (
        "permissions with a flag of their own",
        "OperationDetails",
        details(permissions={"readOnly": True, "destructive": False, "idempotent": True}),
        False,
    ),
    ("an operations list", "OperationsListData", {"operations": [SUMMARY]}, True),
    (
        "a listed operation without description",
        "OperationsListData",
        {"operations": [{k: v for k, v in SUMMARY.items() if k != "description"}]},
        False,
    ),
    ("_protocol with a version", "OperationsListData", {"operations": [], "_protocol": {"version": "1.0.0"}}, True),
    ("_protocol without a version", "OperationsListData", {"operations": [], "_protocol": {"mode": "single"}}, False),
    ("a list with a key of its own", "OperationsListData", {"operations": [], "total": 0}, False),
    (
        "a listed operation with a field of its own",
        "OperationsListData",
        {"operations": [{**SUMMARY, "mcpTool": "t"}]},
        False,
    ),
    ("an unknown conformance level", "ProtocolMetadata", {"version": "1.0.0", "conformance": "level-3"}, False),
    ("the old mode crude", "ProtocolMetadata", {"version": "1.0.0", "mode": "crude"}, False),
    ("a version that is no semantic version", "ProtocolMetadata", {"version": "v1"}, False),
    ("capabilities", "ProtocolMetadata", {"version": "1.0.0", "capabilities": {"field_selection": True}}, True),
    (
        "a capability as text",
        "ProtocolMetadata",
        {"version": "1.0.0", "capabilities": {"field_selection": "yes"}},
        False,
    ),
    ("a types list", "TypesListData", {"types": [{"name": "Note", "kind": "object"}]}, True),
    ("a type of unknown kind", "TypesListData", {"types": [{"name": "Note", "kind": "class"}]}, False),
    ("a listed type without kind", "TypesListData", {"types": [{"name": "Note"}]}, False),
    ("an enum type", "TypeDetails", {"name": "Colour", "kind": "enum", "values": ["red"]}, True),
    ("a type without kind", "TypeDetails", {"name": "Note"}, False),
    ("a type as text", "TypeDetails", "Note is an object", False),
]

# Where we read the spec otherwise than its closed schemas, and the sentence that decides it.
EXTENSIONS = (
    "core §10.3 lets an implementation add documented extensions, and introspection §3.3 shows details "
    "carrying computed_fields, aggregation_support and lifecycle that a closed object would refuse: a field "
    "of its own is allowed; an undocumented parameter still fails completeness (introspection §8.1.2)"
)
METADATA = (
    "operations §3.4 allows metadata keys starting with an underscore on any answer (registry reading of "
    "operations:3.4:metadata-underscore), where the result schema admits only _meta on a success"
)
DIFFERENCES: dict[str, str] = {
    "metadata under another underscore key": METADATA,
    "_meta on a failure": METADATA,
    "details with a field of their own": EXTENSIONS,
    "a parameter with a field of its own": EXTENSIONS,
    "permissions with a flag of their own": EXTENSIONS,
    "a list with a key of its own": EXTENSIONS,
    "a listed operation with a field of its own": EXTENSIONS,
}


def spec_accepts(definition: str | None, document: Any) -> bool:
    if definition is None:
        schema = json.loads((SPEC_SCHEMAS / "operation-result.schema.json").read_text())
    else:
        whole = json.loads((SPEC_SCHEMAS / "introspection-response.schema.json").read_text())
        schema = {"$schema": whole["$schema"], "$defs": whole["$defs"], "$ref": f"#/$defs/{definition}"}
    return bool(Draft202012Validator(schema).is_valid(document))


def we_accept(definition: str | None, document: Any) -> bool:
    schema = operation_result_schema() if definition is None else introspection_schema(definition)
    return schema.is_valid(document)


@pytest.mark.parametrize(("name", "definition", "document", "spec"), CORPUS, ids=[case[0] for case in CORPUS])
def test_our_schemas_agree_with_the_normative_ones(
    name: str, definition: str | None, document: Any, spec: bool
) -> None:
    assert spec_accepts(definition, document) is spec, f"{name}: the corpus says the spec's schema {spec=}"
    ours = we_accept(definition, document)
    if name in DIFFERENCES:
        assert ours is not spec, f"{name}: listed as a difference, but our schema agrees now: drop it"
    else:
        assert ours is spec, f"{name}: ours {'accepts' if ours else 'refuses'}; the normative schema does not"


def test_the_corpus_holds_documents_both_accept_and_both_refuse() -> None:
    agreed = [spec for name, _, _, spec in CORPUS if name not in DIFFERENCES]
    assert agreed.count(True) >= 10 and agreed.count(False) >= 30
    assert set(DIFFERENCES) <= {case[0] for case in CORPUS}


def test_every_difference_is_told_in_the_docs() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "checks.md").read_text()
    for name in DIFFERENCES:
        assert f"| {name} |" in page, f"docs/checks.md's table of differences from the normative schemas lacks {name!r}"
