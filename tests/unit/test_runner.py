"""runner.evaluate: levels, tiers, the category filter and the report it builds."""

from __future__ import annotations

from typing import Any

import pytest
from bundle_builders import conformant_bundle

from mcpaql_conformance import __version__
from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.evidence.bundle import Bundle, bundle_from_data
from mcpaql_conformance.verdict.runner import NAMED_OPERATIONS, categories_for, evaluate, note_lines, select_category

SPEC_ORDER = [
    "Introspection Fidelity",
    "Parameter Handling",
    "Error Quality",
    "Round-Trip Integrity",
    "Level 2 Features",
    "Constraint Documentation",
    "Semantic Evaluation",
]


@pytest.fixture
def loaded() -> Bundle:
    return bundle_from_data(conformant_bundle())


def test_level_1_runs_the_four_must_categories_in_spec_order() -> None:
    assert [c.name for c in categories_for(1)] == SPEC_ORDER[:4]
    assert all(c.required for c in categories_for(1))


def test_level_2_adds_the_three_should_categories() -> None:
    assert [c.name for c in categories_for(2)] == SPEC_ORDER
    assert [c.required for c in categories_for(2)][4:] == [False, False, False]


def test_level_1_has_thirteen_must_tests(loaded: Bundle) -> None:
    result = evaluate(loaded, 1)
    assert result.summary.total == 13
    assert result.summary.passed == 13


def test_the_report_carries_bundle_metadata_and_tool_identity(loaded: Bundle) -> None:
    result = evaluate(loaded, 2, "2")
    assert (result.implementation, result.version, result.spec_version) == ("unit-adapter", "0.0.1", "1.0.0-draft")
    assert (result.requested_level, result.conformance_level, result.exit_code) == (2, 2, 0)
    assert (result.tier, result.category_filter) == ("2", None)
    assert (result.tool, result.tool_version) == ("mcpaql-conformance", __version__)


def test_an_empty_bundle_is_not_conformant() -> None:
    result = evaluate(bundle_from_data({}), 1)
    assert result.exit_code == 1
    assert result.conformance_level == 0
    assert {c.result.value for c in result.categories} == {"FAIL"}


@pytest.mark.parametrize("level", [0, 3, 7])
def test_an_invalid_level_is_a_config_error_listing_valid_levels(loaded: Bundle, level: int) -> None:
    with pytest.raises(ConfigError) as caught:
        evaluate(loaded, level)
    assert str(caught.value) == f"invalid level {level}; valid levels: 1, 2"


def test_an_invalid_tier_is_a_config_error_listing_valid_tiers(loaded: Bundle) -> None:
    with pytest.raises(ConfigError) as caught:
        evaluate(loaded, 1, "3")
    assert str(caught.value) == "invalid tier '3'; valid tiers: 1, 2, both"


def test_an_unknown_category_is_a_config_error_listing_the_valid_ones(loaded: Bundle) -> None:
    with pytest.raises(ConfigError) as caught:
        evaluate(loaded, 1, "both", "Nope")
    assert str(caught.value) == (
        "unknown category 'Nope'; valid categories at level 1: 'Introspection Fidelity', "
        "'Parameter Handling', 'Error Quality', 'Round-Trip Integrity'"
    )


def test_a_level2_category_at_level_1_says_which_level_to_add(loaded: Bundle) -> None:
    with pytest.raises(ConfigError) as caught:
        evaluate(loaded, 1, "both", "semantic evaluation")
    assert str(caught.value) == "category 'Semantic Evaluation' is a Level 2 category; add --level 2"


def test_an_unknown_category_name_is_sanitised_in_the_error(loaded: Bundle) -> None:
    with pytest.raises(ConfigError) as caught:
        evaluate(loaded, 1, "both", "\x1b[31mNope\n")
    assert "\x1b" not in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_category_is_selected_case_and_space_insensitively(loaded: Bundle) -> None:
    result = evaluate(loaded, 2, "both", "  ERROR quality ")
    assert [c.name for c in result.categories] == ["Error Quality"]
    assert result.category_filter == "Error Quality"


def test_a_category_run_claims_no_conformance_level(loaded: Bundle) -> None:
    result = evaluate(loaded, 1, "both", "Error Quality")
    assert result.conformance_level is None
    assert result.exit_code == 0


def test_a_category_run_still_gives_its_exit_code() -> None:
    data: dict[str, Any] = conformant_bundle()
    data["error_tests"][0]["response"]["error"]["message"] = "at handler (/srv/app/src/notes.ts:41:9)"
    result = evaluate(bundle_from_data(data), 1, "both", "Error Quality")
    assert result.exit_code == 1


def test_select_category_returns_the_registered_category() -> None:
    assert select_category(2, "level 2 features").name == "Level 2 Features"


@pytest.mark.parametrize(
    ("typed", "name"),
    [
        ("s", "Semantic Evaluation"),  # a unique start as typed: no plural strip may empty it
        ("S", "Semantic Evaluation"),
        ("sem", "Semantic Evaluation"),
        ("e", "Error Quality"),
        ("errors", "Error Quality"),  # a plural: the start without its last s
        ("  Round-Trip   integrity ", "Round-Trip Integrity"),
        ("constraints", "Constraint Documentation"),
    ],
)
def test_a_category_is_found_by_a_unique_start_of_its_name_as_typed(typed: str, name: str) -> None:
    assert select_category(2, typed).name == name


@pytest.mark.parametrize("typed", ["", "   ", "x", "level 3", "ss s", "errorss"])
def test_an_unknown_or_ambiguous_category_lists_the_valid_names(typed: str) -> None:
    with pytest.raises(ConfigError, match="valid categories at level 2: 'Introspection Fidelity'"):
        select_category(2, typed)


def test_judge_safely_turns_invalid_bundles_and_our_bugs_into_errors(monkeypatch) -> None:
    import mcpaql_conformance.verdict.runner as runner

    report, error = runner.judge_safely({"error_tests": 3}, "b.json", 1, "both")
    assert report is None and error == "b.json: $.error_tests: expected an array, got integer"

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(runner, "evaluate", boom)
    report, error = runner.judge_safely({}, "b.json", None, "both")
    assert report is None and error == "internal error (RuntimeError): simulated bug; please report it"


def test_capture_notes_group_the_same_reason_across_operations() -> None:
    """An upstream without credentials refuses every call alike: one line for all the operations,
    not one per operation; a reason of one operation (naming it) stays its own line."""
    refused = "not judged: the call was refused for another reason (AUTH_REQUIRED: no token)"
    notes = [
        {"operation": "read_file", "probe": "accepted_parameters", "reason": refused},
        {"operation": "write_file", "probe": "missing_required", "reason": "its name write_file says 'write'"},
        {"operation": "list_files", "probe": "accepted_parameters", "reason": refused},
        {"operation": "write_file", "probe": "unknown_parameter", "reason": "its name write_file says 'write'"},
    ]
    assert note_lines(notes) == (
        f"read_file, list_files: accepted_parameters: {refused}",
        "write_file: missing_required, unknown_parameter: its name write_file says 'write'",
    )


def test_a_reason_shared_by_very_many_operations_counts_the_rest() -> None:
    notes = [{"operation": f"op_{i}", "probe": "accepted_parameters", "reason": "refused"} for i in range(139)]
    (line,) = note_lines(notes)
    named = ", ".join(f"op_{i}" for i in range(NAMED_OPERATIONS))
    assert line == f"{named} and {139 - NAMED_OPERATIONS} more operation(s): accepted_parameters: refused"
