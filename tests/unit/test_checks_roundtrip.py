"""Round-Trip Integrity (MUST): create-read and update-preservation cycles."""

from __future__ import annotations

from typing import Any

from bundle_builders import detail, fail, ok, report, run, summary_of

from mcpaql_conformance.verdict.checks.roundtrip import create_read, read_back, update_preservation
from mcpaql_conformance.verdict.model import Result

Bundle = dict[str, Any]


def drop_operation(bundle: Bundle, name: str) -> None:
    intro = bundle["introspection"]
    intro["operation_details"] = [d for d in intro["operation_details"] if d["name"] != name]
    listed = intro["operations_list"]["data"]["operations"]
    intro["operations_list"]["data"]["operations"] = [op for op in listed if op["name"] != name]


def add_operation(bundle: Bundle, name: str, category: str) -> None:
    entry = detail(name, category, [])
    bundle["introspection"]["operation_details"].append(entry)
    bundle["introspection"]["operations_list"]["data"]["operations"].append(summary_of(entry))


def test_conformant_bundle_passes_the_whole_category(bundle: Bundle) -> None:
    category = report(bundle, category="Round-Trip Integrity").categories[0]
    assert category.result is Result.PASS
    assert [t.id for t in category.tests] == ["L1.roundtrip.create-read", "L1.roundtrip.update-preservation"]


# Create-read


def test_create_read_passes(bundle: Bundle) -> None:
    outcome = run(create_read, bundle)
    assert outcome.result is Result.PASS
    assert "1 create-read cycle(s) read back every expected field unchanged" in outcome.detail


