"""The one JSON value model (files/values.py): equality, membership, set keys and type names by
the rules of JSON, not Python's (``True == 1`` and ``True in [1]`` hold in Python, never in JSON)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcpaql_conformance.files.values import json_equal, json_in, json_key, json_type

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        (True, 1, False),
        (False, 0, False),
        (1, 1.0, True),
        (0, -0.0, True),
        (3, 3.5, False),
        ({"a": 1, "b": [True]}, {"b": [True], "a": 1.0}, True),
        ({"a": [1]}, {"a": [True]}, False),
        ([1, 2], [2, 1], False),
        (None, False, False),
        ("1", 1, False),
    ],
)
def test_equality_follows_json(left: Any, right: Any, equal: bool) -> None:
    assert json_equal(left, right) is equal
    assert json_equal(right, left) is equal
    assert (json_key(left) == json_key(right)) is equal


@pytest.mark.parametrize(
    ("value", "options", "member"),
    [
        (True, [0, 1, 2], False),
        (1, [True, False], False),
        (1.0, [1], True),
        (1, [1.0], True),
        (0, [False], False),
        (None, [0, ""], False),
        ("a", ["a"], True),
        ({"k": 1}, [{"k": 1.0}], True),
        ([True], [[1]], False),
        ("a", "abc", False),  # options that are no list: nothing is one of them
    ],
)
def test_membership_follows_json(value: Any, options: Any, member: bool) -> None:
    assert json_in(value, options) is member


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (True, "boolean"),
        (3, "integer"),
        (3.0, "integer"),
        (3.5, "number"),
        (None, "null"),
        ([], "array"),
        ({}, "object"),
    ],
)
def test_a_number_is_an_integer_by_its_value(value: Any, kind: str) -> None:
    assert json_type(value) == kind


@given(json_values, json_values)
def test_keys_agree_with_equality(left: Any, right: Any) -> None:
    assert (json_key(left) == json_key(right)) is json_equal(left, right)


@given(json_values, st.lists(json_values, max_size=5))
def test_membership_is_equality_with_some_option(value: Any, options: list[Any]) -> None:
    assert json_in(value, options) is any(json_equal(value, option) for option in options)


@given(json_values)
def test_every_value_equals_itself_and_a_copy_with_keys_reordered(value: Any) -> None:
    def reordered(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: reordered(item[key]) for key in reversed(list(item))}
        if isinstance(item, list):
            return [reordered(element) for element in item]
        return item

    assert json_equal(value, value)
    assert json_equal(value, reordered(value))
    assert json_key(value) == json_key(reordered(value))


@given(st.booleans(), st.integers(min_value=-2, max_value=2))
def test_a_boolean_never_equals_a_number(flag: bool, number: int) -> None:
    assert not json_equal(flag, number)
    assert not json_in(flag, [number]) and not json_in(number, [flag])
    assert json_key(flag) != json_key(number)
