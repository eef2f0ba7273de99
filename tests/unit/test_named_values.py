"""Named types read as the shapes their TypeDetails give; values that keep format, pattern and
bounds together; keys of new records new in the run; identifiers the server documents (issue 34)."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from types import SimpleNamespace
from typing import Any

import pytest

from mcpaql_conformance.capture.candidates import candidates, documented_identifiers, new_record_key
from mcpaql_conformance.capture.values import (
    changed_value,
    format_ok,
    fresh,
    numbered,
    run_values,
    sensitive_value,
    synthesise,
)
from mcpaql_conformance.evidence import identifiers
from mcpaql_conformance.evidence.named import NamedTypes
from mcpaql_conformance.verdict.checks.updates import update_input_documentation

TYPES = NamedTypes(
    [
        {"name": "Location", "kind": "object", "fields": [
            {"name": "shelf", "type": "string", "required": True},
            {"name": "bin", "type": "integer", "required": True, "minimum": 1, "maximum": 40},
            {"name": "room", "type": "Room", "required": False},
        ]},
        {"name": "Room", "kind": "object", "fields": [{"name": "name", "type": "string", "required": True},
                                                       {"name": "inside", "type": "Location"}]},
        {"name": "Ingredient", "kind": "object", "fields": [
            {"name": "name", "type": "string", "required": True},
            {"name": "quantity", "type": "number", "required": True, "minimum": 0},
        ]},
        {"name": "ItemCategory", "kind": "enum", "values": ["dry", "fresh"]},
        {"name": "Payment", "kind": "union", "members": ["Card", "Ingredient"]},
        {"name": "Money", "kind": "scalar"},
    ],
    [{"name": "Shelf", "kind": "object", "fields": [{"name": "code", "type": "string", "required": True}]}],
)  # fmt: skip


def test_a_named_object_type_is_an_object_with_its_fields_nested_types_included() -> None:
    location = TYPES.resolve({"name": "location", "type": "Location", "required": True})
    assert location["type"] == "object" and location["x-named-type"] == "Location"
    fields = {field["name"]: field for field in location["properties"]}
    assert fields["bin"] == {"name": "bin", "type": "integer", "required": True, "minimum": 1, "maximum": 40}
    room = fields["room"]
    assert room["type"] == "object" and [f["name"] for f in room["properties"]] == ["name", "inside"]
    inside = room["properties"][1]
    assert inside == {"name": "inside", "type": "object", "x-named-type": "Location"}  # not followed again


@pytest.mark.parametrize(
    "declaration",
    [
        {"name": "ingredients", "type": "array", "items": {"type": "Ingredient"}},
        {"name": "ingredients", "type": "Ingredient[]"},
        {"name": "ingredients", "type": "Array<Ingredient>"},
        {"name": "ingredients", "type": "array", "items": {"type": "ingredient"}},  # another case
    ],
)
def test_array_items_of_a_named_type_are_its_objects(declaration: dict[str, Any]) -> None:
    resolved = TYPES.resolve(declaration)
    assert resolved["type"] == "array" and resolved["items"]["type"] == "object"
    assert [f["name"] for f in resolved["items"]["properties"]] == ["name", "quantity"]
    value = synthesise(resolved)
    assert value == [{"name": "mcpaql-conformance-name", "quantity": 0.0}]


def test_enums_unions_scalars_and_unknown_names() -> None:
    assert TYPES.resolve({"name": "c", "type": "ItemCategory"}) == {
        "name": "c", "type": "string", "x-named-type": "ItemCategory", "enum": ["dry", "fresh"]
    }  # fmt: skip
    assert TYPES.resolve({"name": "p", "type": "Payment"})["properties"][0]["name"] == "name"  # first member known
    assert TYPES.resolve({"name": "m", "type": "Money"}) == {"name": "m", "type": "Money"}
    assert TYPES.resolve({"name": "x", "type": "Unlisted"}) == {"name": "x", "type": "Unlisted"}
    assert TYPES.resolve({"name": "s", "type": "Shelf"})["type"] == "object"  # a list entry with fields
    assert NamedTypes().resolve({"name": "t", "type": "str"}) == {"name": "t", "type": "string"}


def test_a_named_object_type_object_values_are_built_from_its_required_fields() -> None:
    value = synthesise(TYPES.resolve({"name": "location", "type": "Location", "required": True}))
    assert value == {"shelf": "mcpaql-conformance-shelf", "bin": 1}


def test_update_input_of_a_listed_object_type_is_an_object() -> None:
    sku = {"name": "sku", "type": "string", "required": True}
    item_input = {"name": "input", "type": "ItemUpdateInput", "required": True}
    detail = {"name": "update_item", "semantic_category": "UPDATE", "parameters": [sku, item_input]}
    listed = NamedTypes([{"name": "ItemUpdateInput", "kind": "object", "fields": [{"name": "name", "type": "string"}]}])
    assert update_input_documentation([detail], listed) == ([], [])
    failures, warnings = update_input_documentation([detail], NamedTypes())
    assert failures == [] and warnings == [
        "update_item: `input` is documented as 'ItemUpdateInput', a type the server does not describe: not shown to"
        " be an object (list it in introspect types)"
    ]
    enum = NamedTypes([{"name": "ItemUpdateInput", "kind": "enum", "values": ["a"]}])
    assert update_input_documentation([detail], enum)[0] == [
        "update_item: `input` is documented as 'ItemUpdateInput', a type of kind enum, not an object"
    ]
    detail["parameters"][1]["type"] = "string"
    assert update_input_documentation([detail], listed)[0] == [
        "update_item: `input` is documented as 'string', not an object"
    ]


DATE = {"name": "best_before", "type": "string", "format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}


def test_a_date_with_a_digits_pattern_is_a_real_date_first_numbered_changed() -> None:
    with run_values("stamp"):
        values = [synthesise(DATE), numbered(synthesise(DATE), 2, DATE), changed_value("2026-01-01", "d", DATE)]
    assert values == ["2026-01-01", "2026-01-03", "2026-01-02"]
    assert all(dt.date.fromisoformat(value) for value in values)


@pytest.mark.parametrize(
    ("parameter", "check"),
    [
        ({"format": "date-time"}, lambda v: dt.datetime.fromisoformat(v.replace("Z", "+00:00"))),
        ({"format": "email", "maxLength": 60}, lambda v: re.fullmatch(r"[^@]+@example\.org", v) and len(v) <= 60),
        ({"format": "uri"}, lambda v: v.startswith("https://example.org/")),
        ({"format": "uuid"}, uuid.UUID),
        # a pattern the format's own value does not keep: one generated from it that is also a date
        (
            {"format": "date", "pattern": "^2030-0[1-9]-1[0-9]$"},
            lambda v: v.startswith("2030-0") and format_ok("date", v),
        ),
        ({"format": "uuid", "pattern": "^[0-9a-f-]{36}$"}, uuid.UUID),
    ],
)
def test_formatted_values_keep_their_format_and_pattern(parameter: dict[str, Any], check: Any) -> None:
    declaration = {"name": "p", "type": "string", **parameter}
    with run_values("stamp"):
        first, second = synthesise(declaration), numbered(synthesise(declaration), 2, declaration)
    assert check(first) and check(second)
    assert format_ok(parameter["format"], first) and format_ok(parameter["format"], second)


@pytest.mark.parametrize(
    ("fmt", "text", "ok"),
    [
        ("date", "2026-02-28", True), ("date", "6529-59-39", False), ("date", "2026-2-1", False),
        ("date-time", "2026-01-01T00:00:00Z", True), ("date-time", "2026-13-01T00:00:00Z", False),
        ("email", "a@b.org", True), ("email", "a@b", False), ("uuid", "not-a-uuid", False),
        ("uri", "https://x.org/a", True), ("uri", "no scheme", False), ("x-custom", "anything", True),
    ],
)  # fmt: skip
def test_format_ok_knows_real_values(fmt: str, text: str, ok: bool) -> None:
    assert format_ok(fmt, text) is ok


def test_a_described_value_its_format_refuses_is_no_candidate() -> None:
    declaration = {**DATE, "description": "Best before: one of 2026-02-30, 2026-03-01"}
    values = [candidate.value for candidate in candidates("create_item", declaration)]
    assert "2026-02-30" not in values and "2026-03-01" in values


SKU = {"name": "sku", "type": "string", "pattern": "^[A-Z]{3}-[0-9]{4}$", "description": "The item, e.g. ABC-1234"}


def operation(name: str, category: str, *parameters: dict[str, Any]) -> Any:
    return SimpleNamespace(name=name, category=category, parameters=list(parameters))


PANTRY = [
    operation("get_item", "READ", {**SKU, "required": True}),
    operation(
        "update_item", "UPDATE", {**SKU, "required": True}, {"name": "input", "type": "object", "required": True}
    ),
    operation("delete_item", "DELETE", {**SKU, "required": True}),
    operation("create_item", "CREATE", {**SKU, "required": True}, {"name": "supplier_code", "type": "string"}),
    operation("get_supplier", "READ", {"name": "supplier_code", "type": "string", "required": True}),
    operation("delete_supplier", "DELETE", {"name": "supplier_code", "type": "string", "required": True}),
    operation("search", "READ", {"name": "query", "type": "string", "required": True}),
    operation("get_batch", "READ", {"name": "batch", "type": "string", "format": "uuid", "required": True}),
    operation("get_note", "READ", {"name": "note_id", "type": "string", "required": True}),
    operation("run", "EXECUTE", {"name": "dry_run", "type": "boolean", "required": True}),
]


def test_identifiers_are_what_the_server_documents() -> None:
    assert documented_identifiers(PANTRY) == {
        "sku": frozenset({"item"}),  # taken alone by get_item, update_item, delete_item
        "supplier_code": frozenset({"supplier"}),
        "batch": frozenset({"batch"}),  # a uuid
    }  # query: one READ alone takes it; note_id says so by its name; dry_run is a switch


def test_a_documented_identifier_names_its_kind_of_record() -> None:
    assert not identifiers.identifier_like("sku")
    with identifiers.documented() as known:
        known.update(documented_identifiers(PANTRY))
        assert identifiers.identifier_like("sku") and identifiers.identifier_like("supplier_code")
        assert new_record_key("create_item", "sku", "CREATE")  # the item's own key
        assert not new_record_key("create_item", "supplier_code", "CREATE")  # a supplier the server has
        found = candidates("create_item", SKU, [], None, "CREATE")
        assert found[0].source == "synthesised" and re.fullmatch(r"[A-Z]{3}-[0-9]{4}", found[0].value)
        assert "ABC-1234" in [candidate.value for candidate in found]  # documented: tried only later
    assert not identifiers.identifier_like("sku")  # the run's, only


def test_a_new_records_key_is_never_sent_twice_in_a_run() -> None:
    email = {"name": "email", "type": "string", "format": "email"}
    with run_values("stamp"):
        first = fresh(SKU, "ABC-1234")
        again = fresh(SKU, "ABC-1234")
        emails = [fresh(email, synthesise(email)) for _ in range(3)]
        numbers = [fresh({"name": "n", "type": "integer"}, 7) for _ in range(2)]
    assert first == "ABC-1234" and again != first and re.fullmatch(r"[A-Z]{3}-[0-9]{4}", again)
    assert len(set(emails)) == 3 and all(format_ok("email", value) for value in emails)
    assert numbers == [7, 8]
    assert fresh(SKU, "ABC-1234") == fresh(SKU, "ABC-1234") == "ABC-1234"  # outside a capture: as it is


@pytest.mark.parametrize(
    ("parameter", "expected"),
    [
        ({"name": "passphrase", "type": "string", "sensitive": True}, "mcpaql-conformance-secret-value"),
        ({"name": "token", "sensitive": True}, "mcpaql-conformance-secret-value"),  # no type: our text
        ({"name": "pin", "type": "integer", "sensitive": True}, 739184265),
        ({"name": "pin", "type": "integer", "minimum": 0, "maximum": 9999}, 9999),
        ({"name": "pin", "type": "number", "minimum": 1e9}, 1000000000),
        ({"name": "pin", "type": "integer", "maximum": 1e400}, 739184265),  # an infinite bound is none
        ({"name": "ratio", "type": "number", "minimum": 0.5, "maximum": 0.75}, 0.625),
        ({"name": "mode", "type": "string", "enum": ["a", "b"]}, "a"),
        ({"name": "remember", "type": "boolean"}, True),
    ],
)
def test_a_sensitive_value_is_distinctive_and_of_the_declared_type(parameter: dict[str, Any], expected: Any) -> None:
    assert sensitive_value(parameter) == expected


def test_a_sensitive_string_keeps_its_pattern_and_length() -> None:
    pin = sensitive_value({"name": "pin", "type": "string", "pattern": "^[0-9]{6}$"})
    assert re.fullmatch(r"[0-9]{6}", pin)
    short = sensitive_value({"name": "code", "type": "string", "maxLength": 8})
    assert isinstance(short, str) and len(short) <= 8
