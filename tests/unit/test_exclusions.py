"""What capture never sends together (capture/exclusions.py), and two configurations of one
server in one bundle (capture/also.py): issue 29."""

from __future__ import annotations

from typing import Any

import pytest

from mcpaql_conformance.capture.also import merge, split_command
from mcpaql_conformance.capture.exclusions import combinable, is_cursor

PAGING = [
    {"name": "first", "type": "integer"},
    {"name": "after", "type": "string", "description": "Cursor from pageInfo.endCursor"},
    {"name": "last", "type": "integer"},
    {"name": "before", "type": "string"},
    {"name": "fields", "type": "array"},
]


def test_backward_paging_and_made_up_cursors_are_left_out() -> None:
    values = {"first": 20, "after": "x", "last": 20, "before": "y", "fields": ["id"]}
    kept, left_out = combinable(PAGING, values)
    assert kept == {"first": 20, "fields": ["id"]}
    assert set(left_out) == {"after", "before", "last"}
    assert left_out["last"] == "backward pagination does not go with forward pagination (pagination §2.3)"
    assert left_out["after"] == "a cursor is the server's to give (from pageInfo), never made up"


def test_an_optional_confirmation_token_is_never_made_up_and_a_required_one_is_sent() -> None:
    parameters = [
        {"name": "shelf_id", "type": "string", "required": True},
        {"name": "confirmationToken", "type": "string"},
        {"name": "ack", "type": "string", "description": "The token a CONFIRMATION_REQUIRED answer gave."},
        {"name": "code", "type": "string", "required": True, "description": "The confirmation token shown."},
    ]
    kept, left_out = combinable(parameters, {"shelf_id": "s", "confirmationToken": "t", "ack": "a", "code": "c"})
    assert kept == {"shelf_id": "s", "code": "c"}  # leaving a required one out is no valid request either
    assert left_out == dict.fromkeys(
        ("confirmationToken", "ack"), "a confirmation token is the operator's to give (operations §7.5), never made up"
    )


def test_a_cursor_the_server_gave_is_sent() -> None:
    kept, _ = combinable(PAGING[:2], {"first": 5, "after": "Y3Vyc29y"}, from_server=["after"])
    assert kept == {"first": 5, "after": "Y3Vyc29y"}


@pytest.mark.parametrize(
    "description",
    [
        "Search text; cannot be used with tag.",
        "Search text. Mutually exclusive with `tag`.",
        "Search text, not together with 'tag'.",
    ],
)
def test_a_pair_a_description_calls_exclusive_keeps_the_first_documented(description: str) -> None:
    parameters = [{"name": "query", "description": description}, {"name": "tag"}, {"name": "limit"}]
    kept, left_out = combinable(parameters, {"query": "a", "tag": "b", "limit": 1})
    assert kept == {"query": "a", "limit": 1}
    assert left_out == {"tag": "its description or query's says the two do not go together"}


def test_either_or_in_a_description_and_parameters_that_go_together() -> None:
    parameters = [
        {"name": "mode", "description": "Use either by_id or by_name."},
        {"name": "by_id"},
        {"name": "by_name"},
    ]
    kept, _ = combinable(parameters, {"mode": "x", "by_id": "1", "by_name": "n"})
    assert kept == {"mode": "x", "by_id": "1"}
    assert combinable([{"name": "a"}, {"name": "b"}], {"a": 1, "b": 2}) == ({"a": 1, "b": 2}, {})


@pytest.mark.parametrize(
    ("parameter", "cursor"),
    [
        ({"name": "after"}, True),
        ({"name": "page_token"}, True),
        ({"name": "next", "description": "The continuation token of the next page."}, True),
        ({"name": "token", "description": "An API token."}, False),
        ({"name": "first"}, False),
    ],
)
def test_cursors_are_known_by_name_or_description(parameter: dict[str, Any], cursor: bool) -> None:
    assert is_cursor(parameter) is cursor


def test_a_second_configuration_is_given_after_the_first() -> None:
    command = ("python", "s.py", "--also", "--", "python", "s.py", "--mode", "single")
    assert split_command(command) == (("python", "s.py"), ("python", "s.py", "--mode", "single"))
    assert split_command(("python", "s.py", "--also")) == (("python", "s.py", "--also"), ())


def test_two_configurations_are_one_bundle() -> None:
    first = {
        "endpoint_modes": ["crude"],
        "mcp_tools": [{"name": "mcp_aql_read"}],
        "capabilities": {"field_selection": True, "batch_operations": False},
        "routing_tests": [{"operation": "a"}],
        "capture_notes": [{"operation": "a", "probe": "p", "reason": "r"}],
        "provenance": {"transport": "stdio"},
        "parameter_tests": {"missing_required": [1]},
    }
    second = {
        "endpoint_modes": ["single"],
        "mcp_tools": [{"name": "mcp_aql"}, {"name": "mcp_aql_read"}],
        "capabilities": {"batch_operations": True},
        "batch_example": {"success": True},
        "routing_tests": [{"operation": "b"}],
        "capture_notes": [{"operation": "b", "probe": "p", "reason": "s"}, "junk"],
        "provenance": {"transport": "stdio", "server": {"name": "x"}},
        "parameter_tests": {"missing_required": [2]},
    }
    merged = merge(first, second)
    assert merged["endpoint_modes"] == ["crude", "single"]
    assert [tool["name"] for tool in merged["mcp_tools"]] == ["mcp_aql_read", "mcp_aql"]
    assert merged["capabilities"] == {"field_selection": True, "batch_operations": True}
    assert merged["batch_example"] == {"success": True}
    assert merged["routing_tests"] == [{"operation": "a"}, {"operation": "b"}]
    assert merged["capture_notes"][-1]["reason"] == "the second configuration: s" and len(merged["capture_notes"]) == 2
    assert merged["provenance"]["also"] == {"transport": "stdio", "server": {"name": "x"}}
    assert merged["parameter_tests"] == {"missing_required": [1]}  # the first configuration's evidence
