"""The execution lifecycle and safety loop as the checks read capture's drive of it
(verdict/checks/safety.py, execution.py; core §8.4, §8.6-8.8): judged at the mode the server
declares, each scenario only for what it drew, and nothing for a server that lists no loop."""

from __future__ import annotations

import copy
from typing import Any

from bundle_builders import conformant_bundle, detail, fail, ok, param, summary_of

from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.verdict.checks.execution import lifecycle_evidence, lifecycle_findings
from mcpaql_conformance.verdict.checks.safety import loop_call_findings, loop_documentation_findings, loop_evidence

JsonObject = dict[str, Any]
CONFIG = {"maxAutonomousSteps": 2, "deny": ["drop_*"], "requiresApproval": ["deploy_*"]}
LIFECYCLE = {"states": ["pending", "running", "completed", "failed", "cancelled"]}


def state(status: str, execution: str = "exec_1", **extra: Any) -> JsonObject:
    return ok({"execution_id": execution, "status": status, **extra})


def directive(go: bool, execution: str = "exec_1", **extra: Any) -> JsonObject:
    return state("running", execution, autonomy={"continue": go, "factors": ["why"], **extra})


def note(kind: str, verification: str | None = "c1") -> JsonObject:
    return {"type": kind, "message": "m", "metadata": {"verificationId": verification} if verification else {}}


# One call per row: (scenario, call, operation, response); the answers of a server that keeps the spec.
GOOD = [
    ("lifecycle", "start", "execute_agent", state("running")),
    ("lifecycle", "step", "record_execution_step", directive(True, stepsRemaining=1)),
    ("lifecycle", "no_element_name", "record_execution_step", fail("VALIDATION_MISSING_PARAM", "element_name")),
    ("lifecycle", "no_hint", "record_execution_step", fail("VALIDATION_MISSING_PARAM", "nextActionHint")),
    ("lifecycle", "complete_execution", "complete_execution", state("completed")),
    ("lifecycle", "after_terminal", "abort_execution", fail("CONFLICT_EXECUTION_STATE", "already completed")),
    ("cancel", "start", "execute_agent", state("running", "exec_2")),
    ("cancel", "abort_running", "abort_execution", state("cancelled", "exec_2")),
    ("failure", "failed_outcome", "record_execution_step", directive(False, "exec_3", reason="Previous step failed")),
    ("failure", "after_pause", "record_execution_step", directive(False, "exec_3", reason="Paused")),
    ("step_limit", "step", "record_execution_step", directive(True, "exec_4")),
    ("step_limit", "step", "record_execution_step", directive(True, "exec_4")),
    ("step_limit", "step", "record_execution_step", directive(False, "exec_4", reason="Step limit exceeded")),
    ("approval", "needs_approval", "record_execution_step", directive(False, "exec_5")),
    ("approval", "self_confirm", "confirm_operation", fail("TOKEN_INVALID", "no token")),
    ("approval", "after_confirm", "record_execution_step", directive(False, "exec_5")),
    ("verify", "risky", "record_execution_step",
     directive(False, "exec_6", nextStepRisk="verify", notifications=[note("autonomy_pause", "v1")])),
    ("verify", "again", "record_execution_step", directive(False, "exec_6", reason="Verification v1 pending")),
    *[("verify", "wrong_code", "verify_challenge", fail("PERMISSION_DENIED", "wrong code"))] * 10,
    *[("verify", "wrong_code", "verify_challenge", fail("RATE_LIMIT_EXCEEDED", "too many"))] * 2,
    ("deny", "denied", "record_execution_step",
     directive(False, "exec_8", stopped=True, nextStepRisk="danger_zone", notifications=[note("danger_zone")])),
    ("deny", "bystander_step", "record_execution_step", directive(True, "exec_9", notifications=[note("danger_zone")])),
    ("deny", "after_block", "record_execution_step", fail("PERMISSION_DENIED", "blocked")),
    ("deny", "new_execution", "execute_agent", fail("PERMISSION_DENIED", "blocked")),
]  # fmt: skip


def looped(rows: list[tuple[str, str, str, JsonObject]] | None = None, capability: Any = "enforcing",
           configuration: JsonObject | None = None, lifecycle: JsonObject | None = None) -> Context:  # fmt: skip
    """The conformant bundle with the loop's operations, a capability, and capture's calls."""
    data = conformant_bundle()
    loop = [
        detail("execute_agent", "EXECUTE", [param("element_name", True)], lifecycle=lifecycle or LIFECYCLE),
        detail("record_execution_step", "CREATE", [param("element_name", True), param("nextActionHint", True)]),
    ]
    data["introspection"]["operation_details"] += loop
    listing = data["introspection"]["operations_list"]["data"]
    listing["operations"] += [summary_of(d) for d in loop]
    listing["_protocol"]["capabilities"] = {} if capability is None else {"execution_safety_loop": capability}
    listing["_protocol"]["safety"] = CONFIG if configuration is None else configuration
    data["execution_tests"] = [{"scenario": s, "call": c, "operation": o, "agent": "a", "response": copy.deepcopy(r)}
                               for s, c, o, r in (GOOD if rows is None else rows)]  # fmt: skip
    return Context(Bundle(data))


