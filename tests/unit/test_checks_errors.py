"""Error Quality (MUST): discriminated union, no implementation leakage, actionable messages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bundle_builders import fail, halted_batch, ok, parameter_case, report, run

from mcpaql_conformance.verdict.checks.errors import actionable, discriminated_union, no_leakage
from mcpaql_conformance.verdict.model import Result

Bundle = dict[str, Any]


def set_error_message(bundle: Bundle, message: str) -> None:
    bundle["error_tests"][0]["response"] = fail("VALIDATION_OUT_OF_RANGE", message)


def test_conformant_bundle_passes_the_whole_category(bundle: Bundle) -> None:
    category = report(bundle, category="Error Quality").categories[0]
    assert category.result is Result.PASS
    assert [t.id for t in category.tests] == [
        "L1.errors.discriminated-union",
        "L1.errors.no-leakage",
        "L1.errors.actionable",
    ]


def test_empty_bundle_fails_every_error_test_for_lack_of_evidence_but_the_actionable_one_warns() -> None:
    category = report({}, category="Error Quality").categories[0]
    assert [(t.result, t.detail) for t in category.tests] == [
        (Result.FAIL, "no evidence: the bundle records no response"),
        (Result.FAIL, "no evidence: the bundle records no error or warning message"),
        # conformance-testing §3.3 gives actionable messages PASS and WARN outcomes only
        (Result.WARN, "no evidence: no error_tests with must_mention criteria"),
    ]


# Discriminated union (deliberate difference 10: every response, not only error tests)


def test_all_valid_responses_pass_with_their_count(bundle: Bundle) -> None:
    outcome = run(discriminated_union, bundle)
    assert outcome.result is Result.PASS
    assert "All 19 recorded response(s) are valid" in outcome.detail


def test_a_success_without_data_anywhere_in_the_bundle_fails_with_its_path(bundle: Bundle) -> None:
    bundle["round_trip_tests"][0]["read_response"] = {"success": True}
    outcome = run(discriminated_union, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "$.round_trip_tests[0].read_response (the read-back after create_widget): $: missing required property 'data'"
    )


def test_a_lowercase_error_code_fails_with_its_path(bundle: Bundle) -> None:
    parameter_case(bundle, "missing_required", "get_widget", "id")["response"] = fail("missing_param", "Missing id.")
    outcome = run(discriminated_union, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "$.parameter_tests.missing_required[2].response (operation get_widget): $.error.code: does not match the"
        " pattern ^[A-Z][A-Z0-9_]*$"
    )


def test_a_success_that_carries_an_error_fails(bundle: Bundle) -> None:
    bundle["introspection"]["types_list"]["error"] = {"code": "X", "message": "m"}
    outcome = run(discriminated_union, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "$.introspection.types_list: $: 'error' is not part of a success result: a success carries data, not error"
    )


def test_an_invalid_batch_item_fails(bundle: Bundle) -> None:
    bundle["batch_example"]["results"][1]["result"] = {"success": False, "message": "nope"}
    outcome = run(discriminated_union, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith("$.batch_example: $.results[1].result: missing required property 'error'")


def test_every_invalid_response_is_a_finding(bundle: Bundle) -> None:
    bundle["error_tests"][0]["response"] = {"success": False}
    bundle["constraint_tests"][0]["response"] = {"success": False}
    outcome = run(discriminated_union, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.findings == (
        "$.error_tests[0].response: $: missing required property 'error'",
        "$.constraint_tests[0].response: $: missing required property 'error'",
    )


def test_an_invalid_response_fails_the_must_category_and_the_run(bundle: Bundle) -> None:
    bundle["error_tests"][0]["response"] = fail("bad code", "m")
    result = report(bundle, level=1)
    assert result.categories[2].name == "Error Quality"
    assert result.categories[2].result is Result.FAIL
    assert result.exit_code == 1


# No leakage (deliberate difference 2)


def test_clean_messages_pass_counting_every_error_text(bundle: Bundle) -> None:
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.PASS
    assert "error text(s) show no stack trace, internal path or language artifact" in outcome.detail


def test_plain_english_bound_is_not_a_leak(bundle: Bundle) -> None:
    set_error_message(bundle, "Parameter size must be at least 3.")
    assert run(no_leakage, bundle).result is Result.PASS


def test_a_stack_frame_in_an_error_message_fails_with_its_path(bundle: Bundle) -> None:
    set_error_message(bundle, "Cannot read x\n    at handler (/app/src/widgets.js:41:13)")
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith("$.error_tests[0].response.error.message: ")
    assert "/app/src/widgets.js:41:13" in outcome.detail


def test_an_exception_name_fails(bundle: Bundle) -> None:
    set_error_message(bundle, "TypeError: size is undefined")
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "$.error_tests[0].response.error.message: exception class name 'TypeError'"


def test_a_python_traceback_fails(bundle: Bundle) -> None:
    set_error_message(bundle, 'Traceback (most recent call last):\n  File "app.py", line 3, in run')
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.FAIL
    assert "stack trace header 'Traceback (most recent call last)'" in outcome.detail


def test_a_leak_in_error_details_fails(bundle: Bundle) -> None:
    bundle["error_tests"][0]["response"] = fail(
        "INTERNAL", "Something failed.", trace={"frames": ["x", "at /srv/node_modules/lib/a.js:1:2"]}
    )
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith("$.error_tests[0].response.error.details.trace.frames[1]: ")


def test_a_leak_in_a_warning_of_a_success_warns(bundle: Bundle) -> None:
    bundle["round_trip_tests"][0]["read_response"]["warnings"] = [{"code": "SLOW", "message": "slow query in db.py:88"}]
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == (
        "$.round_trip_tests[0].read_response.warnings[0].message: source line reference '.py:88' (in an answer that"
        " is no error: a warning)"
    )


def test_a_leak_in_a_batch_item_error_fails(bundle: Bundle) -> None:
    bundle["batch_example"]["results"][1]["result"] = fail("INTERNAL", "KeyError: 'w9'")
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "$.batch_example.results[1].result.error.message: exception class name 'KeyError'"


def test_answers_without_error_texts_are_not_judged() -> None:
    """A server that never said an error leaks nothing: a warning, not a pass (no vacuous PASS)
    and not a failure (the parameter tests judge why it never refused). The fast path for simple
    answers says the same as the full walk."""
    outcome = run(no_leakage, {"introspection": {"operations_list": ok({"operations": []})}})
    assert outcome.result is Result.WARN
    assert outcome.detail == "not judged: none of the 1 recorded answer(s) carries an error or warning text"
    slow = {"introspection": {"operations_list": {**ok({"operations": []}), "_meta": {"trace": 1}}}}
    assert run(no_leakage, slow) == outcome


def test_a_bundle_without_any_answer_fails_for_lack_of_evidence() -> None:
    outcome = run(no_leakage, {"introspection": {}})
    assert outcome.result is Result.FAIL
    assert outcome.detail == "no evidence: the bundle records no error or warning message"


MALFORMED = [
    ({"success": False, "error": 5}, "$.error: expected an object, got integer"),
    ({"success": False, "error": True}, "$.error: expected an object, got boolean"),
    ({"success": True, "data": {}, "warnings": 5}, "$.warnings: expected an array, got integer"),
    ({"success": True, "data": {}, "results": 5}, "$.results: expected an array, got integer"),
]


@pytest.mark.parametrize(("response", "reason"), MALFORMED)
def test_a_malformed_response_does_not_crash_the_leak_scan(bundle: Bundle, response: Bundle, reason: str) -> None:
    bundle["error_tests"][0]["response"] = response
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.PASS


@pytest.mark.parametrize(("response", "reason"), MALFORMED)
def test_a_malformed_response_fails_the_union_test_in_a_full_run(bundle: Bundle, response: Bundle, reason: str) -> None:
    bundle["round_trip_tests"][0]["read_response"] = response
    result = report(bundle)
    union = result.categories[2].tests[0]
    assert union.result is Result.FAIL
    assert union.detail == f"$.round_trip_tests[0].read_response (the read-back after create_widget): {reason}"
    assert result.exit_code == 1


@pytest.mark.parametrize(("response", "reason"), MALFORMED)
def test_a_malformed_response_fails_the_union_test(bundle: Bundle, response: Bundle, reason: str) -> None:
    bundle["round_trip_tests"][0]["read_response"] = response
    outcome = run(discriminated_union, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == f"$.round_trip_tests[0].read_response (the read-back after create_widget): {reason}"


def test_a_string_error_is_scanned_for_leaks(bundle: Bundle) -> None:
    bundle["error_tests"][0]["response"] = {"success": False, "error": "TypeError"}
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "$.error_tests[0].response.error: exception class name 'TypeError'"


@pytest.mark.parametrize(
    ("response", "where"),
    [
        ({"_mcp_error": {"code": -32603, "message": "TypeError: fetch failed"}}, "._mcp_error.message"),
        ({"_mcp_error": {"code": -32603, "message": "x", "data": {"stack": "at run (/src/a.js:1:2)"}}}, ".stack"),
        ({"_raw_text": 'Traceback (most recent call last):\n  File "a.py", line 3', "_is_error": True}, "._raw_text"),
        ({"_raw_text": "Error: TypeError: x is undefined", "_is_error": False}, "._raw_text"),  # a refusal in text
    ],
)
def test_protocol_level_and_plain_text_answers_are_scanned_for_leaks(
    bundle: Bundle, response: dict[str, Any], where: str
) -> None:
    bundle["error_tests"][0]["response"] = response
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith("$.error_tests[0].response.") and where in outcome.detail


@pytest.mark.parametrize(
    ("response", "where"),
    [
        ({"_raw_text": "ok but TypeError: x is undefined", "_is_error": False}, "._raw_text"),
        ({"success": True, "data": "Saved. TypeError: y"}, ".data"),
    ],
)
def test_a_leak_in_an_answer_that_is_no_error_only_warns(bundle: Bundle, response: dict[str, Any], where: str) -> None:
    # introspection §8.1.3 and conformance-testing §3.3 are about error answers
    bundle["error_tests"][0]["response"] = response
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail.startswith(f"$.error_tests[0].response{where}: exception class name 'TypeError'")
    assert outcome.detail.endswith("(in an answer that is no error: a warning)")


# Actionable messages


def test_actionable_messages_pass(bundle: Bundle) -> None:
    outcome = run(actionable, bundle)
    assert outcome.result is Result.PASS
    assert "1 error message(s) name what went wrong and what to correct" in outcome.detail


def test_a_message_missing_a_required_mention_warns(bundle: Bundle) -> None:
    set_error_message(bundle, "Parameter size is invalid.")
    outcome = run(actionable, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "size out of range: message does not mention at least 1"


def test_an_identifier_mention_must_be_whole(bundle: Bundle) -> None:
    set_error_message(bundle, "Parameter page_size must be at least 1.")
    outcome = run(actionable, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "size out of range: message does not mention size"


def test_every_missing_mention_is_listed(bundle: Bundle) -> None:
    set_error_message(bundle, "Invalid request.")
    outcome = run(actionable, bundle)
    assert outcome.detail == "size out of range: message does not mention size, at least 1"


def test_an_error_test_answered_with_success_warns(bundle: Bundle) -> None:
    bundle["error_tests"][0]["response"] = ok({"size": 0})
    outcome = run(actionable, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "size out of range: the response is not an error (succeeded)"


def test_an_error_test_without_must_mention_is_not_a_vacuous_pass(bundle: Bundle) -> None:
    name = bundle["error_tests"][0]["name"]
    del bundle["error_tests"][0]["must_mention"]
    outcome = run(actionable, bundle)  # the only error test: nothing left to judge
    assert outcome.result is Result.WARN  # never a pass; a PASS/WARN test warns
    assert outcome.detail == "no evidence: no error_tests with must_mention criteria"
    assert f"{name}: no must_mention criteria to judge the message by" in outcome.findings


def test_an_error_test_with_empty_must_mention_among_judged_ones_warns(bundle: Bundle) -> None:
    extra = dict(bundle["error_tests"][0], name="vague", must_mention=[])
    bundle["error_tests"].append(extra)
    outcome = run(actionable, bundle)
    assert outcome.result is Result.WARN
    assert "vague: no must_mention criteria to judge the message by" in outcome.detail


def test_no_error_tests_warn_for_lack_of_evidence(bundle: Bundle) -> None:
    del bundle["error_tests"]
    outcome = run(actionable, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "no evidence: no error_tests with must_mention criteria"


def test_an_unactionable_message_only_warns_the_must_category(bundle: Bundle) -> None:
    set_error_message(bundle, "Invalid request.")
    result = report(bundle, level=1)
    assert result.categories[2].result is Result.WARN
    assert result.exit_code == 0


# The closed result shape (issue 26, point 3): no key the spec does not define, except metadata


def test_a_key_beside_the_error_fails_the_union_naming_the_operation_and_the_key(bundle: Bundle) -> None:
    case = parameter_case(bundle, "missing_required", "get_widget", "id")
    case["response"] = {**fail("VALIDATION_MISSING_PARAM", "Missing id."), "stack": "at run (/srv/app.js:3:9)"}
    union = run(discriminated_union, bundle)
    assert union.result is Result.FAIL
    assert union.detail == (
        "$.parameter_tests.missing_required[2].response (operation get_widget): $: 'stack' is not part of a"
        " failure result (the spec defines _meta, confirmation, deprecated, deprecatedSince, deprecationMessage, error,"
        " removalVersion, success; metadata keys start with an underscore)"
    )
    leak = run(no_leakage, bundle)
    assert leak.result is Result.FAIL
    assert leak.detail == (
        "$.parameter_tests.missing_required[2].response.stack: stack frame 'at run (/srv/app.js:3:9)'"
    )


def test_a_key_inside_the_error_object_fails_and_is_scanned_for_leaks(bundle: Bundle) -> None:
    bundle["error_tests"][0]["response"] = {
        "success": False,
        "error": {"code": "INTERNAL_ERROR", "message": "Something failed.", "trace": "KeyError: 'w9'"},
    }
    union = run(discriminated_union, bundle)
    assert union.result is Result.FAIL
    assert "$.error: 'trace' is not part of an error object" in union.detail
    leak = run(no_leakage, bundle)
    assert leak.result is Result.FAIL
    assert leak.detail == "$.error_tests[0].response.error.trace: exception class name 'KeyError'"


def test_warnings_in_a_failure_fail_the_union(bundle: Bundle) -> None:
    response = fail("VALIDATION_OUT_OF_RANGE", "Parameter size must be at least 1.")
    bundle["error_tests"][0]["response"] = {**response, "warnings": [{"code": "W", "message": "m"}]}
    union = run(discriminated_union, bundle)
    assert union.result is Result.FAIL
    assert union.detail == (
        "$.error_tests[0].response: $: 'warnings' is not part of a failure result: warnings go only in"
        " successful answers"
    )


def test_underscore_metadata_on_either_side_passes(bundle: Bundle) -> None:
    bundle["error_tests"][0]["response"]["_meta"] = {"request_id": "r1", "duration_ms": 3}
    bundle["error_tests"][0]["response"]["error"]["_trace_id"] = "t1"
    bundle["round_trip_tests"][0]["read_response"]["_meta"] = {"request_id": "r2"}
    assert run(discriminated_union, bundle).result is Result.PASS
    assert run(no_leakage, bundle).result is Result.PASS


def test_a_batch_halted_on_a_confirmation_is_a_valid_result(bundle: Bundle) -> None:
    bundle["batch_example"] = halted_batch()
    assert run(discriminated_union, bundle).result is Result.PASS


# Leaks: text that quotes the caller's own input back is not the server's (issue 26, point 5)


def test_a_leak_pattern_only_in_the_echoed_input_is_not_a_leak(bundle: Bundle) -> None:
    case = parameter_case(bundle, "unknown_parameter", "get_widget", "bogus")
    case["request"] = {"id": "w1", "bogus": "../src/TypeError.py:12"}
    case["response"] = fail("VALIDATION_UNKNOWN_PARAM", "Unknown parameter 'bogus' (value '../src/TypeError.py:12').")
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail.endswith("(1 only quote back what the caller sent).")


def test_a_leak_beside_the_echoed_input_is_still_a_leak(bundle: Bundle) -> None:
    case = parameter_case(bundle, "unknown_parameter", "get_widget", "bogus")
    case["request"] = {"id": "w1", "bogus": "x-value"}
    case["response"] = fail("VALIDATION_UNKNOWN_PARAM", "Unknown 'x-value': KeyError at validate (/srv/src/v.js:3:1)")
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.FAIL
    assert "exception class name 'KeyError'" in outcome.detail


def test_without_a_recorded_request_the_same_text_is_a_leak(bundle: Bundle) -> None:
    case = parameter_case(bundle, "unknown_parameter", "get_widget", "bogus")
    case["response"] = fail("VALIDATION_UNKNOWN_PARAM", "Unknown parameter 'bogus' (value '../src/TypeError.py:12').")
    assert run(no_leakage, bundle).result is Result.FAIL


def test_a_leak_anywhere_in_an_error_answer_fails_metadata_and_depth_included(bundle: Bundle) -> None:
    deep: Any = "at run (/srv/app/src/a.js:1:2)"
    for _ in range(40):
        deep = {"inner": deep}
    response = fail("INTERNAL_ERROR", "Something failed.")
    response["_debug"] = {"trace": "KeyError: 'w9'"}
    response["error"]["details"] = deep
    bundle["error_tests"][0]["response"] = response
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.lead == "2 failure(s)"
    assert "$.error_tests[0].response._debug.trace: exception class name 'KeyError'" in outcome.detail


def test_an_echo_of_a_sent_value_as_json_escapes_it_is_no_leak(bundle: Bundle) -> None:
    # the server quotes the request as JSON: the sent backslashes come back doubled
    case = parameter_case(bundle, "unknown_parameter", "get_widget", "bogus")
    case["request"] = {"id": "w1", "bogus": "at run (C:\\app\\src\\a.js:3:1)"}
    message = "Unknown parameter in " + json.dumps({"bogus": case["request"]["bogus"]})
    case["response"] = fail("VALIDATION_UNKNOWN_PARAM", message)
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.PASS, outcome.detail
    assert outcome.detail.endswith("(1 only quote back what the caller sent).")


def test_an_echo_of_a_sent_parameter_name_is_no_leak(bundle: Bundle) -> None:
    case = parameter_case(bundle, "unknown_parameter", "get_widget", "bogus")
    case["request"] = {"id": "w1", "NullPointerException": "x"}
    case["response"] = fail("VALIDATION_UNKNOWN_PARAM", "Unknown parameter 'NullPointerException'.")
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.PASS, outcome.detail


def test_text_another_request_of_the_run_sent_is_a_warning_not_a_failure(bundle: Bundle) -> None:
    # the run stored a title elsewhere; an error quoting it cannot be told from a leak: it warns
    bundle["round_trip_tests"][0]["request"] = {"widget_name": "at build (/srv/app/src/build.js:4:2)"}
    bundle["error_tests"][0]["response"] = fail(
        "VALIDATION_OUT_OF_RANGE", "Size must be at least 1 for 'at build (/srv/app/src/build.js:4:2)'."
    )
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.WARN, outcome.detail
    assert "stack frame" in outcome.detail
    assert "the same text is in a request of this run or in data the server returned: it may quote it" in outcome.detail


def test_text_the_server_returned_as_data_is_a_warning_not_a_failure(bundle: Bundle) -> None:
    bundle["round_trip_tests"][0]["read_response"] = ok({"widget_id": "w1", "widget_name": "KeyError handling"})
    bundle["error_tests"][0]["response"] = fail("VALIDATION_OUT_OF_RANGE", "Size of 'KeyError handling' must be 1+.")
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.WARN, outcome.detail
    assert "exception class name 'KeyError'" in outcome.detail


def test_an_exception_name_introspection_describes_still_fails_in_an_error(bundle: Bundle) -> None:
    # introspection is the server's account of itself, not data it stores for its users
    bundle["introspection"]["operations_list"]["data"]["operations"][0]["description"] = "Raises KeyError handling."
    bundle["error_tests"][0]["response"] = fail("VALIDATION_OUT_OF_RANGE", "KeyError handling: size must be 1+.")
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.FAIL
    assert "exception class name 'KeyError'" in outcome.detail


def test_a_leak_no_request_or_data_shows_still_fails_beside_a_quoted_one(bundle: Bundle) -> None:
    bundle["round_trip_tests"][0]["read_response"] = ok({"widget_id": "w1", "widget_name": "KeyError handling"})
    bundle["error_tests"][0]["response"] = fail("INTERNAL_ERROR", "KeyError handling: TypeError in resize()")
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.FAIL
    assert "exception class name 'TypeError'" in outcome.detail


def test_an_echo_hides_only_the_artifact_wholly_inside_what_was_sent(bundle: Bundle) -> None:
    case = parameter_case(bundle, "unknown_parameter", "get_widget", "bogus")
    case["request"] = {"id": "w1", "bogus": "Error", "tag": "src"}
    case["response"] = fail("VALIDATION_UNKNOWN_PARAM", "Unknown 'bogus': TypeError at /srv/app/src/config.json")
    outcome = run(no_leakage, bundle)
    assert outcome.result is Result.FAIL
    assert "exception class name 'TypeError'" in outcome.detail
