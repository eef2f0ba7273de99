"""How an operation taking `aggregate` answers and documents it (verdict/checks/aggregates.py,
features/aggregations): each departure warns, naming the operation and what it answered; a server
whose operations take no `aggregate` is judged on none of it."""

from __future__ import annotations

from typing import Any

from bundle_builders import conformant_bundle, fail, ok

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.aggregates import (
    aggregate_documentation_findings,
    aggregate_evidence,
    aggregate_test_findings,
)

SUPPORT = {"supported": True, "functions": ["count", "group_by"], "groupable_fields": ["status"]}
REFUSED = fail("VALIDATION_INVALID_TYPE", "Aggregate 'total': unknown function zz_conformance_function.")


def with_aggregate(support: Any = SUPPORT, *cases: dict[str, Any]) -> Context:
    data = conformant_bundle()
    read = next(d for d in data["introspection"]["operation_details"] if d["semantic_category"] == "READ"
                and d["name"] != "introspect")  # fmt: skip
    read["parameters"] = [*read["parameters"], {"name": "aggregate", "type": "object", "required": False,
                                                "description": "Named summaries."}]  # fmt: skip
    if support is not None:
        read["aggregation_support"] = support
    data["aggregate_tests"] = [{**case, "operation": read["name"]} for case in cases]
    return Context(Bundle(data))


def said(findings: list[str]) -> list[tuple[str, str]]:
    return [(getattr(f, "rule", ""), str(f).split(" ", 1)[1]) for f in findings]


def test_documented_aggregates_answered_as_asked_pass() -> None:
    ctx = with_aggregate(SUPPORT, {"kind": "summary", "response": ok({"aggregations": {"total": 3}})},
                         {"kind": "with_items", "response": ok({"aggregations": {}, "items": [{"id": 1}]})},
                         {"kind": "unknown_function", "response": REFUSED},
                         {"kind": "unknown_field", "response": REFUSED},
                         {"kind": "grouped", "response": ok({"aggregations": {"by": {"done": 1}}})})  # fmt: skip
    assert aggregate_documentation_findings(ctx) == [] and aggregate_test_findings(ctx) == []
    assert aggregate_evidence(ctx) == [
        "aggregate_tests:summary", "aggregate_tests:with_items", "aggregate_tests:unknown_function",
        "aggregate_tests:unknown_field", "aggregate_tests:grouped", "introspection:aggregate_parameter",
    ]  # fmt: skip
    assert aggregate_evidence(Context(Bundle(conformant_bundle()))) == []


def test_an_aggregate_parameter_without_its_support_documented_warns() -> None:
    assert said(aggregate_documentation_findings(with_aggregate(None))) == [
        ("features/aggregations:5:advertise", "takes `aggregate` but its details have no aggregation_support")
    ]
    assert said(aggregate_documentation_findings(with_aggregate({"supported": True}))) == [
        (
            "features/aggregations:2:expose-functions",
            "aggregation_support lists no functions and no fields it aggregates",
        )
    ]


def test_rows_against_the_flag_unknown_names_taken_and_an_undocumented_refusal_warn() -> None:
    ctx = with_aggregate(SUPPORT, {"kind": "summary", "response": ok({"aggregations": {}, "items": [{"id": 1}]})},
                         {"kind": "with_items", "response": ok({"aggregations": {}})},
                         {"kind": "unknown_function", "response": ok({"aggregations": {}})},
                         {"kind": "unknown_field", "response": fail("INTERNAL_ERROR", "Boom.")},
                         {"kind": "grouped", "response": REFUSED})  # fmt: skip
    assert [rule for rule, _ in said(aggregate_test_findings(ctx))] == [
        "features/aggregations:3:omit-items", "features/aggregations:3:include-items-flag",
        "features/aggregations:4:reject-unsupported", "features/aggregations:2:unsupported-combinations",
    ]  # fmt: skip
    documented = {**SUPPORT, "unsupported_combinations": ["group_by with sum"]}
    ctx = with_aggregate(documented, {"kind": "grouped", "response": REFUSED})
    assert aggregate_test_findings(ctx) == []  # the details say which combinations it leaves out