def changed(scenario: str, call: str, response: JsonObject) -> list[tuple[str, str, str, JsonObject]]:
    """GOOD with the answer of (scenario, call) replaced (every one of that name)."""
    return [(s, c, o, response if (s, c) == (scenario, call) else r) for s, c, o, r in GOOD]


def rules(ctx: Context) -> list[str]:
    found = [*loop_documentation_findings(ctx), *loop_call_findings(ctx), *lifecycle_findings(ctx)]
    return [getattr(finding, "rule", "") for finding in found]


def test_a_loop_kept_to_the_spec_has_no_finding_and_its_evidence_says_what_each_scenario_drew() -> None:
    ctx = looped()
    assert rules(ctx) == []
    assert set(loop_evidence(ctx)) >= {
        "introspection:safety_loop", "execution_tests:lifecycle", "execution_tests:failure_paused",
        "execution_tests:step_limit_known", "execution_tests:approval_paused", "execution_tests:verify_tier",
        "execution_tests:wrong_codes", "execution_tests:hard_block", "execution_tests:bystander_step",
    }  # fmt: skip
    assert lifecycle_evidence(ctx) == ["execution_tests:execution_state", "execution_tests:after_terminal"]


def test_a_server_without_the_loop_is_judged_on_nothing_of_it() -> None:
    data = conformant_bundle()
    ctx = Context(Bundle(data))
    assert rules(ctx) == [] and loop_evidence(ctx) == [] and lifecycle_evidence(ctx) == []


def test_what_introspection_says_of_the_loop() -> None:
    assert rules(looped(capability=None)) == ["core:8.6.1:support-documented"]
    assert rules(looped(capability=True)) == ["core:8.6.7:enforcement-indicated"]
    assert rules(looped(configuration={"deny": ["drop_*"]})) == ["core:8.7.2:step-limit-documented"]
    assert rules(looped(configuration={"maxAutonomousSteps": 2})) == ["core:8.7.4:configuration-documented"]
    assert rules(looped(capability="logging", rows=[])) == []  # nothing evaluated: nothing to configure


def test_monitoring_mode_is_judged_only_for_never_pausing() -> None:
    findings = loop_call_findings(looped(capability="monitoring"))
    assert [f.rule for f in findings] == ["core:8.6.4:monitoring-never-stops"]  # type: ignore[attr-defined]
    assert "monitoring mode, yet a directive paused or stopped the agent" in findings[0]
    calm = [(s, c, o, directive(True)) if o == "record_execution_step" else (s, c, o, r) for s, c, o, r in GOOD]
    assert loop_call_findings(looped(calm, capability="monitoring")) == []
    assert loop_evidence(looped(calm, capability="disabled")) == ["introspection:safety_loop"]


def test_each_broken_step_is_caught_by_its_own_rule() -> None:
    cases = [
        ("lifecycle", "no_hint", directive(True), "core:8.6.3:next-action-hint-required"),
        ("lifecycle", "step", state("running"), "core:8.6.2:reports-evaluated"),
        ("lifecycle", "step", ok({"execution_id": "exec_1", "status": "running", "autonomy": {"continue": True}}),
         "core:8.7.1:continue-and-factors"),
        ("failure", "failed_outcome", directive(True, "exec_3"), "core:8.7.2:failure-pauses"),
        ("failure", "after_pause", directive(True, "exec_3"), "core:8.6.4:no-proceed-after-pause"),
        ("step_limit", "step", directive(True, "exec_4"), "core:8.7.5:step-limit-minimum"),
        ("approval", "self_confirm", ok({"confirmed": True}), ""),  # refused to go on all the same: no finding
        ("verify", "again", directive(True, "exec_6"), "core:8.8:out-of-band-required"),
        ("verify", "again", directive(False, "exec_6", reason="Paused"), "core:8.8.3:pending-verify-pauses"),
        ("deny", "bystander_step", directive(True, "exec_9"), "core:8.8.1:hard-block-broadcast"),
        ("deny", "after_block", directive(True, "exec_8"), "core:8.8.3:blocked-rejected"),
        ("deny", "new_execution", state("running", "exec_10"), "core:8.8.3:no-bypass-new-execution"),
        ("cancel", "abort_running", fail("CONFLICT_EXECUTION_STATE", "no"), "core:8.4.4:cancel-from-any"),
        ("lifecycle", "after_terminal", state("cancelled"), "core:8.4.2:terminal-final"),
    ]  # fmt: skip
    for scenario, call, response, rule in cases:
        assert rules(looped(changed(scenario, call, response))) == ([rule] if rule else []), (scenario, call, rule)


