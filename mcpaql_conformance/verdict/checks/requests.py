"""How the server reads a request itself (``request_tests``, capture's calls of introspect, and
``pagination_tests``, a list given contradictory page parameters): a
request without `operation`, with an empty or upper-case name is refused (operations §2.2, §2.4),
the params value wins over a top-level one (§2.3), a refusal of two unknown parameters names both
(error-codes §4.5), a string holding U+0000 is refused and one holding bytes that are not UTF-8 is
refused with VALIDATION_INVALID_ENCODING (core §4.7.1), and a value nested deeper than
any nesting limit is refused with VALIDATION_PAYLOAD_TOO_LARGE naming the limit (core §4.7.5). Each function gives the
findings of the test that owns them; a case the bundle does not record is not judged."""

from __future__ import annotations

from mcpaql_conformance.evidence.answers import Answer, Kind, classify
from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.reading import data_of
from mcpaql_conformance.files import vocabulary
from mcpaql_conformance.files.values import json_equal
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite
from mcpaql_conformance.verdict.textmatch import mentions_identifier

# A request the server must refuse: the rule, and the request in words.
_REFUSED = {
    vocabulary.NO_OPERATION: ("operations:2.2:operation-field", "a request without `operation`"),
    vocabulary.EMPTY_OPERATION: ("operations:2.2:operation-defined", "a request whose operation is empty"),
    vocabulary.OPERATION_CASE: ("operations:2.4:case-sensitive", "INTROSPECT (introspect in upper case)"),
}


def _case(ctx: Context, name: str) -> JsonObject | None:
    return next((case for case in ctx.bundle.cases("request_tests") if json_equal(case.get("name"), name)), None)


def _code(answer: Answer) -> str:
    """The code a refusal gave, as a finding quotes it."""
    return plain(str(answer.code), max_len=60) if answer.code else "no code"


def _where(case: JsonObject) -> str:
    tool = case.get("tool")
    return f" via {tool}" if isinstance(tool, str) else ""


def request_shape_findings(ctx: Context) -> list[str]:
    """Requests naming no operation, an empty one or a known one in another case, answered with
    success (the operation-details test's, beside the unknown operation)."""
    findings: list[str] = []
    for name, (rule, said) in _REFUSED.items():
        case = _case(ctx, name)
        if case is not None and classify(case.get("response")).succeeded:
            findings.append(cite(rule, f"{said}{_where(case)} was answered with success, not refused"))
    return findings


def precedence_findings(ctx: Context) -> list[str]:
    """`query: types` at the top level beside `params.query: operations`: the answer lists
    operations (params win, operations §2.3 and core §4.2); a refusal shows a server that takes no
    top-level parameters, which it may (a MAY): nothing to judge then."""
    case = _case(ctx, vocabulary.PARAMS_PRECEDENCE)
    if case is None or not classify(case.get("response")).succeeded:
        return []
    data, _ = data_of(case.get("response"))
    if isinstance(data, dict) and "types" in data and "operations" not in data:
        text = f"introspect{_where(case)} with query types at the top level and operations in params listed types"
        return [cite("operations:2.3:resolution-order", f"{text}: the top-level value won over params")]
    return []


def several_unknown_findings(ctx: Context) -> list[str]:
    """A refusal of two unknown parameters names both, or the first with a count of the rest."""
    case = _case(ctx, vocabulary.TWO_UNKNOWN_PARAMETERS)
    answer = classify(case.get("response")) if case is not None else None
    if case is None or answer is None or not answer.refused or answer.unrelated:
        return []
    arguments = case.get("arguments")
    params = arguments.get("params") if isinstance(arguments, dict) else None
    unknown = [key for key in params if key.startswith("zz_")] if isinstance(params, dict) else []
    said = f"{answer.message} {answer.details}"
    named = [name for name in unknown if mentions_identifier(said, name)]
    if len(unknown) < 2 or len(named) == len(unknown) or (named and any(char.isdigit() for char in answer.message)):
        return []
    text = f"introspect{_where(case)} with the unknown parameters {', '.join(unknown)}: the refusal names "
    text += f"only {', '.join(named)}, with no count of the rest" if named else "neither"
    return [cite("error-codes:4.5:several-unknown-parameters", text)]


def filter_findings(ctx: Context) -> list[str]:
    """A READ operation given a filter key it does not support refuses it with a validation error
    (features/collection-querying §2.2, a SHOULD); a refusal for another reason says nothing of it."""
    findings: list[str] = []
    for case in ctx.bundle.cases("filter_tests"):
        answer = classify(case.get("response"))
        said = f"{case.get('operation')} with a filter key it does not support"
        if answer.succeeded:
            findings.append(cite(UNKNOWN_FILTER_KEY, plain(f"{said} answered with success, ignoring it", max_len=300)))
        elif answer.refused and not answer.validation and not answer.unrelated:
            text = f"{said} was refused with {_code(answer)}, not a validation error"
            findings.append(cite(UNKNOWN_FILTER_KEY, plain(text, max_len=300)))
    return findings


