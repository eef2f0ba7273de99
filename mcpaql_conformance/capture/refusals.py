"""What the refusal of a request built from introspection alone shows against introspection: a
documented parameter called unknown, one asked for that introspection does not require, a kind
of value other than the documented type (introspection §8.1.1-8.1.2); and how an answer refuses a
parameter as unknown."""

from __future__ import annotations

import re
from typing import Any

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.files.schemas import operation_result_schema
from mcpaql_conformance.live.discovery import Operation
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.verdict.blame import MAX_SAID, quoted_value, quotes_whole
from mcpaql_conformance.verdict.textmatch import mentions_identifier


def kept_because(op: Operation, params: JsonObject, single: bool, response: Any) -> str:
    """Why the answer to a request of documented parameters is evidence against introspection
    ("" when it is not): no MCP-AQL result at all, a documented parameter refused as unknown, a
    refusal asking for a parameter though every required one was sent, or one expecting another
    kind of value than the documented type. Any other refusal of a value (a pattern, a range) may
    be of a value of ours, and is not kept."""
    if no_result(response):
        return "its answer is no valid MCP-AQL result"
    if single:  # a probe of one undocumented parameter, not the documented ones
        return ""
    if any("deprecat" in str(w).casefold() for w in _warnings(response)):  # introspection §8.2.4: still listed?
        return "it warns of something deprecated"
    answer = classify(response)
    if answer.code == "VALIDATION_UNKNOWN_PARAM" and any(rejects_as_unknown(response, p, params) for p in params):
        return "it refused a documented parameter as unknown"
    if answer.code == "VALIDATION_MISSING_PARAM":
        return "it asked for a parameter introspection does not require"
    if answer.code == "VALIDATION_INVALID_TYPE" and _contradicts_type(op, answer.details):
        return "it expected another kind of value than the documented type"
    return ""


def _warnings(response: Any) -> list[Any]:
    found = response.get("warnings") if isinstance(response, dict) else None
    return found[:20] if isinstance(found, list) else []


# JSON kinds of value, by the words a type or an error's expected type says them with.
_KINDS = {
    "number": ("integer", "number", "int", "float", "double"),
    "string": ("string", "str", "text"),
    "boolean": ("boolean", "bool"),
    "array": ("array", "list", "[]"),
    "object": ("object", "dict", "map"),
}


def _kinds_in(text: str) -> set[str]:
    words = text.lower()
    return {kind for kind, names in _KINDS.items() if any(name in words for name in names)}


def _contradicts_type(op: Operation, details: Any) -> bool:
    """A refusal whose details name a documented parameter and expect a kind of value its
    documented type does not allow (``expected_type: "string"`` for a documented integer)."""
    if not isinstance(details, dict) or not isinstance(details.get("param_name"), str):
        return False
    documented = op.parameter(details["param_name"]).get("type")
    expected = details.get("expected_type")
    if not isinstance(documented, str) or not isinstance(expected, str):
        return False
    said, allowed = _kinds_in(expected), _kinds_in(documented)
    return bool(said) and bool(allowed) and not said & allowed


def no_result(response: Any) -> bool:
    """An answer that is no valid MCP-AQL result (text, an MCP error flag on a success, a bare
    object), and no validation refusal (which may be about a value of ours)."""
    answer = classify(response)
    return not operation_result_schema().is_valid(response) and not (answer.refused and answer.validation)


def rejects_as_unknown(response: Any, parameter: str, params: JsonObject | None = None) -> bool:
    """The answer refuses ``parameter`` as unknown (a code or text says UNKNOWN and names it),
    not the value we gave it ("Unknown query type: probe" took ``query`` and refused "probe")."""
    answer = classify(response)
    if not answer.refused:
        return False
    said = f"{answer.code or ''} {answer.message} {answer.details}"
    if "UNKNOWN" not in said.upper() or parameter not in said:
        return False
    if _NAMED_UNKNOWN.search(answer.message) and mentions_identifier(answer.message, parameter):
        return True  # "Unknown parameter: tag", whatever else it quotes
    quoted = quoted_value(params.get(parameter)) if params is not None else None
    return quoted is None or not quotes_whole(answer.message[:MAX_SAID], quoted)


_NAMED_UNKNOWN = lazy(r"unknown (?:parameters?|params?|fields?|arguments?|keys?|propert(?:y|ies))", re.IGNORECASE)
