"""The value miner: what capture sends for a parameter, best first, from what the server documents
(enum, default, examples, descriptions in real-world phrasings, earlier answers, the spec), and
only then a value made up from the type."""

from __future__ import annotations

import pytest

from mcpaql_conformance.capture.candidates import (
    ANSWER,
    DEFAULT,
    DESCRIPTION,
    ENUM,
    EXAMPLE,
    SPEC,
    SYNTHESISED,
    Candidate,
    SeenValues,
    candidates,
    described_values,
    example_values,
)
from mcpaql_conformance.capture.values import made_up

QUERY_MADE_UP = made_up("query")  # what capture makes up for a string nothing documents, named after it


def values(found: list[Candidate]) -> list[object]:
    return [c.value for c in found]


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("Query type: 'operations' or 'types'", ["operations", "types"]),
        ('Query type: "operations" or "types"', ["operations", "types"]),
        ("Sort order, one of: title, created, updated", ["title", "created", "updated"]),
        ("One of asc or desc.", ["asc", "desc"]),
        ("Either `json` or `csv`", ["json", "csv"]),
        ("Allowed values: low | medium | high", ["low", "medium", "high"]),
        ("Valid values are draft, published and archived.", ["draft", "published", "archived"]),
        ("Must be one of: open, closed", ["open", "closed"]),
        ("Creation date, e.g. 2024-01-31", ["2024-01-31"]),
        ("Note id (e.g. n-1)", ["n-1"]),
        ("The region, for example eu-west-1.", ["eu-west-1"]),
        ("Language code such as 'en' or 'de'", ["en", "de"]),
        ("Page size (default: 20)", ["20"]),
        ("Defaults to newest", ["newest"]),
        ("Start date (YYYY-MM-DD)", ["2026-01-31"]),
        ("When it happened, an ISO 8601 timestamp", ["2026-01-31T12:00:00Z"]),
        ("\u201cfast\u201d or \u201cthorough\u201d", ["fast", "thorough"]),
        ("The note's body text.", []),
        ("Must be at least 3 characters", []),
        ("", []),
    ],
)
def test_values_a_description_states(description: str, expected: list[str]) -> None:
    found = list(dict.fromkeys(described_values(description)))
    assert found[: len(expected)] == expected
    if not expected:
        assert found == []


def test_the_issue_s_introspect_query_gets_a_documented_value_first() -> None:
    query = {"name": "query", "type": "string", "required": True, "description": "Query type: 'operations' or 'types'"}
    found = candidates("introspect", query)
    assert found[:2] == [Candidate("operations", DESCRIPTION), Candidate("types", DESCRIPTION)]
    assert found[-1] == Candidate(QUERY_MADE_UP, SYNTHESISED)


def test_the_spec_s_values_for_introspect_when_nothing_is_documented() -> None:
    found = candidates("introspect", {"name": "query", "type": "string"})
    assert found == [Candidate("operations", SPEC), Candidate("types", SPEC), Candidate(QUERY_MADE_UP, SYNTHESISED)]


def test_sources_come_in_order_and_values_are_not_repeated() -> None:
    parameter = {
        "name": "status",
        "type": "string",
        "enum": ["open", "closed"],
        "default": "open",
        "description": "One of: open, closed, archived",
    }
    declarations = [{"examples": [{"request": {"operation": "list", "params": {"status": "pending"}}}]}]
    seen = SeenValues()
    seen.add_answer({"items": [{"status": "stale"}]})
    found = candidates("list_items", parameter, declarations, seen)
    assert found == [Candidate("open", ENUM), Candidate("closed", ENUM)]  # an enum is the whole truth


def test_without_an_enum_every_documented_source_is_offered_before_a_made_up_value() -> None:
    parameter = {"name": "status", "type": "string", "default": "open", "description": "One of: open, closed"}
    declarations = [
        {
            "description": "Lists items; status: 'pending' shows new ones.",
            "examples": ['{ params: { status: "held" } }'],
        }
    ]
    seen = SeenValues()
    seen.add_answer({"items": [{"status": "stale"}]})
    found = candidates("list_items", parameter, declarations, seen)
    assert found == [
        Candidate("open", DEFAULT),
        Candidate("held", EXAMPLE),
        Candidate("closed", DESCRIPTION),
        Candidate("pending", DESCRIPTION),
        Candidate("stale", ANSWER),
    ]  # the value synthesised from a default is the default


