"""What each MCP-AQL tool's description holds (verdict/checks/descriptions.py): the parts of the
templates of mcp-integration §2.1.1 and endpoint-modes §4.7, §5.4, read leniently, each missing
part a warning naming the tool and citing its rule."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.reading import read_tool
from mcpaql_conformance.verdict.checks.descriptions import description_findings

READ_OPS = [
    {"name": "introspect", "semantic_category": "READ", "endpoint": "read"},
    {"name": "list_books", "semantic_category": "READ", "endpoint": "read"},
    {"name": "get_book", "semantic_category": "READ", "endpoint": "read"},
]
GOOD_READ = (
    "Safe, read-only operations.\n\nSupported operations: introspect, list_books, get_book\n\n"
    'Quick start example:\n{ operation: "list_books", params: { first: 5 } }\n\n'
    'Discover all operations:\n{ operation: "introspect", params: { query: "operations" } }'
)
GOOD_SINGLE = (
    "Unified MCP-AQL endpoint for all operations, routed by semantic category (CREATE, READ, UPDATE).\n\n"
    'Use introspection to discover available operations:\n{ operation: "introspect", params: { query: "operations" } }'
)


def judged(name: str, description: str, details: list[dict[str, Any]]) -> list[tuple[str, str]]:
    reading = read_tool(name)
    assert reading is not None
    found = description_findings([reading], {name: {"name": name, "description": description}}, details)
    return [(getattr(finding, "rule", ""), str(finding)) for finding in found]


def with_family(family: str) -> list[dict[str, Any]]:
    return [{**op, "endpoint": family} for op in READ_OPS]


def test_descriptions_as_the_templates_give_them_pass() -> None:
    assert judged("mcp_aql_read", GOOD_READ, READ_OPS) == []
    assert judged("mcp_aql", GOOD_SINGLE, READ_OPS) == []
    custom = "Query-oriented operations.\n\nPrimary semantic categories: READ\n\n" + GOOD_READ.split("\n\n", 1)[1]
    assert judged("mcp_aql_query", custom, with_family("query")) == []


def test_wording_and_json_calls_are_read_leniently() -> None:
    text = 'Reads books without changing them. Try {"operation": "get_book", "params": {"book_id": "b1"}}.'
    assert judged("mcp_aql_read", text, READ_OPS) == []  # names get_book in the call itself


def test_a_crude_tool_without_operations_or_a_call_warns_once_naming_what_is_missing() -> None:
    text = "Safe, read-only operations. Use introspect to discover them."
    assert judged("mcp_aql_read", text, READ_OPS) == [
        (
            "mcp:2.1.1:crude-templates",
            "tool mcp_aql_read: its description does not follow the READ template of mcp-integration §2.1.1: it "
            "names none of its operations (list_books, get_book); it shows no quick-start call of its operations "
            "({ operation: ..., params: ... })",
        )
    ]


def test_a_call_counts_only_as_one_of_the_familys_own_operations() -> None:
    text = GOOD_READ.replace('{ operation: "list_books", params: { first: 5 } }', "")
    assert judged("mcp_aql_read", text, READ_OPS) == []  # introspect is a READ operation too: read leniently
    create = [{"name": "add_book", "semantic_category": "CREATE", "endpoint": "create"}]
    guidance = 'Additive operations.\n\nSupported operations: add_book\n\n{ operation: "introspect" }'
    [(rule, finding)] = judged("mcp_aql_create", guidance, create)
    assert rule == "mcp:2.1.1:crude-templates" and finding.endswith(
        "it shows no quick-start call of its operations ({ operation: ..., params: ... })"
    )


def test_a_description_opening_with_its_list_has_no_purpose() -> None:
    text = GOOD_READ.split("\n\n", 1)[1]
    assert judged("mcp_aql_read", text, READ_OPS) == [
        (
            "mcp:2.1.1:purpose-and-kinds",
            "tool mcp_aql_read: its description opens with no sentence saying what the family is for (it starts "
            "'Supported operations: introspect, list_books, get_book')",
        )
    ]


def test_a_custom_family_names_its_categories() -> None:
    text = "Lookups of shelves and books.\n\n" + GOOD_READ.split("\n\n", 1)[1].replace("read-only", "")
    assert judged("mcp_aql_lookup", text, with_family("lookup")) == [
        (
            "mcp:2.1.1:custom-template",
            "tool mcp_aql_lookup: its description does not follow the custom-family template of mcp-integration "
            "§2.1.1: it names none of its semantic categories (READ)",
        )
    ]


def test_a_family_named_after_its_resource_is_a_bucket() -> None:
    ops = [{**op, "endpoint": "books"} for op in READ_OPS]
    text = "Lookups of books.\n\nPrimary semantic categories: READ\n\n" + GOOD_READ.split("\n\n", 1)[1]
    assert judged("mcp_aql_books", text, ops) == [
        (
            "endpoint-modes:4.7:intent-revealing-names",
            "tool mcp_aql_books: its family 'books' is named after the resource its operations act on, not after "
            "what they do (query, manage, operate...)",
        )
    ]
    assert judged("mcp_aql_query", text, with_family("query")) == []


def test_the_single_tool_outlines_and_shows_a_call() -> None:
    assert judged("mcp_aql", "All operations. See the docs.", READ_OPS) == [
        (
            "endpoint-modes:5.4:unified-description",
            "tool mcp_aql: its description outlines none of the endpoint families or semantic categories; it "
            "shows no quick-start call ({ operation: ..., params: ... })",
        )
    ]


def test_unrecorded_descriptions_and_hostile_text_are_read_safely() -> None:
    reading = read_tool("mcp_aql_read")
    assert reading is not None
    assert description_findings([reading], {"mcp_aql_read": {"name": "mcp_aql_read"}}, READ_OPS) == []
    hostile = "\x1b[31mRed\x1b[0m " + "operation: " * 20_000
    [(rule, finding)] = judged("mcp_aql_read", hostile, READ_OPS)
    assert rule == "mcp:2.1.1:crude-templates" and "\x1b" not in finding
