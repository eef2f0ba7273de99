"""Introspection Fidelity (MUST): operations/types queries, operation details, completeness."""

from __future__ import annotations

from typing import Any

import pytest
from bundle_builders import detail, fail, ok, operation_detail, param, report, run, summary_of

from mcpaql_conformance.verdict.checks.introspection import (
    completeness,
    operation_details,
    operations_query,
    types_query,
)
from mcpaql_conformance.verdict.model import Result

Bundle = dict[str, Any]


def operations(bundle: Bundle) -> list[dict[str, Any]]:
    return bundle["introspection"]["operations_list"]["data"]["operations"]


# Category as a whole


def test_conformant_bundle_passes_the_whole_category(bundle: Bundle) -> None:
    category = report(bundle, category="Introspection Fidelity").categories[0]
    assert category.result is Result.PASS
    assert [t.id for t in category.tests] == [
        "L1.introspection.operations-query",
        "L1.introspection.types-query",
        "L1.introspection.operation-details",
        "L1.introspection.completeness",
    ]


def test_empty_bundle_fails_every_introspection_test_for_lack_of_evidence() -> None:
    category = report({}, category="Introspection Fidelity").categories[0]
    assert [t.result for t in category.tests] == [Result.FAIL] * 4
    assert all(t.detail.startswith("no evidence: ") for t in category.tests)


# Operations query


