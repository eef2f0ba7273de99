"""Constraint Documentation (SHOULD): constraints enforced with structured errors and documented."""

from __future__ import annotations

from typing import Any

from bundle_builders import fail, ok, report, run

from mcpaql_conformance.verdict.checks.constraints import documented, enforced
from mcpaql_conformance.verdict.model import Result

Bundle = dict[str, Any]
CONSTRAINTS = "Constraint Documentation"


def test_conformant_bundle_passes_the_whole_category(bundle: Bundle) -> None:
    category = report(bundle, level=2, category=CONSTRAINTS).categories[0]
    assert category.result is Result.PASS
    assert [t.id for t in category.tests] == ["L2.constraints.enforced", "L2.constraints.documented"]


# Enforced


def test_a_rejected_constrained_write_passes(bundle: Bundle) -> None:
    outcome = run(enforced, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail == "1 constrained write(s) were rejected with structured errors."


def test_a_constrained_write_that_succeeded_fails(bundle: Bundle) -> None:
    bundle["constraint_tests"][0]["response"] = ok({"id": "w2"})
    outcome = run(enforced, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == "id is read-only: the constrained write succeeded"


def test_a_rejection_without_structure_fails(bundle: Bundle) -> None:
    bundle["constraint_tests"][0]["response"] = {"success": False, "message": "read-only"}
    outcome = run(enforced, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "id is read-only: the rejection is not a valid structured error "
        '(failed without an error object (message: "read-only"))'
    )


def test_a_rejection_with_an_invalid_error_fails(bundle: Bundle) -> None:
    bundle["constraint_tests"][0]["response"] = fail("read_only", "Field id is read-only.")
    outcome = run(enforced, bundle)
    assert outcome.result is Result.FAIL
    assert (
        outcome.detail
        == "id is read-only: the rejection is not a valid structured error (read_only: Field id is read-only.)"
    )


def test_constraints_without_evidence_warn(bundle: Bundle) -> None:
    del bundle["constraint_tests"]
    outcome = run(enforced, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "no evidence: no constraint_tests (read-only or append-only attempts)"


# Documented


def test_documented_constraints_pass(bundle: Bundle) -> None:
    outcome = run(documented, bundle)
    assert outcome.result is Result.PASS
    assert outcome.detail == "1 constraint(s) are documented in introspection."


def test_an_undocumented_constraint_warns(bundle: Bundle) -> None:
    bundle["constraint_tests"][0]["documented"] = False
    outcome = run(documented, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "id is read-only: not documented in introspection"


def test_a_constraint_without_a_documented_flag_warns(bundle: Bundle) -> None:
    del bundle["constraint_tests"][0]["documented"]
    outcome = run(documented, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "id is read-only: not documented in introspection"


def test_documentation_without_evidence_warns(bundle: Bundle) -> None:
    bundle["constraint_tests"] = []
    outcome = run(documented, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail == "no evidence: no constraint_tests"


# Category verdict


def test_an_accepted_constrained_write_makes_the_should_category_warn_with_exit_2(bundle: Bundle) -> None:
    bundle["constraint_tests"][0]["response"] = ok({})
    result = report(bundle, level=2)
    category = next(c for c in result.categories if c.name == CONSTRAINTS)
    assert category.tests[0].result is Result.WARN  # a violated SHOULD warns, it never fails
    assert category.tests[0].cited == ("conformance:2.2:constraint-documentation",)
    assert category.result is Result.WARN
    assert result.exit_code == 2
    assert result.conformance_level == 2
