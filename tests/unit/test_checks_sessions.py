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


def test_what_a_second_connection_finds_of_the_first_session() -> None:
    from bundle_builders import ok

    from mcpaql_conformance.verdict.checks.sessions import ended_session_evidence, ended_session_findings

    def second(*calls: tuple[str, dict[str, Any], bool]) -> Context:
        data = conformant_bundle()
        data["execution_tests"] = [{"scenario": "session", "call": call, "operation": "record_execution_step",
                                    "response": response, "restarted": restarted}
                                   for call, response, restarted in calls]  # fmt: skip
        return Context(Bundle(data))

    def rules(ctx: Context) -> list[str]:
        return [getattr(f, "rule", "") for f in ended_session_findings(ctx)]

    gone = fail("CONFLICT_EXECUTION_STATE", "Execution 'e1' is failed.", status="failed")
    kept = ok({"execution_id": "e1", "status": "running", "autonomy": {"continue": True, "factors": []}})
    still = fail("CONFLICT_EXECUTION_STATE", "Execution 'e1' belongs to an ended session.", status="running")
    assert rules(second(("old_execution", gone, True))) == []
    assert ended_session_evidence(second(("old_execution", gone, True))) == [
        "execution_tests:old_execution",
        "execution_tests:old_execution_state",
    ]
    assert rules(second(("old_execution", kept, True))) == ["core:2.3.3:session-state-ends"]
    assert rules(second(("old_execution", still, False))) == ["core:2.3.3:executions-end"]
    unknown = fail("NOT_FOUND_RESOURCE", "No execution 'e1'.")
    assert rules(second(("old_execution", unknown, True))) == []  # gone: its state is not said
    assert ended_session_evidence(second(("old_execution", unknown, True))) == ["execution_tests:old_execution"]
    claimed = second(("old_execution", gone, True), ("old_execution_claimed", kept, True))
    assert rules(claimed) == ["core:2.3.5:meta-not-identity"]
    assert "execution_tests:old_execution_claimed" in ended_session_evidence(claimed)
    assert rules(second(("old_execution", gone, True), ("old_execution_claimed", gone, True))) == []
    started = ok({"execution_id": "e2", "status": "running"})
    assert rules(second(("restart_blocked", started, True))) == ["core:8.8.3:block-persists"]
    assert rules(second(("restart_blocked", started, False))) == []  # a new session of a running server: no restart
    assert ended_session_evidence(second(("restart_blocked", fail("PERMISSION_DENIED", "blocked"), True))) == [
        "execution_tests:restart_blocked"
    ]
