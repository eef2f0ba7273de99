"""The capability matrix of collection-querying §3 (verdict/checks/matrix.py): a collection READ
operation that neither takes a control of its family's row nor says in its description that it
leaves it out warns, citing the row's rule; `filter` that is no object warns (§2.2)."""

from __future__ import annotations

from typing import Any

from bundle_builders import conformant_bundle

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.matrix import matrix_findings


def op(name: str, description: str, *parameters: str, **types: str) -> dict[str, Any]:
    return {"name": name, "semantic_category": "READ", "endpoint": "read", "description": description,
            "parameters": [{"name": p, "type": types.get(p, "string"), "required": False, "description": p}
                           for p in parameters]}  # fmt: skip


def judged(*details: dict[str, Any]) -> list[tuple[str, str]]:
    data = conformant_bundle()
    data["introspection"]["operation_details"] = [*details]
    return [(getattr(f, "rule", ""), str(f)) for f in matrix_findings(Context(Bundle(data)))]


def test_each_family_taking_its_row_or_saying_what_it_leaves_out_passes() -> None:
    assert judged(op("list_items", "List items.", "filter", "sort", "first", "fields", filter="object"),
                  op("search_items", "Search items. No filter or sort; one page.", "query", "fields"),
                  op("query_items", "Query items, in the order added (no paging).", "query", "preset"),
                  op("query_relationships", "Traverse.", "root", "direction"),
                  op("get_item", "Read one item.", "item_id")) == []  # fmt: skip


def test_a_control_left_out_unsaid_warns_with_its_row() -> None:
    assert judged(op("list_items", "List items.", "limit", "fields"), op("query_items", "Query.", "query")) == [
        ("features/collection-querying:3:list-controls",
         "list_items takes no filter and its description does not say it leaves it out"),
        ("features/collection-querying:3:list-controls",
         "list_items takes no sort and its description does not say it leaves it out"),
        ("features/collection-querying:3:query-sort",
         "query_items takes no sort and its description does not say it leaves it out"),
        ("features/collection-querying:3:query-paging-fields",
         "query_items takes no pagination and its description does not say it leaves it out"),
        ("features/collection-querying:3:query-paging-fields",
         "query_items takes no fields and its description does not say it leaves it out"),
    ]  # fmt: skip


def test_a_filter_that_is_no_object_warns() -> None:
    found = judged(op("search_items", "Search, no sort, one page.", "query", "filter", "fields"))
    assert found == [("features/collection-querying:2.2:filter-object",
                      "search_items takes filter as string, not an object of filter keys")]  # fmt: skip


def test_a_filter_of_a_documented_object_type_is_an_object() -> None:
    data = conformant_bundle()
    data["introspection"]["operation_details"] = [
        op("search_items", "Search, no sort, one page.", "query", "filter", "fields", filter="ItemFilter")
    ]
    data["introspection"]["types_list"]["data"]["types"].append(
        {"name": "ItemFilter", "kind": "object", "description": "Filter keys.", "fields": []}
    )
    assert matrix_findings(Context(Bundle(data))) == []
