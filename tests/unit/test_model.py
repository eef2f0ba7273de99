"""model: category classification, exit codes, earned conformance level, summary counts."""

from __future__ import annotations

import pytest

from mcpaql_conformance.verdict.model import (
    EXIT_CONFIG_ERROR,
    EXIT_CONFORMANT,
    EXIT_MUST_FAILED,
    EXIT_SHOULD_WARNED,
    LEVEL2_FEATURES,
    CategoryResult,
    Report,
    Requirement,
    Result,
    Summary,
    classify_category,
    conformance_level,
    exit_code_for,
)
from mcpaql_conformance.verdict.model import (
    TestResult as Verdict,
)

PASS, WARN, FAIL, SKIP = Result.PASS, Result.WARN, Result.FAIL, Result.SKIP


def results_of(*results: Result) -> tuple[Verdict, ...]:
    return tuple(Verdict(f"t{i}", f"test {i}", result, f"detail {i}") for i, result in enumerate(results))


def category(name: str, required: bool, *results: Result) -> CategoryResult:
    return CategoryResult(name, required, results_of(*results))


def must(*results: Result) -> CategoryResult:
    return category("Parameter Handling", True, *results)


def should(*results: Result, name: str = "Constraint Documentation") -> CategoryResult:
    return category(name, False, *results)


# classify_category


@pytest.mark.parametrize(
    ("results", "expected"),
    [
        ((PASS, PASS), PASS),
        ((PASS, SKIP), PASS),
        ((PASS, WARN), WARN),
        ((WARN, SKIP), WARN),
        ((PASS, WARN, FAIL), FAIL),
        ((FAIL, SKIP), FAIL),
        ((SKIP, SKIP), SKIP),
        ((), SKIP),
    ],
)
def test_must_category_classification(results: tuple[Result, ...], expected: Result) -> None:
    assert classify_category(True, results_of(*results)) is expected


def test_a_failing_test_in_a_should_category_makes_it_warn() -> None:
    assert classify_category(False, results_of(PASS, FAIL)) is WARN


def test_a_should_category_never_fails() -> None:
    assert classify_category(False, results_of(FAIL, FAIL)) is WARN


def test_a_should_category_of_passes_and_skips_passes() -> None:
    assert classify_category(False, results_of(PASS, SKIP)) is PASS


def test_a_category_whose_tests_all_skipped_is_skip() -> None:
    assert classify_category(False, results_of(SKIP)) is SKIP
    assert classify_category(True, results_of(SKIP, SKIP)) is SKIP


def test_category_result_is_computed_on_construction() -> None:
    assert must(PASS, FAIL).result is FAIL
    assert should(PASS, FAIL).result is WARN


def test_requirement_names() -> None:
    assert Requirement.MUST.value == "MUST"
    assert Requirement.SHOULD.value == "SHOULD"


# exit_code_for


def test_exit_code_constants_match_the_spec() -> None:
    assert (EXIT_CONFORMANT, EXIT_MUST_FAILED, EXIT_SHOULD_WARNED, EXIT_CONFIG_ERROR) == (0, 1, 2, 3)


def test_all_passing_categories_exit_zero() -> None:
    assert exit_code_for((must(PASS), should(PASS))) == 0


def test_a_warn_inside_a_must_category_keeps_exit_zero() -> None:
    assert exit_code_for((must(PASS, WARN), should(PASS))) == 0


def test_a_failed_must_category_exits_one() -> None:
    assert exit_code_for((must(FAIL), should(PASS))) == 1


def test_a_failed_must_category_wins_over_should_warnings() -> None:
    assert exit_code_for((must(FAIL), should(WARN))) == 1


def test_a_warning_should_category_exits_two() -> None:
    assert exit_code_for((must(PASS), should(WARN))) == 2


def test_a_failing_should_test_exits_two() -> None:
    assert exit_code_for((must(PASS), should(FAIL))) == 2


def test_skipped_categories_exit_zero() -> None:
    assert exit_code_for((must(SKIP), should())) == 0


def test_no_categories_exit_zero() -> None:
    assert exit_code_for(()) == 0


# conformance_level


def test_level_requested_is_earned_when_nothing_failed() -> None:
    assert conformance_level(1, (must(PASS),)) == 1
    assert conformance_level(2, (must(PASS), should(PASS, name=LEVEL2_FEATURES))) == 2


def test_a_failed_must_category_earns_level_zero() -> None:
    assert conformance_level(2, (must(FAIL), should(PASS, name=LEVEL2_FEATURES))) == 0


def test_failed_level2_features_earn_level_one() -> None:
    assert conformance_level(2, (must(PASS), should(FAIL, name=LEVEL2_FEATURES))) == 1


def test_warned_level2_features_earn_level_one() -> None:
    assert conformance_level(2, (must(PASS), should(WARN, name=LEVEL2_FEATURES))) == 1


def test_skipped_level2_features_earn_level_one() -> None:
    assert conformance_level(2, (must(PASS), should(SKIP, name=LEVEL2_FEATURES))) == 1


def test_level2_features_are_ignored_at_level_one() -> None:
    assert conformance_level(1, (must(PASS), should(FAIL, name=LEVEL2_FEATURES))) == 1


def test_failures_in_other_should_categories_do_not_lower_the_level() -> None:
    assert conformance_level(2, (must(PASS), should(FAIL, name="Semantic Evaluation"))) == 2


def test_a_must_warning_does_not_lower_the_level() -> None:
    assert conformance_level(1, (must(WARN),)) == 1


# Summary


def test_summary_counts_tests_by_result_across_categories() -> None:
    summary = Summary.of((must(PASS, PASS, WARN), should(FAIL, SKIP), should()))
    assert summary == Summary(total=5, passed=2, warned=1, failed=1, skipped=1)


def test_summary_as_dict_uses_the_report_keys() -> None:
    assert Summary(total=3, passed=1, warned=1, failed=0, skipped=1).as_dict() == {
        "total": 3,
        "passed": 1,
        "warned": 1,
        "failed": 0,
        "skipped": 1,
    }


def test_summary_of_no_categories_is_all_zero() -> None:
    assert Summary.of(()).as_dict() == {"total": 0, "passed": 0, "warned": 0, "failed": 0, "skipped": 0}


# Report


def make_report(*categories: CategoryResult) -> Report:
    return Report("impl", "1.0", "1.0.0-draft", 1, 1, categories, exit_code_for(categories))


def test_report_summary_is_derived_from_its_categories() -> None:
    assert make_report(must(PASS, FAIL)).summary.as_dict()["failed"] == 1


def test_report_has_warnings_when_a_category_warned() -> None:
    assert make_report(must(PASS, WARN)).has_warnings
    assert not make_report(must(PASS), should(SKIP)).has_warnings


def test_result_values_are_the_report_strings() -> None:
    assert [r.value for r in Result] == ["PASS", "WARN", "FAIL", "SKIP"]