def test_a_pause_at_the_limit_must_say_so_and_the_limit_is_read_from_the_countdown_too() -> None:
    vague = [(s, c, o, directive(False, "exec_4", reason="Paused") if s == "step_limit" and
              r["data"]["autonomy"]["continue"] is False else r) for s, c, o, r in GOOD]  # fmt: skip
    assert rules(looped(vague)) == ["core:8.7.2:step-limit-pause"]
    counted = [(s, c, o, directive(True, "exec_4", stepsRemaining=0) if s == "step_limit" else r)
               for s, c, o, r in GOOD]  # fmt: skip
    assert rules(looped(counted, configuration={"deny": ["drop_*"], "requiresApproval": ["x"]})) == [
        "core:8.7.2:step-limit-documented", "core:8.7.5:step-limit-minimum"]  # fmt: skip


def test_blocks_and_challenges_must_carry_their_marks() -> None:
    unstopped = directive(False, "exec_8", nextStepRisk="danger_zone", notifications=[note("danger_zone")])
    assert rules(looped(changed("deny", "denied", unstopped))) == ["core:8.8.1:hard-block-stopped"]
    unnamed = directive(False, "exec_8", stopped=True, notifications=[note("danger_zone", None)])
    assert rules(looped(changed("deny", "denied", unnamed))) == ["core:8.7.3:danger-verification-id"]
    through = directive(True, "exec_8")
    assert rules(looped(changed("deny", "denied", through))) == ["core:8.7.5:pattern-stage"]
    silent = directive(False, "exec_6", nextStepRisk="verify", notifications=[])
    assert rules(looped(changed("verify", "risky", silent))) == ["core:8.7.3:verify-verification-id"]
    advisory = directive(False, "exec_6", nextStepRisk="confirm")  # not the verify tier: nothing of it judged
    assert rules(looped(changed("verify", "risky", advisory))) == []


def test_wrong_codes_are_rate_limited_from_the_eleventh() -> None:
    def codes(*answers: JsonObject) -> list[tuple[str, str, str, JsonObject]]:
        kept = [row for row in GOOD if row[1] != "wrong_code"]
        return kept + [("verify", "wrong_code", "verify_challenge", answer) for answer in answers]

    wrong, limited = fail("PERMISSION_DENIED", "wrong"), fail("RATE_LIMIT_EXCEEDED", "Too many attempts")
    assert rules(looped(codes(*[wrong] * 12))) == ["core:8.8.5:rate-limited"]
    assert rules(looped(codes(*[wrong] * 11, limited))) == ["core:8.8.5:ten-per-minute"]
    assert rules(looped(codes(*[wrong] * 10, limited, wrong))) == ["core:8.8.5:over-limit-rejected"]
    assert rules(looped(codes(*[wrong] * 5))) == []  # too few to judge


def test_lifecycle_states_shapes_and_transitions() -> None:
    assert rules(looped(changed("cancel", "start", ok({"execution_id": "exec_2"})))) == ["core:8.4.3:state-fields"]
    custom = changed("cancel", "start", state("queued", "exec_2"))
    assert rules(looped(custom)) == ["core:8.4.4:custom-states-documented"]
    assert rules(looped(custom, lifecycle={"states": [*LIFECYCLE["states"], "queued"]})) == []
    backwards = changed("lifecycle", "step", state("pending", autonomy={"continue": True, "factors": []}))
    assert rules(looped(backwards)) == ["core:8.4:standard-lifecycle"]
    vague = changed("lifecycle", "complete_execution", state("completed", progress={"done": 1}))
    assert rules(looped(vague)) == ["core:8.4.3:progress-content"]
    shown = changed("lifecycle", "complete_execution", state("completed", progress={"percentage": 100}))
    assert rules(looped(shown)) == [] and "execution_tests:progress" in lifecycle_evidence(looped(shown))
    data_without = looped(lifecycle={})
    assert rules(data_without) == []  # an empty lifecycle object is still the field


def test_progress_notifications_are_judged_where_the_lifecycle_declares_progress_reporting() -> None:
    def started(progress: list[JsonObject], reporting: bool = True) -> Context:
        ctx = looped(lifecycle={**LIFECYCLE, "progress_reporting": reporting})
        ctx.bundle.cases("execution_tests")[0]["progress"] = progress
        return ctx

    rising = [{"progress": 1, "total": 2}, {"progress": 2, "total": 2, "message": "started"}]
    assert rules(started(rising)) == []
    assert "execution_tests:progress_token" in lifecycle_evidence(started(rising))
    assert rules(started([])) == ["mcp:5.2:progress-on-token"]
    assert rules(started([], reporting=False)) == []  # a quick call the server does not call long
    assert rules(started([{"progress": 2}, {"progress": 1}])) == ["mcp:5.3:mcp-progress-format"]
    assert rules(started([{"progress": 3, "total": 2}])) == ["mcp:5.3:mcp-progress-format"]
