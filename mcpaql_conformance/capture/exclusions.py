"""Parameters that must not go together in one call (issue 29): the probe that sends "every
documented parameter" leaves out what a valid request would. A refusal of a combination we made
up is evidence about neither parameter.

- Cursors: a cursor is the server's to give (features/pagination §2: opaque, from ``pageInfo``).
  A cursor parameter (``after``, ``before``, ``cursor``, ``page_token``..., or one whose
  description calls it a cursor or a token of a page) is sent only with a value the server
  answered or the plan gave, never a made-up one.
- Confirmations: an optional confirmation token (``confirmation_token``, ``confirmationId``..., or
  one whose description ties it to CONFIRMATION_REQUIRED) is the operator's to give (operations
  §7.5): left out, so that no call of ours even looks like confirming (an operation that requires
  one, such as the safety loop's confirm_operation, is refused for its state all the same).
- Directions: forward and backward pagination (``first``/``after`` with ``last``/``before``)
  are exclusive (features/pagination §2.3): the backward ones are left out.
- What a description says: "cannot be used with X", "mutually exclusive with X", "not together
  with X", "use either X or Y": of each pair, the parameter documented later is left out.

Reading is linear and bounded: each description is read up to MAX_TEXT characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from mcpaql_conformance.regex import lazy

JsonObject = dict[str, Any]
MAX_TEXT = 2000
CURSOR_NAMES = frozenset(
    {"after", "before", "cursor", "next_cursor", "page_cursor", "page_token", "pagetoken", "next_token",
     "nexttoken", "continuation_token", "continuationtoken", "starting_after", "ending_before", "pagination_token"}
)  # fmt: skip
FORWARD, BACKWARD = frozenset({"first", "after"}), frozenset({"last", "before"})
_CURSOR_TEXT = lazy(r"\bcursor\b|\b(?:page|continuation|pagination)[ _-]?token\b|\bendCursor\b", re.IGNORECASE)
_NAME = r"[`'\"]?([A-Za-z_][\w.]{0,63})[`'\"]?"
_EXCLUDES = (
    lazy(rf"(?:cannot|can't|can not|may not|must not|should not) be (?:used|combined|given|specified|sent|passed)"
               rf"(?: together)? (?:with|alongside) {_NAME}", re.IGNORECASE),
    lazy(rf"mutually exclusive with {_NAME}", re.IGNORECASE),
    lazy(rf"(?:not|never) (?:together|combined) with {_NAME}", re.IGNORECASE),
    lazy(rf"\beither {_NAME} or {_NAME}", re.IGNORECASE),
    lazy(rf"\bexclusive (?:of|with) {_NAME}", re.IGNORECASE),
)  # fmt: skip


def is_cursor(parameter: JsonObject) -> bool:
    """Whether a parameter takes a cursor (a value only the server can give)."""
    name = parameter.get("name")
    if isinstance(name, str) and name.lower().replace("-", "_") in CURSOR_NAMES:
        return True
    description = parameter.get("description")
    return isinstance(name, str) and isinstance(description, str) and bool(_CURSOR_TEXT.search(description[:MAX_TEXT]))


_CONFIRMATION_NAME = lazy(r"confirm(?:ation)?[_-]?(?:token|id|code|key)", re.IGNORECASE)
_CONFIRMATION_TEXT = lazy(r"\bCONFIRMATION_REQUIRED\b|\bconfirmation[ _-]?token\b", re.IGNORECASE)


def is_confirmation(parameter: JsonObject) -> bool:
    """Whether a parameter takes a confirmation's token (a value only the operator can give)."""
    name, description = parameter.get("name"), parameter.get("description")
    if not isinstance(name, str):
        return False
    described = isinstance(description, str) and _CONFIRMATION_TEXT.search(description[:MAX_TEXT]) is not None
    return _CONFIRMATION_NAME.search(name[:MAX_TEXT]) is not None or described


# Conditional-update parameters: they name a version of the record, which only the server can give.
PRECONDITIONS = frozenset({"if_match", "if_none_match", "ifmatch", "ifnonematch"})


def combinable(
    parameters: list[JsonObject], values: dict[str, Any], from_server: Iterable[str] = ()
) -> tuple[dict[str, Any], dict[str, str]]:
    """(the values that may go together in one call, and for each one left out why).
    ``from_server``: parameters whose value the server answered or the plan gave."""
    given = set(from_server)
    by_name = {p["name"]: p for p in parameters if isinstance(p.get("name"), str)}
    left_out: dict[str, str] = {}
    for name in values:
        parameter = by_name.get(name, {"name": name})
        if is_cursor(parameter) and name not in given:
            left_out[name] = "a cursor is the server's to give (from pageInfo), never made up"
        elif is_confirmation(parameter) and parameter.get("required") is not True and name not in given:
            left_out[name] = "a confirmation token is the operator's to give (operations §7.5), never made up"
        elif name.lower() in PRECONDITIONS and name not in given:
            left_out[name] = "a precondition (an ETag or version, core §9.3.2) is the server's to give, never made up"
    kept = [name for name in values if name not in left_out]
    lowered = {name.lower() for name in kept}
    if lowered & FORWARD and lowered & BACKWARD:
        for name in kept:
            if name.lower() in BACKWARD:
                left_out[name] = "backward pagination does not go with forward pagination (pagination §2.3)"
    order = {name: index for index, name in enumerate(values)}
    for first, second in _described_pairs(by_name.values()):
        if first in values and second in values and first not in left_out and second not in left_out:
            later, other = (second, first) if order[second] > order[first] else (first, second)
            left_out[later] = f"its description or {other}'s says the two do not go together"
    return {name: value for name, value in values.items() if name not in left_out}, left_out


def _described_pairs(parameters: Iterable[JsonObject]) -> list[tuple[str, str]]:
    """Pairs of parameters a description says cannot be sent together."""
    pairs: list[tuple[str, str]] = []
    for parameter in parameters:
        description = parameter.get("description")
        if not isinstance(description, str):
            continue
        for pattern in _EXCLUDES:
            for match in pattern.finditer(description[:MAX_TEXT]):
                names = [group.rstrip(".") for group in match.groups() if group]  # a sentence's full stop
                if len(names) == 2:
                    pairs.append((names[0], names[1]))
                else:
                    pairs.append((str(parameter["name"]), names[0]))
    return pairs