def test_operations_query_passes_and_counts_operations(bundle: Bundle) -> None:
    outcome = run(operations_query, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail == "introspect {query: operations} answered 5 operation(s) in the documented shape."


def test_a_list_a_batch_asks_for_again_is_the_list_introspect_gave_first(bundle: Bundle) -> None:
    import copy

    first = copy.deepcopy(bundle["introspection"]["operations_list"])
    types = copy.deepcopy(bundle["introspection"]["types_list"])
    bundle["batch_example"] = {"success": True, "results": [{"index": 0, "result": first},
                                                           {"index": 1, "result": types}]}  # fmt: skip
    assert run(operations_query, bundle).result is Result.PASS
    first["data"]["operations"].reverse()
    first["data"]["_protocol"] = {"version": "1.0.0-draft", "session": "another"}  # metadata may differ
    outcome = run(operations_query, bundle)
    assert outcome.result is Result.WARN
    assert [(str(f), f.rule) for f in outcome.findings] == [
        ("introspect {query: operations} answered another list in the batch than first (5 entries, then 5, not "
         "the same ones)", "introspection:7.3:caching")
    ]  # fmt: skip
    bundle["batch_example"] = {"success": True, "results": ["x", {"result": None}, {"result": {"data": []}}]}
    assert run(operations_query, bundle).result is Result.PASS


def test_operations_query_without_evidence_fails(bundle: Bundle) -> None:
    del bundle["introspection"]["operations_list"]
    outcome = run(operations_query, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "no evidence: no introspection.operations_list"


def test_operations_query_that_is_not_a_valid_result_fails(bundle: Bundle) -> None:
    bundle["introspection"]["operations_list"] = {"success": True}
    outcome = run(operations_query, bundle)
    assert outcome.result is Result.FAIL
    assert "introspect {query: operations} answer is not a valid operation result" in outcome.detail
    assert "missing required property 'data'" in outcome.detail


def test_operations_query_that_failed_fails_with_the_error(bundle: Bundle) -> None:
    bundle["introspection"]["operations_list"] = fail("NOT_IMPLEMENTED", "introspect is not available")
    outcome = run(operations_query, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "introspect {query: operations} failed: NOT_IMPLEMENTED: introspect is not available"


def test_operations_query_with_the_wrong_data_shape_fails(bundle: Bundle) -> None:
    bundle["introspection"]["operations_list"] = ok({"ops": []})
    outcome = run(operations_query, bundle)
    assert outcome.result is Result.FAIL
    assert "data does not match OperationsListData" in outcome.detail
    assert "missing required property 'operations'" in outcome.detail


def test_operations_listed_twice_fail(bundle: Bundle) -> None:
    operations(bundle).append(dict(operations(bundle)[1]))
    outcome = run(operations_query, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "create_widget: operation listed 2 times"


def test_an_empty_operations_list_fails(bundle: Bundle) -> None:
    bundle["introspection"]["operations_list"] = ok({"operations": []})
    outcome = run(operations_query, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "the operations list is empty"


# Types query


def test_types_query_passes_and_counts_types(bundle: Bundle) -> None:
    outcome = run(types_query, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail == (
        "introspect {query: types} answered 3 type(s) in the documented shape; every type an operation returns"
        " is listed."
    )


def test_types_query_may_answer_no_types_when_no_operation_returns_one_but_warns(bundle: Bundle) -> None:
    bundle["introspection"]["types_list"] = ok({"types": []})
    for entry in bundle["introspection"]["operation_details"]:
        entry["returns"] = {"name": "object", "kind": "scalar"}
    outcome = run(types_query, bundle)
    assert outcome.result is Result.WARN  # introspection §5.3 (SHOULD): the protocol types are listed
    assert outcome.detail == (
        "the types list lacks the protocol type(s) SemanticCategory, OperationResult (core §9.1 defines them)"
    )


def test_a_returned_domain_type_the_types_list_does_not_name_fails(bundle: Bundle) -> None:
    details = bundle["introspection"]["operation_details"]
    next(d for d in details if d["name"] == "get_widget")["returns"] = {"name": "Gadget[]", "kind": "object"}
    outcome = run(types_query, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "get_widget: returns 'Gadget', which introspect {query: types} does not list"
    assert report(bundle).categories[0].tests[1].cited == ("core:9.2:types-discoverable",)


@pytest.mark.parametrize(("name", "kind"), [("Url", "object"), ("Email", "enum"), ("Timestamp", "union")])
def test_a_returned_type_of_the_servers_own_kind_is_a_domain_type_whatever_its_name(
    bundle: Bundle, name: str, kind: str
) -> None:
    details = bundle["introspection"]["operation_details"]
    next(d for d in details if d["name"] == "get_widget")["returns"] = {"name": name, "kind": kind}
    outcome = run(types_query, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == f"get_widget: returns '{name}', which introspect {{query: types}} does not list"


def test_a_returned_json_type_or_a_scalar_name_is_no_type_to_list(bundle: Bundle) -> None:
    details = bundle["introspection"]["operation_details"]
    next(d for d in details if d["name"] == "get_widget")["returns"] = {"name": "Widget | null", "kind": "union"}
    next(d for d in details if d["name"] == "create_widget")["returns"] = {"name": "uuid", "kind": "scalar"}
    assert run(types_query, bundle).result is Result.PASS


def test_a_returned_protocol_type_the_list_does_not_name_only_warns(bundle: Bundle) -> None:
    details = bundle["introspection"]["operation_details"]
    next(d for d in details if d["name"] == "get_widget")["returns"] = {"name": "OperationFailure", "kind": "object"}
    outcome = run(types_query, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "get_widget: returns 'OperationFailure', which introspect {query: types} does not list"


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"name": "Color", "kind": "enum"}, "$: missing required property 'values'"),
        ({"name": "Widget", "kind": "object", "fields": [{"name": "id"}]}, "$.fields[0]: missing required property"),
        ({"name": "Shape", "kind": "union", "members": "Circle"}, "$.members: expected an array, got string"),
        ({"name": "Widget", "kind": "class", "fields": []}, "$.kind: must be one of"),
    ],
)
def test_invalid_type_details_fail_the_types_query(bundle: Bundle, entry: Bundle, reason: str) -> None:
    bundle["introspection"]["type_details"] = [entry]
    outcome = run(types_query, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith(f"type {entry['name']}: not valid TypeDetails ({reason}")


def test_valid_type_details_of_every_kind_pass(bundle: Bundle) -> None:
    bundle["introspection"]["type_details"] = [
        {"name": "Widget", "kind": "object", "fields": [{"name": "id", "type": "string", "required": True}]},
        {"name": "Color", "kind": "enum", "values": ["blue", "red"]},
        {"name": "Shape", "kind": "union", "members": ["Widget", "Color"]},
        {"name": "Stamp", "kind": "scalar", "description": "An ISO 8601 date-time."},
    ]
    outcome = run(types_query, bundle)
    assert outcome.result is Result.PASS
    assert "4 type detail(s) valid" in outcome.detail


def test_a_type_detail_query_that_answered_no_details_fails(bundle: Bundle) -> None:
    refused = fail("VALIDATION_INVALID_PARAM", "Unknown query: types with name")
    bundle["introspection"]["type_queries"] = [{"type": "Widget", "response": refused}]
    outcome = run(types_query, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "introspect {query: types, name: Widget}: refused (VALIDATION_INVALID_PARAM: Unknown query: types with name)"
    )


@pytest.mark.parametrize(
    ("response", "result", "detail"),
    [
        (ok({"type": None}), Result.PASS, "a made-up name answered with `type: null`"),
        (
            fail("NOT_FOUND_TYPE", "No type Zz."),
            Result.FAIL,
            "introspect {query: types, name: Zz} (no such type): refused where it should succeed with `type: null`"
            " (NOT_FOUND_TYPE: No type Zz.)",
        ),
        (
            ok({"type": {"name": "Widget", "kind": "object", "fields": []}}),
            Result.FAIL,
            "introspect {query: types, name: Zz} (no such type): answered the details of 'Widget' instead of"
            " `type: null`",
        ),
    ],
)
def test_a_type_detail_query_for_a_made_up_name_answers_null(
    bundle: Bundle, response: Bundle, result: Result, detail: str
) -> None:
    bundle["introspection"]["unknown_name_queries"] = [{"query": "types", "name": "Zz", "response": response}]
    outcome = run(types_query, bundle)
    assert outcome.result is result
    assert detail in outcome.detail


def test_types_query_without_evidence_fails(bundle: Bundle) -> None:
    del bundle["introspection"]["types_list"]
    outcome = run(types_query, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "no evidence: no introspection.types_list"


def test_types_query_with_an_unknown_kind_fails(bundle: Bundle) -> None:
    bundle["introspection"]["types_list"] = ok({"types": [{"name": "Widget", "kind": "class"}]})
    outcome = run(types_query, bundle)
    assert outcome.result is Result.FAIL
    assert "data does not match TypesListData" in outcome.detail
    assert "$.types[0].kind: must be one of" in outcome.detail


def test_types_query_that_failed_fails(bundle: Bundle) -> None:
    bundle["introspection"]["types_list"] = fail("UNSUPPORTED", "no types")
    outcome = run(types_query, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "introspect {query: types} failed: UNSUPPORTED: no types"


# Operation details: evidence and schema


def test_operation_details_pass(bundle: Bundle) -> None:
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail == "5 operation detail(s) match the schema, naming, routing and permission rules."


def test_operation_details_without_evidence_fail(bundle: Bundle) -> None:
    del bundle["introspection"]["operation_details"]
    del bundle["introspection"]["operations_list"]
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "no evidence: no introspection.operation_details"


def test_operation_details_without_evidence_list_the_listed_operations(bundle: Bundle) -> None:
    del bundle["introspection"]["operation_details"]
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith("no evidence: no introspection.operation_details; ")
    assert "listed operations without detail evidence: introspect, create_widget" in outcome.detail


def test_an_invalid_operation_detail_fails_naming_the_operation_and_field(bundle: Bundle) -> None:
    del operation_detail(bundle, "get_widget")["returns"]
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "get_widget: $: missing required property 'returns'"


def test_an_invalid_operation_detail_without_a_name_is_named_by_its_path(bundle: Bundle) -> None:
    bundle["introspection"]["operation_details"].append({"description": "anonymous"})
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith("$.introspection.operation_details[5]: $: missing required property 'name'")


def test_an_undocumented_parameter_field_type_fails(bundle: Bundle) -> None:
    operation_detail(bundle, "get_widget")["parameters"][0]["required"] = "yes"
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        'operation details deviate from the spec: read `required: "yes"` as required: true (1 operation(s): get_widget)'
    )


# Operation details: naming (deliberate difference 10)


def test_an_operation_name_that_is_not_snake_case_fails(bundle: Bundle) -> None:
    entry = operation_detail(bundle, "get_widget")
    entry["name"] = "getWidget"
    operations(bundle)[2]["name"] = "getWidget"
    bundle["accepted_parameters"]["getWidget"] = bundle["accepted_parameters"].pop("get_widget")
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "getWidget: operation name is not snake_case"


def test_an_operation_documented_twice_fails(bundle: Bundle) -> None:
    bundle["introspection"]["operation_details"].append(dict(operation_detail(bundle, "delete_widget")))
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "delete_widget: operation documented 2 times"


def test_a_detail_missing_from_the_operations_list_fails(bundle: Bundle) -> None:
    del operations(bundle)[4]
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "delete_widget: has a detail but is missing from the operations list"


def test_list_and_detail_disagreeing_on_the_category_fail(bundle: Bundle) -> None:
    operations(bundle)[2]["semantic_category"] = "EXECUTE"
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "get_widget: semantic_category is 'EXECUTE' in the list but 'READ' in the detail"


def test_listed_operations_without_a_detail_warn(bundle: Bundle) -> None:
    operations(bundle).append(summary_of(detail("archive_widget", "UPDATE", [])))
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "listed operations without detail evidence: archive_widget"


# Operation details: routing and reserved names (deliberate difference 10)


def test_an_operation_routed_to_the_wrong_crude_endpoint_fails(bundle: Bundle) -> None:
    entry = operation_detail(bundle, "create_widget")
    entry["endpoint"] = "update"
    operations(bundle)[1]["endpoint"] = "update"
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "create_widget: CREATE operation routed to endpoint 'update', expected 'create'"


def test_an_mcp_tool_that_does_not_match_the_endpoint_fails(bundle: Bundle) -> None:
    operation_detail(bundle, "delete_widget")["mcpTool"] = "mcp_aql_update"
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "delete_widget: mcpTool 'mcp_aql_update' is not the tool of a DELETE operation "
        "(expected mcp_aql_delete or mcp_aql)"
    )


def test_the_single_tool_is_accepted_when_single_mode_is_declared(bundle: Bundle) -> None:
    bundle["endpoint_modes"] = ["single"]
    for entry in bundle["introspection"]["operation_details"]:
        entry["mcpTool"] = "mcp_aql"
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.PASS


def test_the_single_tool_fails_in_a_crude_only_profile(bundle: Bundle) -> None:
    bundle["endpoint_modes"] = ["crude"]
    operation_detail(bundle, "get_widget")["mcpTool"] = "mcp_aql"
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "get_widget: mcpTool 'mcp_aql' is not the tool of a READ operation (expected mcp_aql_read)"


def test_a_crude_tool_fails_in_a_single_only_profile(bundle: Bundle) -> None:
    bundle["endpoint_modes"] = ["single"]
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert "introspect: mcpTool 'mcp_aql_read' is not the tool of a READ operation (expected mcp_aql)" in outcome.detail


def test_a_custom_endpoint_family_is_not_held_to_crude_routing(bundle: Bundle) -> None:
    bundle["endpoint_modes"] = ["widgets"]
    entry = operation_detail(bundle, "get_widget")
    entry["endpoint"] = "widgets"
    entry["mcpTool"] = "widgets_tool"
    operations(bundle)[2]["endpoint"] = "widgets"
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.PASS


@pytest.mark.parametrize(
    ("name", "wrong", "expected"),
    [
        ("execute_agent", "READ", "EXECUTE"),
        ("confirm_operation", "UPDATE", "EXECUTE"),
        ("record_execution_step", "EXECUTE", "CREATE"),
        ("verify_challenge", "READ", "CREATE"),
    ],
)
def test_a_reserved_operation_in_the_wrong_category_fails(bundle: Bundle, name: str, wrong: str, expected: str) -> None:
    parameters = [param("input", required=True, type="object")] if wrong == "UPDATE" else []
    bundle["introspection"]["operation_details"].append(detail(name, wrong, parameters))
    operations(bundle).append(summary_of(detail(name, wrong, parameters)))
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == f"{name}: reserved operation must be {expected}, not {wrong}"


def test_introspect_documented_as_an_execute_operation_fails(bundle: Bundle) -> None:
    index = 0
    bundle["introspection"]["operation_details"][index] = detail(
        "introspect", "EXECUTE", [param("query", required=True), param("name")]
    )
    operations(bundle)[index] = summary_of(bundle["introspection"]["operation_details"][index])
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "introspect: reserved operation must be READ, not EXECUTE"


def test_a_reserved_operation_on_its_documented_endpoint_passes(bundle: Bundle) -> None:
    bundle["introspection"]["operation_details"].append(detail("execute_agent", "EXECUTE", []))
    operations(bundle).append(summary_of(detail("execute_agent", "EXECUTE", [])))
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.PASS


# Operation details: permissions (deliberate difference 10)


def set_permissions(bundle: Bundle, name: str, read_only: bool, destructive: bool) -> None:
    operation_detail(bundle, name)["permissions"] = {"readOnly": read_only, "destructive": destructive}


def test_a_read_that_is_not_read_only_fails(bundle: Bundle) -> None:
    set_permissions(bundle, "get_widget", False, False)
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "get_widget: READ operation is not readOnly"


def test_a_non_read_that_claims_read_only_fails(bundle: Bundle) -> None:
    set_permissions(bundle, "create_widget", True, False)
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "create_widget: CREATE operation claims readOnly"


def test_a_delete_that_is_not_destructive_fails(bundle: Bundle) -> None:
    set_permissions(bundle, "delete_widget", False, False)
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "delete_widget: DELETE operation is not marked destructive"


def test_a_non_destructive_update_only_warns(bundle: Bundle) -> None:
    # The spec's own fixtures mark UPDATE as non-destructive: that must not fail.
    set_permissions(bundle, "update_widget", False, False)
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == (
        "update_widget: UPDATE permissions readOnly=false, destructive=false differ from the spec table "
        "(readOnly=false, destructive=true)"
    )


def test_a_destructive_create_only_warns(bundle: Bundle) -> None:
    set_permissions(bundle, "create_widget", False, True)
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.WARN
    assert (
        "create_widget: CREATE permissions readOnly=false, destructive=true differ from the spec table"
        in outcome.detail
    )


def test_a_destructive_read_only_warns(bundle: Bundle) -> None:
    set_permissions(bundle, "get_widget", True, True)
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.WARN
    assert "get_widget: READ permissions readOnly=true, destructive=true" in outcome.detail


def test_a_non_destructive_execute_only_warns(bundle: Bundle) -> None:
    entry = detail("run_report", "EXECUTE", [], permissions={"readOnly": False, "destructive": False})
    bundle["introspection"]["operation_details"].append(entry)
    operations(bundle).append(summary_of(entry))
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.WARN
    assert "run_report: EXECUTE permissions readOnly=false, destructive=false" in outcome.detail


def test_a_warn_inside_introspection_keeps_exit_code_zero(bundle: Bundle) -> None:
    set_permissions(bundle, "update_widget", False, False)
    result = report(bundle, level=1)
    assert result.categories[0].result is Result.WARN
    assert result.exit_code == 0


# Completeness (deliberate difference 6)


def test_completeness_passes(bundle: Bundle) -> None:
    outcome = run(completeness, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail == "Every accepted parameter of 5 operation(s) is documented."


def test_completeness_without_accepted_parameters_fails(bundle: Bundle) -> None:
    del bundle["accepted_parameters"]
    outcome = run(completeness, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith("no evidence: no accepted_parameters")


def test_an_accepted_but_undocumented_parameter_fails(bundle: Bundle) -> None:
    bundle["accepted_parameters"]["get_widget"].append("include_deleted")
    outcome = run(completeness, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "get_widget.include_deleted: accepted but not documented"


def test_accepted_parameters_of_an_operation_without_detail_fail(bundle: Bundle) -> None:
    bundle["accepted_parameters"]["secret_op"] = ["token"]
    outcome = run(completeness, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "secret_op: accepts token but has no introspection detail"


def test_an_operation_without_detail_that_accepts_calls_fails(bundle: Bundle) -> None:
    bundle["accepted_parameters"]["hidden_op"] = []
    outcome = run(completeness, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "hidden_op: accepts calls but has no introspection detail"


def test_a_documented_but_unaccepted_parameter_warns(bundle: Bundle) -> None:
    bundle["accepted_parameters"]["get_widget"] = ["id"]
    outcome = run(completeness, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "get_widget.fields: documented but not accepted"


def test_operations_without_accepted_parameter_evidence_warn(bundle: Bundle) -> None:
    del bundle["accepted_parameters"]["delete_widget"]
    outcome = run(completeness, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "operations without accepted-parameter evidence: delete_widget"


def test_an_undocumented_parameter_fails_the_must_category(bundle: Bundle) -> None:
    bundle["accepted_parameters"]["get_widget"].append("debug")
    result = report(bundle, level=1)
    assert result.categories[0].result is Result.FAIL
    assert result.exit_code == 1
    assert result.conformance_level == 0


def test_param_builder_makes_valid_parameters() -> None:
    assert param("x", required=True) == {"name": "x", "type": "string", "required": True, "description": "The x."}


# Regressions found in review: routing and naming rules reach every endpoint and every listed name


def test_a_non_crude_endpoint_fails_when_no_custom_family_is_declared(bundle: Bundle) -> None:
    bundle["endpoint_modes"] = ["crude"]
    entry = operation_detail(bundle, "introspect")
    entry.update(endpoint="meta", mcpTool="mcp_aql_delete")
    next(op for op in operations(bundle) if op["name"] == "introspect")["endpoint"] = "meta"
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert "introspect: endpoint 'meta' is not a CRUDE endpoint, and endpoint_modes declares no custom family" in (
        outcome.detail
    )


def test_an_endpoint_among_the_declared_custom_families_is_accepted(bundle: Bundle) -> None:
    bundle["endpoint_modes"] = ["crude", "discover", "single"]
    entry = operation_detail(bundle, "introspect")
    entry.update(endpoint="discover", mcpTool="mcp_aql_discover")
    next(op for op in operations(bundle) if op["name"] == "introspect")["endpoint"] = "discover"
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.PASS, outcome.detail


def test_an_undeclared_custom_family_fails_and_names_the_declared_ones(bundle: Bundle) -> None:
    bundle["endpoint_modes"] = ["discover", "single"]
    operation_detail(bundle, "introspect").update(endpoint="meta", mcpTool="mcp_aql_meta")
    next(op for op in operations(bundle) if op["name"] == "introspect")["endpoint"] = "meta"
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert "introspect: endpoint 'meta' is not among the declared endpoint families (discover)" in outcome.detail


def test_a_listed_name_that_is_not_snake_case_fails(bundle: Bundle) -> None:
    operations(bundle).append(
        {"name": "Get-Note!", "semantic_category": "READ", "endpoint": "read", "description": "x"}
    )
    outcome = run(operations_query, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "Get-Note!: operation name is not snake_case"


def test_a_listed_reserved_name_with_the_wrong_category_fails(bundle: Bundle) -> None:
    listed = next(op for op in operations(bundle) if op["name"] == "introspect")
    listed["semantic_category"] = "CREATE"
    outcome = run(operations_query, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "introspect: reserved operation must be READ, not CREATE"


# Lenient reading: deviations fail in their own test, the rest is judged as read


def rename_key(entries: list[dict[str, Any]], old: str, new: str) -> None:
    for entry in entries:
        entry[new] = entry.pop(old)


def test_list_entries_named_under_another_key_fail_the_operations_query_and_are_still_read(bundle: Bundle) -> None:
    rename_key(operations(bundle), "name", "element_name")
    outcome = run(operations_query, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith(
        "introspect {query: operations} deviates from the spec: read `element_name` as the operation name ("
    )
    assert "operation(s): introspect, create_widget" in outcome.detail
    assert run(operation_details, bundle).result is Result.PASS  # details and list still agree, as read


def test_a_category_given_only_as_an_upper_case_endpoint_fails_and_is_still_read(bundle: Bundle) -> None:
    for entry in operations(bundle):
        entry["endpoint"] = entry.pop("semantic_category")
    outcome = run(operations_query, bundle)
    assert outcome.result is Result.FAIL
    assert "read the CRUDE word in `endpoint` as the semantic category (no `semantic_category`)" in outcome.detail
    for item in bundle["introspection"]["operation_details"]:
        del item["semantic_category"]
        item["endpoint"] = item["endpoint"].upper()
    details = run(operation_details, bundle)
    assert details.result is Result.FAIL
    assert details.detail.startswith("operation details deviate from the spec: read the CRUDE word in `endpoint` ")
    assert "permission" not in details.detail and "routed" not in details.detail  # judged as read: no other fault
    create_read = report(bundle, category="Round-Trip Integrity").categories[0].tests[0]
    assert create_read.result is Result.PASS  # the CREATE operations are known from the lenient reading


def test_details_named_under_another_key_are_judged_as_read(bundle: Bundle) -> None:
    rename_key(bundle["introspection"]["operation_details"], "name", "element_name")
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith(
        "operation details deviate from the spec: read `element_name` as the operation name ("
    )
    assert run(completeness, bundle).result is Result.PASS
    assert report(bundle, category="Parameter Handling").categories[0].result is Result.PASS


LIMITS = {"limits": {"max_nesting_depth": 32}}


@pytest.mark.parametrize(
    ("protocol", "result", "shown"),
    [
        (
            {"version": "1.0.0", "mode": "semantic", "conformance": "level-1", "profile": "crude", **LIMITS},
            Result.PASS,
            "",
        ),
        ({"version": "1.0.0", "mode": "semantic"}, Result.WARN, "_protocol has no `conformance`"),
        ({"version": "1.0.0", "conformance": "level-2"}, Result.WARN, "_protocol has no `mode`"),
        ({"version": "1.0.0-draft", "mode": "all", "conformance": "level-1", **LIMITS}, Result.PASS, ""),
        # core §4.7.5: limits in _protocol are a SHOULD
        ({"version": "1.0.0-draft", "mode": "all", "conformance": "level-1"}, Result.WARN, "_protocol has no `limits`"),
        # introspection §4.1.1: mode and conformance are SHOULDs, capabilities a MAY, the version a MUST
        ({"version": "1.0.0", "mode": "crude"}, Result.WARN, "CRUDE is a profile of the semantic endpoint mode"),
        ({"version": "1.0.0", "mode": "turbo"}, Result.WARN, "_protocol.mode: must be one of"),
        ({"version": "1.0.0", "conformance": "gold"}, Result.WARN, "_protocol.conformance: must be one of"),
        (
            {"version": "1.0.0", "mode": "all", "conformance": "level-1", "capabilities": {"x": 1}, **LIMITS},
            Result.PASS,
            "",
        ),
        ({"mode": "single"}, Result.FAIL, "_protocol: missing required property 'version'"),
        ({"version": "one", "mode": "single"}, Result.FAIL, "_protocol.version: does not match the pattern"),
    ],
)
def test_protocol_metadata_is_judged_field_by_field_at_its_own_strength(
    bundle: Bundle, protocol: dict[str, Any], result: Result, shown: str
) -> None:
    bundle["introspection"]["operations_list"]["data"]["_protocol"] = protocol
    outcome = run(operations_query, bundle)
    assert outcome.result is result
    assert shown in outcome.detail


def test_an_operations_list_without_protocol_metadata_warns(bundle: Bundle) -> None:
    del bundle["introspection"]["operations_list"]["data"]["_protocol"]
    outcome = run(operations_query, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "introspect {query: operations} carries no `_protocol` (with at least its spec version)"


def test_an_introspect_that_refused_query_before_another_reading_worked_fails(bundle: Bundle) -> None:
    refusal = fail("VALIDATION_UNKNOWN_PARAM", "unknown parameter: query")
    bundle["introspection"]["query_attempts"] = [
        {"query": "operations", "tool": "mcp_aql_read", "params": {"query": "operations"}, "response": refusal},
        {"query": "types", "tool": "mcp_aql_read", "params": {"query": "types"}, "response": refusal},
    ]
    for test in (operations_query, types_query):
        outcome = run(test, bundle)
        assert outcome.result is Result.FAIL
        assert "via mcp_aql_read: refused (VALIDATION_UNKNOWN_PARAM: unknown parameter: query)" in outcome.detail


def test_a_server_without_any_mcp_aql_tool_fails_the_operations_query_naming_its_tools() -> None:
    bundle = {"mcp_tools": [{"name": "hello", "inputSchema": {"properties": {"name": {}}}}]}
    outcome = run(operations_query, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "the server exposes no MCP-AQL tool (mcp_aql, mcp_aql_<family>); its tools: hello"


def test_tools_named_off_the_spec_warn_in_the_operation_details(bundle: Bundle) -> None:
    # mcp-integration §2.2.1 names the tools with a SHOULD (core §3.3 without a keyword)
    bundle["mcp_tools"] = [{"name": name} for name in ("mcpaql_read", "mcpaql_create", "mcp_aql_update")]
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.WARN
    assert "tool 'mcpaql_read' is named 'mcp_aql_read' by the spec" in outcome.findings
    assert "tool 'mcpaql_create' is named 'mcp_aql_create' by the spec" in outcome.findings
    assert not any("mcp_aql_update" in finding for finding in outcome.findings)


def test_a_tool_prefix_the_spec_allows_is_accepted_in_tools_and_details(bundle: Bundle) -> None:
    bundle["mcp_tools"] = [{"name": f"github_mcp_aql_{e}"} for e in ("create", "read", "update", "delete", "execute")]
    for item in bundle["introspection"]["operation_details"]:
        item["mcpTool"] = "github_" + item["mcpTool"]
    assert run(operation_details, bundle).result is Result.PASS


def test_detail_queries_that_gave_no_detail_fail_quoting_the_answer(bundle: Bundle) -> None:
    details = bundle["introspection"]["operation_details"]
    lost = details.pop()
    bundle["introspection"]["detail_queries"] = [
        {"operation": lost["name"], "response": bundle["introspection"]["operations_list"]}
    ]
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        f"introspect {{query: operations, name: {lost['name']}}}: "
        "answered the operations list instead of the detail (ignored `name`)"
    )


# Routing evidence: a refusal in any form counts as a refusal


@pytest.mark.parametrize(
    "refusal",
    [
        fail("VALIDATION_WRONG_ENDPOINT", "Operation 'get_widget' must be called via mcp_aql_read."),
        {"success": False, "error": "Operation 'get_widget' must be called via mcp_aql_read, not mcp_aql_create"},
        {"_raw_text": "Security violation: call get_widget via mcp_aql_read", "_is_error": True},
        {"_mcp_error": {"code": -32603, "message": "fetch failed"}},
    ],
)
def test_an_operation_sent_to_the_wrong_endpoint_and_refused_in_any_form_passes_routing(
    bundle: Bundle, refusal: dict[str, Any]
) -> None:
    bundle["routing_tests"] = [{"operation": "get_widget", "tool": "mcp_aql_create", "response": refusal}]
    assert run(operation_details, bundle).result is Result.PASS


@pytest.mark.parametrize(
    ("answer", "detail"),
    [
        (ok({"id": "w1"}), "get_widget via mcp_aql_create: executed although sent to the wrong endpoint"),
        (
            {"_raw_text": "Widget w1", "_is_error": False},
            "get_widget via mcp_aql_create: not refused although sent to the wrong endpoint "
            '(answered with plain text, not an MCP-AQL result: "Widget w1")',
        ),
    ],
)
def test_an_operation_executed_or_not_refused_on_the_wrong_endpoint_fails_routing(
    bundle: Bundle, answer: dict[str, Any], detail: str
) -> None:
    bundle["routing_tests"] = [{"operation": "get_widget", "tool": "mcp_aql_create", "response": answer}]
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == detail


def test_a_wrong_endpoint_refused_for_its_parameters_is_refused_but_warns_about_the_form(bundle: Bundle) -> None:
    # core §6.2 (MUST) asks for a refusal and names no code; operations §6.3 advises one about the endpoint
    refusal = fail("VALIDATION_MISSING_PARAM", "Missing required parameter 'widget_name'.")
    bundle["routing_tests"] = [{"operation": "get_widget", "tool": "mcp_aql_create", "response": refusal}]
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == (
        "get_widget via mcp_aql_create: refused, but for its parameters rather than for the endpoint"
        " (VALIDATION_MISSING_PARAM: Missing required parameter 'widget_name'.)"
    )


@pytest.mark.parametrize("code", ["VALIDATION_ENDPOINT_MISMATCH", "OPERATION_NOT_ALLOWED", "VALIDATION_WRONG_TOOL"])
def test_a_wrong_endpoint_refused_with_any_code_about_the_endpoint_passes(bundle: Bundle, code: str) -> None:
    refusal = fail(code, "get_widget is a READ operation: call it through mcp_aql_read.")
    bundle["routing_tests"] = [{"operation": "get_widget", "tool": "mcp_aql_create", "response": refusal}]
    assert run(operation_details, bundle).result is Result.PASS


@pytest.mark.parametrize(
    ("endpoint", "reason"),
    [
        ("Read", "endpoint 'Read' is not the lowercase family name 'read'"),
        ("mcp_aql_read", "endpoint 'mcp_aql_read' names the MCP tool where the family name 'read' is advised"),
    ],
)
def test_an_endpoint_not_spelled_as_the_lowercase_family_only_warns(bundle: Bundle, endpoint: str, reason: str) -> None:
    operation_detail(bundle, "get_widget")["endpoint"] = endpoint
    next(o for o in operations(bundle) if o["name"] == "get_widget")["endpoint"] = endpoint
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == f"get_widget: {reason}"


def test_introspect_missing_from_the_operations_list_only_warns(bundle: Bundle) -> None:
    operations(bundle)[:] = [o for o in operations(bundle) if o["name"] != "introspect"]
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "introspect is not in the operations list"


def test_operation_null_for_a_name_the_server_does_not_list_is_the_spec_answer(bundle: Bundle) -> None:
    bundle["introspection"]["detail_queries"] = [{"operation": "legacy_widget", "response": ok({"operation": None})}]
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.PASS


def test_operation_null_for_a_listed_name_fails(bundle: Bundle) -> None:
    bundle["introspection"]["operation_details"] = [
        d for d in bundle["introspection"]["operation_details"] if d["name"] != "delete_widget"
    ]
    bundle["introspection"]["detail_queries"] = [{"operation": "delete_widget", "response": ok({"operation": None})}]
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert "introspect {query: operations, name: delete_widget}: answered `operation: null` for a listed operation" in (
        outcome.detail
    )


@pytest.mark.parametrize(
    ("response", "result", "detail"),
    [
        (ok({"operation": None}), Result.PASS, ""),
        ({"success": True, "data": None}, Result.PASS, ""),  # "a success response with null data"
        (
            fail("NOT_FOUND_OPERATION", "No operation zz_made_up."),
            Result.FAIL,
            "introspect {query: operations, name: zz_made_up} (no such operation): refused where it should succeed"
            " with `operation: null` (NOT_FOUND_OPERATION: No operation zz_made_up.)",
        ),
        (
            ok({}),
            Result.FAIL,
            "introspect {query: operations, name: zz_made_up} (no such operation): succeeded without"
            " `data.operation` (expected `operation: null`)",
        ),
    ],
)
def test_an_operation_detail_query_for_a_made_up_name_answers_null(
    bundle: Bundle, response: Bundle, result: Result, detail: str
) -> None:
    query = {"query": "operations", "name": "zz_made_up", "response": response}
    bundle["introspection"]["unknown_name_queries"] = [query]
    outcome = run(operation_details, bundle)
    assert outcome.result is result
    assert detail in outcome.detail


@pytest.mark.parametrize(
    ("parameters", "reason"),
    [
        ([param("id", required=True), param("color")], "an UPDATE operation documents no `input` object (its fields"
         " are flat in params: color)"),
        ([param("id", required=True), param("input", required=True)], "`input` is documented as 'string', not an"
         " object"),
    ],
)  # fmt: skip
def test_an_update_without_a_documented_input_object_fails(bundle: Bundle, parameters: list[Any], reason: str) -> None:
    operation_detail(bundle, "update_widget")["parameters"] = parameters
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert f"update_widget: {reason}" in outcome.detail


@pytest.mark.parametrize(
    ("key", "value", "reason"),
    [
        ("computed_fields", [{"name": "age"}], "$.computed_fields[0]: missing required property 'type'"),
        ("aggregation_support", {"functions": ["sum"]}, "$.aggregation_support: missing required property"),
        ("relationship_capabilities", {"supported": True, "directions": ["up"]}, "$.relationship_capabilities"
         ".directions[0]: must be one of"),
        ("lifecycle", {"states": "running"}, "$.lifecycle.states: expected an array, got string"),
        ("examples", [{"description": "no request"}], "$.examples[0]"),
    ],
)  # fmt: skip
def test_malformed_query_language_metadata_in_details_fails(bundle: Bundle, key: str, value: Any, reason: str) -> None:
    operation_detail(bundle, "get_widget")[key] = value
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith(f"get_widget: {reason}")


def test_well_formed_query_language_metadata_in_details_passes(bundle: Bundle) -> None:
    detail = operation_detail(bundle, "get_widget")
    detail["computed_fields"] = [{"name": "age_days", "type": "integer", "filterable": True, "sortable": False}]
    detail["aggregation_support"] = {"supported": True, "default_mode": "summary_only", "functions": ["count"]}
    detail["relationship_capabilities"] = {"supported": True, "directions": ["both"], "max_depth": 3}
    detail["examples"] = [{"description": "Fetch one", "request": {"operation": "get_widget", "params": {"id": "w1"}}}]
    assert run(operation_details, bundle).result is Result.PASS


def test_examples_as_strings_fail_the_normative_schema_naming_the_field(bundle: Bundle) -> None:
    # Core Appendix D (normative) and introspection §3.3 make each example a {request, description} object.
    operation_detail(bundle, "get_widget")["examples"] = ['{ operation: "get_widget", params: { id: "w1" } }']
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert "get_widget: $.examples[0]: expected an object, got string" in outcome.findings
    assert [getattr(f, "rule", "") for f in outcome.findings] == ["introspection:8.1:must-list"]


def test_a_return_type_named_under_another_key_is_read_and_failed(bundle: Bundle) -> None:
    returns = operation_detail(bundle, "get_widget")["returns"]
    returns["element_name"] = returns.pop("name")
    outcome = run(operation_details, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "operation details deviate from the spec: read `element_name` as the return type's name "
        "(1 operation(s): get_widget)"
    )


def test_a_cross_cutting_parameter_takes_one_type_and_a_page_size_one_default(bundle: Bundle) -> None:
    from mcpaql_conformance.verdict.checks.details import shared_parameter_findings

    def detail(name: str, *parameters: dict[str, Any]) -> dict[str, Any]:
        return {"name": name, "parameters": list(parameters)}

    first = {"name": "first", "type": "integer", "required": False, "default": 20}
    fields = {"name": "fields", "type": "string | string[]", "required": False, "default": "standard"}
    same = [
        detail("list_a", first, fields),
        detail("list_b", first, {**fields, "type": "string[]|string", "default": "full"}),
    ]
    assert shared_parameter_findings(same) == []  # a union in another order; `fields` defaults differ by kind
    other = [detail("list_a", first), detail("list_b", {**first, "type": "number", "default": 50})]
    found = shared_parameter_findings(other)
    assert found == [
        "`first` has several types: integer on list_a; number on list_b",
        "`first` has several defaults: 20 on list_a; 50 on list_b",
    ]
    assert [getattr(f, "rule", "") for f in found] == ["operations:4.4.4:same-type", "operations:4.4.4:same-default"]
    assert shared_parameter_findings([detail("list_a", first)]) == []  # one operation shares nothing


def test_a_search_operation_takes_its_free_text_in_query() -> None:
    from mcpaql_conformance.verdict.checks.details import search_query_findings

    def search(*parameters: dict[str, Any], name: str = "search_notes") -> dict[str, Any]:
        return {"name": name, "semantic_category": "READ", "parameters": list(parameters)}

    query = {"name": "query", "type": "string", "required": True}
    term = {"name": "term", "type": "string", "required": True}
    owner = {"name": "owner_id", "type": "string", "required": False}
    assert search_query_findings([search(query, owner)]) == []
    assert search_query_findings([search(term, name="list_notes")]) == []  # not a search_* operation
    found = search_query_findings([search(owner, term)])
    assert found == ["search_notes takes no `query` parameter; its free text seems to go in `term`"]
    assert [getattr(f, "rule", "") for f in found] == ["features/collection-querying:2.1:search-query-name"]
    assert search_query_findings([search(owner)]) == []  # no text to search by: nothing to name


def test_a_list_operation_does_not_require_query() -> None:
    from mcpaql_conformance.verdict.checks.details import list_query_findings

    query = {"name": "query", "type": "string", "required": True}
    assert list_query_findings([{"name": "list_notes", "parameters": [{**query, "required": False}]}]) == []
    assert list_query_findings([{"name": "search_notes", "parameters": [query]}]) == []  # search_* takes it
    found = list_query_findings([{"name": "list_notes", "parameters": [query]}])
    assert found == ["list_notes requires `query`"]
    assert [getattr(f, "rule", "") for f in found] == ["features/collection-querying:2.1:list-no-query"]
