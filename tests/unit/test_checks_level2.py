"""Level 2 Features (SHOULD): endpoint modes, field selection, batch operations."""

from __future__ import annotations

from typing import Any

import pytest
from bundle_builders import fail, halted_batch, ok, operation_detail, report, run

from mcpaql_conformance.verdict.checks.constraints import enforced
from mcpaql_conformance.verdict.checks.level2 import batch, endpoint_modes, field_selection
from mcpaql_conformance.verdict.model import Result

Bundle = dict[str, Any]
LEVEL2 = "Level 2 Features"


def test_conformant_bundle_passes_the_whole_category(bundle: Bundle) -> None:
    category = report(bundle, level=2, category=LEVEL2).categories[0]
    assert category.result is Result.PASS
    assert not category.required
    assert [t.id for t in category.tests] == [
        "L2.features.endpoint-modes",
        "L2.features.field-selection",
        "L2.features.batch",
    ]


def test_level2_categories_are_not_run_at_level_1(bundle: Bundle) -> None:
    names = [c.name for c in report(bundle, level=1).categories]
    assert LEVEL2 not in names
    assert len(names) == 4


# Endpoint modes


def test_both_modes_pass(bundle: Bundle) -> None:
    outcome = run(endpoint_modes, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail == "Single mode and semantic mode (crude) are both supported."


def test_a_custom_semantic_family_counts_as_semantic_mode(bundle: Bundle) -> None:
    bundle["endpoint_modes"] = ["single", "widgets"]
    outcome = run(endpoint_modes, bundle)
    assert outcome.result is Result.PASS
    assert "semantic mode (widgets)" in outcome.detail


def test_crude_only_fails_for_lack_of_single_mode(bundle: Bundle) -> None:
    bundle["endpoint_modes"] = ["crude"]
    outcome = run(endpoint_modes, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "single mode (`mcp_aql`) is not supported"


def test_single_only_fails_for_lack_of_semantic_mode(bundle: Bundle) -> None:
    bundle["endpoint_modes"] = ["single"]
    outcome = run(endpoint_modes, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "no semantic endpoint mode (`crude` or a custom family) is supported"


def test_no_modes_at_all_fail_both_ways(bundle: Bundle) -> None:
    bundle["endpoint_modes"] = []
    outcome = run(endpoint_modes, bundle)
    assert outcome.result is Result.FAIL
    assert "single mode (`mcp_aql`) is not supported" in outcome.detail
    assert "no semantic endpoint mode" in outcome.detail


def test_endpoint_modes_without_evidence_warn(bundle: Bundle) -> None:
    del bundle["endpoint_modes"]
    outcome = run(endpoint_modes, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "no evidence: no endpoint_modes"


# Field selection


def test_field_selection_passes(bundle: Bundle) -> None:
    outcome = run(field_selection, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail == "Field selection is advertised and documented on get_widget."


def test_field_selection_not_advertised_fails(bundle: Bundle) -> None:
    bundle["capabilities"]["field_selection"] = False
    outcome = run(field_selection, bundle)
    assert outcome.result is Result.FAIL
    assert (
        outcome.detail
        == "neither the bundle's capabilities.field_selection nor _protocol.capabilities.field_selection is true"
    )


def test_field_selection_without_a_fields_parameter_fails(bundle: Bundle) -> None:
    detail = operation_detail(bundle, "get_widget")
    detail["parameters"] = [p for p in detail["parameters"] if p["name"] != "fields"]
    outcome = run(field_selection, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "no READ operation documents a `fields` parameter"


def test_a_fields_parameter_on_a_non_read_operation_does_not_count(bundle: Bundle) -> None:
    get = operation_detail(bundle, "get_widget")
    get["parameters"] = [p for p in get["parameters"] if p["name"] != "fields"]
    operation_detail(bundle, "update_widget")["parameters"].append(
        {"name": "fields", "type": "array", "required": False}
    )
    outcome = run(field_selection, bundle)
    assert outcome.result is Result.FAIL
    assert "no READ operation documents a `fields` parameter" in outcome.detail


def test_field_selection_with_no_capabilities_fails(bundle: Bundle) -> None:
    del bundle["capabilities"]
    outcome = run(field_selection, bundle)
    assert outcome.result is Result.FAIL
    assert (
        "neither the bundle's capabilities.field_selection nor _protocol.capabilities.field_selection is true"
        in outcome.detail
    )


# Batch


def test_batch_passes(bundle: Bundle) -> None:
    outcome = run(batch, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail == "The batch answered 2 individual result(s) with a matching summary."


def test_a_working_batch_the_bundle_says_is_unsupported_warns(bundle: Bundle) -> None:
    # capabilities are a MAY (introspection §4.1.1): the batch answered is the evidence; the
    # contradiction is worth a warning, not a failure
    bundle["capabilities"]["batch_operations"] = False
    outcome = run(batch, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "the bundle's capabilities.batch_operations is false, but its batch was answered"


def test_the_batch_flag_under_another_name_is_read_and_warned_about(bundle: Bundle) -> None:
    bundle["capabilities"]["batch_operations"] = True
    data = bundle["introspection"]["operations_list"]["data"]
    data["_protocol"] = {"version": "1.0.0-draft", "capabilities": {"batch_operations": True}}
    outcome = run(batch, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == (
        "the batch flag is declared as `_protocol.capabilities.batch_operations`; introspection §4.1.1 names it `batch`"
    )
    data["_protocol"]["capabilities"] = {"batch": False}
    assert run(batch, bundle).detail == "`_protocol.capabilities` declares no batch support, but a batch was answered"


def test_batch_neither_declared_nor_answered_fails(bundle: Bundle) -> None:
    bundle["capabilities"]["batch_operations"] = False
    del bundle["batch_example"]
    outcome = run(batch, bundle)
    assert outcome.result is Result.FAIL
    assert "neither the bundle's capabilities.batch_operations nor _protocol.capabilities.batch is true" in (
        outcome.detail
    )


def test_batch_advertised_without_an_example_warns(bundle: Bundle) -> None:
    del bundle["batch_example"]
    outcome = run(batch, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "no evidence: no batch_example"


def test_batch_neither_advertised_nor_shown_fails(bundle: Bundle) -> None:
    del bundle["batch_example"]
    bundle["capabilities"]["batch_operations"] = False
    outcome = run(batch, bundle)
    assert outcome.result is Result.FAIL
    assert (
        outcome.detail == "neither the bundle's capabilities.batch_operations nor _protocol.capabilities.batch is true"
    )


def test_a_batch_that_failed_as_a_whole_fails(bundle: Bundle) -> None:
    bundle["batch_example"] = fail("BATCH_UNSUPPORTED", "Batches are not supported.")
    outcome = run(batch, bundle)
    assert outcome.result is Result.WARN  # it declares batches: operations §7.1, an informative MUST
    assert outcome.detail == (
        "batch_example is a failure, not a batch result (BATCH_UNSUPPORTED: Batches are not supported.): the "
        "server declares batches, but refused the batch format"
    )
    bundle["capabilities"]["batch_operations"] = False
    outcome = run(batch, bundle)
    assert outcome.result is Result.FAIL  # declaring none, it is the test's own: no batch support shown
    assert (
        outcome.detail
        == "batch_example is a failure, not a batch result (BATCH_UNSUPPORTED: Batches are not supported.)"
    )


def test_an_invalid_batch_result_fails(bundle: Bundle) -> None:
    bundle["batch_example"]["results"][0] = {"operation": "get_widget", "result": ok()}  # no index
    outcome = run(batch, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "batch_example is not a valid operation result (succeeded)"


def test_a_batch_without_results_or_summary_fails(bundle: Bundle) -> None:
    del bundle["batch_example"]["summary"]
    outcome = run(batch, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "batch_example lacks `results` or `summary`"


def test_a_summary_that_disagrees_with_the_results_fails(bundle: Bundle) -> None:
    bundle["batch_example"]["summary"] = {"total": 2, "succeeded": 2, "failed": 0}
    outcome = run(batch, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "summary.succeeded is 2, the results show 1, summary.failed is 0, the results show 1"


def test_result_indexes_must_cover_each_position_once(bundle: Bundle) -> None:
    bundle["batch_example"]["results"][1]["index"] = 0
    outcome = run(batch, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "item indexes [0, 0] are not 0..1 each once"


# Earned level (deliberate difference 9)


def test_failed_level2_features_earn_level_1_with_exit_2(bundle: Bundle) -> None:
    bundle["endpoint_modes"] = ["crude"]
    result = report(bundle, level=2)
    level2 = next(c for c in result.categories if c.name == LEVEL2)
    assert level2.result is Result.WARN
    assert result.conformance_level == 1
    assert result.exit_code == 2


def test_level2_features_without_batch_evidence_do_not_earn_level_2(bundle: Bundle) -> None:
    # No vacuous Level 2: a feature warned for lack of evidence was not demonstrated.
    del bundle["batch_example"]
    result = report(bundle, level=2)
    assert result.conformance_level == 1
    assert result.exit_code == 2


def test_level2_features_without_endpoint_mode_evidence_do_not_earn_level_2(bundle: Bundle) -> None:
    del bundle["endpoint_modes"]
    result = report(bundle, level=2)
    assert result.conformance_level == 1
    assert result.exit_code == 2


def test_should_warnings_outside_level2_features_keep_level_2(bundle: Bundle) -> None:
    del bundle["constraint_tests"]
    result = report(bundle, level=2)
    assert result.conformance_level == 2
    assert result.exit_code == 2


def test_a_conformant_level2_bundle_earns_level_2_with_exit_0(bundle: Bundle) -> None:
    result = report(bundle, level=2)
    assert result.conformance_level == 2
    assert result.exit_code == 0
    assert result.summary.as_dict() == {"total": 19, "passed": 19, "warned": 0, "failed": 0, "skipped": 0}


def test_batch_results_that_are_not_an_array_fail_without_crashing(bundle: dict[str, Any]) -> None:
    bundle["batch_example"] = {"success": True, "data": {}, "results": 7}
    outcome = run(batch, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "batch_example is not a valid operation result (succeeded)"


# What the spec allows (issue 26, point 5)


def test_capabilities_declared_in_protocol_metadata_count(bundle: Bundle) -> None:
    del bundle["capabilities"]
    protocol = bundle["introspection"]["operations_list"]["data"]["_protocol"]
    protocol["capabilities"] = {"batch": True, "field_selection": True}
    assert run(batch, bundle).result is Result.PASS
    assert run(field_selection, bundle).result is Result.PASS


def test_a_batch_halted_on_a_confirmation_is_a_correct_batch(bundle: Bundle) -> None:
    bundle["batch_example"] = halted_batch()
    assert run(batch, bundle).result is Result.PASS


def test_a_halted_batch_whose_summary_miscounts_fails(bundle: Bundle) -> None:
    bundle["batch_example"] = halted_batch(failed=1, pending=0)
    outcome = run(batch, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "summary.failed is 1, the results show 0, summary.pending is 0, the results show 1"


def test_a_skip_and_continue_batch_counts_the_gated_item_as_pending_not_failed(bundle: Bundle) -> None:
    gated = fail("CONFIRMATION_REQUIRED", "This operation requires confirmation")
    bundle["batch_example"] = ok(
        None,
        results=[
            {"index": 0, "operation": "get_widget", "result": ok({"id": "w1"})},
            {"index": 1, "operation": "delete_widget", "result": gated, "status": "pending_confirmation"},
        ],
        summary={"total": 2, "succeeded": 1, "failed": 0, "pending_confirmation": 1},
    )
    assert run(batch, bundle).result is Result.PASS


@pytest.mark.parametrize(
    ("response", "result"),
    [
        (fail("VALIDATION_READ_ONLY", "Field id cannot be changed."), Result.PASS),
        (fail("CONSTRAINT_VIOLATION", "Entries are append-only."), Result.PASS),
        (fail("VALIDATION_INVALID_PARAM", "Field 'created_at' is read only."), Result.PASS),
        (fail("NOT_FOUND_RESOURCE", "Widget w9 not found."), Result.WARN),
        (fail("VALIDATION_MISSING_PARAM", "Missing required parameter 'widget_name'."), Result.WARN),
    ],
)
def test_a_constraint_counts_as_enforced_only_by_a_refusal_about_it(
    bundle: Bundle, response: Bundle, result: Result
) -> None:
    bundle["constraint_tests"][0]["response"] = response
    outcome = run(enforced, bundle)
    assert outcome.result is result
    if result is Result.WARN:
        assert outcome.detail.startswith("id is read-only: not shown: refused for something else (")


def test_a_refusal_naming_the_field_the_attempt_wrote_is_about_the_constraint(bundle: Bundle) -> None:
    case = bundle["constraint_tests"][0]
    case["request"] = {"id": "w1", "input": {"serial": "S-2"}}
    case["response"] = fail("VALIDATION_INVALID_PARAM", "serial is set once, at creation.")
    assert run(enforced, bundle).result is Result.PASS


def cited(outcome: Any) -> list[tuple[str, str]]:
    return [(str(f), getattr(f, "rule", "")) for f in outcome.findings]


def test_a_declared_batch_refused_in_the_spec_format_breaks_its_format(bundle: Bundle) -> None:
    bundle["capabilities"]["batch_operations"] = True
    bundle["batch_example"] = fail("VALIDATION_INVALID_TYPE", "A batch is {batch: [...]}.")
    outcome = run(batch, bundle)
    assert outcome.result is Result.WARN  # operations §7.1: a MUST of an informative document
    assert cited(outcome) == [
        (
            "batch_example is a failure, not a batch result (VALIDATION_INVALID_TYPE: A batch is {batch: [...]}.): "
            "the server declares batches, but refused the batch format",
            "operations:7.1:batch-format",
        )
    ]


def last_item_failed(bundle: Bundle) -> dict[str, Any]:
    """The bundle's batch answer, its last item now a failure (the summary counting it)."""
    example: dict[str, Any] = bundle["batch_example"]
    example["results"][-1]["result"] = fail("VALIDATION_INVALID_VALUE", "Unknown query.")
    example["summary"].update(succeeded=len(example["results"]) - 1, failed=1)
    return example


def test_a_batch_failed_whole_for_one_item_breaks_its_semantics(bundle: Bundle) -> None:
    example = last_item_failed(bundle)
    bundle["batch_example"] = {**{k: v for k, v in example.items() if k != "data"}, "success": False,
                               "error": {"code": "BATCH_FAILED", "message": "1 item failed."}}  # fmt: skip
    outcome = run(batch, bundle)
    last = len(example["results"]) - 1
    assert cited(outcome) == [
        (
            f"the batch answered success false beside its {last + 1} result(s) (item(s) {last} failed): success is "
            "false only for a batch-level error, never for an item's",
            "operations:7.3:batch-semantics",
        )
    ]


def test_a_captured_batch_ending_on_its_failing_item_stopped_there(bundle: Bundle) -> None:
    example = last_item_failed(bundle)
    assert run(batch, bundle).result is Result.PASS  # written by hand: it may end on a failing item
    bundle["provenance"] = {"captured": True}
    outcome = run(batch, bundle)
    index = example["results"][-1]["index"]
    assert cited(outcome) == [
        (
            f"the batch stopped at the failing item {index}: the item after it has no result",
            "operations:7.3:failure-continues",
        )
    ]
