"""shapes: JSON Schemas inferred from captured responses, and their MCP-AQL TypeDetails."""

from __future__ import annotations

import random
import re
import uuid
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema_rs
import orjson
import pytest
from jsonschema import Draft202012Validator, FormatChecker

from mcpaql_conformance.shapes.infer import MAX_DEPTH, SCHEMA_DIALECT, infer_schema, type_details

ROOT = Path(__file__).resolve().parents[2]
DIALECT = {"$schema": SCHEMA_DIALECT}


def body(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema without its ``$schema`` line, for shorter expectations."""
    assert schema.pop("$schema") == SCHEMA_DIALECT
    return schema


# types


def test_no_samples_is_the_dialect_alone() -> None:
    assert infer_schema([]) == DIALECT


def test_no_samples_accepts_anything() -> None:
    validator = Draft202012Validator(infer_schema(iter(())))
    values: list[Any] = [None, 1, "x", [1], {"a": {}}]
    assert all(map(validator.is_valid, values))


@pytest.mark.parametrize(
    ("sample", "expected"),
    [
        (None, "null"),
        (True, "boolean"),
        (False, "boolean"),
        (0, "integer"),
        (2**80, "integer"),
        (1.5, "number"),
        ("text", "string"),
        ([], "array"),
        ({}, "object"),
    ],
)
def test_each_json_value_has_its_type(sample: Any, expected: str) -> None:
    assert infer_schema([sample]) == {**DIALECT, "type": expected}


def test_string_and_null_make_a_sorted_union() -> None:
    assert body(infer_schema([{"title": "a"}, {"title": None}])) == {
        "type": "object",
        "properties": {"title": {"type": ["null", "string"]}},
        "required": ["title"],
    }


def test_union_order_does_not_depend_on_sample_order() -> None:
    samples: list[Any] = ["x", None, 3, True, [], {}]
    expected = {**DIALECT, "type": ["array", "boolean", "integer", "null", "object", "string"]}
    assert infer_schema(samples) == expected
    assert infer_schema(reversed(samples)) == expected


def test_integer_and_number_merge_to_number() -> None:
    assert infer_schema([1, 2.5]) == {**DIALECT, "type": "number"}
    assert infer_schema([2.5, 1]) == {**DIALECT, "type": "number"}


def test_integer_number_and_null_merge_to_null_and_number() -> None:
    assert infer_schema([1, None, 0.5]) == {**DIALECT, "type": ["null", "number"]}


def test_integers_alone_stay_integer() -> None:
    assert infer_schema([1, -7, 2**70]) == {**DIALECT, "type": "integer"}


def test_a_bool_is_never_an_integer() -> None:
    assert infer_schema([True, 1]) == {**DIALECT, "type": ["boolean", "integer"]}
    assert infer_schema([False, 1.5]) == {**DIALECT, "type": ["boolean", "number"]}


def test_a_value_that_is_not_json_is_refused() -> None:
    with pytest.raises(TypeError, match="not a JSON value: set"):
        infer_schema([{"tags": {"a"}}])


# objects


def test_required_lists_only_keys_present_in_every_sample() -> None:
    samples = [{"id": 1, "title": "a", "note": "x"}, {"id": 2, "title": None}, {"title": "c", "id": 3}]
    assert body(infer_schema(samples)) == {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "title": {"type": ["null", "string"]},
            "note": {"type": "string"},
        },
        "required": ["id", "title"],
    }


def test_required_is_left_out_when_no_key_is_in_every_sample() -> None:
    assert body(infer_schema([{"a": 1}, {"b": 2}])) == {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    }


def test_required_is_sorted_and_properties_keep_first_seen_order() -> None:
    schema = body(infer_schema([{"zeta": 1, "alpha": 2}, {"alpha": 3, "mid": 4, "zeta": 5}]))
    assert list(schema["properties"]) == ["zeta", "alpha", "mid"]
    assert schema["required"] == ["alpha", "zeta"]


def test_an_object_always_empty_has_no_properties() -> None:
    assert infer_schema([{}, {}]) == {**DIALECT, "type": "object"}


def test_nested_objects_merge_place_by_place() -> None:
    samples = [{"author": {"name": "Ann", "age": 3}}, {"author": {"name": "Bo"}}, {"author": None}]
    assert body(infer_schema(samples)) == {
        "type": "object",
        "properties": {
            "author": {
                "type": ["null", "object"],
                "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
                "required": ["name"],
            }
        },
        "required": ["author"],
    }


def test_additional_properties_is_never_set() -> None:
    schema = infer_schema([{"a": {"b": [{"c": 1}]}}])
    assert "additionalProperties" not in orjson.dumps(schema).decode()


# arrays


def test_array_items_merge_every_element_of_every_sample() -> None:
    samples = [{"items": [{"id": 1, "title": "a"}, {"id": 2}]}, {"items": [{"id": 3, "title": None, "done": True}]}]
    assert body(infer_schema(samples)) == {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "title": {"type": ["null", "string"]},
                        "done": {"type": "boolean"},
                    },
                    "required": ["id"],
                },
            }
        },
        "required": ["items"],
    }


def test_an_array_always_empty_gets_no_items() -> None:
    assert body(infer_schema([{"tags": []}, {"tags": []}])) == {
        "type": "object",
        "properties": {"tags": {"type": "array"}},
        "required": ["tags"],
    }


def test_empty_arrays_take_the_items_of_the_others() -> None:
    assert infer_schema([[], ["a"], []]) == {**DIALECT, "type": "array", "items": {"type": "string"}}


def test_arrays_of_arrays_merge_by_level() -> None:
    assert infer_schema([[[1], []], [[2.5, None]]]) == {
        **DIALECT,
        "type": "array",
        "items": {"type": "array", "items": {"type": ["null", "number"]}},
    }


# mixed places


def test_a_place_with_objects_and_other_values_keeps_the_object_keywords() -> None:
    assert infer_schema([{"a": 1}, "text", None, {"a": 2, "b": True}]) == {
        **DIALECT,
        "type": ["null", "object", "string"],
        "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}},
        "required": ["a"],
    }


def test_required_counts_only_the_object_samples_of_a_mixed_place() -> None:
    schema = body(infer_schema([{"data": {"id": 1}}, {"data": "gone"}, {"data": {"id": 2}}]))
    assert schema["properties"]["data"] == {
        "type": ["object", "string"],
        "properties": {"id": {"type": "integer"}},
        "required": ["id"],
    }


def test_a_place_with_arrays_and_other_values_keeps_the_items() -> None:
    assert infer_schema([[1], 7, None, ["x"]]) == {
        **DIALECT,
        "type": ["array", "integer", "null"],
        "items": {"type": ["integer", "string"]},
    }


def test_a_place_with_objects_and_arrays_keeps_both() -> None:
    assert infer_schema([{"a": 1}, [{"a": "x"}]]) == {
        **DIALECT,
        "type": ["array", "object"],
        "properties": {"a": {"type": "integer"}},
        "required": ["a"],
        "items": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
    }


def test_mixed_places_still_validate_every_sample() -> None:
    samples: list[Any] = [{"a": 1}, "text", None, [{"b": []}], 3.5, True]
    validator = Draft202012Validator(infer_schema(samples))
    assert all(validator.is_valid(sample) for sample in samples)
    assert not validator.is_valid({"a": "not an integer"})


# formats

FORMAT_EXAMPLES = {
    "date-time": ["2024-01-15T10:30:00Z", "2024-02-29T23:59:59.123456+05:30", "1999-12-31T00:00:00-08:00"],
    "uri": ["https://example.com/a/b?c=d&e=%20f#top", "http://user:pw@host.example:8080/", "ftp://files.example"],
    "email": ["ann@example.com", "first.last+tag@mail.example.co.uk", "o'neil@x-y.io"],
    "uuid": [
        "123e4567-e89b-12d3-a456-426614174000",
        "00000000-0000-0000-0000-000000000000",
        "ABCDEF01-2345-6789-ABCD-EF0123456789",
    ],
}

NEAR_MISSES = {
    "date-time": [
        "2024-01-15T10:30:00",  # no time zone
        "2024-01-15",  # a date
        "10:30:00Z",  # a time
        "2024-01-15 10:30:00Z",  # a space for the T
        "2024-02-30T10:30:00Z",  # no such day
        "2023-02-29T10:30:00Z",  # not a leap year
        "2024-01-15T24:00:00Z",  # no hour 24
        "2024-01-15T10:60:00Z",
        "2024-01-15T10:30:60Z",  # leap seconds are not claimed
        "2024-01-15T10:30Z",  # no seconds
        "2024-01-15T10:30:00+0530",  # offset without colon
        "2024-01-15T10:30:00+24:00",
        "\u0662\u0660\u0662\u0664-01-15T10:30:00Z",  # Arabic-Indic digits
        "2024-01-15T10:30:00Z ",
    ],
    "uri": [
        "mailto:ann@example.com",
        "urn:isbn:0451450523",
        "example.com/path",
        "/relative/path",
        "http://",
        "http:///no-host",
        "https://exa mple.com",
        "https://example.com/a b",
        "http://host:port/",  # a port is digits
        "http://[::1]/",  # IP literals are not claimed
        "https://ex\u00e4mple.com",  # an IRI, not a URI
        "http://example.com/%zz",
        "http://example.com/#a#b",
        "1http://example.com",
    ],
    "email": [
        "ann@localhost",
        "ann@",
        "@example.com",
        "ann.@example.com",
        "a..b@example.com",
        '"quoted name"@example.com',
        "ann@-example.com",
        "ann@example..com",
        "ann example@example.com",
        "ann@example.com.",
        "x" * 65 + "@example.com",
    ],
    "uuid": [
        "123e4567e89b12d3a456426614174000",  # no dashes
        "{123e4567-e89b-12d3-a456-426614174000}",
        "urn:uuid:123e4567-e89b-12d3-a456-426614174000",
        "123e4567-e89b-12d3-a456-42661417400",  # one digit short
        "123e4567-e89b-12d3-a456-42661417400g",
    ],
}


@pytest.mark.parametrize(("name", "examples"), FORMAT_EXAMPLES.items())
def test_each_format_is_detected_when_every_string_matches(name: str, examples: list[str]) -> None:
    assert infer_schema(examples) == {**DIALECT, "type": "string", "format": name}


@pytest.mark.parametrize(
    ("name", "example"), [(name, example) for name, values in FORMAT_EXAMPLES.items() for example in values]
)
def test_one_matching_string_is_enough(name: str, example: str) -> None:
    assert infer_schema([example]) == {**DIALECT, "type": "string", "format": name}


@pytest.mark.parametrize("near_miss", [miss for misses in NEAR_MISSES.values() for miss in misses])
def test_near_misses_get_no_format(near_miss: str) -> None:
    assert infer_schema([near_miss]) == {**DIALECT, "type": "string"}


@pytest.mark.parametrize("name", FORMAT_EXAMPLES)
def test_one_string_off_the_format_drops_it(name: str) -> None:
    assert infer_schema([*FORMAT_EXAMPLES[name], "plain"]) == {**DIALECT, "type": "string"}
    assert infer_schema(["plain", *FORMAT_EXAMPLES[name]]) == {**DIALECT, "type": "string"}


def test_two_different_formats_at_one_place_give_none() -> None:
    assert infer_schema([FORMAT_EXAMPLES["uuid"][0], FORMAT_EXAMPLES["uri"][0]]) == {**DIALECT, "type": "string"}


def test_a_format_survives_nulls_and_other_types_at_its_place() -> None:
    samples = [{"at": "2024-01-15T10:30:00Z"}, {"at": None}, {"at": 5}]
    assert body(infer_schema(samples))["properties"]["at"] == {
        "type": ["integer", "null", "string"],
        "format": "date-time",
    }


def test_the_empty_string_has_no_format() -> None:
    assert infer_schema(["", FORMAT_EXAMPLES["email"][0]]) == {**DIALECT, "type": "string"}


def test_formats_are_judged_per_place() -> None:
    samples = [{"id": FORMAT_EXAMPLES["uuid"][0], "link": FORMAT_EXAMPLES["uri"][0], "tags": ["a@b.io", "c@d.io"]}]
    assert body(infer_schema(samples))["properties"] == {
        "id": {"type": "string", "format": "uuid"},
        "link": {"type": "string", "format": "uri"},
        "tags": {"type": "array", "items": {"type": "string", "format": "email"}},
    }


def test_enum_is_never_inferred() -> None:
    schema = infer_schema([{"status": "open"}] * 50 + [{"status": "closed"}] * 50)
    assert body(schema)["properties"]["status"] == {"type": "string"}


# documented descriptions

DOCUMENTED_SAMPLES = [
    {"title": "a", "author": {"name": "Ann"}, "items": [{"title": "x", "tags": [["t"]]}]},
    {"title": None, "author": {"name": "Bo"}, "items": []},
]


def test_documented_paths_copy_descriptions_into_their_places() -> None:
    documented = {
        "title": "The title.",
        "author.name": "Who wrote it.",
        "items[].title": "An item's title.",
        "items[].tags[][]": "One tag.",
        "items": "The items.",
    }
    assert body(infer_schema(DOCUMENTED_SAMPLES, documented)) == {
        "type": "object",
        "properties": {
            "title": {"type": ["null", "string"], "description": "The title."},
            "author": {
                "type": "object",
                "properties": {"name": {"type": "string", "description": "Who wrote it."}},
                "required": ["name"],
            },
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "title": {"type": "string", "description": "An item's title."},
                        "tags": {
                            "type": "array",
                            "items": {"type": "array", "items": {"type": "string", "description": "One tag."}},
                        },
                    },
                    "required": ["tags", "title"],
                },
                "description": "The items.",
            },
        },
        "required": ["author", "items", "title"],
    }


def test_the_empty_path_documents_the_root() -> None:
    assert infer_schema(["x"], {"": "The answer."}) == {**DIALECT, "type": "string", "description": "The answer."}


def test_a_leading_bracket_path_documents_the_items_of_a_root_array() -> None:
    assert infer_schema([[{"id": 1}]], {"[].id": "Identifier.", "[]": "One row."}) == {
        **DIALECT,
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"id": {"type": "integer", "description": "Identifier."}},
            "required": ["id"],
            "description": "One row.",
        },
    }


@pytest.mark.parametrize(
    "path",
    [
        "missing",
        "author.missing",
        "title.name",
        "title[]",
        "items[][]",
        "author..name",
        "author.",
        ".title",
        "ti[tle",
        "[]",
    ],
)
def test_paths_that_name_no_inferred_place_are_ignored(path: str) -> None:
    assert infer_schema(DOCUMENTED_SAMPLES, {path: "Nowhere."}) == infer_schema(DOCUMENTED_SAMPLES)


def test_documented_paths_without_samples_invent_nothing() -> None:
    assert infer_schema([], {"title": "The title."}) == DIALECT


# depth


def deep_objects(levels: int) -> dict[str, Any]:
    root: dict[str, Any] = {}
    current = root
    for _ in range(levels - 1):
        current["a"] = current = {}
    return root


def deep_arrays(levels: int) -> list[Any]:
    root: list[Any] = []
    current = root
    for _ in range(levels - 1):
        inner: list[Any] = []
        current.append(inner)
        current = inner
    return root


def nested_object_schema(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
    return schema


def nested_array_schema(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    for _ in range(levels):
        schema = {"type": "array", "items": schema}
    return schema


def test_a_100000_level_object_is_described_to_64_levels_then_anything() -> None:
    sample = deep_objects(100_000)
    schema = infer_schema([sample])
    assert schema == {**DIALECT, **nested_object_schema(MAX_DEPTH)}
    assert Draft202012Validator(schema).is_valid(sample)


def test_a_100000_level_array_is_described_to_64_levels_then_anything() -> None:
    schema = infer_schema([deep_arrays(100_000)])
    assert schema == {**DIALECT, **nested_array_schema(MAX_DEPTH)}


def test_64_levels_are_described_in_full() -> None:
    # The innermost object (level 64) is empty: nothing is cut.
    expected: dict[str, Any] = {"type": "object"}
    for _ in range(MAX_DEPTH - 1):
        expected = {"type": "object", "properties": {"a": expected}, "required": ["a"]}
    assert infer_schema([deep_objects(MAX_DEPTH)]) == {**DIALECT, **expected}


def test_values_below_the_limit_are_anything_whatever_their_types() -> None:
    shallow = deep_objects(MAX_DEPTH)
    leaf = shallow
    while leaf:
        leaf = leaf["a"]
    leaf["a"] = "text"
    other = deep_objects(MAX_DEPTH)
    leaf = other
    while leaf:
        leaf = leaf["a"]
    leaf["a"] = [1, {"b": None}]
    schema = infer_schema([shallow, other, deep_objects(10_000)])
    assert schema == {**DIALECT, **nested_object_schema(MAX_DEPTH)}


# type_details


def test_type_details_of_an_object_lists_its_top_level_fields() -> None:
    samples = [
        {"id": "123e4567-e89b-12d3-a456-426614174000", "title": "a", "author": {"name": "Ann"}, "tags": ["x"], "n": 1},
        {"id": "00000000-0000-0000-0000-000000000000", "title": None, "author": {"name": "Bo"}, "n": 2.5},
    ]
    schema = infer_schema(samples, {"": "A bookmark.", "title": "The title.", "author.name": "Not listed."})
    assert type_details("Bookmark", schema) == {
        "name": "Bookmark",
        "kind": "object",
        "description": "A bookmark.",
        "fields": [
            {"name": "id", "type": "string", "required": True, "format": "uuid"},
            {"name": "title", "type": "string | null", "required": True, "description": "The title."},
            {"name": "author", "type": "object", "required": True},
            {"name": "tags", "type": "array", "required": False},
            {"name": "n", "type": "number", "required": True},
        ],
    }


def test_type_details_of_an_object_without_keys_has_no_fields() -> None:
    assert type_details("Empty", infer_schema([{}])) == {"name": "Empty", "kind": "object", "fields": []}


def test_type_details_of_a_nullable_object_is_a_union_with_the_object_fields() -> None:
    assert type_details("Maybe", infer_schema([{"a": True}, None])) == {
        "name": "Maybe",
        "kind": "union",
        "members": ["object", "null"],
        "fields": [{"name": "a", "type": "boolean", "required": True}],
    }


def test_type_details_of_a_union_of_scalars_lists_members_null_last() -> None:
    assert type_details("Value", infer_schema([None, "x", 1, True])) == {
        "name": "Value",
        "kind": "union",
        "members": ["boolean", "integer", "string", "null"],
    }


@pytest.mark.parametrize("sample", ["x", 1, 1.5, True, None, [1, 2], []])
def test_type_details_of_a_single_non_object_type_is_a_scalar(sample: Any) -> None:
    assert type_details("Single", infer_schema([sample])) == {"name": "Single", "kind": "scalar"}


def test_type_details_of_no_samples_is_a_scalar() -> None:
    assert type_details("Anything", infer_schema([])) == {"name": "Anything", "kind": "scalar"}


def test_type_details_names_an_unconstrained_field_unknown() -> None:
    schema = {"type": "object", "properties": {"deep": {}, "pair": {"type": ["string", "array", "null"]}}}
    assert type_details("Cut", schema)["fields"] == [
        {"name": "deep", "type": "unknown", "required": False},
        {"name": "pair", "type": "array | string | null", "required": False},
    ]


def test_type_details_validate_against_the_introspection_schema() -> None:
    definitions = orjson.loads((ROOT / "mcpaql_conformance/files/schemas/introspection.schema.json").read_bytes())[
        "$defs"
    ]
    summary = Draft202012Validator(definitions["TypeSummary"])
    parameter = Draft202012Validator(definitions["Parameter"])
    for samples in ([{"a": 1, "b": [None]}], [{"a": "x"}, None], ["x"], [[1]]):
        details = type_details("T", infer_schema(samples))
        assert summary.is_valid(details)
        assert all(parameter.is_valid(field) for field in details.get("fields", []))


# property: every sample validates against the schema inferred from it


def own_date_time(text: str) -> bool:
    shape = r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})"
    if not re.fullmatch(shape, text):
        return False
    try:
        datetime.fromisoformat(text.upper())
    except ValueError:
        return False
    return True


def own_uri(text: str) -> bool:
    if not text.isascii() or any(char.isspace() or char in '<>"{}|\\^`' for char in text):
        return False
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        return False
    return bool(parts.scheme and parts.netloc)


def format_checker() -> FormatChecker:
    """The draft 2020-12 checker, completed where this environment lacks a format's checker.

    Without rfc3339-validator and rfc3987, jsonschema accepts any ``date-time`` and ``uri``;
    those two are checked here by jsonschema-rs (an independent implementation the project
    already depends on) and by this test's own parse.
    """
    checker = FormatChecker(Draft202012Validator.FORMAT_CHECKER.checkers)
    for name, own in (("date-time", own_date_time), ("uri", own_uri)):
        if name not in checker.checkers:
            rust = jsonschema_rs.Draft202012Validator({"format": name}, validate_formats=True)

            def check(instance: object, rust: Any = rust, own: Any = own) -> bool:
                return not isinstance(instance, str) or (rust.is_valid(instance) and own(instance))

            checker.checks(name)(check)
    return checker


FORMAT_CHECKER = format_checker()


def test_the_format_checker_checks_the_four_formats() -> None:
    for name in ("date-time", "uri", "email", "uuid"):
        assert all(FORMAT_CHECKER.conforms(example, name) for example in FORMAT_EXAMPLES[name])
    assert not FORMAT_CHECKER.conforms("2024-01-15T10:30:00", "date-time")
    assert not FORMAT_CHECKER.conforms("2024-02-30T10:30:00Z", "date-time")
    assert not FORMAT_CHECKER.conforms("http://exa mple.com", "uri")
    assert not FORMAT_CHECKER.conforms("example.com", "uri")
    assert not FORMAT_CHECKER.conforms("no-at-sign", "email")
    assert not FORMAT_CHECKER.conforms("123e4567e89b", "uuid")


def assert_all_valid(samples: list[Any]) -> dict[str, Any]:
    schema = infer_schema(samples)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema, format_checker=FORMAT_CHECKER)
    for sample in samples:
        errors = [f"{error.json_path}: {error.message}" for error in validator.iter_errors(sample)]
        assert not errors, (schema, sample, errors)
    return schema


FORMAT_BY_KEY = {"id": "uuid", "at": "date-time", "link": "uri", "mail": "email"}


def random_string(rng: random.Random, key: str) -> str:
    """Mostly the format a key suggests, sometimes a near miss or plain text."""
    roll = rng.random()
    if roll < 0.15:
        return rng.choice([miss for misses in NEAR_MISSES.values() for miss in misses])
    if roll < 0.25:
        return "".join(rng.choice("ab@:/.-_ 1Z") for _ in range(rng.randint(0, 12)))
    maker = FORMAT_BY_KEY.get(key) or rng.choice(list(FORMAT_EXAMPLES))
    if maker == "uuid":
        return str(uuid.UUID(int=rng.getrandbits(128)))
    if maker == "date-time":
        day = f"{rng.randint(1, 9999):04}-{rng.randint(1, 12):02}-{rng.randint(1, 28):02}"
        clock = f"{rng.randint(0, 23):02}:{rng.randint(0, 59):02}:{rng.randint(0, 59):02}"
        return f"{day}T{clock}{rng.choice(['Z', '+05:30', '-08:00', '.5Z', '.123456+00:00'])}"
    if maker == "uri":
        authority = rng.choice(["example.com", "a.b", "u@h:80"])
        return f"{rng.choice(['https', 'http', 'git+ssh'])}://{authority}/{rng.choice(['', 'p', 'p?q=1', 'p#f'])}"
    return f"{rng.choice(['ann', 'b.c', 'x+y'])}@{rng.choice(['example.com', 'mail.example.org'])}"


KEYS = ["id", "at", "link", "mail", "title", "items", "meta", "n"]


def random_value(rng: random.Random, depth: int, key: str = "") -> Any:
    roll = rng.random()
    if depth < 5 and roll < 0.25:
        return {name: random_value(rng, depth + 1, name) for name in rng.sample(KEYS, rng.randint(0, 5))}
    if depth < 5 and roll < 0.4:
        return [random_value(rng, depth + 1, key) for _ in range(rng.randint(0, 4))]
    if roll < 0.75:
        return random_string(rng, key)
    return rng.choice([None, True, False, 0, -3, 2**64, 1.5, -0.0, 1e300, rng.randint(-9, 9), rng.random()])


def test_every_random_sample_validates_against_its_schema() -> None:
    formats: set[str] = set()
    for seed in range(300):
        rng = random.Random(seed)
        samples = [random_value(rng, 0) for _ in range(rng.randint(1, 6))]
        schema = assert_all_valid(samples)
        formats.update(re.findall(r'"format":"([^"]+)"', orjson.dumps(schema).decode()))
    # The property is not vacuous: each format was claimed, and checked, somewhere.
    assert formats == {"date-time", "uri", "email", "uuid"}


def successful_data(document: Any) -> Iterator[tuple[str, Any]]:
    """(group, data) of each ``{"success": true, "data": {...}}``, grouped by the nearest enclosing
    ``operation`` name, else by the key path with list indexes as ``[]``."""
    pending: list[tuple[Any, str, str | None]] = [(document, "", None)]
    while pending:
        value, path, operation = pending.pop()
        if isinstance(value, dict):
            if isinstance(value.get("operation"), str):
                operation = value["operation"]
            if value.get("success") is True and isinstance(value.get("data"), dict):
                yield operation or path, value["data"]
            pending += [(item, f"{path}.{key}", operation) for key, item in value.items()]
        elif isinstance(value, list):
            pending += [(item, f"{path}[]", operation) for item in value]


def captured_groups() -> dict[str, list[Any]]:
    groups: dict[str, list[Any]] = defaultdict(list)
    for folder in ("fixtures", "evidence"):
        for file in sorted((ROOT / folder).rglob("*.json")):
            for group, data in successful_data(orjson.loads(file.read_bytes())):
                groups[f"{file.relative_to(ROOT)}:{group}"].append(data)
    return dict(groups)


CAPTURED = captured_groups()


def test_the_captured_responses_were_found() -> None:
    assert len(CAPTURED) >= 50
    assert sum(map(len, CAPTURED.values())) >= 150


@pytest.mark.parametrize("group", sorted(CAPTURED))
def test_every_captured_response_validates_against_its_group_schema(group: str) -> None:
    assert_all_valid(CAPTURED[group])


def test_all_captured_responses_validate_against_one_schema() -> None:
    assert_all_valid([data for samples in CAPTURED.values() for data in samples])
