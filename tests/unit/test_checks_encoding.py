"""Dates in ISO 8601 and pageInfo on cursor-paginated answers (part of Introspection Completeness)."""

from __future__ import annotations

from typing import Any

import pytest
from bundle_builders import ok, operation_detail, param, parameter_case, report, run

from mcpaql_conformance.verdict.checks.introspection import completeness
from mcpaql_conformance.verdict.model import Result

Bundle = dict[str, Any]


def answer(bundle: Bundle, data: Any) -> None:
    """The answer of create_widget's documented-default probe (an answer tied to its operation)."""
    parameter_case(bundle, "optional_defaults", "create_widget", "color")["response"] = ok(data)


@pytest.mark.parametrize(
    "value",
    [
        "2026-02-04",
        "2026-02-04T10:30:00Z",
        "2026-02-04T10:30:00.123Z",
        "20260204T103000Z",
        "2026-035",
        "2026-W06-3",
        "2026-02",
        "2026-02-04t10:30:00z",
    ],
)
def test_iso_8601_dates_and_timestamps_pass(bundle: Bundle, value: str) -> None:
    answer(bundle, {"color": "blue", "created_at": value})
    assert run(completeness, bundle).result is Result.PASS


@pytest.mark.parametrize("value", ["04/02/2026", "Feb 4, 2026", "2026-02-04 10:30:00", "yesterday", "1700000000"])
def test_a_named_date_field_that_is_not_iso_8601_fails(bundle: Bundle, value: str) -> None:
    answer(bundle, {"color": "blue", "items": [{"updated_at": value}]})
    outcome = run(completeness, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        f'create_widget.updated_at: "{value}" is not an ISO 8601 date or timestamp at'
        " $.parameter_tests.optional_defaults[0].response.data.items[0].updated_at"
    )
    assert report(bundle).categories[0].tests[3].cited == ("core:4.7.2:iso-8601",)


