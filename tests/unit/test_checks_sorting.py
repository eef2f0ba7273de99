"""Sort shortcuts (verdict/checks/sorting.py, collection-querying §2.3): a shortcut taken, or an `order`
documented beside `sort`, warns unless introspection calls it compatibility behaviour."""

from __future__ import annotations

from typing import Any

from bundle_builders import conformant_bundle, fail, ok

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.sorting import sort_evidence, sort_findings

SORT = {"name": "sort", "type": "object", "required": False, "description": "Sort {field, order}."}


def sorted_by(description: str, *parameters: dict[str, Any], answer: Any = None) -> Context:
    data = conformant_bundle()
    data["introspection"]["operation_details"].append(
        {"name": "list_notes", "semantic_category": "READ", "endpoint": "read", "description": description,
         "parameters": [SORT, *parameters]}
    )  # fmt: skip
    if answer is not None:
        data["sort_tests"] = [{"operation": "list_notes", "kind": "shorthand",
                               "request": {"sort": "title", "order": "desc"}, "response": answer}]  # fmt: skip
    return Context(Bundle(data))


def test_a_shortcut_taken_undocumented_warns_and_a_refused_one_passes() -> None:
    taken = sorted_by("List notes.", answer=ok({"items": []}))
    assert [(f.rule, str(f)) for f in sort_findings(taken)] == [  # type: ignore[attr-defined]
        ("features/collection-querying:2.3:shortcuts-documented",
         "list_notes took sort as a bare field name with order beside it, a shortcut its introspection does not "
         "document")]  # fmt: skip
    assert sort_evidence(taken) == ["sort_tests:shorthand"]
    assert sort_findings(sorted_by("List notes.", answer=fail("VALIDATION_INVALID_TYPE", "sort"))) == []
    said = sorted_by("List notes. A bare sort field with order beside it is a compatibility shorthand.",
                     answer=ok({"items": []}))  # fmt: skip
    assert sort_findings(said) == []


def test_an_order_parameter_beside_sort_must_be_called_compatibility() -> None:
    order = {"name": "order", "type": "string", "required": False, "description": "asc or desc."}
    assert [f.rule for f in sort_findings(sorted_by("List notes.", order))] == [  # type: ignore[attr-defined]
        "features/collection-querying:2.3:shortcuts-documented"
    ]
    legacy = {**order, "description": "Legacy alias: sort.order is the contract."}
    assert sort_findings(sorted_by("List notes.", legacy)) == []
