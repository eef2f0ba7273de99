"""Parameter Handling (MUST): required, unknown and defaulted parameters, snake_case names."""

from __future__ import annotations

from typing import Any

import pytest
from bundle_builders import fail, ok, operation_detail, param, parameter_case, report, run

from mcpaql_conformance.verdict.checks.introspection import completeness
from mcpaql_conformance.verdict.checks.parameters import defaults, required_enforced, snake_case, unknown_explicit
from mcpaql_conformance.verdict.model import Result

Bundle = dict[str, Any]


def only_operation(bundle: Bundle, name: str, parameters: list[dict[str, Any]]) -> None:
    """Reduce the bundle's introspection to one operation with these parameters."""
    entry = operation_detail(bundle, name)
    entry["parameters"] = parameters
    bundle["introspection"]["operation_details"] = [entry]
    listed = bundle["introspection"]["operations_list"]["data"]["operations"]
    bundle["introspection"]["operations_list"]["data"]["operations"] = [op for op in listed if op["name"] == name]
    bundle["accepted_parameters"] = {name: [p["name"] for p in parameters]}


def test_conformant_bundle_passes_the_whole_category(bundle: Bundle) -> None:
    category = report(bundle, category="parameter handling").categories[0]
    assert category.result is Result.PASS
    assert [t.id for t in category.tests] == [
        "L1.params.required-enforced",
        "L1.params.unknown-explicit",
        "L1.params.defaults",
        "L1.params.snake-case",
    ]


def test_empty_bundle_fails_the_category_without_vacuous_passes() -> None:
    category = report({}, category="Parameter Handling").categories[0]
    results = {t.id: (t.result, t.detail) for t in category.tests}
    assert results["L1.params.required-enforced"] == (
        Result.FAIL,
        "no evidence: no parameter_tests.missing_required",
    )
    assert results["L1.params.unknown-explicit"] == (Result.FAIL, "no evidence: no parameter_tests.unknown_parameter")
    assert results["L1.params.snake-case"] == (Result.FAIL, "no evidence: no operation details or accepted parameters")
    assert results["L1.params.defaults"] == (Result.FAIL, "no evidence: no parameter_tests.optional_defaults")
    assert category.result is Result.FAIL


# Required parameters are enforced


def test_required_parameters_pass(bundle: Bundle) -> None:
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail == "6 omitted required parameter(s) each failed with an error naming the parameter."


def test_required_parameters_without_evidence_fail_listing_what_applies(bundle: Bundle) -> None:
    del bundle["parameter_tests"]["missing_required"]
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith("no evidence: no parameter_tests.missing_required; ")
    assert (
        "required parameters without missing-parameter evidence: introspect.query, create_widget.widget_name"
        in outcome.detail
    )


def test_required_parameters_partly_covered_warn_listing_the_rest(bundle: Bundle) -> None:
    cases = bundle["parameter_tests"]["missing_required"]
    bundle["parameter_tests"]["missing_required"] = [c for c in cases if c["operation"] != "update_widget"]
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == (
        "required parameters without missing-parameter evidence: update_widget.id, update_widget.input"
    )


def test_a_missing_required_parameter_that_succeeds_fails(bundle: Bundle) -> None:
    parameter_case(bundle, "missing_required", "get_widget", "id")["response"] = ok({"id": None})
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "get_widget.id: the call succeeded without the required parameter"


def test_a_refusal_without_an_error_object_counts_as_a_refusal_and_warns_for_its_code(bundle: Bundle) -> None:
    # Its form is the discriminated-union test's business; here only "did it refuse, naming id?"
    parameter_case(bundle, "missing_required", "get_widget", "id")["response"] = {"success": False, "message": "no id"}
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == (
        'get_widget.id: no error code (failed without an error object (message: "no id")), '
        "expected VALIDATION_MISSING_PARAM"
    )


def test_an_answer_that_is_neither_success_nor_refusal_fails(bundle: Bundle) -> None:
    parameter_case(bundle, "missing_required", "get_widget", "id")["response"] = {"_raw_text": "Note 7 ready."}
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        'get_widget.id: the answer is not a refusal (answered with plain text, not an MCP-AQL result: "Note 7 ready.")'
    )


