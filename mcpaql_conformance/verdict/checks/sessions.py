"""Session identifiers in error answers (core §2.3.5, a SHOULD): an adapter that reports the id it gave
the session (``_protocol.session_id``, as the section's implementation note asks) puts a session id in
its error answers, for debugging. Read leniently: an error carries one when it holds that id anywhere,
or any key named for a session id (a second configuration's session has an id of its own)."""

from __future__ import annotations

import re
from typing import Any

import orjson

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.execution import directive_of, documented_keys, session_id, status_of
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.reading import protocol_of
from mcpaql_conformance.files.vocabulary import (
    META_CLAIMED,
    OLD_EXECUTION,
    OLD_STATE,
    RESTARTED_BLOCK,
    SESSION_REPORTED,
)
from mcpaql_conformance.verdict.checks.base import Call, calls_of, cite

SESSION_ID = "core:2.3.5:session-id-reported"


def reported_session(ctx: Context) -> str | None:
    """The session id introspection's ``_protocol`` reports (``session_id``, ``sessionId``), else None."""
    return session_id(protocol_of(ctx.bundle.operations_list))


def session_findings(ctx: Context) -> list[str]:
    """Error answers without a session id, where the server reports one."""
    session = reported_session(ctx)
    if session is None:
        return []
    errors = [r for r in ctx.bundle.responses if isinstance(r, dict) and classify(r).refused and "error" in r]
    silent = [r for r in errors if not _carries(r, session)]
    if not silent:
        return []
    return [cite(SESSION_ID, f"{len(silent)} of {len(errors)} error answer(s) carry no session id, though "
                 "introspection reports one (_protocol.session_id)")]  # fmt: skip


def session_evidence(ctx: Context) -> list[str]:
    """SESSION_REPORTED where the server reports a session id and some answer is an error."""
    if reported_session(ctx) is None:
        return []
    refused = any(isinstance(r, dict) and classify(r).refused and "error" in r for r in ctx.bundle.responses)
    return [SESSION_REPORTED] if refused else []


def _carries(response: dict[str, Any], session: str) -> bool:
    if "sessionid" in documented_keys(response):  # json: folded key names
        return True
    return session in orjson.dumps(response, option=orjson.OPT_NON_STR_KEYS).decode("utf-8", "replace")


# What the second connection finds of the first session (capture/safety.py: probe_new_session).
SESSION_RULES: tuple[str, ...] = (
    "core:2.3.3:session-state-ends", "core:2.3.3:invalidate-on-end", "core:2.3.3:executions-end",
    "core:8.8.3:block-persists", "core:2.3.5:meta-not-identity",
)  # fmt: skip
_STATUS = re.compile(r"\b(pending|running|completed|failed|cancelled|canceled)\b", re.IGNORECASE)


def ended_session_findings(ctx: Context) -> list[str]:
    """The first session's execution taken up again, or its hard block gone after a restart."""
    findings: list[str] = []
    calls = calls_of(ctx, "execution_tests")
    refused = any(c.case.get("call") == "old_execution" and not _took_step(c) for c in calls)
    for call in calls:
        kind = call.case.get("call")
        if kind == "restart_blocked" and call.case.get("restarted") is True and call.answer.succeeded:
            findings.append(cite("core:8.8.3:block-persists", f"after a restart the hard-blocked agent started an "
                                 f"execution ({call.name}): the block did not persist"))  # fmt: skip
        elif kind == "old_execution":
            findings += _old_execution(call)
        elif kind == "old_execution_claimed" and refused and _took_step(call):
            findings.append(cite("core:2.3.5:meta-not-identity", "a step of the closed session's execution, refused "
                                 "as it was, went through once its _meta claimed that session's id: a client's "
                                 "label decided access"))  # fmt: skip
    return findings


def ended_session_evidence(ctx: Context) -> list[str]:
    """OLD_EXECUTION, OLD_STATE and RESTARTED_BLOCK, for what the second connection sent and was told."""
    held: list[str] = []
    for call in calls_of(ctx, "execution_tests"):
        if call.case.get("call") == "restart_blocked" and call.case.get("restarted") is True:
            held.append(RESTARTED_BLOCK)
        elif call.case.get("call") == "old_execution":
            held += [OLD_EXECUTION, *([OLD_STATE] if _state_said(call) else [])]
        elif call.case.get("call") == "old_execution_claimed":
            held.append(META_CLAIMED)
    return list(dict.fromkeys(held))


def _took_step(call: Call) -> bool:
    """The step was taken: a success whose execution runs on, or whose directive lets it go ahead."""
    directive = directive_of(call.response)
    return call.answer.succeeded and (
        status_of(call.response) == "running" or (directive or {}).get("continue") is True
    )


def _old_execution(call: Call) -> list[str]:
    if _took_step(call):
        return [cite("core:2.3.3:session-state-ends", f"the execution a closed session left running took a step "
                     f"on a new connection ({call.name})")]  # fmt: skip
    said = _state_said(call)
    if said == "running":
        return [cite("core:2.3.3:executions-end", "the execution a closed session left running is still running "
                     f"on a new connection ({call.answer.describe()})")]  # fmt: skip
    return []


def _state_said(call: Call) -> str | None:
    """The state the answer gives the old execution: its status, else a state word its refusal says."""
    status = status_of(call.response)
    if status is not None:
        return status.casefold()
    if not call.answer.refused:
        return None
    found = _STATUS.search(f"{call.answer.message[:500]} {orjson.dumps(call.answer.details).decode()[:500]}")
    return found.group(1).casefold() if found else None