UNKNOWN_FILTER_KEY = "features/collection-querying:2.2:unknown-filter-key"


def null_byte_findings(ctx: Context) -> list[str]:
    """A string holding U+0000 (introspect's `name`, documented as no binary data) is refused."""
    case = _case(ctx, vocabulary.NULL_BYTE)
    if case is None or not classify(case.get("response")).succeeded:
        return []
    text = f"introspect{_where(case)} with a name holding U+0000 was answered with success, not refused"
    return [cite("core:4.7.1:null-bytes", text)]


INVALID_ENCODING = "VALIDATION_INVALID_ENCODING"
INVALID_UTF8 = "core:4.7.1:invalid-utf-8"
# JSON-RPC's refusals of a message that is no JSON text or no request (core rule's reading):
# parse error, invalid request, invalid params.
_NOT_JSON_TEXT = (-32700, -32600, -32602)


def _not_json_text(answer: Answer) -> bool:
    return answer.kind is Kind.JSONRPC_ERROR and answer.rpc_code in _NOT_JSON_TEXT  # json: integer codes


def encoding_owned(case: JsonObject | None, answer: Answer) -> bool:
    """Whether ``answer``, to capture's request of invalid UTF-8, is that rule's alone to judge: the
    MCP layer's refusal of it as no JSON text (the refusal core §4.7.1 asks for, by the rule's
    reading; no domain error put as a JSON-RPC error) or no answer (a server that ended the
    session on it: that rule's finding)."""
    named = case is not None and json_equal(case.get("name"), vocabulary.INVALID_UTF8)
    return named and (_not_json_text(answer) or answer.kind is Kind.NO_ANSWER)


def invalid_utf8_findings(ctx: Context) -> list[str]:
    """A string holding bytes that are not UTF-8 (capture's last call) is refused with
    VALIDATION_INVALID_ENCODING, or by the MCP layer as no JSON text (the rule's reading)."""
    case = _case(ctx, vocabulary.INVALID_UTF8)
    if case is None:
        return []
    answer = classify(case.get("response"))
    sent = case.get("invalid_utf8")
    shown = plain(str(sent.get("bytes")), max_len=40) if isinstance(sent, dict) else "not UTF-8"
    said = f"introspect{_where(case)} with a name holding bytes that are not UTF-8 ({shown})"
    if answer.succeeded:
        return [cite(INVALID_UTF8, f"{said} was answered with success: the invalid bytes were taken, not refused")]
    if answer.kind is Kind.NO_ANSWER:
        reason = case["response"].get("_timeout") if isinstance(case.get("response"), dict) else None
        why = f": {plain(str(reason), max_len=200)}" if reason else ""
        return [cite(INVALID_UTF8, f"{said} got no answer{why}")]
    if _not_json_text(answer):
        return []
    if answer.kind is Kind.JSONRPC_ERROR:
        code = f"JSON-RPC error {answer.rpc_code}" if answer.rpc_code is not None else "a JSON-RPC error"
        return [cite(INVALID_UTF8, f"{said} was answered with {code} ({plain(answer.message, max_len=120)!r}), "
                     f"not refused as invalid encoding")]  # fmt: skip
    if answer.code != INVALID_ENCODING:
        what = f"refused with {_code(answer)}" if answer.refused else "answered with no MCP-AQL result"
        return [cite(INVALID_UTF8, f"{said} was {what}, not {INVALID_ENCODING}")]
    return []


TOO_LARGE = "VALIDATION_PAYLOAD_TOO_LARGE"
ENFORCED = "core:4.7.5:enforce-limits"
TOO_LARGE_ERROR = "core:4.7.5:too-large-error"
_LIMIT_WORDS = ("depth", "nest", "level")  # what details naming the nesting limit say


def limit_findings(ctx: Context) -> list[str]:
    """A value nested deeper than any nesting limit a server may configure (core §4.7.5: at most
    64 levels) is refused with VALIDATION_PAYLOAD_TOO_LARGE, its details saying which limit."""
    case = _case(ctx, vocabulary.DEEP_NESTING)
    if case is None:
        return []
    answer = classify(case.get("response"))
    said = f"introspect{_where(case)} with a value nested 70 levels deep"
    if answer.succeeded:
        return [cite(ENFORCED, f"{said} was answered with success: no nesting limit was enforced")]
    if not answer.refused:
        return []  # no answer to read: the union and no-answer findings say so
    if answer.code != TOO_LARGE:
        return [cite(TOO_LARGE_ERROR, f"{said} was refused with {_code(answer)}, not {TOO_LARGE}")]
    details = answer.details if isinstance(answer.details, dict) else {}
    told = " ".join([answer.message, *(f"{key} {value}" for key, value in details.items())]).casefold()
    if not any(word in told for word in _LIMIT_WORDS):  # read generously: its message may say it
        shown = ", ".join(plain(str(key), max_len=40) for key in details) or "none"
        return [cite(TOO_LARGE_ERROR, f"{said} was refused with {TOO_LARGE}, neither its message nor its "
                     f"details ({shown}) saying which limit was exceeded")]  # fmt: skip
    return []
