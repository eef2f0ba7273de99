"""values: the one path resolver, the one deep-equality, compact display, JSON type names."""

from __future__ import annotations

from typing import Any

import pytest

from mcpaql_conformance.files.values import (
    MISSING,
    json_equal,
    json_equal_each,
    json_type,
    resolve_each,
    resolve_path,
    show,
)

DOCUMENT = {
    "data": {
        "items": [{"id": "a1", "tags": ["x", "y"]}, {"id": "a2"}],
        "count": 0,
        "empty": None,
        "0": "key that looks like an index",
    }
}


# resolve_path


def test_resolve_path_follows_object_keys() -> None:
    assert resolve_path(DOCUMENT, "data.count") == 0


def test_resolve_path_indexes_lists_with_numeric_segments() -> None:
    assert resolve_path(DOCUMENT, "data.items.1.id") == "a2"


def test_resolve_path_indexes_nested_lists() -> None:
    assert resolve_path(DOCUMENT, "data.items.0.tags.1") == "y"


def test_resolve_path_returns_the_whole_subtree() -> None:
    assert resolve_path(DOCUMENT, "data.items.0") == {"id": "a1", "tags": ["x", "y"]}


def test_resolve_path_distinguishes_null_from_missing() -> None:
    assert resolve_path(DOCUMENT, "data.empty") is None
    assert resolve_path(DOCUMENT, "data.absent") is MISSING


def test_resolve_path_numeric_segment_on_an_object_is_a_key() -> None:
    assert resolve_path(DOCUMENT, "data.0") == "key that looks like an index"


def test_resolve_path_index_past_the_end_is_missing() -> None:
    assert resolve_path(DOCUMENT, "data.items.2") is MISSING


@pytest.mark.parametrize("segment", ["-1", "first", "1.5", "\u0661", "\u00b2"])
def test_resolve_path_non_index_segment_on_a_list_is_missing(segment: str) -> None:
    # Negative, named and non-ASCII digits are not list indexes.
    assert resolve_path({"xs": ["a", "b"]}, f"xs.{segment}") is MISSING


def test_resolve_path_through_a_scalar_is_missing() -> None:
    assert resolve_path(DOCUMENT, "data.count.value") is MISSING


def test_resolve_path_on_a_non_container_document_is_missing() -> None:
    assert resolve_path("text", "data") is MISSING


def test_missing_is_not_equal_to_none_or_any_value() -> None:
    assert MISSING is not None
    assert not json_equal(MISSING, None)
    assert not json_equal(None, MISSING)


# json_equal


def test_json_equal_ignores_key_order() -> None:
    assert json_equal({"a": 1, "b": [1, {"c": 2, "d": 3}]}, {"b": [1, {"d": 3, "c": 2}], "a": 1})


def test_json_equal_true_is_not_one() -> None:
    assert not json_equal(True, 1)
    assert not json_equal(1, True)


def test_json_equal_false_is_not_zero() -> None:
    assert not json_equal(False, 0)
    assert not json_equal(0.0, False)


def test_json_equal_one_equals_one_point_zero() -> None:
    assert json_equal(1, 1.0)
    assert json_equal(1.0, 1)


def test_json_equal_booleans_compare_by_value() -> None:
    assert json_equal(True, True)
    assert not json_equal(True, False)


def test_json_equal_nested_true_is_not_one() -> None:
    assert not json_equal({"flag": [True]}, {"flag": [1]})


def test_json_equal_list_order_matters() -> None:
    assert not json_equal([1, 2], [2, 1])


def test_json_equal_lists_of_different_length_differ() -> None:
    assert not json_equal([1, 2], [1, 2, 3])


def test_json_equal_objects_with_different_keys_differ() -> None:
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})
    assert not json_equal({"a": 1}, {"b": 1})


def test_json_equal_string_is_not_number() -> None:
    assert not json_equal("1", 1)
    assert not json_equal(1, "1")


def test_json_equal_null_equals_only_null() -> None:
    assert json_equal(None, None)
    assert not json_equal(None, 0)
    assert not json_equal("", None)
    assert not json_equal(None, [])


