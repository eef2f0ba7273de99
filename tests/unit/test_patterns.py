"""Values that keep a documented pattern (capture/patterns.py, issue 29), and a hostile pattern
that gives no value instead of a hang."""

from __future__ import annotations

import re
import time

import pytest

from mcpaql_conformance.capture.candidates import SeenValues, candidates, refers_elsewhere
from mcpaql_conformance.capture.patterns import fits, matching, safe_to_run
from mcpaql_conformance.capture.values import numbered, run_values, synthesise


@pytest.mark.parametrize(
    "pattern",
    ["^shelf_[a-z0-9]+$", "[A-Z]{2}-\\d{4}", "^(a|b)+c?$", "^[^@\\s]+@[^@\\s]+\\.org$", "^isbn-\\d{10}$", "x{2,3}"],
)
def test_a_generated_value_keeps_the_pattern(pattern: str) -> None:
    value = matching(pattern, "seed")
    assert value is not None and re.search(pattern, value), value
    assert matching(pattern, "seed") == value  # reproducible from its seed
    assert matching(pattern, "other seed") != value or pattern == "x{2,3}"


def test_a_value_keeps_the_length_bounds_beside_the_pattern() -> None:
    value = matching("^shelf_[a-z0-9]+$", "seed", {"maxLength": 8})
    assert value is not None and len(value) <= 8 and re.fullmatch("shelf_[a-z0-9]+", value)


@pytest.mark.parametrize(
    "pattern",
    [
        "((((((((((a+)+)+)+)+)+)+)+)+)+)+",  # nested repeats: a budget, not a hang
        "^[a-z]{300}$",  # no match short enough
        "^\\p{L}+$",  # ECMA-262 that Python's re cannot read
        "(" * 300,  # unreadable
        "a" * 300,  # too long a pattern
    ],
)
def test_a_hostile_or_unreadable_pattern_gives_no_value_quickly(pattern: str) -> None:
    started = time.perf_counter()
    assert matching(pattern, "seed") is None
    assert time.perf_counter() - started < 1


@pytest.mark.parametrize(("pattern", "safe"), [("^shelf_[a-z0-9]+$", True), ("^(a+)+$", False), ("^(a|ab)*c$", False)])
def test_a_pattern_is_run_against_a_value_only_when_it_cannot_backtrack_exponentially(pattern: str, safe: bool) -> None:
    assert safe_to_run(pattern) is safe
    assert fits("a" * 40 + "!", {"pattern": pattern}) is (None if not safe else False)


def test_synthesised_values_keep_the_pattern_and_a_made_up_one_that_fits_is_kept() -> None:
    with run_values("run"):
        shelf = synthesise({"name": "shelf_id", "type": "string", "pattern": "^shelf_[a-z0-9]+$"})
        title = synthesise({"name": "title", "type": "string", "pattern": "^[a-z0-9-]+$"})
        tags = synthesise({"name": "tags", "type": "array", "items": {"type": "string", "pattern": "^t_[a-z]+$"}})
    assert re.fullmatch("shelf_[a-z0-9]+", shelf), shelf
    assert title.startswith("mcpaql-conformance-title-")  # the made-up value fits: kept, so it can be found
    assert isinstance(tags, list) and re.fullmatch("t_[a-z]+", tags[0]), tags


def test_a_second_create_gets_another_value_of_the_pattern() -> None:
    parameter = {"name": "shelf_id", "type": "string", "pattern": "^shelf_[a-z0-9]+$"}
    with run_values("run"):
        first = synthesise(parameter)
        second = numbered(first, 2, parameter)
    assert second != first and re.fullmatch("shelf_[a-z0-9]+", second)


def test_a_documented_value_that_breaks_the_pattern_is_not_tried() -> None:
    parameter = {"name": "shelf_id", "type": "string", "pattern": "^shelf_[a-z0-9]+$", "description": "e.g. main"}
    values = [c.value for c in candidates("create_shelf", parameter)]
    assert "main" not in values and all(re.fullmatch("shelf_[a-z0-9]+", v) for v in values), values


@pytest.mark.parametrize(
    ("operation", "parameter", "reference"),
    [
        ("add_book", "shelf_id", True),  # a shelf the server must have
        ("addBook", "shelfId", True),
        ("list_books", "shelf_id", True),
        ("create_shelf", "shelf_id", False),  # the new shelf's own id
        ("get_book", "book_id", False),
        ("list_shelves", "shelf_id", False),
        ("add_book", "title", False),
    ],
)
def test_a_reference_to_another_kind_of_record(operation: str, parameter: str, reference: bool) -> None:
    assert refers_elsewhere(operation, parameter) is reference


def test_a_reference_takes_what_the_server_answered_first() -> None:
    seen = SeenValues()
    seen.add_answer({"shelves": [{"id": "shelf_main", "name": "Main"}]}, "list_shelves")
    parameter = {"name": "shelf_id", "type": "string", "description": "The shelf, e.g. shelf_demo."}
    assert candidates("add_book", parameter, seen=seen)[0].value == "shelf_main"
    assert candidates("create_shelf", parameter, seen=seen)[0].value != "shelf_main"  # a new shelf: never an answer's
