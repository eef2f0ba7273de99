"""The one classifier of server answers: kinds, refusals and descriptions in the server's terms."""

from __future__ import annotations

from typing import Any

import pytest

from mcpaql_conformance.evidence.answers import Kind, classify, reads_as_refusal, texts


@pytest.mark.parametrize(
    ("response", "kind", "refused", "succeeded"),
    [
        ({"success": True, "data": {"id": 1}}, Kind.SUCCESS, False, True),
        ({"success": True, "data": "Created note 7."}, Kind.PROSE, False, True),
        ({"success": False, "error": {"code": "NOT_FOUND", "message": "No note."}}, Kind.ERROR, True, False),
        ({"success": False, "error": "Missing required parameter 'x'"}, Kind.STRING_ERROR, True, False),
        ({"error": "Missing required parameter 'x'"}, Kind.STRING_ERROR, True, False),
        ({"success": False, "error": {"reason": "no"}}, Kind.MALFORMED_ERROR, True, False),
        ({"success": False}, Kind.MALFORMED_ERROR, True, False),
        ({"_raw_text": "Missing x", "_is_error": True}, Kind.MCP_ERROR, True, False),
        ({"_mcp_error": {"code": -32603, "message": "fetch failed"}}, Kind.JSONRPC_ERROR, True, False),
        ({"_raw_text": "Error: x missing", "_is_error": False}, Kind.TEXT, True, False),
        ({"_raw_text": "Here are your notes.", "_is_error": False}, Kind.TEXT, False, False),
        ({"status": "ignored"}, Kind.OTHER, False, False),
        ({"_timeout": "no answer"}, Kind.NO_ANSWER, False, False),
        (["not", "an", "object"], Kind.OTHER, False, False),
    ],
)
def test_every_form_of_answer_is_classified(response: Any, kind: Kind, refused: bool, succeeded: bool) -> None:
    answer = classify(response)
    assert answer.kind is kind
    assert answer.refused is refused
    assert answer.succeeded is succeeded


def test_only_a_flagged_object_error_or_success_is_structured() -> None:
    assert classify({"success": False, "error": {"code": "X", "message": "m"}}).structured
    assert classify({"success": True, "data": {}}).structured
    assert not classify({"error": {"code": "X", "message": "m"}}).structured  # no success flag
    assert not classify({"success": False, "error": "m"}).structured


def test_ok_is_read_as_the_success_flag_but_marked_flagless() -> None:
    answer = classify({"ok": False, "error": "nope"})
    assert answer.kind is Kind.STRING_ERROR and answer.flagless
    assert answer.describe() == 'error is a string, not an object with no success flag: "nope"'


@pytest.mark.parametrize(
    ("response", "description"),
    [
        ({"success": False, "error": {"code": "NOT_FOUND", "message": "No note."}}, "NOT_FOUND: No note."),
        (
            {"success": False, "error": "Missing required parameter 'x'"},
            "error is a string, not an object: \"Missing required parameter 'x'\"",
        ),
        (
            {"_mcp_error": {"code": -32603, "message": "fetch failed"}},
            'answered with JSON-RPC error -32603 "fetch failed"',
        ),
        (
            {"_raw_text": "Missing x", "_is_error": True},
            'answered with an MCP error result (isError): "Missing x"',
        ),
        ({"_raw_text": "hello", "_is_error": False}, 'answered with plain text, not an MCP-AQL result: "hello"'),
        ({"success": True, "data": "Created."}, 'succeeded with prose instead of data: "Created."'),
        ({"ok": 1, "typeList": []}, "answered a JSON object without a success flag (keys: ok, typeList)"),
        ({"_timeout": "x"}, "did not answer within the time limit"),
        ({"success": False}, "failed without an error object"),
    ],
)
def test_descriptions_say_what_the_server_did_never_our_wrappers(response: Any, description: str) -> None:
    text = classify(response).describe()
    assert text == description
    assert "_mcp_error" not in text and "_raw_text" not in text and "_is_error" not in text


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("VALIDATION_UNKNOWN_PARAM: unknown parameter: query", "VALIDATION_UNKNOWN_PARAM"),
        ("[NOT_FOUND_OPERATION] - no such operation", "NOT_FOUND_OPERATION"),
        ("Missing required parameter 'x'", None),
        ("ERROR: something", None),  # one word is not a code
    ],
)
def test_a_code_at_the_start_of_a_plain_text_error_is_read(text: str, code: str | None) -> None:
    assert classify({"success": False, "error": text}).code == code


