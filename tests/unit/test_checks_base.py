"""checks.base: the shared verdict rule, listings, the registry and the evaluation context."""

from __future__ import annotations

from typing import Any

from bundle_builders import context, fail, ok

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.evidence.index import Pairs
from mcpaql_conformance.verdict.checks import CATEGORIES
from mcpaql_conformance.verdict.checks.base import all_succeeded, judge, listing, skip
from mcpaql_conformance.verdict.model import EXIT_CONFIG_ERROR, Requirement, Result

MUST, SHOULD = Requirement.MUST, Requirement.SHOULD


def verdict(requirement: Requirement = MUST, **kwargs: Any) -> tuple[Result, str]:
    arguments: dict[str, Any] = {"judged": 1, "failures": [], "passed": "all good", "no_evidence": "nothing"}
    arguments.update(kwargs)
    outcome = judge(requirement, **arguments)
    return outcome.result, outcome.detail


# judge (deliberate difference 1: no vacuous passes)


def test_judged_evidence_without_findings_passes() -> None:
    assert verdict() == (Result.PASS, "all good")


def test_no_evidence_fails_a_must_test() -> None:
    assert verdict(judged=0) == (Result.FAIL, "no evidence: nothing")


def test_no_evidence_warns_a_should_test() -> None:
    assert verdict(SHOULD, judged=0) == (Result.WARN, "no evidence: nothing")


def test_no_evidence_lists_what_was_uncovered() -> None:
    assert verdict(judged=0, uncovered=["a.x", "b.y"], uncovered_label="missing") == (
        Result.FAIL,
        "no evidence: nothing; missing: a.x, b.y",
    )


def test_failures_fail() -> None:
    assert verdict(failures=["a: broken"]) == (Result.FAIL, "a: broken")


def test_failures_fail_even_when_nothing_was_judged() -> None:
    assert verdict(SHOULD, judged=0, failures=["flag is not true"]) == (Result.FAIL, "flag is not true")


def test_failures_come_before_uncovered_items() -> None:
    result, detail = verdict(failures=["a: broken"], uncovered=["b"], uncovered_label="no evidence for")
    assert result is Result.FAIL
    assert detail == "a: broken; no evidence for: b"


def test_warnings_warn() -> None:
    assert verdict(warnings=["a: odd"]) == (Result.WARN, "a: odd")


def test_partial_coverage_warns_listing_the_uncovered_items() -> None:
    assert verdict(uncovered=["op_a", "op_b"], uncovered_label="operations without evidence") == (
        Result.WARN,
        "operations without evidence: op_a, op_b",
    )


def test_warnings_and_uncovered_items_are_both_listed() -> None:
    assert verdict(warnings=["a: odd"], uncovered=["b"]) == (Result.WARN, "a: odd; no evidence for: b")


def test_the_detail_lists_at_most_five_failures() -> None:
    _, detail = verdict(failures=[f"f{i}" for i in range(7)])
    assert detail == "f0, f1, f2, f3, f4 (+2 more)"


def test_every_finding_is_kept_up_to_the_cap() -> None:
    outcome = judge(MUST, judged=1, failures=["f"], warnings=["w"], uncovered=["u"], passed="", no_evidence="")
    assert outcome.findings == ("f", "w", "no evidence for: u")


def test_every_finding_is_kept_and_the_lead_counts_them() -> None:
    failures = [f"f{i}" for i in range(500)]
    outcome = judge(
        MUST, judged=1, failures=failures, warnings=["w"], uncovered=["u1", "u2"], passed="", no_evidence=""
    )
    assert outcome.findings == (*failures, "w", "no evidence for: u1", "no evidence for: u2")
    assert outcome.lead == "500 failure(s), 1 warning(s), no evidence for 2"
    labelled = judge(MUST, judged=1, failures=[], uncovered=["a"], uncovered_label="operations without detail evidence",
                     passed="", no_evidence="", withheld={"d": "--allow-destructive"})  # fmt: skip
    assert labelled.lead == (
        "1 operations without detail evidence, 1 withheld for safety by capture (capture again with"
        " --allow-destructive, against a disposable instance only, to judge them)"
    )
    assert labelled.findings[-1] == "withheld for safety: d (needs --allow-destructive)"
    writes = judge(MUST, judged=0, failures=[], passed="", no_evidence="", withheld={"c": "--allow-writes"})
    assert writes.result is Result.WARN
    assert (
        writes.lead
        == "not judged: capture withheld every probe it needs (capture again with --allow-writes to judge them)"
    )
    both = judge(MUST, judged=1, failures=[], passed="", no_evidence="",
                 withheld={"c": "--allow-writes", "d": "--allow-destructive"})  # fmt: skip
    assert "--allow-writes (CREATE operations) or --allow-destructive (UPDATE, DELETE and EXECUTE too" in both.lead
    nothing = judge(MUST, judged=0, failures=[], passed="", no_evidence="no missing_required tests", uncovered=["x"])
    assert nothing.lead == "no evidence: no missing_required tests" and nothing.findings == ("no evidence for: x",)


def test_skip_carries_its_reason() -> None:
    outcome = skip("No CREATE operation is documented.")
    assert (outcome.result, outcome.detail) == (Result.SKIP, "No CREATE operation is documented.")


# listing


def test_listing_joins_items() -> None:
    assert listing(["a", "b"]) == "a, b"


def test_listing_counts_what_it_leaves_out() -> None:
    assert listing([str(i) for i in range(10)]) == "0, 1, 2, 3, 4, 5, 6, 7 (+2 more)"


def test_listing_of_nothing_is_empty() -> None:
    assert listing([]) == ""


# error helpers


# Registry