@pytest.mark.parametrize(
    ("response", "shown"),
    [
        ({"success": False, "error": "Missing required parameter 'id'"}, "error is a string, not an object"),
        ({"_raw_text": "Missing required parameter 'id'", "_is_error": True}, "MCP error result (isError)"),
        ({"_mcp_error": {"code": -32602, "message": "Missing required parameter 'id'"}}, "JSON-RPC error -32602"),
        ({"_raw_text": "Error: missing required parameter 'id'", "_is_error": False}, "plain text"),
    ],
)
def test_a_refusal_in_any_form_names_the_parameter_and_only_warns_for_its_code(
    bundle: Bundle, response: dict[str, Any], shown: str
) -> None:
    parameter_case(bundle, "missing_required", "get_widget", "id")["response"] = response
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail.startswith("get_widget.id: no error code (") and shown in outcome.detail


def test_an_error_that_does_not_name_the_parameter_fails(bundle: Bundle) -> None:
    parameter_case(bundle, "missing_required", "get_widget", "id")["response"] = fail(
        "VALIDATION_MISSING_PARAM", "A required parameter is missing."
    )
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "get_widget.id: the refusal does not name the parameter "
        "(VALIDATION_MISSING_PARAM: A required parameter is missing.)"
    )


def test_an_error_naming_a_longer_identifier_does_not_name_the_parameter(bundle: Bundle) -> None:
    # Deliberate difference 3: "id" inside "widget_id" is not the parameter "id".
    parameter_case(bundle, "missing_required", "get_widget", "id")["response"] = fail(
        "VALIDATION_MISSING_PARAM", "Missing widget_id."
    )
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "get_widget.id: the refusal does not name the parameter (VALIDATION_MISSING_PARAM: Missing widget_id.)"
    )


def test_an_error_with_another_code_that_names_the_parameter_warns(bundle: Bundle) -> None:
    parameter_case(bundle, "missing_required", "get_widget", "id")["response"] = fail(
        "VALIDATION_ERROR", "Parameter id is required."
    )
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "get_widget.id: error code 'VALIDATION_ERROR', expected VALIDATION_MISSING_PARAM"


def test_an_update_without_input_refused_with_another_code_fails_as_the_core_names_the_code(bundle: Bundle) -> None:
    # core §4.5.3: reject requests missing `input` with VALIDATION_MISSING_PARAM (a core MUST,
    # not the informative operations §8.3 that warns for other parameters)
    parameter_case(bundle, "missing_required", "update_widget", "input")["response"] = fail(
        "VALIDATION_ERROR", "Parameter input is required."
    )
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.FAIL
    assert "update_widget.input: error code 'VALIDATION_ERROR', expected VALIDATION_MISSING_PARAM" in outcome.detail
    assert [getattr(finding, "rule", "") for finding in outcome.findings] == ["core:4.5.3:missing-input-rejected"]


def test_every_missing_parameter_case_is_judged_even_for_the_same_parameter(bundle: Bundle) -> None:
    cases = bundle["parameter_tests"]["missing_required"]
    cases.insert(0, {"operation": "get_widget", "parameter": "id", "response": ok({"id": None})})
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "get_widget.id: the call succeeded without the required parameter"


def test_required_parameters_skip_when_none_is_documented(bundle: Bundle) -> None:
    only_operation(bundle, "get_widget", [param("fields")])
    del bundle["parameter_tests"]["missing_required"]
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.SKIP
    assert outcome.detail == "No documented operation has a required parameter."


def test_evidence_for_an_undocumented_requirement_is_still_judged(bundle: Bundle) -> None:
    only_operation(bundle, "get_widget", [param("fields")])
    bundle["parameter_tests"]["missing_required"] = [{"operation": "get_widget", "parameter": "id", "response": ok({})}]
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "get_widget.id: the call succeeded without the required parameter"


# Unknown parameters (deliberate difference 5)


def set_unknown_response(bundle: Bundle, response: dict[str, Any], operation: str = "get_widget") -> None:
    parameter_case(bundle, "unknown_parameter", operation, "bogus")["response"] = response