def test_json_rpc_invalid_params_and_validation_codes_are_validation_refusals() -> None:
    assert classify({"_mcp_error": {"code": -32602, "message": "bad"}}).validation
    assert classify({"success": False, "error": "VALIDATION_INVALID_TYPE: x must be a string"}).validation
    assert not classify({"_mcp_error": {"code": -32603, "message": "fetch failed"}}).validation


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ("Error: no", True),
        ("  invalid value for x", True),
        ("Missing note_id", True),
        ("Unknown parameter 'z'", True),
        ("Found 3 notes", False),
        ("", False),
        ("Errorless run", False),
    ],
)
def test_plain_text_reads_as_a_refusal_only_when_its_first_word_says_so(text: str, refusal: bool) -> None:
    assert reads_as_refusal(text) is refusal


def plain_texts(response: Any) -> list[tuple[str, str]]:
    return [(text.path, text.text) for text in texts(response)]


def test_texts_cover_every_text_the_server_sent() -> None:
    batch = {
        "success": True,
        "data": None,
        "warnings": [{"code": "W", "message": "careful"}, "plain warning"],
        "results": [
            {"index": 0, "result": {"success": False, "error": {"code": "X", "message": "m", "details": {"a": ["d"]}}}},
            {"index": 1, "result": {"success": False, "error": "as a string"}},
        ],
    }
    assert plain_texts(batch) == [
        (".warnings[0].code", "W"),
        (".warnings[0].message", "careful"),
        (".warnings[1]", "plain warning"),
        (".results[0].result.error.code", "X"),
        (".results[0].result.error.message", "m"),
        (".results[0].result.error.details.a[0]", "d"),
        (".results[1].result.error", "as a string"),
    ]
    assert plain_texts({"_mcp_error": {"code": 1, "message": "boom", "data": ["x"]}}) == [
        ("._mcp_error.message", "boom"),
        ("._mcp_error.data[0]", "x"),
    ]
    assert plain_texts({"_raw_text": "plain", "_is_error": False}) == [("._raw_text", "plain")]
    assert plain_texts({"success": True, "data": {"title": "TypeError"}}) == []  # content, not the server's words


def test_texts_cover_every_part_of_an_error_answer_and_every_key_a_success_added_but_its_metadata() -> None:
    failure = {
        "success": False,
        "error": {"code": "INTERNAL_ERROR", "message": "failed", "trace": ["at x (/srv/app.js:1:2)"]},
        "stack": "Traceback (most recent call last)",
        "_meta": {"request_id": "at y (/srv/b.js:3:4)"},
    }
    assert plain_texts(failure) == [
        (".error.code", "INTERNAL_ERROR"),
        (".error.message", "failed"),
        (".error.trace[0]", "at x (/srv/app.js:1:2)"),
        (".stack", "Traceback (most recent call last)"),
        ("._meta.request_id", "at y (/srv/b.js:3:4)"),  # an error answer exposes nothing, metadata included
    ]
    assert all(text.error for text in texts(failure))
    halted = {
        "success": True,
        "data": None,
        "_meta": {"note": "not a message"},
        "debug": {"a key": "why"},
        "halted_at": {"index": 1, "result": {"success": False, "error": {"code": "C", "message": "confirm"}}},
        "pending_operations": [{"index": 2, "operation": "x", "params": {"path": "/src/echoed/"}}],
    }
    assert plain_texts(halted) == [
        ('.debug["a key"]', "why"),
        (".halted_at.result.error.code", "C"),
        (".halted_at.result.error.message", "confirm"),
    ]
    assert [text.error for text in texts(halted)] == [False, True, True]  # the gated item is an error answer


def test_texts_of_a_deeply_nested_batch_stop_at_a_bound() -> None:
    response: dict[str, Any] = {"success": False, "error": {"code": "X", "message": "bottom"}}
    for _ in range(100):
        response = {"success": True, "data": None, "results": [{"index": 0, "result": response}]}
    assert plain_texts(response) == []


