"""Where an answer came from, said in the server's terms: the call capture made (``get_note
without its required note_id``, ``introspect {query: types, name: Note}``), never the bundle field
that holds it. A bundle written by hand is its author's own terms: its JSON path is kept."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcpaql_conformance.evidence.bundle import JsonObject, response_path
from mcpaql_conformance.files.vocabulary import (
    DEFAULT_PAGE,
    FIRST_AND_LAST,
    GROUPED,
    INPUT_NOT_OBJECT,
    INPUT_UNKNOWN_FIELD,
    INPUT_WRONG_TYPE,
    LARGE_PAGE,
    MISSING_INPUT,
    MIXED_STYLES,
    NEXT_PAGE,
    PAGE_OF_ONE,
    STANDARD_PRESETS,
    SUMMARY,
    UNKNOWN_AGGREGATE_FIELD,
    UNKNOWN_FUNCTION,
    WITH_ITEMS,
)
from mcpaql_conformance.sanitize import plain


def answer_label(template: str, index: int, case: JsonObject | None, captured: bool) -> str:
    """The call whose answer is the ``index``-th of a ``response_groups`` entry: the probe and
    the operation for a captured bundle; the JSON path otherwise (or when the case says too
    little to name the call)."""
    path = response_path(template, index)
    if not captured:
        return path
    said = _said(template, case if isinstance(case, dict) else {})
    return said if said is not None else path


def error_case_label(case: JsonObject, captured: bool) -> str:
    """An error case named for a finding: the call capture made for a captured bundle (``get_note
    with the unknown parameter zz_conformance_probe``), the case's own name in a hand-written one."""
    name = plain(str(case.get("name")), max_len=80)
    if not captured:
        return name
    try:
        return _error_case(case)
    except (KeyError, TypeError, IndexError):  # a case without what capture writes: its name says it
        return name


def _error_case(case: JsonObject) -> str:
    """The call behind one of capture's error cases (their names are capture's own: unknown-OP,
    missing-OP-PARAM, unknown-operation)."""
    name, operation = str(case["name"]), _name(case["operation"])
    mentioned = _name(case["must_mention"][0])
    if name == "unknown-operation":
        tool = case.get("tool")
        return f"the unknown operation {operation}" + (f" sent to {_name(tool)}" if isinstance(tool, str) else "")
    if name.startswith("unknown-"):
        return f"{operation} with the unknown parameter {mentioned}"
    if name.startswith("missing-"):
        return f"{operation} without its required {mentioned}"
    return f"{operation} (error case {_name(name)})"


def _said(template: str, case: JsonObject) -> str | None:
    section = template.removeprefix("$.").split("[", 1)[0]
    named = _SECTIONS.get(section)
    if named is None:
        return None
    try:
        return str(named(case))
    except (KeyError, TypeError):  # a case without what its section names: its path says it
        return None


