"""What a server answered, read once: the one place that says whether an answer refused.

Every recorded response goes through ``classify``: capture uses it to decide what
a probe showed, and every check uses it to judge and describe what the server
sent, in the server's own terms. Answers that are not MCP-AQL results are kept by
capture in documented wrappers (see the bundle schema's ``Response``):

- ``{"_mcp_error": {"code", "message", "data"?}}``: a JSON-RPC error instead of a tool result;
- ``{"_raw_text": "...", "_is_error": bool}``: a tool result whose text is not a JSON object
  (``_is_error`` is the MCP ``isError`` flag);
- ``{"_timeout": "..."}``: no answer: none within the time limit, or the session ended first.

The wrappers never appear in a detail: ``describe`` says what the server did.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from enum import StrEnum
from typing import Any, NamedTuple

from mcpaql_conformance.files.values import json_type, show
from mcpaql_conformance.regex import lazy

_MAX_DEPTH = 16
# A code at the start of a plain-text error: "VALIDATION_UNKNOWN_PARAM: unknown parameter: query".
_LEADING_CODE = lazy(r"\s*\[?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\]?\s*(?::|-|—)\s*")
# Plain text that reads as a refusal: its first word says so ("Error: ...", "Missing ...").
_REFUSAL_WORDS = frozenset(
    {
        "error",
        "errors",
        "invalid",
        "unknown",
        "missing",
        "failed",
        "failure",
        "cannot",
        "unable",
        "denied",
        "forbidden",
        "unauthorized",
        "rejected",
        "refused",
        "required",
        "unsupported",
        "exception",
    }
)
_FIRST_WORD = lazy(r"\W*([A-Za-z]+)")


class Kind(StrEnum):
    """The form of an answer."""

    SUCCESS = "success"  # {success: true, data}
    PROSE = "prose"  # {success: true, data: "a sentence"}
    ERROR = "error"  # {success: false, error: {code, message}}
    STRING_ERROR = "string-error"  # {success: false, error: "a sentence"}
    MALFORMED_ERROR = "malformed-error"  # a failure whose error is neither an object with code and message nor text
    MCP_ERROR = "mcp-error"  # an MCP tool result flagged isError, in plain text
    JSONRPC_ERROR = "jsonrpc-error"  # a JSON-RPC error instead of a tool result
    TEXT = "text"  # a plain-text tool result not flagged as an error
    OTHER = "other"  # a JSON object that is no MCP-AQL result
    NO_ANSWER = "no-answer"  # nothing within the time limit


# Refusals for something else than the request's parameters: a record that does not exist, no
# permission, a fault of the server or of what stands behind it.
_UNRELATED_CODES = ("NOT_FOUND", "PERMISSION", "AUTH", "FORBIDDEN", "RATE_LIMIT", "QUOTA", "CONFLICT", "INTERNAL",
                    "UNAVAILABLE", "TIMEOUT", "UPSTREAM", "BACKEND", "CONFIRMATION")  # fmt: skip
_UNRELATED_TEXT = lazy(
    r"not found|does ?n[o']t exist|no such|permission|denied|unauthori[sz]ed|forbidden|rate.?limit|fetch failed"
    r"|unavailable|internal (?:server )?error|timed? ?out|try again",
    re.IGNORECASE,
)
JSONRPC_INTERNAL = -32603
CONFIRMATION_REQUIRED = "CONFIRMATION_REQUIRED"  # a call held until confirmed (operations §7.5, error-codes §5.4)

REFUSALS = frozenset({Kind.ERROR, Kind.STRING_ERROR, Kind.MALFORMED_ERROR, Kind.MCP_ERROR, Kind.JSONRPC_ERROR})
JSONRPC_INVALID_PARAMS = -32602


class Answer(NamedTuple):
    """One answer, classified. ``message`` is the error text (or the prose) the server sent.
    (A named tuple: checks classify hundreds of thousands of answers.)"""

    kind: Kind
    message: str = ""
    code: str | None = None  # the MCP-AQL error code, also read from the start of a plain-text error
    rpc_code: int | None = None  # the JSON-RPC error code
    details: Any = None
    warnings: tuple[Any, ...] = ()
    flagless: bool = False  # an error sent without a boolean success flag
    keys: tuple[str, ...] = ()  # top-level keys of an unrecognised JSON object

    @property
    def refused(self) -> bool:
        """Whether the server refused, in any form (plain text that reads as an error included)."""
        if self.kind in REFUSALS:
            return True
        return self.kind is Kind.TEXT and reads_as_refusal(self.message)

    @property
    def succeeded(self) -> bool:
        return self.kind in (Kind.SUCCESS, Kind.PROSE)

    @property
    def structured(self) -> bool:
        """A well-formed MCP-AQL result (either side of the union)."""
        return self.kind in (Kind.SUCCESS, Kind.PROSE, Kind.ERROR) and not self.flagless

    @property
    def unrelated(self) -> bool:
        """A refusal for something else than the request's parameters (a record not found, no
        permission, a server or upstream fault): it shows nothing about parameter handling."""
        if not self.refused or self.validation:
            return False
        if self.rpc_code is not None and (self.rpc_code == JSONRPC_INTERNAL or -32099 <= self.rpc_code <= -32000):
            return True
        if self.code:
            return self.code.upper().startswith(_UNRELATED_CODES)
        return _UNRELATED_TEXT.search(self.message[:500]) is not None

    @property
    def validation(self) -> bool:
        """A refusal for invalid parameters (VALIDATION_* code, or JSON-RPC invalid params)."""
        return (self.code or "").startswith("VALIDATION_") or self.rpc_code == JSONRPC_INVALID_PARAMS

    def describe(self) -> str:
        """What the server did, in its own terms (never our capture wrappers)."""
        quoted = show(self.message)
        flag = " with no success flag" if self.flagless else ""
        if self.kind is Kind.ERROR:
            return f"{self.code}: {_clip(self.message)}" + (f" (sent{flag})" if self.flagless else "")
        if self.kind is Kind.STRING_ERROR:
            return f"error is a string, not an object{flag}: {quoted}"
        if self.kind is Kind.MALFORMED_ERROR:
            if self.details is None:
                said = f" (message: {quoted})" if self.message else ""
                return f"failed{flag} without an error object{said}"
            return f"failed{flag} with an error {_malformed(self.details)}"
        if self.kind is Kind.MCP_ERROR:
            if _says_success(self.message):
                return f"answered `success: true` in an MCP result flagged isError: true (a contradiction): {quoted}"
            return f"answered with an MCP error result (isError){_json_said(self.message)}: {quoted}"
        if self.kind is Kind.JSONRPC_ERROR:
            return f"answered with JSON-RPC error {self.rpc_code} {quoted}"
        if self.kind is Kind.TEXT:
            shape = _json_said(self.message)
            return f"answered {shape.removeprefix(' carrying ') or 'with plain text'}, not an MCP-AQL result: {quoted}"
        if self.kind in (Kind.SUCCESS, Kind.PROSE) and self.flagless:
            return f"answered a JSON object without a success flag (keys: {', '.join(self.keys) or 'none'})"
        if self.kind is Kind.PROSE:
            return f"succeeded with prose instead of data: {quoted}"
        if self.kind is Kind.OTHER:
            return f"answered a JSON object without a success flag (keys: {', '.join(self.keys) or 'none'})"
        if self.kind is Kind.NO_ANSWER:
            return "did not answer within the time limit"
        return "succeeded"


MAX_JSON_SNIFF = 1_000_000  # characters of a text answer read as JSON to say what it is


def _json_said(text: str) -> str:
    """`` carrying a JSON array`` (or object, ...) when a text answer is JSON, else ""."""
    start = text.lstrip()[:1]
    if start not in ("[", "{") or len(text) > MAX_JSON_SNIFF:
        return ""
    import orjson

    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        deep = "depth" in str(exc).lower() or "recursion" in str(exc).lower()
        return " carrying JSON nested too deeply to read" if deep else ""
    return f" carrying a JSON {json_type(value)}"


def _says_success(text: str) -> bool:
    """Whether a text answer is a JSON object whose ``success`` is true."""
    if not text.lstrip().startswith("{") or len(text) > MAX_JSON_SNIFF:
        return False
    import orjson

    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return isinstance(value, dict) and value.get("success") is True


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def _malformed(error: Any) -> str:
    """What is wrong with an error that is not {code: string, message: string}."""
    if not isinstance(error, dict):
        return f"that is not an object: {show(error)}"
    code, message = error.get("code"), error.get("message")
    problems = []
    if not isinstance(code, str):
        problems.append(f"whose code is not a string ({show(code)})" if "code" in error else "without a code")
    if not isinstance(message, str):
        problems.append(f"whose message is not text ({show(message)})" if "message" in error else "without a message")
    return " and ".join(problems)


def reads_as_refusal(text: str) -> bool:
    """Plain text whose first word says it refused ("Error: ...", "Missing parameter ...")."""
    match = _FIRST_WORD.match(text[:200])
    return match is not None and match.group(1).lower() in _REFUSAL_WORDS


def classify(response: Any) -> Answer:
    """Classify a recorded response (an MCP-AQL result, a capture wrapper, or anything else)."""
    if not isinstance(response, dict):
        return Answer(Kind.OTHER, keys=())
    if "_mcp_error" in response:
        return _jsonrpc(response["_mcp_error"])
    if "_raw_text" in response:
        text = response["_raw_text"] if isinstance(response["_raw_text"], str) else ""
        if response.get("_is_error") is True:
            return Answer(Kind.MCP_ERROR, text, code=_leading_code(text))
        return Answer(Kind.TEXT, text, code=_leading_code(text) if reads_as_refusal(text) else None)
    if "_timeout" in response:
        return Answer(Kind.NO_ANSWER)
    flag = response.get("success")
    flagless = not isinstance(flag, bool)
    if flagless:
        flag = response.get("ok") if isinstance(response.get("ok"), bool) else None
    if flag is True:
        answer = _success(response)
        if flagless:
            return Answer(answer.kind, answer.message, warnings=answer.warnings, flagless=True, keys=_keys(response))
        return answer
    if flag is False or response.get("error"):
        return _failure(response, flagless)
    return Answer(Kind.OTHER, keys=_keys(response))


def _keys(response: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(key) for key in response)[:12]


def _success(response: dict[str, Any]) -> Answer:
    warnings = response.get("warnings")
    listed = tuple(warnings) if isinstance(warnings, list) else ()
    data = response.get("data")
    if isinstance(data, str):
        return Answer(Kind.PROSE, data, warnings=listed)
    return Answer(Kind.SUCCESS, warnings=listed)


def _failure(response: dict[str, Any], flagless: bool) -> Answer:
    error = response.get("error")
    if isinstance(error, dict):
        code, message = error.get("code"), error.get("message")
        if isinstance(code, str) and isinstance(message, str):
            return Answer(Kind.ERROR, message, code=code, details=error.get("details"), flagless=flagless)
        text = message if isinstance(message, str) else ""
        code = code if isinstance(code, str) else _leading_code(text)
        return Answer(Kind.MALFORMED_ERROR, text, code=code, details=error, flagless=flagless)
    if isinstance(error, str):
        return Answer(Kind.STRING_ERROR, error, code=_leading_code(error), flagless=flagless)
    # No error object: a message beside the flag is still what the server said.
    said = response.get("message")
    message = said if isinstance(said, str) else ""
    return Answer(Kind.MALFORMED_ERROR, message, code=_leading_code(message), details=error, flagless=flagless)


def _jsonrpc(error: Any) -> Answer:
    error = error if isinstance(error, dict) else {}
    code = error.get("code")
    message = error.get("message") if isinstance(error.get("message"), str) else ""
    rpc_code = code if isinstance(code, int) and not isinstance(code, bool) else None
    return Answer(
        Kind.JSONRPC_ERROR, message, code=_leading_code(message), rpc_code=rpc_code, details=error.get("data")
    )


def _leading_code(text: str) -> str | None:
    match = _LEADING_CODE.match(text[:200])
    return match.group(1) if match else None


class Text(NamedTuple):
    """One text a server sent: its JSON sub-path, the text, and whether it is part of an error
    answer (a failure, a refusal in text or JSON-RPC, a failed item of a batch)."""

    path: str
    text: str
    error: bool


def texts(response: Any) -> Iterator[Text]:
    """Every text the server sent a client in this answer, with its JSON sub-path: in an error
    answer every part of it (the error object, any key the server added beside it, metadata
    included); in a success each warning, every other key the server added (a ``debug`` beside
    the data) and prose data, but not the payload (the client's content) nor metadata (keys
    that start with an underscore); batch results and a halted batch's gated item, each as the
    answer it is."""
    yield from _texts(response, "", 0)


# Keys whose strings are not the server's words: the payload, and what a batch echoes of the
# caller's own request (``pending_operations``); results are read as results.
_NOT_TEXT = frozenset({"success", "data", "results", "halted_at", "pending_operations"})


def _texts(response: Any, path: str, depth: int) -> Iterator[Text]:
    if depth > _MAX_DEPTH or not isinstance(response, dict):
        return
    if "_mcp_error" in response:
        error = response["_mcp_error"]
        if isinstance(error, dict):
            yield from _strings(error.get("message"), f"{path}._mcp_error.message", True)
            yield from _strings(error.get("data"), f"{path}._mcp_error.data", True)
        return
    if "_raw_text" in response:
        yield from _strings(response["_raw_text"], f"{path}._raw_text", classify(response).refused)
        return
    failed = classify(response).refused
    if response.get("success") is True and isinstance(response.get("data"), str):
        yield Text(f"{path}.data", response["data"], False)
    for key, value in response.items():
        if isinstance(key, str) and key not in _NOT_TEXT and (failed or not key.startswith("_")):
            yield from _strings(value, _member(path, key), failed)
    for index, item in enumerate(_list(response.get("results"))):
        if isinstance(item, dict):
            yield from _texts(item.get("result"), f"{path}.results[{index}].result", depth + 1)
    halted = response.get("halted_at")
    if isinstance(halted, dict):
        yield from _texts(halted.get("result"), f"{path}.halted_at.result", depth + 1)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _strings(value: Any, path: str, error: bool) -> Iterator[Text]:
    """Every string under ``value`` with its path, however deep (an explicit stack, no recursion)."""
    stack: list[tuple[Any, str]] = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            yield Text(where, item, error)
        elif isinstance(item, dict):
            stack.extend((child, _member(where, key)) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{index}]") for index, child in reversed(list(enumerate(item))))


_PLAIN_KEY = lazy(r"[A-Za-z_][A-Za-z0-9_]*")


def _member(path: str, key: Any) -> str:
    """``path.key``, or ``path["a key"]`` for a key that is no identifier."""
    text = str(key)
    if _PLAIN_KEY.fullmatch(text):
        return f"{path}.{text}"
    import orjson

    return f"{path}[{orjson.dumps(text[:80]).decode()}]"