def test_json_equal_object_is_not_list() -> None:
    assert not json_equal({}, [])
    assert not json_equal([], {})


def test_json_equal_strings_compare_exactly() -> None:
    assert json_equal("Sprocket", "Sprocket")
    assert not json_equal("Sprocket", "sprocket")


# show


def test_show_renders_compact_json_with_sorted_keys() -> None:
    assert show({"b": 1, "a": [True, None]}) == '{"a":[true,null],"b":1}'


def test_show_marks_missing_values() -> None:
    assert show(MISSING) == "(missing)"


def test_show_quotes_strings_so_types_are_visible() -> None:
    assert show("1") == '"1"'
    assert show(1) == "1"


def test_show_truncates_long_values_to_the_limit_with_an_ellipsis() -> None:
    text = show("x" * 500, limit=20)
    assert len(text) == 20
    assert text.endswith("\u2026")
    assert text.startswith('"xxx')


def test_show_keeps_values_at_the_limit_whole() -> None:
    assert show("abc", limit=5) == '"abc"'


def test_show_renders_integers_beyond_64_bits() -> None:
    assert show(2**70) == "1180591620717411303424"


def test_json_equal_compares_integers_beyond_64_bits() -> None:
    assert json_equal(2**70, 2**70)
    assert not json_equal(2**70, 2**70 + 1)


# json_type


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (None, "null"),
        (True, "boolean"),
        (False, "boolean"),
        (0, "integer"),
        (1.5, "number"),
        ("", "string"),
        ([], "array"),
        ({}, "object"),
    ],
)
def test_json_type_names_each_json_type(value: object, name: str) -> None:
    assert json_type(value) == name


def nested(depth: int, leaf: object) -> object:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def test_json_equal_compares_values_nested_deeper_than_the_recursion_limit() -> None:
    assert json_equal(nested(5000, {"a": 1}), nested(5000, {"a": 1.0}))
    assert not json_equal(nested(5000, {"a": 1}), nested(5000, {"a": True}))


# bulk forms used on 100,000-case bundles


def test_resolve_each_follows_one_shared_path() -> None:
    documents = [{"data": {"limit": 20}}, {"data": {"limit": None}}]
    assert resolve_each(documents, ["data.limit", "data.limit"]) == [20, None]


def test_resolve_each_falls_back_to_the_general_rules() -> None:
    documents = [{"data": {"limit": 20}}, {"data": {}}, {"data": [{"id": 7}]}, "text"]
    paths = ["data.limit", "data.limit", "data.0.id", "data"]
    assert resolve_each(documents, paths) == [20, MISSING, 7, MISSING]


def test_resolve_each_shared_path_with_a_list_index_or_a_gap() -> None:
    documents = [{"data": [1, 2]}, {"data": [3]}]
    assert resolve_each(documents, ["data.1", "data.1"]) == [2, MISSING]
    assert resolve_each([], []) == []


def test_json_equal_each_agrees_with_json_equal() -> None:
    lefts: list[Any] = [1, True, 1.0, "a", None, {"a": [1]}, [True], MISSING, 0, False]
    rights: list[Any] = [1.0, 1, 1, "a", None, {"a": [1.0]}, [1], None, False, False]
    assert json_equal_each(lefts, rights) == list(map(json_equal, lefts, rights))
    assert json_equal_each([True, 2, "x"], [True, 2, "y"]) == [True, True, False]


def test_objects_in_walks_depth_first_within_its_limit() -> None:
    from mcpaql_conformance.files.values import objects_in

    document = {"a": [{"name": "x"}, {"b": {"name": "y"}}], "c": 1}
    assert [node.get("name") for node in objects_in([document], 100)] == [None, None, "y", "x"]
    deep: dict[str, object] = {"name": "bottom"}
    for _ in range(50):
        deep = {"inner": deep}
    assert "bottom" not in [node.get("name") for node in objects_in([deep], 20)]  # beyond the values looked at
    assert len(list(objects_in([[{}] * 1000], 10))) == 9  # the list, then nine of its objects