def _name(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(value)
    return plain(value, max_len=80)


def _params(value: Any) -> str:
    if not isinstance(value, dict):
        return ""
    return ", ".join(f"{plain(str(key), max_len=40)}: {plain(str(item), max_len=40)}" for key, item in value.items())


def _read_back(case: JsonObject) -> str:
    return f"the read-back of {_name(case['name'])} (after {_name(case['operation'])})"


_SECTIONS: dict[str, Callable[[JsonObject], str]] = {
    "introspection.operations_list": lambda case: "introspect {query: operations}",
    "introspection.types_list": lambda case: "introspect {query: types}",
    "introspection.query_attempts": lambda case: f"introspect {{{_params(case['params'])}}} via {_name(case['tool'])}",
    "introspection.detail_queries": lambda case: f"introspect {{query: operations, name: {_name(case['operation'])}}}",
    "introspection.unknown_name_queries": lambda case: (
        f"introspect {{query: {_name(case['query'])}, name: {_name(case['name'])}}}"
    ),
    "introspection.type_queries": lambda case: f"introspect {{query: types, name: {_name(case['type'])}}}",
    "parameter_tests.missing_required": lambda case: (
        f"{_name(case['operation'])} without its required {_name(case['parameter'])}"
    ),
    "parameter_tests.unknown_parameter": lambda case: (
        f"{_name(case['operation'])} with the unknown parameter {_name(case['parameter'])}"
    ),
    "parameter_tests.optional_defaults": lambda case: (
        f"{_name(case['operation'])} without its optional {_name(case['parameter'])}"
    ),
    "parameter_tests.optional_omitted": lambda case: f"{_name(case['operation'])} without its optional parameters",
    "error_tests": lambda case: _error_case(case) if "operation" in case else f"error case {_name(case['name'])}",
    "routing_tests": lambda case: f"{_name(case['operation'])} sent to {_name(case['tool'])}",
    "valid_requests": lambda case: (
        f"{_name(case['operation'])} ({_name(case.get('_description') or 'a valid request')})"
    ),
    "round_trip_tests": lambda case: _read_back(case),
    "update_preservation_tests": lambda case: _read_back(case),
    "update_input_tests": lambda case: update_input_label(case),
    "request_tests": lambda case: f"capture's request {_name(case['name'])}",
    "pagination_tests": lambda case: f"{_name(case['operation'])} {_page_call(case)}",
    "filter_tests": lambda case: f"{_name(case['operation'])} with a filter key it does not support",
    "field_tests": lambda case: f"{_name(case['operation'])} with {_fields_sent(case)}",
    "aggregate_tests": lambda case: f"{_name(case['operation'])} asked for {_aggregate_asked(case)}",
    "relationship_tests": lambda case: f"{_name(case['operation'])} asked for {_traversal_asked(case)}",
    "search_tests": lambda case: f"{_name(case['operation'])} searching {_words_sent(case)}",
    "sort_tests": lambda case: f"{_name(case['operation'])} with sort as a bare field and order beside it",
    "constraint_tests": lambda case: f"constraint {_name(case['name'])}",
    "execution_tests": lambda case: (
        f"{_name(case['operation'])} ({_name(case.get('scenario'))}: {_name(case.get('call'))})"
    ),
    "batch_example": lambda case: "the batch",
}  # fmt: skip


# What each kind of pagination_tests call asked (no kind: first_and_last, as older bundles wrote it).
PAGE_CALLS: dict[str, str] = {
    FIRST_AND_LAST: "with first and last together",
    PAGE_OF_ONE: "asked for a page of one item",
    NEXT_PAGE: "asked for the page after its endCursor",
    LARGE_PAGE: "asked for a page of 1000 items",
    DEFAULT_PAGE: "asked for no page size",
    MIXED_STYLES: "with first and offset (or page) together",
}


# What each kind of aggregate_tests call asked.
AGGREGATE_CALLS: dict[str, str] = {
    SUMMARY: "a count",
    WITH_ITEMS: "a count with include_items",
    UNKNOWN_FUNCTION: "an aggregate function it does not have",
    UNKNOWN_AGGREGATE_FIELD: "an aggregate over a field it does not have",
    GROUPED: "a count grouped by a field",
}


def _words_sent(case: JsonObject) -> str:
    request = case.get("request")
    return repr(plain(str(request.get("query")), max_len=60)) if isinstance(request, dict) else "words"


def _traversal_asked(case: JsonObject) -> str:
    asked = {"all_sections": "every section", "one_section": "the relationships section alone", "deep": "depth 50"}
    return asked.get(str(case.get("kind")), "a traversal")


def _aggregate_asked(case: JsonObject) -> str:
    return AGGREGATE_CALLS.get(str(case.get("kind")), "an aggregate")


def _fields_sent(case: JsonObject) -> str:
    kind = str(case.get("kind"))
    return f"fields {kind!r}" if kind in STANDARD_PRESETS else "fields naming a field it does not have"


def _page_call(case: JsonObject) -> str:
    return PAGE_CALLS.get(str(case.get("kind")), PAGE_CALLS[FIRST_AND_LAST])


def update_input_label(case: JsonObject) -> str:
    """An update_input_tests case in the server's terms: ``update_book with `input` that is no object``."""
    return f"{plain(str(case.get('operation')), max_len=80)} {_what(case)}"


def _what(case: JsonObject) -> str:
    """What an UPDATE probe did to `input` (update_input_tests[].kind), in words."""
    kind = case.get("kind")
    if kind == MISSING_INPUT:
        return "without `input`"
    if kind == INPUT_NOT_OBJECT:
        return "with `input` that is no object"
    if kind == INPUT_WRONG_TYPE:
        return f"with `input.{plain(str(case.get('parameter')))}` of another type than documented"
    if kind == INPUT_UNKNOWN_FIELD:
        return f"with the made-up field {plain(str(case.get('parameter')))} inside `input`"
    identifier = case.get("parameter")
    named = f"its identifier {plain(str(identifier))}" if identifier else "an identifier"
    return f"with {named} inside `input`"