def test_every_check_id_is_unique_and_stable_in_shape() -> None:
    ids = [check.id for category in CATEGORIES for check in category.checks]
    assert len(ids) == len(set(ids)) == 18  # Semantic Evaluation expands per case
    assert all(i.startswith(("L1.", "L2.")) for i in ids)


def test_level_1_has_thirteen_must_checks() -> None:
    level1 = [check for category in CATEGORIES if category.level == 1 for check in category.checks]
    assert len(level1) == 13
    assert all(category.required for category in CATEGORIES if category.level == 1)


def test_every_check_cites_a_spec_section() -> None:
    assert all("§" in check.spec_ref for category in CATEGORIES for check in category.checks)


def test_config_error_carries_exit_code_3() -> None:
    assert ConfigError("x").exit_code == EXIT_CONFIG_ERROR == 3


# Context


def test_context_indexes_details_by_first_name(bundle: dict[str, Any]) -> None:
    duplicate = dict(bundle["introspection"]["operation_details"][1], description="second copy")
    bundle["introspection"]["operation_details"].append(duplicate)
    ctx = context(bundle)
    assert ctx.details_by_name["create_widget"]["description"] == "The create_widget operation."


def test_context_knows_operations_from_details_and_the_list(bundle: dict[str, Any]) -> None:
    bundle["introspection"]["operations_list"]["data"]["operations"].append(
        {"name": "only_listed", "semantic_category": "EXECUTE", "endpoint": "execute", "description": "d"}
    )
    ctx = context(bundle)
    assert ctx.operation_names[-1] == "only_listed"
    assert ctx.operations_in("EXECUTE") == ["only_listed"]
    assert ctx.operations_in("READ") == ["introspect", "get_widget"]


def test_the_detail_category_wins_over_the_listed_one(bundle: dict[str, Any]) -> None:
    bundle["introspection"]["operations_list"]["data"]["operations"][2]["semantic_category"] = "EXECUTE"
    ctx = context(bundle)
    assert "get_widget" in ctx.operations_in("READ")
    assert ctx.operations_in("EXECUTE") == []


def test_context_ignores_malformed_parameter_entries(bundle: dict[str, Any]) -> None:
    bundle["introspection"]["operation_details"][4]["parameters"].extend([{"type": "string"}, "id", None])
    assert [p["name"] for p in context(bundle).parameters_of("delete_widget")] == ["id"]


def test_context_of_an_unknown_operation_has_no_parameters(bundle: dict[str, Any]) -> None:
    assert context(bundle).parameters_of("nope") == []


def test_context_judges_response_validity(bundle: dict[str, Any]) -> None:
    bundle["error_tests"][0]["response"] = {"success": False}
    ctx = context(bundle)
    assert not ctx.is_valid_result(bundle["error_tests"][0]["response"])
    assert ctx.is_valid_result(bundle["constraint_tests"][0]["response"])


def test_context_modes_are_a_set_or_none(bundle: dict[str, Any]) -> None:
    assert context(bundle).modes == {"crude", "single"}
    del bundle["endpoint_modes"]
    assert context(bundle).modes is None


# indexes and bulk helpers: the C-level fast paths agree with the per-entry rules


def test_required_and_default_pairs_follow_the_document_order(bundle: dict[str, Any]) -> None:
    index = context(bundle).parameter_index
    assert list(index.required) == [(op, p) for op, ps in index.by_operation.items() for p in _required_names(ps)]
    assert ("introspect", "query") in list(index.required)
    assert list(index.defaults) == [
        (op, p["name"]) for op, ps in index.by_operation.items() for p in ps if "default" in p
    ]
    assert index.names == [p["name"] for ps in index.by_operation.values() for p in ps]


def _required_names(parameters: list[dict[str, Any]]) -> list[str]:
    return [p["name"] for p in parameters if p.get("required") is True]


def test_required_pairs_of_invalid_details_skip_entries_without_the_flag(bundle: dict[str, Any]) -> None:
    bundle["introspection"]["operation_details"][4]["parameters"].append({"name": "loose"})
    pairs = list(context(bundle).parameter_index.required)
    assert ("delete_widget", "id") in pairs
    assert ("delete_widget", "loose") not in pairs


def test_pairs_uncovered_by_cases_in_any_order() -> None:
    pairs = Pairs(["a", "a", "b"], ["x", "y", "z"])
    cases = [{"operation": o, "parameter": p} for o, p in pairs]
    assert pairs.uncovered_by(cases) == []
    assert pairs.uncovered_by(list(reversed(cases))) == []
    assert pairs.uncovered_by([*cases, {"operation": "c", "parameter": "w"}]) == []
    assert pairs.uncovered_by(cases[1:]) == ["a.x"]
    assert pairs.uncovered_by([]) == ["a.x", "a.y", "b.z"]


def test_listed_operations_keep_the_first_entry_of_each_name(bundle: dict[str, Any]) -> None:
    operations = bundle["introspection"]["operations_list"]["data"]["operations"]
    operations.append(dict(operations[1], description="second copy"))
    operations.extend([{"name": 5}, "odd", {"description": "no name"}])
    listed = context(bundle).listed_operations
    assert list(listed) == [entry["name"] for entry in operations[:-4]]
    assert listed[operations[1]["name"]] is operations[1]


def test_all_succeeded_only_when_every_response_is_a_valid_success(bundle: dict[str, Any]) -> None:
    ctx = context(bundle)
    assert all_succeeded(ctx, [ok(), ok({"a": 1})])
    assert not all_succeeded(ctx, [ok(), fail("NOT_FOUND", "no such widget")])
    bundle["error_tests"][0]["response"] = {"success": "no"}
    assert not all_succeeded(context(bundle), [ok()])
