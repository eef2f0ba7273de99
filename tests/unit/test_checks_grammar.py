"""How a query_* operation documents its grammar (verdict/checks/grammar.py, features/collection-
querying §2.1, §3, §4.2): each missing part a warning naming the operation and citing its rule;
operations of other families, and query_* ones taking no `query`, are not judged on it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from mcpaql_conformance.verdict.checks.details import _detail_rule
from mcpaql_conformance.verdict.checks.grammar import query_grammar_findings

QUERY = {"name": "query", "type": "string", "required": True,
         "description": "Terms field:value (status, tag) or rating>=N; every term must hold."}  # fmt: skip
DOCUMENTED: dict[str, Any] = {
    "name": "query_books",
    "semantic_category": "READ",
    "description": 'Query the books with a selector: `query` holds terms like status:done or author:"Le Guin"; '
    "`filter` narrows the result further (both apply).",
    "parameters": [
        QUERY,
        {"name": "filter", "type": "object", "required": False, "description": "Keys that must match."},
        {"name": "fields", "type": "string", "required": False, "description": "A preset or field names."},
        {"name": "first", "type": "integer", "required": False, "description": "Page size."},
    ],
    "examples": [
        {"description": "Done", "request": {"operation": "query_books", "params": {"query": "status:done"}}},
        {"description": "Best, two a page", "request": {"operation": "query_books",
         "params": {"query": "rating>=4", "fields": "minimal", "first": 2}}},
    ],
}  # fmt: skip


def judged(detail: dict[str, Any]) -> list[tuple[str, str]]:
    return [(getattr(finding, "rule", ""), str(finding)) for finding in query_grammar_findings([detail])]


@pytest.fixture
def detail() -> dict[str, Any]:
    return copy.deepcopy(DOCUMENTED)


def test_a_documented_grammar_passes_and_other_operations_are_not_judged(detail: dict[str, Any]) -> None:
    assert judged(detail) == []
    assert judged({**detail, "name": "list_books", "description": "", "examples": []}) == []
    assert judged({**detail, "parameters": detail["parameters"][1:], "description": ""}) == []  # no `query`
    assert judged({**detail, "semantic_category": "UPDATE", "description": ""}) == []


def test_a_grammar_no_example_uses_is_undocumented(detail: dict[str, Any]) -> None:
    detail["examples"] = [{"description": "All", "request": {"operation": "query_books", "params": {"first": 5}}}]
    detail["parameters"][0] = {**QUERY, "description": ""}
    assert judged(detail) == [
        ("features/collection-querying:2.1:query-grammar-documented",
         "query_books takes a query grammar but its `query` parameter has no description and none of its "
         "examples uses `query`"),
    ]  # fmt: skip


def test_a_description_without_the_grammar_does_not_summarise_it(detail: dict[str, Any]) -> None:
    detail["description"] = "Query the books: a selector (filter applies too) [see the docs]."
    assert judged(detail) == [
        ("features/collection-querying:4.2:grammar-in-description",
         "query_books's description does not summarise its query grammar (it names no `query` syntax: "
         "operators, quoted terms, keywords)"),
    ]  # fmt: skip


def test_examples_that_never_compose_the_grammar_with_the_controls_warn(detail: dict[str, Any]) -> None:
    detail["examples"] = detail["examples"][:1]
    assert judged(detail) == [
        ("features/collection-querying:4.2:composed-example",
         "query_books: no example composes `query` with fields, first"),
    ]  # fmt: skip
    detail["parameters"] = detail["parameters"][:2]  # takes no control: nothing to compose with
    assert judged(detail) == []


def test_query_and_filter_without_a_word_on_how_they_combine_warn(detail: dict[str, Any]) -> None:
    detail["description"] = 'Query the books with a selector: `query` holds terms like status:done or author:"X".'
    assert judged(detail) == [
        ("features/collection-querying:3:query-filter-rules",
         "query_books takes `query` and `filter` but says nothing of how they combine"),
    ]  # fmt: skip
    detail["parameters"][1]["description"] = "Keys that must match, besides the query."
    assert judged(detail) == []


def test_an_untyped_query_of_a_query_operation_is_its_grammars_input_type() -> None:
    reason = "$.parameters[0]: 'type' is a required property"
    detail = {"name": "query_books", "parameters": [{"name": "query"}]}
    assert _detail_rule([reason], detail) == "features/collection-querying:4.2:input-type-introspected"
    assert _detail_rule([reason], {**detail, "name": "search_books"}) == "operations:5.2:type"


def test_hostile_text_is_read_in_linear_time_and_quoted_plainly(detail: dict[str, Any]) -> None:
    detail["name"] = "query_\x1b[31mbooks"
    detail["description"] = "(" * 200_000
    detail["examples"] = [{"request": None}, "x", {"request": {"params": []}}]
    found = judged(detail)
    assert [rule for rule, _ in found] == [
        "features/collection-querying:2.1:query-grammar-documented",
        "features/collection-querying:4.2:grammar-in-description",
        "features/collection-querying:3:query-filter-rules",
    ]
    assert all("\x1b" not in text for _, text in found)