@pytest.mark.parametrize(
    ("response", "description"),
    [
        ({"_raw_text": '[{"name": "x"}]', "_is_error": False}, "answered a JSON array, not an MCP-AQL result: "),
        ({"_raw_text": "[" * 3000 + "]" * 3000, "_is_error": False}, "answered JSON nested too deeply to read"),
        (
            {"_raw_text": '{"success": true, "data": {}}', "_is_error": True},
            "answered `success: true` in an MCP result flagged isError: true (a contradiction): ",
        ),
        (
            {"_raw_text": '{"ok": true}', "_is_error": True},
            "answered with an MCP error result (isError) carrying a JSON object: ",
        ),
        ({"success": False, "error": {"code": 400, "message": {"x": 1}}}, "whose code is not a string (400) and "),
        ({"success": False, "error": {"message": "m"}}, "failed with an error without a code"),
    ],
)
def test_descriptions_name_json_shapes_and_what_is_wrong_with_an_error(response: Any, description: str) -> None:
    assert description in classify(response).describe()


def test_long_messages_are_clipped_in_descriptions() -> None:
    answer = classify({"success": False, "error": {"code": "X", "message": "m" * 5000}})
    assert len(answer.describe()) < 400 and answer.describe().endswith("(5000 characters)")


def _refused(code: str, message: str) -> dict[str, Any]:
    return {"success": False, "error": {"code": code, "message": message}}


def test_one_refusal_for_every_probe_whatever_it_asked_is_a_blanket_refusal() -> None:
    from mcpaql_conformance.evidence.blanket import Blanket, by_refusal
    from mcpaql_conformance.evidence.bundle import Bundle

    down = _refused("INTERNAL_ERROR", "upstream unavailable")
    cases = {
        "missing_required": [
            {"operation": "get_a", "parameter": "id", "response": down},
            {"operation": "get_b", "parameter": "id", "response": _refused("VALIDATION_MISSING_PARAM", "id")},
        ],
        "unknown_parameter": [
            {"operation": "get_a", "parameter": "zz", "response": down},
            {"operation": "list_c", "parameter": "zz", "response": down},
            {"operation": "get_b", "parameter": "zz", "response": down},  # get_b's other probe was answered
            {"operation": "get_d", "parameter": "zz", "response": _refused("NOT_FOUND_RESOURCE", "No d 'x'")},
        ],
    }
    blanket = Blanket.of(Bundle({"implementation": "x", "parameter_tests": cases}))
    assert set(blanket.operations) == {"get_a", "list_c"}  # get_d: one probe alone shows nothing
    key = blanket.covers("get_a", down)
    assert key is not None and blanket.covers("get_b", down) is None and blanket.covers(None, down) == key
    (line,) = blanket.findings(by_refusal([(key, "get_a.id"), (key, "list_c.zz")]), "probe(s)")
    assert line.startswith("2 probe(s) of get_a, list_c: not judged: every probe of these operations was refused")
    assert "(INTERNAL_ERROR: upstream unavailable)" in line


@pytest.mark.parametrize(
    ("template", "case", "said"),
    [
        ("$.introspection.operations_list", None, "introspect {query: operations}"),
        ("$.parameter_tests.missing_required[{}].response", {"operation": "get_note", "parameter": "note_id"},
         "get_note without its required note_id"),
        ("$.parameter_tests.unknown_parameter[{}].response", {"operation": "get_note", "parameter": "zz"},
         "get_note with the unknown parameter zz"),
        ("$.round_trip_tests[{}].read_response", {"name": "c1", "operation": "create_note"},
         "the read-back of c1 (after create_note)"),
        ("$.routing_tests[{}].response", {"operation": "get_note", "tool": "mcp_aql_create"},
         "get_note sent to mcp_aql_create"),
        ("$.error_tests[{}].response", {"name": "unknown-get_note"}, "error case unknown-get_note"),
        ("$.update_input_tests[{}].response", {"operation": "update_note", "kind": "missing_input"},
         "update_note without `input`"),
        ("$.parameter_tests.missing_required[{}].response", {"parameter": "note_id"},
         "$.parameter_tests.missing_required[0].response"),  # too little to name the call: its path
    ],
)  # fmt: skip
def test_an_answer_is_named_by_the_call_that_drew_it(template: str, case: Any, said: str) -> None:
    from mcpaql_conformance.evidence.where import answer_label

    assert answer_label(template, 0, case, captured=True) == said
    assert answer_label(template, 0, case, captured=False) == template.format(0)  # a hand-written bundle's terms
