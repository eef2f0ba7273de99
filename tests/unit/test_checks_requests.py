"""How the server reads a request itself (verdict/checks/requests.py): each of capture's request
calls is judged in the test that owns it, citing its rule; a case not recorded is not judged."""

from __future__ import annotations

from typing import Any

import pytest
from bundle_builders import conformant_bundle, fail, ok, run

from mcpaql_conformance.verdict.checks.errors import actionable, discriminated_union
from mcpaql_conformance.verdict.checks.introspection import completeness, operation_details
from mcpaql_conformance.verdict.checks.parameters import unknown_explicit
from mcpaql_conformance.verdict.model import Result

TWO = {"operation": "introspect", "params": {"query": "operations", "zz_conformance_first": 1,
                                             "zz_conformance_second": 1}}  # fmt: skip


def with_case(name: str, response: Any, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    data = conformant_bundle()
    data["request_tests"] = [{"name": name, "tool": "mcp_aql_read", "arguments": arguments or {}, "response": response}]
    return data


def cited(outcome: Any) -> list[tuple[str, str]]:
    return [(str(f), getattr(f, "rule", "")) for f in outcome.findings]


@pytest.mark.parametrize(
    ("name", "rule", "said"),
    [
        ("no_operation", "operations:2.2:operation-field", "a request without `operation`"),
        ("empty_operation", "operations:2.2:operation-defined", "a request whose operation is empty"),
        ("operation_case", "operations:2.4:case-sensitive", "INTROSPECT (introspect in upper case)"),
    ],
)
def test_a_request_naming_no_known_operation_is_refused(name: str, rule: str, said: str) -> None:
    assert run(operation_details, with_case(name, fail("NOT_FOUND_OPERATION", "Unknown."))).result is Result.PASS
    outcome = run(operation_details, with_case(name, ok({"operations": []})))
    assert outcome.result is Result.WARN  # informative MUSTs of the operations reference
    assert cited(outcome) == [(f"{said} via mcp_aql_read was answered with success, not refused", rule)]


def test_the_params_value_wins_over_a_top_level_one() -> None:
    types = with_case("params_precedence", ok({"types": [{"name": "Widget", "kind": "object"}]}))
    outcome = run(unknown_explicit, types)
    assert outcome.result is Result.WARN
    assert cited(outcome)[-1][1] == "operations:2.3:resolution-order"
    assert "the top-level value won over params" in cited(outcome)[-1][0]
    assert run(unknown_explicit, with_case("params_precedence", ok({"operations": []}))).result is Result.PASS
    # a server that takes no top-level parameters may refuse them (operations §2.3 is a MAY)
    refused = with_case("params_precedence", fail("VALIDATION_UNKNOWN_PARAM", "Unknown parameter 'query'."))
    assert run(unknown_explicit, refused).result is Result.PASS


@pytest.mark.parametrize(
    ("message", "result"),
    [
        ("Unknown parameters zz_conformance_first, zz_conformance_second.", Result.PASS),
        ("Unknown parameter zz_conformance_first (and 1 more).", Result.PASS),  # the first, with a count
        ("Unknown parameter zz_conformance_first.", Result.WARN),
    ],
)
def test_a_refusal_of_two_unknown_parameters_names_both(message: str, result: Result) -> None:
    outcome = run(actionable, with_case("two_unknown_parameters", fail("VALIDATION_UNKNOWN_PARAM", message), TWO))
    assert outcome.result is result
    if result is Result.WARN:
        assert cited(outcome)[-1] == (
            "introspect via mcp_aql_read with the unknown parameters zz_conformance_first, zz_conformance_second: "
            "the refusal names only zz_conformance_first, with no count of the rest",
            "error-codes:4.5:several-unknown-parameters",
        )


def test_a_string_holding_a_null_byte_is_refused() -> None:
    refused = with_case("null_byte", fail("VALIDATION_INVALID_ENCODING", "Null byte in name."))
    assert run(completeness, refused).result is Result.PASS
    outcome = run(completeness, with_case("null_byte", ok({"operation": None})))
    assert outcome.result is Result.WARN
    assert cited(outcome) == [
        ("introspect via mcp_aql_read with a name holding U+0000 was answered with success, not refused",
         "core:4.7.1:null-bytes")
    ]  # fmt: skip


NOT_UTF8 = "introspect via mcp_aql_read with a name holding bytes that are not UTF-8 (C0 AF)"
RPC = "_mcp_error"


@pytest.mark.parametrize(
    ("response", "finding"),
    [
        (fail("VALIDATION_INVALID_ENCODING", "Invalid character encoding in request"), None),
        ({RPC: {"code": -32700, "message": "Parse error: invalid unicode code point"}}, None),  # the MCP layer's
        (ok({"operation": None}), f"{NOT_UTF8} was answered with success: the invalid bytes were taken, not refused"),
        (fail("NOT_FOUND_OPERATION", "No operation 'intro\ufffd\ufffdspect'."),
         f"{NOT_UTF8} was refused with NOT_FOUND_OPERATION, not VALIDATION_INVALID_ENCODING"),
        ({"_timeout": "the server closed the connection during tools/call mcp_aql_read (operation introspect)"},
         f"{NOT_UTF8} got no answer: the server closed the connection during tools/call mcp_aql_read (operation "
         "introspect)"),
        ({RPC: {"code": -32603, "message": "Internal error"}},
         f"{NOT_UTF8} was answered with JSON-RPC error -32603 ('Internal error'), not refused as invalid encoding"),
    ],
)  # fmt: skip
def test_a_request_holding_bytes_that_are_not_utf8_is_refused_with_its_code(response: Any, finding: Any) -> None:
    sent = {"operation": "introspect", "params": {"name": "intro\ufffd\ufffdspect"}}
    data = with_case("invalid_utf8", response, sent)
    data["request_tests"][0]["invalid_utf8"] = {"at": "params.name", "bytes": "C0 AF"}
    outcome = run(completeness, data)
    if finding is None:
        assert outcome.result is Result.PASS, outcome.findings
    else:
        assert outcome.result is Result.FAIL  # a MUST of the core
        assert cited(outcome) == [(finding, "core:4.7.1:invalid-utf-8")]
    # the MCP layer's parse error is the refusal asked for, not a domain error sent as JSON-RPC's; no answer
    # is this rule's finding alone; another JSON-RPC error is one
    assert run(discriminated_union, data).result is (Result.FAIL if RPC in response and finding else Result.PASS)


def test_answers_that_are_not_utf8_fail_the_union_test() -> None:
    data = conformant_bundle()
    data["answer_encoding"] = {"transport": "stdio", "answers": 40, "invalid": 0, "examples": []}
    assert run(discriminated_union, data).result is Result.PASS
    example = {"after": "initialize", "offset": 12, "bytes": "42 FC 63 68"}
    data["answer_encoding"] = {"transport": "stdio", "answers": 40, "invalid": 1, "examples": [example]}
    outcome = run(discriminated_union, data)
    assert outcome.result is Result.FAIL
    assert cited(outcome) == [
        ("1 of the 40 message(s) the server sent were not UTF-8 (after initialize, at byte 12: 42 FC 63 68)",
         "core:4.7.1:utf-8")
    ]  # fmt: skip


def test_first_and_last_together_are_refused() -> None:
    data = conformant_bundle()
    case = {"operation": "list_widgets", "request": {"first": 1, "last": 1}}
    data["pagination_tests"] = [{**case, "response": fail("VALIDATION_INVALID_TYPE", "first or last, not both.")}]
    assert run(completeness, data).result is Result.PASS
    data["pagination_tests"] = [{**case, "response": ok({"items": []})}]
    outcome = run(completeness, data)
    assert outcome.result is Result.WARN  # features/pagination is informative: its MUST warns
    assert cited(outcome) == [("list_widgets with first and last together was answered with success, not refused",
                               "features/pagination:2.3:invalid-combinations")]  # fmt: skip


DEEP = "introspect via mcp_aql_read with a value nested 70 levels deep"


@pytest.mark.parametrize(
    ("response", "finding"),
    [
        (
            fail("VALIDATION_PAYLOAD_TOO_LARGE", "Too deep.", limit_type="nesting_depth", limit_value=32),
            None,
        ),
        (fail("VALIDATION_PAYLOAD_TOO_LARGE", "Request exceeds max_nesting_depth (32)."), None),  # its message says
        (
            ok({"operations": []}),
            (f"{DEEP} was answered with success: no nesting limit was enforced", "core:4.7.5:enforce-limits"),
        ),
        (
            fail("VALIDATION_UNKNOWN_PARAM", "Unknown parameter '_conformance_nested'."),
            (f"{DEEP} was refused with VALIDATION_UNKNOWN_PARAM, not VALIDATION_PAYLOAD_TOO_LARGE",
             "core:4.7.5:too-large-error"),
        ),
        (
            fail("VALIDATION_PAYLOAD_TOO_LARGE", "Payload too large.", size=5000),
            (f"{DEEP} was refused with VALIDATION_PAYLOAD_TOO_LARGE, neither its message nor its details (size) "
             "saying which limit was exceeded", "core:4.7.5:too-large-error"),
        ),
    ],
)  # fmt: skip
def test_a_value_nested_beyond_any_limit_is_refused_as_too_large_naming_the_limit(
    response: Any, finding: tuple[str, str] | None
) -> None:
    outcome = run(completeness, with_case("deep_nesting", response))
    if finding is None:
        assert outcome.result is Result.PASS, outcome
    else:
        assert outcome.result is Result.FAIL  # MUSTs of the core
        assert finding in cited(outcome)


def test_a_filter_key_the_server_does_not_support_is_refused_as_invalid() -> None:
    def case(response: Any) -> dict[str, Any]:
        data = conformant_bundle()
        request = {"filter": {"zz_conformance_filter_key": "x"}}
        data["filter_tests"] = [{"operation": "list_widgets", "request": request, "response": response}]
        return data

    rule = "features/collection-querying:2.2:unknown-filter-key"
    refused = fail(
        "VALIDATION_UNKNOWN_FIELD", "Field 'zz_conformance_filter_key' of 'filter' is not one of its fields."
    )
    assert run(completeness, case(refused)).result is Result.PASS
    assert run(completeness, case(fail("NOT_FOUND_RESOURCE", "No widget."))).result is Result.PASS  # another reason
    ignored = run(completeness, case(ok({"items": []})))
    assert ignored.result is Result.WARN  # a SHOULD
    assert cited(ignored) == [("list_widgets with a filter key it does not support answered with success, ignoring it",
                               rule)]  # fmt: skip
    other = run(completeness, case(fail("BAD_FILTER", "Bad filter.")))
    assert cited(other) == [("list_widgets with a filter key it does not support was refused with BAD_FILTER, "
                             "not a validation error", rule)]  # fmt: skip
