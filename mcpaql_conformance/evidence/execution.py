"""How an answer about an execution reads (core §8.4, §8.6-8.8), for capture (which follows an
execution and its challenges from one call to the next) and for the checks that judge them: one
reading of each. Read leniently: a directive is any object holding a boolean ``continue`` at the top
of ``data`` or one level down (``data.autonomy``, ``data.directive``...); names are compared folded
(``execution_id``, ``executionId``)."""

from __future__ import annotations

import re
from typing import Any

JsonObject = dict[str, Any]

CORE_STATES = ("pending", "running", "completed", "failed", "cancelled")
TERMINAL = frozenset({"completed", "failed", "cancelled"})
# core §8.6.1's values of capabilities.execution_safety_loop
LOOP_MODES = ("enforcing", "monitoring", "logging", "disabled")
# The operations core §8.5.4 reserves for the safety loop (with their endpoints).
LOOP_OPERATIONS = {
    "execute_agent": "EXECUTE",
    "record_execution_step": "CREATE",
    "complete_execution": "EXECUTE",
    "abort_execution": "EXECUTE",
    "confirm_operation": "EXECUTE",
    "verify_challenge": "CREATE",
}
# The loop's operations a valid call of which needs a state the drive sets up (a running execution, a
# paused action, an open challenge) or can never have (an agent confirming or verifying for itself).
STATEFUL_LOOP_OPERATIONS = frozenset(LOOP_OPERATIONS) - {"execute_agent"}
# Parameters core §8.6.3 itself names in camelCase (our reading of core §4.3's snake_case rule: the
# spec's own names stand where it gives them).
SPEC_CAMEL_PARAMETERS = {"record_execution_step": frozenset({"nextActionHint", "stepDescription"})}
# core §8.7.4's configurable elements, folded
STEP_LIMIT_KEYS = frozenset({"maxautonomoussteps"})
POLICY_KEYS = frozenset({"risktolerance", "deny", "requiresapproval", "autoapprove"})
_FOLD = re.compile(r"[^a-z0-9]")


def fold(name: object) -> str:
    """A name without case or separators: ``execution_id`` and ``executionId`` alike."""
    return _FOLD.sub("", str(name).casefold())


def data_of(response: Any) -> JsonObject | None:
    """The ``data`` object of a successful answer, else None."""
    if not isinstance(response, dict) or response.get("success") is not True:
        return None
    data = response.get("data")
    return data if isinstance(data, dict) else None


def directive_of(response: Any) -> JsonObject | None:
    """The AutonomyDirective a successful answer carries (core §8.7.1), else None."""
    data = data_of(response)
    if data is None:
        return None
    if isinstance(data.get("continue"), bool):
        return data
    for value in list(data.values())[:50]:
        if isinstance(value, dict) and isinstance(value.get("continue"), bool):
            return value
    return None


def field_of(data: Any, *names: str) -> Any:
    """The value of the first key of ``data`` (or of an object one level down) whose folded name is one
    of ``names`` (folded), else None."""
    if not isinstance(data, dict):
        return None
    wanted = {fold(name) for name in names}
    found = next((value for key, value in list(data.items())[:200] if fold(key) in wanted), None)
    if found is not None:
        return found
    for value in list(data.values())[:50]:
        if isinstance(value, dict):
            found = next((inner for key, inner in list(value.items())[:200] if fold(key) in wanted), None)
            if found is not None:
                return found
    return None


def execution_id_of(response: Any) -> str | None:
    """The execution identifier a successful answer gives (``execution_id``), else None."""
    found = field_of(data_of(response), "execution_id")
    return found if isinstance(found, str) and found else None


def status_of(response: Any) -> str | None:
    """The execution status a successful answer gives (``status``), else None."""
    data = data_of(response)
    found = data.get("status") if data is not None else None
    found = found if found is not None else field_of(data, "status")
    return found if isinstance(found, str) and found else None


def notifications_of(directive: JsonObject | None) -> list[JsonObject]:
    """The AgentNotifications of a directive (core §8.7.3)."""
    found = directive.get("notifications") if directive is not None else None
    return [item for item in found[:100] if isinstance(item, dict)] if isinstance(found, list) else []


def verification_id(notification: JsonObject) -> str | None:
    """A notification's ``metadata.verificationId`` (core §8.7.3), else None."""
    metadata = notification.get("metadata")
    found = field_of(metadata, "verificationId") if isinstance(metadata, dict) else None
    return found if isinstance(found, str) and found else None


def challenge_of(directive: JsonObject | None) -> str | None:
    """The challenge a directive opens: the verificationId of its autonomy_pause or danger_zone
    notification, else None."""
    for item in notifications_of(directive):
        if item.get("type") in ("autonomy_pause", "danger_zone") and (found := verification_id(item)):
            return found
    return None


def loop_capability(capabilities: Any) -> tuple[str | None, Any]:
    """(the key, its value) under which capabilities declare the safety loop: the spec's
    ``execution_safety_loop``, else any key naming a safety loop; (None, None) when none does."""
    if not isinstance(capabilities, dict):
        return None, None
    if "execution_safety_loop" in capabilities:  # json: a key of the object
        return "execution_safety_loop", capabilities["execution_safety_loop"]
    for key, value in list(capabilities.items())[:200]:
        if "safety" in fold(key):
            return str(key), value
    return None, None


def documented_keys(value: Any, depth: int = 0) -> dict[str, Any]:
    """Every key of a documented object (to a depth of 6, at most 2000 keys), folded, with the first
    value given for it."""
    found: dict[str, Any] = {}
    stack: list[tuple[Any, int]] = [(value, depth)]
    while stack and len(found) < 2000:
        node, level = stack.pop()
        if isinstance(node, dict) and level < 6:
            for key, inner in list(node.items())[:200]:
                found.setdefault(fold(key), inner)
                stack.append((inner, level + 1))
        elif isinstance(node, list) and level < 6:
            stack.extend((inner, level + 1) for inner in node[:200])
    return found


def loop_documentation(protocol: Any, declarations: list[Any]) -> dict[str, Any]:
    """Every key the ``_protocol`` and the loop operations' declarations document, folded (the first
    value given for each): where a server says its step limit, patterns and challenge timeout."""
    found = documented_keys(protocol)
    for declared in declarations:
        found |= {k: v for k, v in documented_keys(declared).items() if k not in found}
    return found


def documented_step_limit(documented: dict[str, Any]) -> int | None:
    """The step limit (maxAutonomousSteps) a server documents, where it is a whole number of steps."""
    limit = next((v for k, v in documented.items() if k in STEP_LIMIT_KEYS), None)  # json: folded keys
    return limit if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 0 else None


def session_id(protocol: dict[str, Any]) -> str | None:
    """The session id a ``_protocol`` reports (``session_id``, ``sessionId``; core §2.3.5), else None."""
    value = next((v for k, v in protocol.items() if fold(k) == "sessionid"), None)
    return value if isinstance(value, str) and value else None


def challenge_timeout(documented: dict[str, Any]) -> float | None:
    """The verification challenge timeout, in seconds, a server documents (a key naming a challenge
    or verification timeout or expiry; ``...ms`` in milliseconds), else None."""
    for key, value in documented.items():
        if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
            continue
        if ("timeout" in key or "expir" in key) and ("challenge" in key or "verif" in key):
            return value / 1000 if key.endswith(("ms", "millis", "milliseconds")) else float(value)
    return None
