"""schemas: the operation-result union, introspection shapes, explanations and JSON paths."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from bundle_builders import conformant_bundle, fail, ok

from mcpaql_conformance.files.schemas import (
    bundle_schema,
    introspection_schema,
    json_path,
    operation_result_schema,
    report_schema,
    schema_document,
)

# The operation result discriminated union


@pytest.mark.parametrize(
    "response",
    [
        ok({"id": "w1"}),
        {"success": True, "data": None},
        {"success": True, "data": [1, 2]},
        ok({}, warnings=[{"code": "UNKNOWN_PARAM", "message": "Ignored bogus.", "severity": "low"}]),
        ok({}, _meta={"requestId": "r1"}),
        fail("VALIDATION_MISSING_PARAM", "Missing id."),
        fail("NOT_FOUND", "No widget w9.", id="w9"),
        fail("E2", "Digits after the first letter are fine."),
        ok(
            {},
            results=[{"index": 0, "operation": "get_widget", "result": ok()}],
            summary={"total": 1, "succeeded": 1, "failed": 0},
        ),
    ],
)
def test_valid_operation_results_are_accepted(response: dict[str, Any]) -> None:
    schema = operation_result_schema()
    assert schema.is_valid(response)
    assert schema.explain(response) == []


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        (fail("validation_error", "lower case"), "$.error.code: does not match the pattern ^[A-Z][A-Z0-9_]*$"),
        (fail("1ERROR", "starts with a digit"), "$.error.code: does not match the pattern ^[A-Z][A-Z0-9_]*$"),
        (fail("NOT-FOUND", "dash"), "$.error.code: does not match the pattern ^[A-Z][A-Z0-9_]*$"),
        ({"success": True}, "$: missing required property 'data'"),
        (
            {"success": True, "data": {}, "error": {"code": "X", "message": "m"}},
            "$: 'error' is not part of a success result: a success carries data, not error",
        ),
        (
            {"success": False, "error": {"code": "X", "message": "m"}, "data": {}},
            "$: 'data' is not part of a failure result: a failure carries error, not data",
        ),
        ({"success": False}, "$: missing required property 'error'"),
        ({"success": False, "error": "boom"}, "$.error: expected an object, got string"),
        ({"success": False, "error": {"code": "X"}}, "$.error: missing required property 'message'"),
        (fail("X", ""), "$.error.message: must not be empty"),
        (
            {"success": False, "error": {"code": "X", "message": "m", "details": []}},
            "$.error.details: expected an object, got array",
        ),
        ({"success": "yes", "data": {}}, "$.success: expected a boolean, got string"),
        ({"data": {}}, "$: missing required property 'success'"),
        (
            ok({}, warnings=[{"code": "low", "message": "m"}]),
            "$.warnings[0].code: does not match the pattern ^[A-Z][A-Z0-9_]*$",
        ),
        (ok({}, results=[{"index": -1, "operation": "x", "result": ok()}]), "$.results[0].index: must be at least 0"),
        (
            ok({}, results=[{"index": 0, "operation": "x", "result": {"success": True}}]),
            "$.results[0].result: missing required property 'data'",
        ),
        (ok({}, summary={"total": 1, "succeeded": 1}), "$.summary: missing required property 'failed'"),
    ],
)
def test_invalid_operation_results_are_rejected_with_a_path_and_reason(response: dict[str, Any], reason: str) -> None:
    schema = operation_result_schema()
    assert not schema.is_valid(response)
    assert reason in schema.explain(response)


def test_explain_limits_the_number_of_reasons() -> None:
    response = ok(
        {}, warnings=[{"code": "a", "message": "m"}, {"code": "b", "message": "m"}, {"code": "c", "message": "m"}]
    )
    assert len(operation_result_schema().explain(response, limit=2)) == 2


def test_explain_does_not_repeat_a_reason() -> None:
    reasons = operation_result_schema().explain({"success": False, "error": {"code": "x", "message": ""}}, limit=10)
    assert len(reasons) == len(set(reasons))
    assert "$.error.message: must not be empty" in reasons


def test_explain_does_not_echo_long_untrusted_values() -> None:
    hostile = "<script>" + "x" * 5000
    reasons = operation_result_schema().explain({"success": False, "error": {"code": hostile, "message": "m"}})
    assert reasons == ["$.error.code: does not match the pattern ^[A-Z][A-Z0-9_]*$"]


def test_all_valid_answers_for_a_whole_list() -> None:
    schema = operation_result_schema()
    assert schema.all_valid([ok(), fail("X", "m")])
    assert not schema.all_valid([ok(), {"success": True}])
    assert schema.all_valid([])


def test_shape_error_gives_the_path_of_the_first_violation() -> None:
    error = bundle_schema().shape_error({"introspection": {"operation_details": [{}, 1]}})
    assert error == "$.introspection.operation_details[1]: expected an object, got integer"


def test_shape_error_of_a_valid_instance_is_none() -> None:
    assert bundle_schema().shape_error({}) is None


# Introspection shapes


def test_a_complete_operation_detail_is_valid() -> None:
    detail = conformant_bundle()["introspection"]["operation_details"][1]
    assert introspection_schema("OperationDetails").is_valid(detail)


def test_operation_detail_explanations_name_every_broken_field() -> None:
    detail = {
        "name": "x",
        "semantic_category": "READS",
        "endpoint": "",
        "mcpTool": "t",
        "description": "d",
        "permissions": {"readOnly": "yes", "destructive": False},
        "parameters": [{"name": "a", "type": "string"}],
        "returns": {"name": "W", "kind": "thing"},
    }
    reasons = introspection_schema("OperationDetails").explain(detail, limit=10)
    assert set(reasons) == {
        "$.parameters[0]: missing required property 'required'",
        "$.permissions.readOnly: expected a boolean, got string",
        '$.returns.kind: must be one of "enum", "object", "scalar", "union" (not "thing")',
        "$.endpoint: must not be empty",
        '$.semantic_category: must be one of "CREATE", "READ", "UPDATE", "DELETE", "EXECUTE" (not "READS")',
    }


def test_operation_detail_missing_fields_are_listed_together() -> None:
    reasons = introspection_schema("OperationDetails").explain({"name": "x", "description": "d"})
    missing = "'semantic_category', 'endpoint', 'mcpTool', 'permissions', 'parameters', 'returns'"
    assert reasons == [f"$: missing required property {missing}"]


def test_operation_details_allow_extension_fields() -> None:
    detail = conformant_bundle()["introspection"]["operation_details"][0]
    detail["x_vendor"] = {"anything": True}
    assert introspection_schema("OperationDetails").is_valid(detail)


def test_operations_list_data_requires_operations() -> None:
    schema = introspection_schema("OperationsListData")
    assert schema.is_valid({"operations": []})
    assert schema.explain({"ops": []}) == ["$: missing required property 'operations'"]


def test_operations_list_entries_need_a_known_semantic_category() -> None:
    entry = {"name": "x", "semantic_category": "read", "endpoint": "read", "description": "d"}
    reasons = introspection_schema("OperationsListData").explain({"operations": [entry]})
    assert reasons == [
        '$.operations[0].semantic_category: must be one of "CREATE", "READ", "UPDATE", "DELETE", "EXECUTE" (not "read")'
    ]


def test_types_list_data_checks_the_kind() -> None:
    schema = introspection_schema("TypesListData")
    assert schema.is_valid({"types": [{"name": "Widget", "kind": "object"}]})
    assert not schema.is_valid({"types": [{"name": "Widget", "kind": "class"}]})


# Our schema files


@pytest.mark.parametrize("name", ["bundle", "operation-result", "introspection", "report"])
def test_schema_files_are_valid_draft_2020_12(name: str) -> None:
    document = schema_document(name)
    assert document["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(document)


@pytest.mark.parametrize("definition", ["OperationsListData", "TypesListData", "OperationDetails"])
def test_wrapped_introspection_definitions_are_valid_schemas(definition: str) -> None:
    jsonschema.Draft202012Validator.check_schema(introspection_schema(definition).schema)


def test_compiled_schemas_are_cached() -> None:
    assert operation_result_schema() is operation_result_schema()
    assert report_schema() is report_schema()


def test_the_bundle_schema_accepts_the_conformant_bundle() -> None:
    assert bundle_schema().is_valid(conformant_bundle())


# json_path


def test_json_path_of_nothing_is_the_root() -> None:
    assert json_path([]) == "$"


def test_json_path_uses_dots_for_identifiers_and_brackets_for_indexes() -> None:
    assert json_path(["parameter_tests", "missing_required", 3, "response"]) == (
        "$.parameter_tests.missing_required[3].response"
    )


@pytest.mark.parametrize(
    ("key", "rendered"),
    [
        ("get-widget", '["get-widget"]'),
        ("a b", '["a b"]'),
        ("0", '["0"]'),
        ("1a", '["1a"]'),
        ("", '[""]'),
        ('x"y', '["x\\"y"]'),
        ("\n", '["\\n"]'),
        ("caf\u00e9", '["caf\u00e9"]'),
        ("_private", "._private"),
    ],
)
def test_json_path_quotes_keys_that_are_not_identifiers(key: str, rendered: str) -> None:
    assert json_path([key]) == "$" + rendered


def test_json_path_distinguishes_index_zero_from_key_zero() -> None:
    assert json_path([0]) != json_path(["0"])


def test_json_path_accepts_another_root() -> None:
    assert json_path(["a"], root="bundle") == "bundle.a"


def test_explaining_a_deeply_nested_invalid_result_does_not_crash() -> None:
    from mcpaql_conformance.files.schemas import operation_result_schema

    result: dict[str, Any] = {"success": False, "error": {"code": "bad code", "message": "m"}}
    for index in range(1500):
        result = {"success": True, "data": {}, "results": [{"index": 0, "operation": f"op{index}", "result": result}]}
    reasons = operation_result_schema().explain(result)
    assert reasons == ["$: nested too deeply to explain (it does not match the schema)"]


def test_a_code_with_a_trailing_line_break_is_invalid_and_explained() -> None:
    # Python's "$" matches before a final line break, JSON Schema's (ECMA-262) does not:
    # the compiled validator rejects it, and the explanation must still say why.
    response = {"success": False, "error": {"code": "NOT_FOUND\n", "message": "no such widget"}}
    schema = operation_result_schema()
    assert not schema.is_valid(response)
    assert schema.explain(response) == ["$.error.code: does not match the pattern ^[A-Z][A-Z0-9_]*$"]
