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


# Capture's own read-only field (capture/constraints.py)

INFERRED = {"name": "update_note: input.created_at (read-only)", "field": "created_at", "inferred": True}


def test_an_inferred_case_says_what_the_server_took_and_what_introspection_left_unsaid(bundle: Bundle) -> None:
    bundle["constraint_tests"] = [{**INFERRED, "documented": False, "response": ok({"note_id": "n1"})}]
    assert run(enforced, bundle).detail == (
        "update_note: input.created_at (read-only): the constrained write succeeded (the server took "
        "`input.created_at`, a field its record has and its `input` does not document)"
    )
    assert run(documented, bundle).detail == (
        "update_note: input.created_at (read-only): introspection does not say `created_at` is read-only (no readOnly "
        "flag, no description saying read-only, immutable or set by the server)"
    )


def test_capture_picks_the_documented_read_only_field_first_then_one_the_server_sets() -> None:
    from mcpaql_conformance.capture.constraints import read_only_field, read_only_names

    record = {"note_id": "n1", "title": "t", "created_at": "2026-01-01T00:00:00Z", "revision": 3, "_etag": "x"}
    takes = {"title": {}}
    assert read_only_field(record, takes, []) == ("created_at", False)  # by its name alone: undocumented
    flagged = [{"name": "Note", "fields": [{"name": "revision", "type": "integer", "readOnly": True}]}]
    assert read_only_field(record, takes, flagged) == ("revision", True)
    said = [{"name": "update_note", "description": "Change a note. note_id and created_at are read-only."}]
    assert read_only_field(record, takes, said) == ("created_at", True)
    schema = [{"inputSchema": {"properties": {"created_at": {"type": "string", "description": "Set by the server."}}}}]
    assert read_only_names(["created_at", "revision"], schema) == {"created_at"}
    assert read_only_field({"note_id": "n1", "title": "t"}, takes, said) is None  # nothing but what input takes
    not_said = [{"name": "x", "description": "created_at is the creation time. Titles are read-only."}]
    assert read_only_names(["created_at"], not_said) == set()  # another sentence says read-only


def test_the_walk_of_introspection_is_bounded() -> None:
    from mcpaql_conformance.capture.constraints import MAX_NODES, read_only_names

    wide = [{"name": f"f{i}", "description": "x"} for i in range(MAX_NODES * 3)]
    deep: Any = {"name": "created_at", "readOnly": True}
    for _ in range(MAX_NODES * 2):
        deep = {"inner": deep}
    assert read_only_names(["created_at"], [wide, deep]) == set()  # both beyond the nodes read
