"""Whom a refusal is about: the parameter under test, or a value the prober chose for another one
(verdict/blame.py), and what the checks say of an answer they do not judge for that reason."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.blame import Blame, case_blame, our_value_refused, value_quoted
from mcpaql_conformance.verdict.checks.errors import actionable
from mcpaql_conformance.verdict.checks.parameters import required_enforced, unknown_explicit
from mcpaql_conformance.verdict.model import Result
from mcpaql_conformance.verdict.runner import provenance_line

UNKNOWN = "zz_conformance_probe"
STRING_REFUSAL = {"success": False, "error": "Unknown query type: probe"}


def refusal(message: str, code: str = "VALIDATION_ERROR", details: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        error["details"] = details
    return {"success": False, "error": error}


def test_the_issue_s_refusal_is_about_our_query_not_the_unknown_parameter() -> None:
    request = {"query": "probe", UNKNOWN: "mcpaql-conformance-unknown-value"}
    assert our_value_refused(request, UNKNOWN, STRING_REFUSAL) == Blame("query", "probe")
    assert value_quoted(request, UNKNOWN, STRING_REFUSAL) == Blame("query", "probe")
    assert Blame("query", "probe").reason() == 'refused our value "probe" for query'
    assert Blame("query", "probe", ("probe", "cats")).reason() == 'refused our values "probe", "cats" for query'
    assert Blame("query", "probe").not_judged() == (
        'not judged: the server refused the value capture chose for query ("probe"); give one in a plan'
    )
    tried = Blame("region", "probe", ("probe", "cats"), ("synthesised", "description"))
    assert tried.not_judged("VALIDATION_ERROR: Invalid region: cats") == (
        'not judged: the server refused the value capture chose for region ("probe", made up; then "cats", from the '
        "description); it answered VALIDATION_ERROR: Invalid region: cats; give one in a plan"
    )
    planned = Blame("region", "x-1", (), ("plan",))
    assert planned.not_judged("E: no") == (
        'not judged: the server refused the value capture chose for region ("x-1", from the plan); it answered E: no; '
        "give one it accepts in the plan"
    )


def test_a_refusal_that_says_a_parameter_is_unknown_or_echoes_the_request_blames_no_value() -> None:
    request = {"query": "operations", "name": "get_note", UNKNOWN: "mcpaql-conformance-unknown-value"}
    for message in ("Invalid params: unexpected key in params", "Parameter not allowed here (query and name are)"):
        assert our_value_refused(request, UNKNOWN, refusal(message)) is None, message
    echoed = refusal("Invalid request", details={"received": request})
    assert our_value_refused(request, UNKNOWN, echoed) is None  # it quotes ours for the unknown one too
    missing = refusal("Invalid request", details={"received": {"query": "operations", "name": "get_note"}})
    assert value_quoted({"query": "operations", "name": "get_note"}, "limit", missing) is None  # echo: no blame
    alone = refusal("Invalid request", details={"received": {"format": "probe"}})
    assert value_quoted({"format": "probe"}, "note_id", alone) is None  # one parameter echoed back is still an echo
    same = {"note_id": "probe", UNKNOWN: "probe"}
    assert value_quoted(same, UNKNOWN, refusal("Unexpected extra field with value 'probe'")) is None


def test_a_refusal_naming_the_parameter_under_test_is_judged() -> None:
    request = {"query": "probe", UNKNOWN: "probe"}
    named = refusal(f"Unknown parameter {UNKNOWN} (query was probe)")
    assert our_value_refused(request, UNKNOWN, named) is None
    assert value_quoted(request, UNKNOWN, named) is None


def test_a_refusal_that_names_nothing_of_ours_is_judged() -> None:
    request = {"note_id": "n-1", UNKNOWN: "probe"}
    assert our_value_refused(request, UNKNOWN, refusal("Bad request")) is None
    assert our_value_refused({}, "title", refusal("Missing a required parameter")) is None
    assert our_value_refused(None, "title", refusal("Missing a required parameter")) is None


def test_successes_are_never_blamed_on_our_values() -> None:
    assert our_value_refused({"query": "probe"}, UNKNOWN, {"success": True, "data": {"query": "probe"}}) is None


def test_values_are_found_whole_in_messages_and_details() -> None:
    request = {"region": "probe", UNKNOWN: 1}
    assert our_value_refused(request, UNKNOWN, refusal("no such place: probes")) is None  # not whole
    assert our_value_refused(request, UNKNOWN, refusal("invalid", details={"value": "probe"})) == Blame(
        "region", "probe"
    )
    dated = {"since": "2026-01-01", UNKNOWN: "x"}
    assert value_quoted(dated, UNKNOWN, refusal("date 2026-01-01 is in the future")) == Blame("since", "2026-01-01")


def test_short_values_are_not_taken_as_quoted_but_a_named_parameter_is() -> None:
    request = {"limit": 1, "q": "ab", UNKNOWN: "probe"}
    assert value_quoted(request, UNKNOWN, refusal("page 1 of ab")) is None
    # capture's wider reading: naming another parameter of the request (and not the one under test)
    assert our_value_refused(request, UNKNOWN, refusal("limit is out of range")) == Blame("limit", 1)
    assert value_quoted(request, UNKNOWN, refusal("limit is out of range")) is None


def test_a_case_marked_by_capture_or_quoting_its_request_is_not_judged() -> None:
    marked = {"parameter": UNKNOWN, "response": refusal("no"), "inconclusive": {"reason": "r", "parameter": "q"}}
    assert case_blame(marked, UNKNOWN) == Blame("q", None)
    mark = {"reason": "r", "parameter": "q", "values": ["a1", "b2"], "sources": ["description", "synthesised"]}
    assert case_blame({**marked, "inconclusive": mark}, UNKNOWN) == Blame(
        "q", "a1", ("a1", "b2"), ("description", "synthesised")
    )
    request = {"query": "probe", UNKNOWN: "mcpaql-conformance-unknown-value"}
    quoted = {"parameter": UNKNOWN, "response": STRING_REFUSAL, "request": request}
    assert case_blame(quoted, UNKNOWN) == Blame("query", "probe")
    sourced = {**quoted, "value_sources": {"query": "synthesised"}}
    assert case_blame(sourced, UNKNOWN) == Blame("query", "probe", (), ("synthesised",))
    bare = {"parameter": UNKNOWN, "response": STRING_REFUSAL}  # older bundles: nothing to tell
    assert case_blame(bare, UNKNOWN) is None


def context(**sections: Any) -> Context:
    return Context(bundle=Bundle(data=sections))


def test_a_hand_written_bundle_quoting_another_value_warns_instead_of_failing() -> None:
    case = {"operation": "introspect", "parameter": UNKNOWN, "response": STRING_REFUSAL}
    quoting = {**case, "request": {"query": "probe", UNKNOWN: "mcpaql-conformance-unknown-value"}}
    outcome = unknown_explicit(context(parameter_tests={"unknown_parameter": [quoting]}))
    assert outcome.result is Result.WARN
    assert outcome.findings == (
        'introspect.zz_conformance_probe: not judged: the server refused the value capture chose for query ("probe"); '
        'it answered error is a string, not an object: "Unknown query type: probe"; give one in a plan',
    )
    failing = unknown_explicit(context(parameter_tests={"unknown_parameter": [case]}))  # no request: judged
    assert failing.result is Result.FAIL
    assert "does not name the unknown parameter" in failing.findings[0]


def test_missing_required_and_actionable_do_not_judge_a_refusal_of_our_value() -> None:
    response = refusal("Invalid region: probe")
    case = {"operation": "find", "parameter": "limit", "response": response, "request": {"region": "probe"}}
    outcome = required_enforced(context(parameter_tests={"missing_required": [case]}))
    assert outcome.result is Result.WARN
    assert outcome.findings == (
        'find.limit: not judged: the server refused the value capture chose for region ("probe"); it answered '
        "VALIDATION_ERROR: Invalid region: probe; give one in a plan",
    )
    error_test = {"name": "missing-find-limit", "must_mention": ["limit"], "response": response}
    outcome = actionable(context(error_tests=[{**error_test, "request": {"region": "probe"}}]))
    assert outcome.findings == (
        'missing-find-limit: not judged: the server refused the value capture chose for region ("probe"); it answered '
        "VALIDATION_ERROR: Invalid region: probe; give one in a plan",
    )
    judged = actionable(context(error_tests=[error_test]))
    assert judged.findings == ("missing-find-limit: message does not mention limit",)


def test_the_provenance_line_counts_what_was_withheld() -> None:
    base = {"captured": True, "transport": "stdio"}
    assert provenance_line({**base, "allow_destructive": False, "destructive_withheld": 3}) == (
        "captured over stdio; destructive operations withheld (3)"
    )
    assert provenance_line({**base, "allow_destructive": False, "destructive_withheld": 0}) == (
        "captured over stdio; no destructive operation"
    )
    assert provenance_line({**base, "allow_destructive": True}) == "captured over stdio; destructive operations called"
    notes = [
        {"operation": "delete_note", "probe": "unknown_parameter", "cause": "destructive"},
        {"operation": "delete_note", "probe": "missing_required", "cause": "destructive"},
        {"operation": "get_note", "probe": "optional_defaults", "cause": "not-applicable"},
        {"operation": None, "probe": "introspection", "cause": "destructive"},  # an endpoint, not an operation
    ]  # older bundles carry no count: the operations their notes withheld
    assert provenance_line({**base, "allow_destructive": False}, notes) == (
        "captured over stdio; destructive operations withheld (1)"
    )
    assert provenance_line({**base, "allow_destructive": False}, []) == "captured over stdio; no destructive operation"
    assert provenance_line({**base, "allow_destructive": False}) == (
        "captured over stdio; destructive operations not called"  # no notes, no count: nothing more is known
    )