def test_identifiers_come_from_earlier_answers() -> None:
    seen = SeenValues()
    seen.add_answer({"notes": [{"id": "n-7", "title": "a"}, {"id": "n-8", "title": "b"}]})
    for name in ("note_id", "noteId", "id"):
        found = candidates("get_note", {"name": name, "type": "string", "required": True}, None, seen)
        assert values(found) == ["n-7", "n-8", made_up(name)], name
        assert found[0].source == ANSWER


def test_values_read_from_text_take_the_parameter_s_type() -> None:
    limit = {"name": "limit", "type": "integer", "description": "Page size, e.g. 25 (default: 10)"}
    assert values(candidates("list", limit)) == [25, 10, 1]
    flag = {"name": "archived", "type": "boolean", "description": "One of: true, false"}
    assert values(candidates("list", flag)) == [True, False]
    words = {"name": "limit", "type": "integer", "description": "One of: small, large"}
    assert values(candidates("list", words)) == [1]  # words are no integers


def test_example_strings_and_objects() -> None:
    declarations = [
        {
            "examples": [
                '{ operation: "search", params: { query: "open tickets", limit: 5, exact: true } }',
                {"params": {"query": "closed"}},
                {"description": "no request"},
                42,
            ]
        }
    ]
    assert list(example_values("query", declarations)) == ["open tickets", "closed"]
    assert list(example_values("limit", declarations)) == [5]
    assert list(example_values("exact", declarations)) == [True]


def test_hostile_descriptions_give_bounded_values() -> None:
    huge = "one of: " + ", ".join(f"v{i}" for i in range(200_000))
    found = candidates("x", {"name": "p", "type": "string", "description": huge})
    assert len(found) <= 9
    quotes = "'" * 1_000_000 + "e.g. " * 100_000
    assert values(candidates("x", {"name": "p", "type": "string", "description": quotes})) == [made_up("p")]


def test_seen_values_are_bounded() -> None:
    seen = SeenValues()
    seen.add_answer({"items": [{"id": f"n-{i}"} for i in range(1000)]})
    assert len(seen.for_parameter("id")) == SeenValues.MAX_VALUES
    seen.add_answer([[[[{"deep": "x"}]]]])
    assert seen.for_parameter("deep") == ["x"]
    wide = SeenValues()
    wide.add_answer({f"field_{i}": i for i in range(100_000)})  # one object of 100,000 fields
    assert len(wide.by_field) == SeenValues.MAX_FIELDS


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("Must be one of the fields returned, e.g. created_at.", ["created_at"]),
        ('Don\'t use the "name" field', []),
        ("Must be unique or empty", []),
        ("one of: asc, desc (default: asc)", ["asc", "desc"]),
        ("Tags, for example: work,personal", ["work"]),
        ("Values: draft | live", ["draft", "live"]),
        ("Sorted e.g. by 'created'", ["created"]),
    ],
)
def test_words_that_are_not_values_stay_out(description: str, expected: list[str]) -> None:
    assert list(dict.fromkeys(described_values(description))) == expected


def test_values_outside_the_declared_bounds_are_not_sent() -> None:
    limit = {"name": "limit", "type": "integer", "minimum": 1, "description": "Max results; 0 means all (default: 0)"}
    assert values(candidates("list", limit)) == [1]
    short = {"name": "code", "type": "string", "maxLength": 5, "description": "e.g. 'a-very-long-name'"}
    assert values(candidates("list", short)) == ["mcpaq"]  # the made-up value, cut to the bound


def test_names_and_ids_match_their_fields_but_words_ending_in_id_do_not() -> None:
    seen = SeenValues()
    seen.add_answer({"personas": [{"name": "alice", "id": "p-1"}]})
    assert seen.for_parameter("persona_name") == ["alice"]
    assert seen.for_parameter("personaId") == ["p-1"]
    assert seen.for_parameter("valid") == []


def test_example_values_that_cannot_or_should_not_be_sent_are_skipped() -> None:
    declarations = [{"examples": [{"params": {"n": 2**70}}, {"params": {"n": 7}}]}]
    assert values(candidates("x", {"name": "n", "type": "integer"}, declarations)) == [7, 1]
    huge = [{"examples": [{"params": {"filter": {"k": "v" * 10_000}}}]}]
    assert values(candidates("x", {"name": "filter", "type": "object"}, huge)) == [{}]
