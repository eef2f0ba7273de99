"""Session ids in error answers (verdict/checks/sessions.py, core §2.3.5): judged only where the server
reports one in _protocol; an error carries one when it holds that id, or a key named for a session id."""

from __future__ import annotations

from typing import Any

from bundle_builders import conformant_bundle, fail

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.sessions import session_evidence, session_findings


def with_session(session: Any, *errors: dict[str, Any]) -> Context:
    data = conformant_bundle()
    if session is not None:
        data["introspection"]["operations_list"]["data"]["_protocol"]["sessionId"] = session
    data["error_tests"] = [{"name": f"e{i}", "response": error} for i, error in enumerate(errors)]
    return Context(Bundle(data))


def test_errors_carry_the_session_id_the_server_reports() -> None:
    bare = fail("VALIDATION_MISSING_PARAM", "Missing required parameter 'id'.")
    ctx = with_session("s-42", bare)
    findings = session_findings(ctx)
    assert [f.rule for f in findings] == ["core:2.3.5:session-id-reported"]  # type: ignore[attr-defined]
    assert findings[0].endswith("error answer(s) carry no session id, though introspection reports one "
                                "(_protocol.session_id)")  # fmt: skip
    assert session_evidence(ctx) == ["introspection:session_id"]
    tagged = {**bare, "_meta": {"session_id": "another-session"}}  # a second configuration's own id
    quoted = fail("NOT_FOUND_RESOURCE", "No note 'x' (session s-42).")
    others = int(findings[0].split(" of ")[0]) - 1  # the bundle's own error answers, none carrying one
    everywhere = session_findings(with_session("s-42", tagged, quoted))
    assert (everywhere[0].split(" error")[0] if everywhere else "") == (f"{others} of {others + 2}" if others else "")
    assert session_findings(with_session(None, bare)) == [] and session_evidence(with_session(None, bare)) == []
    assert session_findings(with_session(7, bare)) == []  # no id as text: nothing reported to look for