def test_unknown_parameters_pass(bundle: Bundle) -> None:
    outcome = run(unknown_explicit, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail == "5 unknown parameter(s) each refused with VALIDATION_UNKNOWN_PARAM, naming it."


def test_unknown_parameters_without_evidence_fail(bundle: Bundle) -> None:
    del bundle["parameter_tests"]["unknown_parameter"]
    outcome = run(unknown_explicit, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith("no evidence: no parameter_tests.unknown_parameter; ")
    assert "operations without unknown-parameter evidence: introspect, create_widget" in outcome.detail


def test_every_operation_calls_for_unknown_parameter_evidence(bundle: Bundle) -> None:
    cases = bundle["parameter_tests"]["unknown_parameter"]
    bundle["parameter_tests"]["unknown_parameter"] = [c for c in cases if c["operation"] != "delete_widget"]
    outcome = run(unknown_explicit, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "operations without unknown-parameter evidence: delete_widget"


def test_a_silently_accepted_unknown_parameter_fails(bundle: Bundle) -> None:
    set_unknown_response(bundle, ok({"id": "w1"}))
    outcome = run(unknown_explicit, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "get_widget.bogus: silently accepted: no error and no warning names it"


def test_a_success_with_an_unrelated_warning_fails(bundle: Bundle) -> None:
    set_unknown_response(bundle, ok({}, warnings=[{"code": "DEPRECATED", "message": "get_widget is deprecated"}]))
    outcome = run(unknown_explicit, bundle)
    assert outcome.result is Result.FAIL
    assert "get_widget.bogus: silently accepted" in outcome.detail


@pytest.mark.parametrize(
    "warning",
    [
        {"code": "IGNORED", "message": "Ignored parameter 'bogus'."},
        {"code": "VALIDATION_UNKNOWN_PARAM", "message": "Ignored 1 field."},
    ],
)
def test_an_unknown_parameter_accepted_with_a_warning_fails_as_the_core_requires_refusal(
    bundle: Bundle, warning: Bundle
) -> None:
    # core §4.6.2: a warning instead of a refusal only with strict_mode disabled (development only); the
    # default MUST refuse. conformance-testing §3.2 would pass it: the normative core wins.
    set_unknown_response(bundle, ok({}, warnings=[warning]))
    outcome = run(unknown_explicit, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "get_widget.bogus: accepted with a warning where the default must refuse it"
    assert report(bundle).categories[1].tests[1].cited == ("core:4.6.2:default-rejects",)


@pytest.mark.parametrize(
    ("response", "said"),
    [
        (fail("VALIDATION_INVALID_PARAM", "Unknown parameter 'bogus'."), "error code VALIDATION_INVALID_PARAM"),
        (
            {"success": False, "error": "Unknown parameter 'bogus'."},
            "no error code (error is a string, not an object: \"Unknown parameter 'bogus'.\")",
        ),
    ],
)
def test_an_unknown_parameter_refused_with_another_code_fails(bundle: Bundle, response: Bundle, said: str) -> None:
    set_unknown_response(bundle, response)
    outcome = run(unknown_explicit, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == f"get_widget.bogus: refused with {said}, not VALIDATION_UNKNOWN_PARAM"


def test_underscore_metadata_parameters_are_outside_unknown_parameter_validation(bundle: Bundle) -> None:
    metadata = {"operation": "get_widget", "parameter": "_request_id", "response": ok({"id": "w1"})}
    bundle["parameter_tests"]["unknown_parameter"].append(metadata)  # accepted silently: core §4.6.1 exempts it
    outcome = run(unknown_explicit, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail.endswith("(1 metadata field(s) with a leading underscore are outside this rule).")


def test_an_error_that_names_the_parameter_in_details_passes(bundle: Bundle) -> None:
    set_unknown_response(bundle, fail("VALIDATION_UNKNOWN_PARAM", "Unknown parameters.", unknown_params=["bogus"]))
    assert run(unknown_explicit, bundle).result is Result.PASS


def test_an_error_that_names_the_parameter_as_a_details_value_passes(bundle: Bundle) -> None:
    set_unknown_response(bundle, fail("VALIDATION_UNKNOWN_PARAM", "Unknown parameter.", parameter="bogus"))
    assert run(unknown_explicit, bundle).result is Result.PASS


def test_an_unknown_parameter_error_that_does_not_name_it_fails(bundle: Bundle) -> None:
    set_unknown_response(bundle, fail("VALIDATION_ERROR", "Invalid request."))
    outcome = run(unknown_explicit, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "get_widget.bogus: the refusal does not name the unknown parameter (VALIDATION_ERROR: Invalid request.)"
    )


def test_an_unknown_parameter_error_naming_a_longer_identifier_fails(bundle: Bundle) -> None:
    set_unknown_response(bundle, fail("VALIDATION_ERROR", "Unknown parameter bogus_flag."))
    outcome = run(unknown_explicit, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "get_widget.bogus: the refusal does not name the unknown parameter "
        "(VALIDATION_ERROR: Unknown parameter bogus_flag.)"
    )


def test_a_success_with_malformed_warnings_counts_as_silent(bundle: Bundle) -> None:
    set_unknown_response(bundle, {"success": True, "data": {}, "warnings": 7})
    outcome = run(unknown_explicit, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "get_widget.bogus: silently accepted: no error and no warning names it"


def test_an_unstructured_answer_to_an_unknown_parameter_fails(bundle: Bundle) -> None:
    set_unknown_response(bundle, {"status": "ignored"})
    outcome = run(unknown_explicit, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "get_widget.bogus: neither refused nor answered with a warning "
        "(answered a JSON object without a success flag (keys: status))"
    )


# Documented defaults


def test_defaults_pass(bundle: Bundle) -> None:
    outcome = run(defaults, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail == "1 documented default(s) observed in the responses."


def test_defaults_skip_when_no_parameter_documents_a_default(bundle: Bundle) -> None:
    del operation_detail(bundle, "create_widget")["parameters"][1]["default"]
    del bundle["parameter_tests"]["optional_defaults"]
    outcome = run(defaults, bundle)
    assert outcome.result is Result.SKIP
    assert outcome.detail == "No documented parameter declares a default."


def test_defaults_without_evidence_fail(bundle: Bundle) -> None:
    del bundle["parameter_tests"]["optional_defaults"]
    outcome = run(defaults, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "no evidence: no parameter_tests.optional_defaults; documented defaults without evidence: create_widget.color"
    )


def test_defaults_partly_covered_warn(bundle: Bundle) -> None:
    operation_detail(bundle, "get_widget")["parameters"][1]["default"] = ["id"]
    outcome = run(defaults, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "documented defaults without evidence: get_widget.fields"


def test_a_null_default_is_still_a_documented_default(bundle: Bundle) -> None:
    operation_detail(bundle, "get_widget")["parameters"][1]["default"] = None
    outcome = run(defaults, bundle)
    assert outcome.result is Result.WARN
    assert "get_widget.fields" in outcome.detail


def test_a_different_default_value_fails_showing_both(bundle: Bundle) -> None:
    parameter_case(bundle, "optional_defaults", "create_widget", "color")["response"] = ok({"color": "red"})
    outcome = run(defaults, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == 'create_widget.color: data.color expected "blue", got "red"'


@pytest.mark.parametrize(
    ("documented", "expected", "answered", "result", "detail"),
    [
        # documented 20, the bundle and the answer say 50: the documented default is the spec's word
        (20, 50, 50, Result.FAIL, "create_widget.color: data.color expected the documented default 20, got 50"),
        # the answer is the documented default; the bundle's own value disagrees: said, at WARN
        (20, 50, 20, Result.WARN, "create_widget.color: the bundle expects 50, but introspection documents the "
                                  "default 20 (judged against the documented default)"),
        (True, True, 1, Result.FAIL, "create_widget.color: data.color expected true, got 1"),  # 1 is not true
        (1, 1, True, Result.FAIL, "create_widget.color: data.color expected 1, got true"),
        (20, 20.0, 20.0, Result.PASS, "1 documented default(s) observed in the responses."),  # 20.0 is 20
    ],
)  # fmt: skip
def test_the_answer_is_judged_against_the_documented_default(
    bundle: Bundle, documented: Any, expected: Any, answered: Any, result: Result, detail: str
) -> None:
    operation_detail(bundle, "create_widget")["parameters"][1]["default"] = documented
    case = parameter_case(bundle, "optional_defaults", "create_widget", "color")
    case["expected_value"] = expected
    case["response"] = ok({"color": answered})
    outcome = run(defaults, bundle)
    assert (outcome.result, outcome.detail) == (result, detail)


def test_a_default_absent_from_the_response_fails(bundle: Bundle) -> None:
    parameter_case(bundle, "optional_defaults", "create_widget", "color")["response"] = ok({"id": "w1"})
    outcome = run(defaults, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "create_widget.color: data.color is not in the response"


def test_a_default_call_that_failed_fails(bundle: Bundle) -> None:
    parameter_case(bundle, "optional_defaults", "create_widget", "color")["response"] = fail("INTERNAL", "boom")
    outcome = run(defaults, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "create_widget.color: the call without the parameter failed (INTERNAL: boom)"


def set_default_case(bundle: Bundle, expected: Any, actual: Any, path: str = "data.limit") -> None:
    case = parameter_case(bundle, "optional_defaults", "create_widget", "color")
    case["expected_value_path"] = path
    case["expected_value"] = expected
    case["response"] = ok({"limit": actual, "items": [{"id": "a"}, {"id": "b"}]})
    operation_detail(bundle, "create_widget")["parameters"][1]["default"] = expected  # what introspection says


def test_default_one_equals_one_point_zero(bundle: Bundle) -> None:
    # Deliberate difference 4: JSON deep equality.
    set_default_case(bundle, 1, 1.0)
    assert run(defaults, bundle).result is Result.PASS


def test_default_true_is_not_one(bundle: Bundle) -> None:
    set_default_case(bundle, True, 1)
    outcome = run(defaults, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "create_widget.color: data.limit expected true, got 1"


def test_default_objects_compare_regardless_of_key_order(bundle: Bundle) -> None:
    set_default_case(bundle, {"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1})
    assert run(defaults, bundle).result is Result.PASS


def test_default_paths_may_index_lists(bundle: Bundle) -> None:
    set_default_case(bundle, "b", None, path="data.items.1.id")
    assert run(defaults, bundle).result is Result.PASS


# snake_case parameter names


def test_snake_case_parameters_pass(bundle: Bundle) -> None:
    outcome = run(snake_case, bundle)
    assert outcome.result is Result.PASS
    assert "public parameter name(s) are snake_case" in outcome.detail


def test_a_camel_case_documented_parameter_fails(bundle: Bundle) -> None:
    operation_detail(bundle, "create_widget")["parameters"][0]["name"] = "widgetName"
    outcome = run(snake_case, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "create_widget.widgetName: not snake_case"


def test_a_camel_case_alias_beside_its_snake_case_name_passes_but_stays_undocumented(bundle: Bundle) -> None:
    # operations §4.1 (MAY): aliases beside the canonical snake_case name; accepted but not documented,
    # the alias is still an undocumented parameter (introspection completeness fails that)
    bundle["accepted_parameters"]["create_widget"].append("widgetName")
    outcome = run(snake_case, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail.endswith("(1 camelCase alias(es) beside their snake_case names).")
    assert run(completeness, bundle).detail == "create_widget.widgetName: accepted but not documented"


def test_metadata_parameters_are_not_public_names(bundle: Bundle) -> None:
    bundle["accepted_parameters"]["get_widget"].append("_request_id")
    assert run(snake_case, bundle).result is Result.PASS


def test_a_camel_case_accepted_parameter_fails(bundle: Bundle) -> None:
    bundle["accepted_parameters"]["get_widget"].append("includeDeleted")
    outcome = run(snake_case, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "get_widget.includeDeleted: not snake_case"


def test_a_name_reported_twice_is_listed_once(bundle: Bundle) -> None:
    operation_detail(bundle, "get_widget")["parameters"][0]["name"] = "Id"
    bundle["accepted_parameters"]["get_widget"] = ["Id", "fields"]
    outcome = run(snake_case, bundle)
    assert outcome.detail == "get_widget.Id: not snake_case"


def test_snake_case_skips_when_no_operation_has_parameters(bundle: Bundle) -> None:
    only_operation(bundle, "delete_widget", [])
    outcome = run(snake_case, bundle)
    assert outcome.result is Result.SKIP
    assert outcome.detail == "No operation documents or accepts a parameter."


def test_snake_case_judges_accepted_parameters_without_details() -> None:
    outcome = run(snake_case, {"accepted_parameters": {"get_widget": ["widgetId"]}})
    assert outcome.result is Result.FAIL
    assert outcome.detail == "get_widget.widgetId: not snake_case"


@pytest.mark.parametrize(
    "refusal",
    [
        fail("NOT_FOUND_RESOURCE", "No widget 'probe'."),
        {"success": False, "error": "Element 'probe' not found in personas"},
        {"_mcp_error": {"code": -32603, "message": "fetch failed"}},
    ],
)
def test_a_refusal_for_another_reason_shows_nothing_about_parameters_and_only_warns(
    bundle: Bundle, refusal: dict[str, Any]
) -> None:
    from mcpaql_conformance.verdict.checks.parameters import unknown_explicit

    parameter_case(bundle, "unknown_parameter", "get_widget", "bogus")["response"] = refusal
    unknown = run(unknown_explicit, bundle)
    assert unknown.result is Result.WARN
    assert unknown.detail.startswith("get_widget.bogus: not shown: refused for another reason (")
    # the same refusal for both probes, whatever they asked: one grouped finding for each test
    parameter_case(bundle, "missing_required", "get_widget", "id")["response"] = refusal
    missing = run(required_enforced, bundle)
    assert missing.result is Result.WARN
    assert "1 missing-parameter probe(s) of get_widget: not judged: every probe of this operation" in missing.detail
    unknown = run(unknown_explicit, bundle)
    assert unknown.detail.startswith("1 unknown-parameter probe(s) of get_widget: not judged: every probe")


# Defaults: the documented default decides (issue 26, point 4)


def test_a_default_is_judged_against_what_introspection_documents_not_the_bundle(bundle: Bundle) -> None:
    case = parameter_case(bundle, "optional_defaults", "create_widget", "color")
    case["expected_value"] = "red"  # a hand-written bundle that expects another value than documented
    case["response"] = ok({"color": "red"})
    outcome = run(defaults, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == 'create_widget.color: data.color expected the documented default "blue", got "red"'


def test_a_default_matching_the_documented_one_fails_nothing_but_the_disagreement_is_said(bundle: Bundle) -> None:
    case = parameter_case(bundle, "optional_defaults", "create_widget", "color")
    case["expected_value"] = "red"
    outcome = run(defaults, bundle)  # the answer shows "blue", as documented
    assert outcome.result is Result.WARN
    assert outcome.findings == (
        'create_widget.color: the bundle expects "red", but introspection documents the default "blue" (judged '
        "against the documented default)",
    )


# Required and optional in both directions (issue 26, point 4)


def omitted_case(response: Bundle, omitted: list[str] | None = None) -> Bundle:
    return {"operation": "create_widget", "omitted": omitted or ["color"], "response": response}


def test_an_optional_parameter_refused_when_absent_fails(bundle: Bundle) -> None:
    refusal = fail("VALIDATION_MISSING_PARAM", "Missing required parameter 'color'.")
    bundle["parameter_tests"]["optional_omitted"] = [omitted_case(refusal)]
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "create_widget.color: documented optional, but refused when absent (VALIDATION_MISSING_PARAM: Missing"
        " required parameter 'color'.)"
    )
    assert report(bundle).categories[1].tests[0].cited == ("introspection:8.1.2:required-true",)


def test_optional_parameters_left_out_without_a_refusal_pass(bundle: Bundle) -> None:
    bundle["parameter_tests"]["optional_omitted"] = [omitted_case(ok({"id": "w2"}))]
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.PASS
    assert "1 call(s) without optional parameters were not refused for them" in outcome.detail


def test_a_call_without_optional_parameters_refused_for_another_reason_shows_nothing(bundle: Bundle) -> None:
    bundle["parameter_tests"]["optional_omitted"] = [omitted_case(fail("NOT_FOUND_RESOURCE", "Widget w9 not found."))]
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.PASS  # not counted: a made-up identifier was not found first
    assert "without optional parameters" not in outcome.detail


# UPDATE: the nested input object (core §4.5, §4.5.3)


def update_case(kind: str, response: Bundle) -> Bundle:
    return {
        "operation": "update_widget",
        "kind": kind,
        "parameter": "id",
        "request": {"id": "w1"},
        "response": response,
    }


@pytest.mark.parametrize(
    ("case", "result", "said"),
    [
        (update_case("missing_input", fail("VALIDATION_MISSING_PARAM", "Missing 'input'.")), Result.PASS, ""),
        (
            update_case("missing_input", fail("VALIDATION_INVALID_PARAM", "input is required")),
            Result.FAIL,
            "update_widget without `input`: refused with error code VALIDATION_INVALID_PARAM, not"
            " VALIDATION_MISSING_PARAM",
        ),
        (update_case("missing_input", ok({"id": "w1"})), Result.FAIL,
         "update_widget without `input`: the update succeeded"),
        (update_case("identifier_in_input", fail("VALIDATION_INVALID_PARAM", "id belongs in params.")), Result.PASS,
         ""),
        (
            update_case("identifier_in_input", ok({"id": "w1"})),
            Result.FAIL,
            "update_widget with its identifier id inside `input`: the update succeeded",
        ),
        (
            update_case("identifier_in_input", fail("NOT_FOUND_RESOURCE", "Widget w1 not found.")),
            Result.WARN,
            "update_widget with its identifier id inside `input`: not shown: refused for another reason",
        ),
        # core §4.5.3 items 2-4: input no object, a field of another type (any refusal), a made-up field
        (update_case("input_not_object", fail("VALIDATION_INVALID_TYPE", "input must be an object.")), Result.PASS, ""),
        (update_case("input_not_object", ok({"id": "w1"})), Result.FAIL,
         "update_widget with `input` that is no object: the update succeeded"),
        ({**update_case("input_wrong_type", ok({"id": "w1"})), "parameter": "color"}, Result.FAIL,
         "update_widget with `input.color` of another type than documented: the update succeeded"),
        ({**update_case("input_unknown_field", fail("VALIDATION_UNKNOWN_FIELD", "Unknown field zz.")),
          "parameter": "zz"}, Result.PASS, ""),
        ({**update_case("input_unknown_field", fail("VALIDATION_INVALID_VALUE", "Bad input.")), "parameter": "zz"},
         Result.WARN,  # a SHOULD: VALIDATION_UNKNOWN_FIELD
         "update_widget with the made-up field zz inside `input`: refused with error code VALIDATION_INVALID_VALUE,"
         " not VALIDATION_UNKNOWN_FIELD"),
    ],
)  # fmt: skip
def test_update_calls_without_a_proper_input_are_refused(
    bundle: Bundle, case: Bundle, result: Result, said: str
) -> None:
    bundle["update_input_tests"] = [case]
    outcome = run(required_enforced, bundle)
    assert outcome.result is result
    assert said in outcome.detail


def test_a_refusal_that_only_lists_an_optional_parameter_among_the_valid_ones_shows_nothing(bundle: Bundle) -> None:
    refusal = fail("VALIDATION_INVALID_VALUE", "Invalid widget_name 'x'. Valid parameters: widget_name, color.")
    bundle["parameter_tests"]["optional_omitted"] = [omitted_case(refusal)]
    outcome = run(required_enforced, bundle)
    assert outcome.result is Result.PASS  # it does not ask for color: not a refusal of its absence


def test_a_refusal_with_the_cores_code_that_does_not_name_the_parameter_only_warns(bundle: Bundle) -> None:
    # core §4.6: refused with VALIDATION_UNKNOWN_PARAM; naming the parameter is guidance (introspection §8.2.3)
    set_unknown_response(bundle, fail("VALIDATION_UNKNOWN_PARAM", "The request has a parameter this operation lacks."))
    outcome = run(unknown_explicit, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail.startswith("get_widget.bogus: the refusal does not name the unknown parameter")


@pytest.mark.parametrize(
    ("check", "what"),
    [(required_enforced, "a required parameter"), (defaults, "a default"), (snake_case, "a parameter")],
)
def test_without_any_operation_detail_nothing_documented_skips_as_where_details_document_none(
    check: Any, what: str
) -> None:
    """A server that gave no operation detail documents no required parameter, default or name,
    as one whose details document none: both SKIP (the operation-details test fails the missing
    details), never a FAIL for want of evidence on one server and a SKIP on the other."""
    listed = ok({"operations": [{"name": "list_items", "endpoint": "read", "description": "List."}]})
    refused = fail("NOT_FOUND_OPERATION", "Operation details are not available.")
    bundle = {
        "introspection": {
            "operations_list": listed,
            "detail_queries": [{"operation": "list_items", "response": refused}],
        }
    }
    outcome = run(check, bundle)
    assert outcome.result is Result.SKIP
    assert outcome.detail == (
        f"No operation detail documents {what}: introspection gave none (the operation-details test judges that)."
    )
    bundle["introspection"].pop("detail_queries")  # details never asked for: nothing to judge, no reason known
    assert run(check, bundle).result is Result.FAIL
