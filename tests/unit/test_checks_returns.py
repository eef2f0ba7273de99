"""Declared return types against the recorded answers (inside the completeness test)."""

from __future__ import annotations

from typing import Any

import pytest
from bundle_builders import ok, run

from mcpaql_conformance.evidence.reading import type_detail_of
from mcpaql_conformance.verdict.checks.introspection import completeness
from mcpaql_conformance.verdict.model import Result

Bundle = dict[str, Any]

WIDGET_FIELDS = [
    {"name": "id", "type": "string", "required": True},
    {"name": "widget_name", "type": "string", "required": True},
    {"name": "color", "type": "Color | null", "required": False},
    {"name": "tags", "type": "string[]", "required": False},
    {"name": "size", "type": "integer", "required": False},
    {"name": "shape", "type": "Geometry", "required": False},  # a type nobody describes: accepted
]


def typed(bundle: Bundle, *answers: Any, fields: list[dict[str, Any]] = WIDGET_FIELDS) -> Bundle:
    """The bundle with documented Widget and Color types, and create_widget answering ``answers``."""
    bundle["introspection"]["types_list"] = ok(
        {"types": [{"name": "Widget", "kind": "object"}, {"name": "Color", "kind": "enum"}]}
    )
    bundle["introspection"]["type_details"] = [
        {"name": "Widget", "kind": "object", "fields": fields},
        {"name": "Color", "kind": "enum", "values": ["blue", "red"]},
    ]
    cases = bundle["parameter_tests"]["optional_defaults"]
    template = cases[0]
    cases[:] = [{**template, "response": answer} for answer in answers]
    return bundle


def warnings(bundle: Bundle) -> list[str]:
    outcome = run(completeness, bundle)
    return list(outcome.findings) if outcome.result is Result.WARN else []


WIDGET = {"id": "w1", "widget_name": "Sprocket", "color": "blue", "tags": ["a"], "size": 3}


def test_answers_that_match_their_declared_type_pass(bundle: Bundle) -> None:
    outcome = run(completeness, typed(bundle, ok(WIDGET), ok({**WIDGET, "color": None})))
    assert outcome.result is Result.PASS, outcome.findings


def test_a_required_field_missing_from_every_answer_warns_with_a_path(bundle: Bundle) -> None:
    answer = {key: value for key, value in WIDGET.items() if key != "widget_name"}
    assert warnings(typed(bundle, ok(answer), ok(answer))) == [
        "create_widget.widget_name: Widget declares it required, but it is missing from every answer"
        " (e.g. $.parameter_tests.optional_defaults[0].response.data)"
    ]


def test_a_required_field_missing_from_some_answers_only_is_field_selection(bundle: Bundle) -> None:
    assert warnings(typed(bundle, ok(WIDGET), ok({"id": "w1"}))) == []


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("size", "3", "it is a string"),
        ("size", 3.5, "it is a number"),
        ("size", True, "it is a boolean"),
        ("tags", "a", "it is a string"),
        ("color", "green", "'green' is not one of its values"),
        ("id", None, "it is null"),
    ],
)
def test_a_field_of_another_type_warns(bundle: Bundle, field: str, value: Any, problem: str) -> None:
    declared = next(f["type"] for f in WIDGET_FIELDS if f["name"] == field)
    assert warnings(typed(bundle, ok({**WIDGET, field: value}))) == [
        f"create_widget.{field}: {problem} at $.parameter_tests.optional_defaults[0].response.data.{field},"
        f" but Widget declares {declared}"
    ]


def test_a_type_nobody_describes_and_a_union_with_null_are_accepted(bundle: Bundle) -> None:
    assert warnings(typed(bundle, ok({**WIDGET, "shape": [1, 2], "color": None}))) == []


def test_an_answer_that_is_not_an_object_warns(bundle: Bundle) -> None:
    assert warnings(typed(bundle, ok(["w1"]))) == [
        "create_widget: declares returning Widget (an object), but answered an array at"
        " $.parameter_tests.optional_defaults[0].response.data"
    ]


def test_a_returns_naming_a_type_introspection_does_not_list_is_left_to_the_types_query(bundle: Bundle) -> None:
    typed(bundle, ok(WIDGET))
    details = bundle["introspection"]["operation_details"]
    next(d for d in details if d["name"] == "get_widget")["returns"] = {"name": "Gadget", "kind": "object"}
    assert warnings(bundle) == []  # L1.introspection.types-query fails it (core §9.2)


