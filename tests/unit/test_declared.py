"""Declared types read as the JSON types they stand for, and placeholders that are no values."""

from __future__ import annotations

import pytest

from mcpaql_conformance.capture.candidates import candidates
from mcpaql_conformance.capture.values import made_up, matches_type, numbered, run_values, synthesise
from mcpaql_conformance.evidence.declared import is_placeholder, json_type, typed, write_only


@pytest.mark.parametrize(
    ("declared", "kind", "items"),
    [
        ("string", "string", None),
        ("String", "string", None),
        ("str", "string", None),
        ("int", "integer", None),
        ("double", "number", None),
        ("bool", "boolean", None),
        ("string[]", "array", "string"),
        ("number []", "array", "number"),
        ("Array<string>", "array", "string"),
        ("list[str]", "array", "string"),
        ("[integer]", "array", "integer"),
        ("string | null", "string", None),
        ("null|integer", "integer", None),
        (["string", "null"], "string", None),
        ("Record<string, unknown>", "object", None),
        ("Dict", "object", None),
        ("Note", None, None),  # an adapter-defined type: nothing is checked against it
        ("x" * 500, None, None),  # too long to read
        (None, None, None),
    ],
)
def test_declared_types_are_read_as_json_types(declared, kind, items):
    assert json_type(declared) == (kind, items)


def test_a_typed_declaration_keeps_what_the_server_wrote_beside_the_type():
    assert typed({"name": "tags", "type": "string[]", "required": True}) == {
        "name": "tags", "type": "array", "required": True, "items": {"type": "string"}
    }  # fmt: skip
    plain = {"name": "title", "type": "string"}
    assert typed(plain) is plain
    assert typed({"name": "ids", "items": {"type": "integer"}})["type"] == "array"
    assert typed({"name": "x", "type": "int[]", "items": {"type": "string"}})["items"] == {"type": "string"}


@pytest.mark.parametrize(
    "value",
    ["<path>", "/home/<user>/notes.txt", "{id}", "/repos/{owner}/issues", "${HOME}", "{{token}}", "YOUR_API_KEY",
     "your-token-here", "token_here", "REPLACE_ME", "changeme", "TODO", "...", "\u2026", "xxx",
     ["a", "<b>"], {"nested": {"path": "<path>"}}],
)  # fmt: skip
def test_placeholders_are_recognised(value):
    assert is_placeholder(value)


@pytest.mark.parametrize(
    "value", ["notes/readme.txt", "a < b", "x > 1", "{not a placeholder}", "main", "yours", "the-end", 3, None, ["a"]]
)
def test_values_are_not_taken_for_placeholders(value):
    assert not is_placeholder(value)


def test_a_placeholder_in_an_example_or_description_is_never_a_candidate():
    parameter = {"name": "path", "type": "string", "description": "The file, e.g. '<path>' or 'notes/a.txt'."}
    examples = [{"request": {"params": {"path": "<path>"}}}, {"request": {"params": {"path": "docs/b.md"}}}]
    values = [c.value for c in candidates("read_file", parameter, [{"examples": examples}])]
    assert "<path>" not in values
    assert values[:2] == ["docs/b.md", "notes/a.txt"]


def test_a_list_of_strings_gets_lists_whatever_the_source():
    parameter = typed({"name": "tags", "type": "string[]", "description": "Tags, e.g. 'urgent'."})
    values = [c.value for c in candidates("write_file", parameter)]
    assert values == [["urgent"], [made_up("probe")]]
    assert not matches_type("urgent", parameter) and not matches_type([1], parameter)
    assert matches_type(["a", "b"], parameter)


def test_made_up_values_are_named_after_their_parameter_and_carry_the_run_token():
    assert synthesise({"name": "title", "type": "string"}) == "mcpaql-conformance-title"
    assert synthesise({"name": "a b", "type": "string"}) == "mcpaql-conformance-probe"  # not a label
    with run_values("20261126T000000000Z-1") as token:
        assert len(token) == 6
        assert made_up("title") == f"mcpaql-conformance-title-{token}"
        with run_values("20261126T000000000Z-2") as other:
            assert other != token
    assert made_up("title") == "mcpaql-conformance-title"


def test_numbered_values_differ_only_where_capture_made_them_up():
    assert numbered("mcpaql-conformance-title-abc123", 2) == "mcpaql-conformance-title-abc123-2"
    assert numbered(["mcpaql-conformance-x", "real"], 3) == ["mcpaql-conformance-x-3", "real"]
    assert numbered("notes/readme.txt", 2) == "notes/readme.txt"
    assert numbered(5, 2) == 5


@pytest.mark.parametrize(
    ("parameter", "expected"),
    [
        ({"name": "owner_key", "description": "Stored hashed, never returned."}, True),
        ({"name": "note", "description": "A write-only field."}, True),
        ({"name": "x", "writeOnly": True}, True),
        ({"name": "x", "sensitive": True}, True),
        ({"name": "api_key"}, True),
        ({"name": "password"}, True),
        ({"name": "title", "description": "The title, returned by every read."}, False),
        ({"name": "tokens_used"}, False),
    ],
)
def test_fields_a_read_does_not_give_back(parameter, expected):
    assert write_only(parameter) is expected
