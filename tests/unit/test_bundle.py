"""bundle: loading, shape errors with exact JSON paths, accessors and the response index."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from bundle_builders import fail, ok

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.evidence.bundle import Bundle, bundle_from_data, load_bundle


def shape_error(data: Any) -> str:
    with pytest.raises(ConfigError) as caught:
        bundle_from_data(data, "b.json")
    return str(caught.value)


# Not an object


@pytest.mark.parametrize(
    ("data", "type_name"), [([], "array"), ("x", "string"), (3, "integer"), (None, "null"), (True, "boolean")]
)
def test_a_bundle_that_is_not_an_object_is_rejected(data: Any, type_name: str) -> None:
    assert shape_error(data) == f"b.json: $: expected a JSON object (the evidence bundle), got {type_name}"


def test_an_empty_object_is_a_valid_bundle_shape() -> None:
    assert bundle_from_data({}).data == {}


def test_the_conformant_bundle_has_a_valid_shape(bundle: dict[str, Any]) -> None:
    assert bundle_from_data(bundle, "b.json").source == "b.json"


# Wrongly typed sections, with exact JSON paths


def test_wrongly_typed_response_is_named_by_its_exact_path() -> None:
    cases = [{"operation": "a", "parameter": "b", "response": ok()} for _ in range(3)]
    cases.append({"operation": "a", "parameter": "b", "response": "not an object"})
    message = shape_error({"parameter_tests": {"missing_required": cases}})
    assert message == "b.json: $.parameter_tests.missing_required[3].response: expected an object, got string"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"introspection": []}, "$.introspection: expected an object, got array"),
        (
            {"introspection": {"operation_details": {}}},
            "$.introspection.operation_details: expected an array, got object",
        ),
        (
            {"introspection": {"operation_details": [{}, 3]}},
            "$.introspection.operation_details[1]: expected an object, got integer",
        ),
        ({"introspection": {"operations_list": []}}, "$.introspection.operations_list: expected an object, got array"),
        ({"parameter_tests": []}, "$.parameter_tests: expected an object, got array"),
        ({"error_tests": {}}, "$.error_tests: expected an array, got object"),
        (
            {"round_trip_tests": [{"name": "n", "expected_fields": [], "read_response": {}}]},
            "$.round_trip_tests[0].expected_fields: expected an object, got array",
        ),
        (
            {"update_preservation_tests": [{"name": "n", "preserved_fields": {}, "read_response": None}]},
            "$.update_preservation_tests[0].read_response: expected an object, got null",
        ),
        (
            {"capabilities": {"field_selection": "yes"}},
            "$.capabilities.field_selection: expected a boolean, got string",
        ),
        ({"endpoint_modes": "crude"}, "$.endpoint_modes: expected an array, got string"),
        ({"endpoint_modes": ["crude", 1]}, "$.endpoint_modes[1]: expected a string, got integer"),
        ({"implementation": 5}, "$.implementation: expected a string, got integer"),
        ({"batch_example": "ok"}, "$.batch_example: expected an object, got string"),
        (
            {"semantic_tests": [{"name": "n", "response_text": 1}]},
            "$.semantic_tests[0].response_text: expected a string, got integer",
        ),
        (
            {"constraint_tests": [{"name": "n", "documented": "yes", "response": {}}]},
            "$.constraint_tests[0].documented: expected a boolean, got string",
        ),
    ],
)
def test_wrongly_typed_sections_are_rejected_with_their_path(data: dict[str, Any], expected: str) -> None:
    assert shape_error(data) == f"b.json: {expected}"


def test_missing_required_case_field_is_named() -> None:
    assert shape_error({"error_tests": [{"response": fail("X", "m")}]}) == (
        "b.json: $.error_tests[0]: missing required property 'name'"
    )


def test_missing_default_case_field_is_named() -> None:
    case = {"operation": "o", "parameter": "p", "expected_value_path": "data.p", "response": ok()}
    assert shape_error({"parameter_tests": {"optional_defaults": [case]}}) == (
        "b.json: $.parameter_tests.optional_defaults[0]: missing required property 'expected_value'"
    )


def test_accepted_parameters_with_an_odd_key_use_bracket_notation() -> None:
    assert shape_error({"accepted_parameters": {"get-widget": "id"}}) == (
        'b.json: $.accepted_parameters["get-widget"]: expected an array, got string'
    )


@pytest.mark.parametrize(("key", "value"), [("expected_level", 3), ("expected_exit_code", 4), ("expected_level", True)])
def test_out_of_range_declarations_list_the_valid_values(key: str, value: Any) -> None:
    message = shape_error({key: value})
    assert message.startswith(f"b.json: $.{key}: must be one of ")


def test_shape_error_messages_contain_no_control_characters() -> None:
    message = shape_error({"accepted_parameters": {"\x1b[31m\nop": "id"}})
    assert "\x1b" not in message
    assert "\n" not in message
    assert message.endswith("expected an array, got string")


# load_bundle


def test_load_bundle_reads_a_file(tmp_path: Path, bundle: dict[str, Any]) -> None:
    path = tmp_path / "b.json"
    path.write_bytes(orjson.dumps(bundle))
    loaded = load_bundle(path)
    assert loaded.implementation == "unit-adapter"
    assert loaded.source == str(path)


def test_load_bundle_rejects_a_json_array_file(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_bytes(b"[]")
    with pytest.raises(ConfigError, match=r": \$: expected a JSON object \(the evidence bundle\), got array$"):
        load_bundle(path)


def test_load_bundle_rejects_malformed_json_with_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_bytes(b'{\n  "implementation": \n}')
    with pytest.raises(ConfigError) as caught:
        load_bundle(path)
    assert str(caught.value).startswith(f"{path}:3:")


def test_load_bundle_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^bundle not found: "):
        load_bundle(tmp_path / "absent.json")


# Accessors


def test_accessors_default_on_an_empty_bundle() -> None:
    empty = Bundle({})
    assert empty.implementation is None
    assert empty.version is None
    assert empty.spec_version is None
    assert empty.expected_level is None
    assert empty.expected_exit_code is None
    assert empty.endpoint_modes is None
    assert empty.capabilities == {}
    assert empty.introspection == {}
    assert empty.operations_list is None
    assert empty.types_list is None
    assert empty.operation_details == []
    assert empty.accepted_parameters is None
    assert empty.parameter_cases("missing_required") == []
    assert empty.cases("error_tests") == []
    assert empty.batch_example is None
    assert empty.responses == []
    assert list(empty.located_responses()) == []
    assert empty.source == "<bundle>"


def test_accessors_return_the_bundle_values(bundle: dict[str, Any]) -> None:
    loaded = bundle_from_data(bundle)
    assert loaded.implementation == "unit-adapter"
    assert loaded.version == "0.0.1"
    assert loaded.spec_version == "1.0.0-draft"
    assert loaded.expected_level == 2
    assert loaded.expected_exit_code == 0
    assert loaded.endpoint_modes == ["crude", "single"]
    assert loaded.capabilities == {"field_selection": True, "batch_operations": True}
    assert loaded.operations_list is bundle["introspection"]["operations_list"]
    assert [d["name"] for d in loaded.operation_details][:2] == ["introspect", "create_widget"]
    assert loaded.accepted_parameters is not None
    assert loaded.accepted_parameters["get_widget"] == ["id", "fields"]
    assert len(loaded.parameter_cases("unknown_parameter")) == 5
    assert loaded.cases("constraint_tests")[0]["name"] == "id is read-only"


def test_parameter_cases_default_when_the_kind_is_absent() -> None:
    assert bundle_from_data({"parameter_tests": {}}).parameter_cases("optional_defaults") == []


# responses


def test_responses_enumerate_every_recorded_response_with_its_path(bundle: dict[str, Any]) -> None:
    paths = [path for path, _ in bundle_from_data(bundle).located_responses()]
    assert paths == [
        "$.introspection.operations_list",
        "$.introspection.types_list",
        *[f"$.parameter_tests.missing_required[{i}].response" for i in range(6)],
        *[f"$.parameter_tests.unknown_parameter[{i}].response" for i in range(5)],
        "$.parameter_tests.optional_defaults[0].response",
        "$.error_tests[0].response",
        "$.round_trip_tests[0].read_response",
        "$.update_preservation_tests[0].read_response",
        "$.constraint_tests[0].response",
        "$.batch_example",
    ]


def test_responses_are_the_recorded_objects_themselves(bundle: dict[str, Any]) -> None:
    responses = dict(bundle_from_data(bundle).located_responses())
    assert responses["$.error_tests[0].response"] is bundle["error_tests"][0]["response"]
    assert responses["$.batch_example"] is bundle["batch_example"]


def test_flat_responses_follow_the_located_order(bundle: dict[str, Any]) -> None:
    loaded = bundle_from_data(bundle)
    assert len(loaded.responses) == 19
    assert all(a is b for a, (_, b) in zip(loaded.responses, loaded.located_responses(), strict=True))


def test_responses_of_an_empty_bundle_are_empty() -> None:
    assert bundle_from_data({}).responses == []
    assert list(bundle_from_data({}).located_responses()) == []