def test_an_enum_return_and_a_list_return_are_checked(bundle: Bundle) -> None:
    typed(bundle, ok("green"))
    details = bundle["introspection"]["operation_details"]
    next(d for d in details if d["name"] == "create_widget")["returns"] = {"name": "Color", "kind": "enum"}
    assert warnings(bundle) == [
        "create_widget: answered 'green' at $.parameter_tests.optional_defaults[0].response.data,"
        " not one of the values of Color"
    ]
    next(d for d in details if d["name"] == "create_widget")["returns"] = {"name": "Widget[]"}
    bundle["parameter_tests"]["optional_defaults"][0]["response"] = ok([WIDGET, {**WIDGET, "size": "big"}])
    assert warnings(bundle) == [
        "create_widget.size: it is a string at $.parameter_tests.optional_defaults[0].response.data[1].size,"
        " but Widget declares integer"
    ]


def test_without_types_or_answers_there_is_nothing_to_compare(bundle: Bundle) -> None:
    assert run(completeness, bundle).result is Result.PASS  # the conformant bundle has no type details
    typed(bundle, ok(WIDGET))
    bundle["parameter_tests"]["optional_defaults"][0]["response"] = {"success": False, "error": {"code": "X"}}
    assert warnings(bundle) == []


def test_agent_run_answers_are_compared_too(bundle: Bundle) -> None:
    typed(bundle, ok(WIDGET))
    call = {"operation": "create_widget", "outcome": "sent", "response": ok({**WIDGET, "size": "3"})}
    bundle["agent_tests"] = [
        {"_description": "t", "input": "make one", "runs": [{"run": 1, "tool_calls": [call], "completed": True}]}
    ]
    assert warnings(bundle) == [
        "create_widget.size: it is a string at $.agent_tests[0].runs[0].tool_calls[0].response.data.size,"
        " but Widget declares integer"
    ]


@pytest.mark.parametrize(
    "answer",
    [
        ok({"type": {"name": "Widget", "fields": []}}),
        ok({"name": "Widget", "kind": "object", "fields": []}),
        ok({"types": [{"name": "Color"}, {"type_name": "Widget", "fields": []}]}),  # `name` ignored
        ok({"details": {"fields": []}}),
    ],
)
def test_a_type_detail_is_read_leniently(answer: Any) -> None:
    detail, problem = type_detail_of(answer, "Widget")
    assert problem is None and detail is not None and detail["fields"] == []


def test_a_missing_type_detail_says_why() -> None:
    assert type_detail_of({"success": False, "error": {"code": "NOT_FOUND", "message": "no"}}, "W")[1] == (
        "refused: NOT_FOUND: no"
    )
    assert type_detail_of(ok({"type": None}), "W") == (None, "gave no type detail (succeeded)")


@pytest.mark.parametrize(
    ("values", "answer", "fits"),
    [
        ([0, 1, 2], True, False),  # true is not the number 1
        ([True, False], 1, False),  # nor 1 the boolean true
        ([0, 1, 2], 1.0, True),  # 1.0 is the number 1
        ([True, False], True, True),
    ],
)
def test_enum_values_are_compared_as_json_not_as_python(
    bundle: Bundle, values: list[Any], answer: Any, fits: bool
) -> None:
    typed(bundle, ok(answer))
    bundle["introspection"]["types_list"]["data"]["types"].append({"name": "Level", "kind": "enum"})
    bundle["introspection"]["type_details"].append({"name": "Level", "kind": "enum", "values": values})
    details = bundle["introspection"]["operation_details"]
    next(d for d in details if d["name"] == "create_widget")["returns"] = {"name": "Level", "kind": "enum"}
    expected = [] if fits else [
        f"create_widget: answered {answer!r} at $.parameter_tests.optional_defaults[0].response.data,"
        " not one of the values of Level"
    ]  # fmt: skip
    assert warnings(bundle) == expected


def test_an_integral_number_is_an_integer(bundle: Bundle) -> None:
    assert warnings(typed(bundle, ok({**WIDGET, "size": 3.0}))) == []