def test_create_read_without_evidence_fails_when_a_create_exists(bundle: Bundle) -> None:
    del bundle["round_trip_tests"]
    outcome = run(create_read, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "no evidence: no round_trip_tests although CREATE operations exist (create_widget)"


def test_create_read_skips_without_a_create_operation(bundle: Bundle) -> None:
    drop_operation(bundle, "create_widget")
    del bundle["round_trip_tests"]
    outcome = run(create_read, bundle)
    assert outcome.result is Result.SKIP
    assert outcome.detail == "No CREATE operation is documented."


def test_a_create_listed_without_detail_still_calls_for_evidence(bundle: Bundle) -> None:
    bundle["introspection"]["operation_details"] = [
        d for d in bundle["introspection"]["operation_details"] if d["name"] != "create_widget"
    ]
    del bundle["round_trip_tests"]
    outcome = run(create_read, bundle)
    assert outcome.result is Result.FAIL
    assert "CREATE operations exist (create_widget)" in outcome.detail


def test_create_read_evidence_is_judged_even_without_documented_creates() -> None:
    data = {"round_trip_tests": [{"name": "c", "expected_fields": {"data.a": 1}, "read_response": ok({"a": 2})}]}
    outcome = run(create_read, data)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "c: data.a expected 1, got 2"


def test_a_changed_field_fails_showing_expected_and_actual(bundle: Bundle) -> None:
    bundle["round_trip_tests"][0]["read_response"]["data"]["widget_name"] = "sprocket"
    outcome = run(create_read, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == 'create then read: data.widget_name expected "Sprocket", got "sprocket"'


def test_a_dropped_field_fails_as_missing(bundle: Bundle) -> None:
    del bundle["round_trip_tests"][0]["read_response"]["data"]["widget_name"]
    outcome = run(create_read, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == 'create then read: data.widget_name expected "Sprocket", got (missing)'


def test_a_record_the_server_wraps_in_its_answer_is_found_where_it_put_it(bundle: Bundle) -> None:
    read = bundle["round_trip_tests"][0]["read_response"]
    read["data"] = {"structured_content": read["data"]}
    assert run(create_read, bundle).result is Result.PASS
    read["data"]["structured_content"]["widget_name"] = "sprocket"
    outcome = run(create_read, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        'create then read: data.widget_name expected "Sprocket", got "sprocket" '
        "(at data.structured_content.widget_name)"
    )


def test_a_record_wrapped_deeper_than_four_objects_is_missing() -> None:
    data: dict[str, Any] = {"widget_name": "Sprocket"}
    for _ in range(5):
        data = {"wrap": data}
    assert read_back({"success": True, "data": data}, "data.widget_name")[1] == "data.widget_name"


def test_list_index_paths_are_followed(bundle: Bundle) -> None:
    bundle["round_trip_tests"][0]["read_response"]["data"]["tags"] = ["a", "c"]
    outcome = run(create_read, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == 'create then read: data.tags.1 expected "b", got "c"'


def test_a_boolean_read_back_as_a_number_fails(bundle: Bundle) -> None:
    # Deliberate difference 4: true is not 1.
    case = bundle["round_trip_tests"][0]
    case["expected_fields"] = {"data.active": True}
    case["read_response"]["data"]["active"] = 1
    outcome = run(create_read, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "create then read: data.active expected true, got 1"


def test_a_whole_number_read_back_as_float_passes(bundle: Bundle) -> None:
    case = bundle["round_trip_tests"][0]
    case["expected_fields"] = {"data.size": 3.0, "data.meta": {"b": [1], "a": None}}
    case["read_response"]["data"]["meta"] = {"a": None, "b": [1.0]}
    assert run(create_read, bundle).result is Result.PASS


def test_a_huge_integer_mismatch_fails_instead_of_crashing(bundle: Bundle) -> None:
    case = bundle["round_trip_tests"][0]
    case["expected_fields"] = {"data.serial": 2**70}
    case["read_response"]["data"]["serial"] = 1
    outcome = run(create_read, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "create then read: data.serial expected 1180591620717411303424, got 1"


def test_a_huge_integer_read_back_unchanged_passes(bundle: Bundle) -> None:
    case = bundle["round_trip_tests"][0]
    case["expected_fields"] = {"data.serial": 2**70}
    case["read_response"]["data"]["serial"] = 2**70
    assert run(create_read, bundle).result is Result.PASS


def test_a_failed_read_fails(bundle: Bundle) -> None:
    bundle["round_trip_tests"][0]["read_response"] = fail("NOT_FOUND", "Widget w1 not found.")
    outcome = run(create_read, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "create then read: the read failed (NOT_FOUND: Widget w1 not found.)"


def test_a_cycle_that_compares_no_fields_warns(bundle: Bundle) -> None:
    bundle["round_trip_tests"][0]["expected_fields"] = {}
    outcome = run(create_read, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "create then read: compares no fields"


def test_creates_without_a_cycle_warn_when_cases_name_their_operation(bundle: Bundle) -> None:
    add_operation(bundle, "clone_widget", "CREATE")
    outcome = run(create_read, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "CREATE operations without create-read evidence: clone_widget"


def test_coverage_is_not_claimed_when_a_case_does_not_name_its_operation(bundle: Bundle) -> None:
    add_operation(bundle, "clone_widget", "CREATE")
    del bundle["round_trip_tests"][0]["operation"]
    assert run(create_read, bundle).result is Result.PASS


def test_every_mismatch_is_a_finding(bundle: Bundle) -> None:
    bundle["round_trip_tests"][0]["read_response"] = ok({"widget_name": "X", "tags": []})
    outcome = run(create_read, bundle)
    assert outcome.findings == (
        'create then read: data.widget_name expected "Sprocket", got "X"',
        'create then read: data.tags.1 expected "b", got (missing)',
    )


# Update preservation


def test_update_preservation_passes(bundle: Bundle) -> None:
    outcome = run(update_preservation, bundle)
    assert outcome.result is Result.PASS
    assert "1 update-read cycle(s) read back every expected field unchanged" in outcome.detail


def test_update_preservation_without_evidence_fails_when_an_update_exists(bundle: Bundle) -> None:
    del bundle["update_preservation_tests"]
    outcome = run(update_preservation, bundle)
    assert outcome.result is Result.FAIL
    assert (
        outcome.detail == "no evidence: no update_preservation_tests although UPDATE operations exist (update_widget)"
    )


def test_update_preservation_skips_without_an_update_operation(bundle: Bundle) -> None:
    drop_operation(bundle, "update_widget")
    del bundle["update_preservation_tests"]
    outcome = run(update_preservation, bundle)
    assert outcome.result is Result.SKIP
    assert outcome.detail == "No UPDATE operation is documented."


def test_a_field_the_update_dropped_fails(bundle: Bundle) -> None:
    del bundle["update_preservation_tests"][0]["read_response"]["data"]["color"]
    outcome = run(update_preservation, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == 'update keeps color: data.color expected "blue", got (missing)'


def test_a_field_the_update_nulled_fails(bundle: Bundle) -> None:
    bundle["update_preservation_tests"][0]["read_response"]["data"]["color"] = None
    outcome = run(update_preservation, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == 'update keeps color: data.color expected "blue", got null'


def test_updates_without_a_cycle_warn(bundle: Bundle) -> None:
    add_operation(bundle, "rename_widget", "UPDATE")
    outcome = run(update_preservation, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "UPDATE operations without update-read evidence: rename_widget"


def test_a_missing_cycle_fails_the_run(bundle: Bundle) -> None:
    del bundle["update_preservation_tests"]
    result = report(bundle, level=1)
    assert result.categories[3].result is Result.FAIL
    assert result.exit_code == 1
    assert result.conformance_level == 0
