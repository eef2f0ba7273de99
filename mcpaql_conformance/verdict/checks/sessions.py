"""Session identifiers in error answers (core §2.3.5, a SHOULD): an adapter that reports the id it gave
the session (``_protocol.session_id``, as the section's implementation note asks) puts a session id in
its error answers, for debugging. Read leniently: an error carries one when it holds that id anywhere,
or any key named for a session id (a second configuration's session has an id of its own)."""

from __future__ import annotations

from typing import Any

import orjson

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.execution import documented_keys, fold
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.reading import protocol_of
from mcpaql_conformance.files.vocabulary import SESSION_REPORTED
from mcpaql_conformance.verdict.checks.base import cite

SESSION_ID = "core:2.3.5:session-id-reported"


def reported_session(ctx: Context) -> str | None:
    """The session id introspection's ``_protocol`` reports (``session_id``, ``sessionId``), else None."""
    found = protocol_of(ctx.bundle.operations_list)
    value = next((v for k, v in found.items() if fold(k) == "sessionid"), None)
    return value if isinstance(value, str) and value else None


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
