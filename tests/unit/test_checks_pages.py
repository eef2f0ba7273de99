"""How a cursor-paginated operation answers capture's pagination calls (verdict/checks/pages.py):
each finding names the operation and what it answered, citing its rule; a refusal for a reason
of its own says nothing; the evidence says what the run held to judge by."""

from __future__ import annotations

from typing import Any

from bundle_builders import conformant_bundle

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.pages import documented_cap, pagination_evidence, pagination_findings

REFUSED = {"success": False, "error": {"code": "VALIDATION_INVALID_TYPE", "message": "Parameter 'x' is wrong."}}


def page(count: int, more: bool = False, cursor: str = "Y3Vyc29yMQ", key: str = "items", **extra: Any) -> Any:
    info = {"hasNextPage": more, "hasPreviousPage": False, **({"endCursor": cursor} if count else {})}
    return {"success": True, "data": {key: [{"id": n} for n in range(count)], "pageInfo": info, **extra}}


def case(kind: str, response: Any, request: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"operation": "list_items", "kind": kind, "request": request or {}, "response": response}


def judged(
    *cases: dict[str, Any], details: list[dict[str, Any]] | None = None
) -> tuple[list[tuple[str, str]], list[str]]:
    data = conformant_bundle()
    data["pagination_tests"] = list(cases)
    if details is not None:
        data["introspection"]["operation_details"] = details
    ctx = Context(Bundle(data))
    found = [(getattr(finding, "rule", ""), str(finding)) for finding in pagination_findings(ctx)]
    return found, pagination_evidence(ctx)


def test_a_well_paged_walk_passes_and_says_what_it_held() -> None:
    walk = [case("page_of_one", page(1, more=True)), case("next_page", {**page(1), "data": {
        "items": [{"id": 7}], "pageInfo": {"hasNextPage": False, "hasPreviousPage": True}}}),
        case("large_page", page(100, more=True)), case("default_page", page(20, more=True)),
        case("first_and_last", REFUSED), case("mixed_styles", REFUSED)]  # fmt: skip
    walk.append(dict(walk[1]))
    found, evidence = judged(*walk)
    assert found == []
    assert evidence == [
        "pagination_tests:page_of_one", "pagination_tests:next_page", "pagination_tests:large_page",
        "pagination_tests:default_page", "pagination_tests:first_and_last", "pagination_tests:mixed_styles",
        "pagination_tests:beyond_a_page", "pagination_tests:full_default_page",
    ]  # fmt: skip


def test_a_page_of_one_in_another_shape_without_a_way_on_warns() -> None:
    shaped = {"success": True, "data": {"results": [{"id": 1}, {"id": 2}], "next": "abc"}}
    found, _ = judged(case("page_of_one", shaped))
    assert found == [
        ("features/pagination:4.1:connection-shape",
         "list_items asked for first: 1 answered {results, next}, not items (or edges) beside pageInfo"),
        ("operations:4.4.3:page-info",
         "list_items pages with cursors (it takes first) but its page of one has no pageInfo"),
    ]  # fmt: skip
    found, _ = judged(case("page_of_one", {**page(1, more=True), "data": {"edges": [{}], "pageInfo": {
        "hasNextPage": True}}}))  # fmt: skip
    assert found == [("operations:4.4.3:pagination-metadata",
                      "list_items's page of one does not say how to fetch the next page (hasNextPage true, endCursor "
                      "null)")]  # fmt: skip


def test_first_ignored_after_ignored_and_an_unstable_or_unsafe_cursor_warn() -> None:
    found, _ = judged(case("page_of_one", page(3, more=True, cursor="a/b")))
    assert found == [
        ("features/pagination:6.1:must-list", "list_items asked for first: 1 answered 3 items"),
        ("features/pagination:6.4:cursor-properties",
         "list_items's endCursor 'a/b' is not URL-safe (characters beyond A-Z a-z 0-9 -._~)"),
    ]  # fmt: skip
    first = case("page_of_one", page(1, more=True))
    found, _ = judged(first, case("next_page", page(1)), case("next_page", page(1)))
    assert found == [("features/pagination:6.1:must-list",
                      "list_items's page after its endCursor repeats the page of one (`after` ignored)")]  # fmt: skip
    other = {"success": True, "data": {"items": [{"id": 9}], "pageInfo": {"hasNextPage": False}}}
    found, _ = judged(first, case("next_page", other), case("next_page", page(1)))
    assert found == [("features/pagination:6.4:cursor-properties",
                      "list_items: the same endCursor gave two different pages")]  # fmt: skip
    found, _ = judged(first, case("next_page", REFUSED), case("next_page", REFUSED))
    assert found[0][0] == "features/pagination:6.1:must-list" and "refused `after` its own endCursor" in found[0][1]


def test_page_sizes_beyond_the_caps_and_refusals_of_a_large_page_warn() -> None:
    detail = {"name": "list_items", "pagination": {"max_page_size": 50}}
    found, evidence = judged(case("large_page", page(120)), details=[detail])
    assert found == [
        ("features/pagination:5.3:max-page-size",
         "list_items asked for first: 1000 answered 120 items, beyond its documented maximum of 50"),
        ("features/pagination:5.3:max-100", "list_items asked for first: 1000 answered 120 items (a cap of 100 is "
                                            "advised)"),
    ]  # fmt: skip
    assert "pagination_tests:beyond_a_page" in evidence
    found, _ = judged(case("large_page", REFUSED))
    assert [rule for rule, _ in found] == ["features/pagination:5.3:clamp-not-reject"]
    found, evidence = judged(case("large_page", page(3)))  # a small collection: nothing to see
    assert found == [] and "pagination_tests:beyond_a_page" not in evidence


def test_default_pages_of_another_size_and_mixed_styles_taken_warn() -> None:
    found, _ = judged(case("default_page", page(10, more=True)), case("default_page", page(3)))
    assert found == [("features/pagination:5.2:default-page-size",
                      "list_items asked for no page size answered pages of 10 items (20 are advised)")]  # fmt: skip
    found, _ = judged(case("mixed_styles", page(1), {"first": 1, "page": 1}), case("first_and_last", page(1)))
    assert found == [
        ("features/pagination:2.3:invalid-combinations",
         "list_items with first and last together was answered with success, not refused"),
        ("features/collection-querying:2.6:mixed-styles-rejected",
         "list_items with first and page together (two pagination styles) was answered with success, not refused"),
    ]  # fmt: skip


def test_older_cases_without_a_kind_are_first_and_last_and_hostile_caps_are_ignored() -> None:
    found, evidence = judged({"operation": "list_items", "response": page(1)})
    assert [rule for rule, _ in found] == ["features/pagination:2.3:invalid-combinations"]
    assert evidence == ["pagination_tests:first_and_last"]
    assert (
        documented_cap({"pagination": {"max_page_size": True}, "parameters": [{"name": "first", "maximum": 30}]}) == 30
    )
    assert documented_cap({"pagination": "x", "parameters": "y"}) is None
    assert documented_cap(None) is None