def test_a_number_in_a_date_field_is_an_epoch_time_not_iso_8601(bundle: Bundle) -> None:
    answer(bundle, {"color": "blue", "expires_at": 1700000000, "deleted_at": None, "due_date": ""})
    outcome = run(completeness, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail == (
        "create_widget.expires_at: holds the number 1700000000, not an ISO 8601 date or timestamp at"
        " $.parameter_tests.optional_defaults[0].response.data.expires_at"
    )


def test_a_documented_date_in_a_round_trip_read_is_judged_as_its_operations_record(bundle: Bundle) -> None:
    bundle["introspection"]["type_details"] = [
        {"name": "Widget", "kind": "object", "fields": [{"name": "made", "type": "string", "required": False,
                                                          "format": "date"}]},
    ]  # fmt: skip
    bundle["round_trip_tests"][0]["read_response"]["data"]["made"] = "last week"
    outcome = run(completeness, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith('create_widget.made: "last week" is not an ISO 8601 date or timestamp at')


def test_a_page_with_items_but_no_cursors_warns(bundle: Bundle) -> None:
    cursor_paginated(bundle)
    info = {"hasNextPage": True, "hasPreviousPage": False}
    answer(bundle, {"color": "blue", "items": [{"id": "w1"}], "pageInfo": info})
    outcome = run(completeness, bundle)
    assert outcome.result is Result.WARN
    assert "`pageInfo` of a page that holds items lacks startCursor and endCursor" in outcome.detail


def test_a_field_its_type_documents_as_a_date_is_held_to_iso_8601_whatever_its_name(bundle: Bundle) -> None:
    bundle["introspection"]["type_details"] = [
        {"name": "Widget", "kind": "object", "fields": [{"name": "born", "type": "string", "required": False,
                                                          "format": "date-time"}]},
    ]  # fmt: skip
    answer(bundle, {"color": "blue", "born": 1700000000})
    outcome = run(completeness, bundle)
    assert outcome.result is Result.FAIL
    assert outcome.detail.startswith("create_widget.born: documented as a date, but holds 1700000000 at ")


def test_a_timestamp_in_another_zone_than_utc_warns(bundle: Bundle) -> None:
    answer(bundle, {"color": "blue", "created_at": "2026-02-04T10:30:00+05:30"})
    outcome = run(completeness, bundle)
    assert outcome.result is Result.WARN
    assert outcome.detail.startswith('create_widget.created_at: timestamp "2026-02-04T10:30:00+05:30" is not in UTC')


def test_one_finding_per_operation_and_field_however_often_repeated(bundle: Bundle) -> None:
    answer(bundle, {"color": "blue", "items": [{"created_at": "soon"} for _ in range(50)]})
    outcome = run(completeness, bundle)
    assert outcome.lead == "1 failure(s)"


def cursor_paginated(bundle: Bundle) -> None:
    operation_detail(bundle, "create_widget")["parameters"] += [param("first", type="integer"), param("after")]
    bundle["accepted_parameters"]["create_widget"] += ["first", "after"]


def test_a_cursor_paginated_answer_without_page_info_warns(bundle: Bundle) -> None:
    cursor_paginated(bundle)
    answer(bundle, {"color": "blue", "items": []})
    outcome = run(completeness, bundle)
    assert outcome.result is Result.WARN  # features/pagination §3.1: an informative document's MUST
    assert outcome.detail == (
        "create_widget: a cursor-paginated answer without `pageInfo` at $.parameter_tests.optional_defaults[0]"
        ".response.data"
    )


def test_a_cursor_paginated_answer_with_page_info_passes(bundle: Bundle) -> None:
    cursor_paginated(bundle)
    answer(bundle, {"color": "blue", "items": [], "pageInfo": {"hasNextPage": False, "hasPreviousPage": False}})
    assert run(completeness, bundle).result is Result.PASS


def test_a_page_info_without_its_flags_warns(bundle: Bundle) -> None:
    cursor_paginated(bundle)
    answer(bundle, {"color": "blue", "pageInfo": {"endCursor": "c2"}})
    outcome = run(completeness, bundle)
    assert outcome.result is Result.WARN
    assert "`pageInfo` lacks the boolean hasNextPage and hasPreviousPage" in outcome.detail


def test_a_page_info_without_cursors_warns_whatever_the_operation_documents(bundle: Bundle) -> None:
    # the operation takes `cursor` and `limit` (no first/after): its answer's pageInfo still says
    # it pages with cursors, and a page holding items gives its start and end cursors
    answer(
        bundle, {"color": "blue", "items": [{"id": "w1"}], "pageInfo": {"hasNextPage": True, "hasPreviousPage": False}}
    )
    outcome = run(completeness, bundle)
    assert outcome.result is Result.WARN
    assert "create_widget: `pageInfo` of a page that holds items lacks startCursor and endCursor at " in outcome.detail


def test_an_answer_without_page_info_of_an_operation_without_cursors_is_no_page(bundle: Bundle) -> None:
    answer(bundle, {"color": "blue", "items": [{"id": "w1"}]})
    assert run(completeness, bundle).result is Result.PASS


PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
AT = "$.parameter_tests.optional_defaults[0].response.data"


@pytest.mark.parametrize(
    "data",
    [
        {"file_content": PNG, "file_encoding": "base64", "file_mime_type": "image/png"},
        {"thumbnail": "SGk=", "thumbnailEncoding": "Base64"},
        {"attachment": {"content": "", "encoding": "base64"}},
        {"file_content": "not base64 at all", "file_encoding": "utf-8"},  # marked as text: not binary
        {"file_content": "not base64 at all"},  # nothing says it is binary
    ],
)
def test_binary_data_marked_base64_in_the_standard_padded_form_passes(bundle: Bundle, data: Any) -> None:
    answer(bundle, {"color": "blue", **data})
    assert run(completeness, bundle).result is Result.PASS


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"file_content": PNG.rstrip("="), "file_encoding": "base64"},
         "94 characters: not padded with '=' to a multiple of 4"),
        ({"file_content": "SGk_-w", "file_encoding": "base64"},
         "URL-safe base64 ('-', '_'), not the standard alphabet (core §4.7.4, RFC 4648 §4)"),
        ({"file_content": "not base64!", "file_encoding": "base64"},
         "which holds characters outside base64's alphabet"),
    ],
)  # fmt: skip
def test_binary_data_marked_base64_otherwise_encoded_fails(bundle: Bundle, data: Any, said: str) -> None:
    answer(bundle, {"color": "blue", "items": [data]})
    outcome = run(completeness, bundle)
    assert outcome.result is Result.FAIL
    content = data["file_content"]
    shown = f'"{content}"' if len(content) < 60 else None
    assert outcome.detail.startswith("create_widget.file_content: file_encoding: base64 marks ")
    assert outcome.detail.endswith(f", {said} at {AT}.items[0].file_content")
    if shown:
        assert shown in outcome.detail
    assert report(bundle).categories[0].tests[3].cited == ("core:4.7.4:base64",)
