"""The execution safety loop (core §8.6-8.8): what introspection says of it, and what capture's drive
of it (``execution_tests``, see capture/safety.py) shows. A server that lists neither execute_agent
nor record_execution_step offers no loop (the spec has no value for "not supported": its absence with
none of the loop's operations is read as that), and nothing here applies to it.

The directives are judged at the mode the server declares: enforcing (or no mode declared) as
authoritative; monitoring for never stopping (§8.6.4); logging and disabled not at all. A scenario
judges only what it drew: the verify tier only where a directive names it, a block only where the
documented deny pattern (or a danger_zone sign) drew one."""

from __future__ import annotations

import json
from typing import Any

from mcpaql_conformance.evidence.execution import (
    LOOP_MODES,
    LOOP_OPERATIONS,
    POLICY_KEYS,
    STEP_LIMIT_KEYS,
    challenge_of,
    directive_of,
    documented_step_limit,
    field_of,
    loop_capability,
    loop_documentation,
    notifications_of,
    verification_id,
)
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.reading import protocol_capabilities, protocol_of
from mcpaql_conformance.files.vocabulary import (
    APPROVAL_PAUSED,
    APPROVAL_SCENARIO,
    BYSTANDER,
    CHALLENGE_WAITED,
    DENY_REPORTED,
    DENY_SCENARIO,
    EXPIRY_SCENARIO,
    FAILURE_PAUSED,
    FAILURE_SCENARIO,
    HARD_BLOCK,
    LIFECYCLE_SCENARIO,
    LIMIT_KNOWN,
    LOOP_MONITORING,
    RATE_PROBED,
    SAFETY_LOOP,
    STEP_LIMIT_SCENARIO,
    VERIFY_SCENARIO,
    VERIFY_TIER,
)
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import Call, calls_of, cite

LOOP_RULES: tuple[str, ...] = (
    "core:8.6.1:support-documented", "core:8.6.1:capability-exposed", "core:8.6.7:enforcement-indicated",
    "core:8.7.2:step-limit-documented", "core:8.7.4:configuration-documented", "core:8.6.2:reports-evaluated",
    "core:8.6.3:element-name-required", "core:8.6.3:next-action-hint-required", "core:8.7.1:continue-and-factors",
    "core:8.7.2:failure-pauses", "core:8.7.5:previous-outcome-stage", "core:8.6.4:no-proceed-after-pause",
    "core:8.7.5:step-limit-minimum", "core:8.7.2:step-limit-pause", "core:8.7.5:pattern-stage",
    "core:8.7.3:self-approval-prevented", "core:8.7.3:confirmer-not-agent", "core:8.7.3:verify-verification-id",
    "core:8.8.2:challenge-id-notified", "core:8.8:out-of-band-required", "core:8.8.3:pending-verify-pauses",
    "core:8.8.5:rate-limited", "core:8.8.5:ten-per-minute", "core:8.8.5:over-limit-rejected",
    "core:8.8.2:challenge-expiry", "core:8.8.3:expired-reevaluates", "core:8.8.1:hard-block-stopped",
    "core:8.7.3:danger-verification-id", "core:8.7.1:required-notifications", "core:8.8.1:hard-block-broadcast",
    "core:8.8.3:blocked-rejected", "core:8.6.4:no-proceed-after-stop", "core:8.8.3:no-bypass-new-execution",
    "core:8.6.4:monitoring-never-stops",
)  # fmt: skip
STEP = "record_execution_step"


def offers_loop(ctx: Context) -> bool:
    """Whether the server lists execute_agent or record_execution_step."""
    return any(name in ctx.listed_operations for name in ("execute_agent", STEP))  # json: listed names


def mode_of(ctx: Context) -> tuple[str | None, Any]:
    """(the capability key, its value) declaring the loop, from the operations list's ``_protocol``."""
    return loop_capability(protocol_capabilities(ctx.bundle.operations_list))


def documented(ctx: Context) -> dict[str, Any]:
    """Every key the ``_protocol`` and the loop operations' details document, folded."""
    return loop_documentation(protocol_of(ctx.bundle.operations_list),
                              [ctx.details_by_name.get(name) for name in LOOP_OPERATIONS])  # fmt: skip


def loop_documentation_findings(ctx: Context) -> list[str]:
    """The loop's support, mode and configuration, said in introspection (core §8.6.1, §8.6.7, §8.7.2,
    §8.7.4)."""
    if not offers_loop(ctx):
        return []
    key, value = mode_of(ctx)
    if key is None:
        return [cite("core:8.6.1:support-documented", "the server lists the safety loop's operations, but its "
                     "introspection says nothing of the loop (no capabilities.execution_safety_loop)")]  # fmt: skip
    findings: list[str] = []
    if key != "execution_safety_loop":
        findings.append(cite("core:8.6.1:capability-exposed", f"the safety loop is declared as capabilities."
                             f"{plain(key, max_len=60)}, not capabilities.execution_safety_loop"))  # fmt: skip
    if value not in LOOP_MODES:
        findings.append(cite("core:8.6.7:enforcement-indicated", f"capabilities.{plain(key, max_len=60)} is "
                             f"{plain(repr(value), max_len=60)}: none of {', '.join(LOOP_MODES)}, so it does not say "
                             "whether enforcement is on"))  # fmt: skip
    if value in ("logging", "disabled"):
        return findings
    said = documented(ctx)
    if not STEP_LIMIT_KEYS & said.keys():
        findings.append(cite("core:8.7.2:step-limit-documented", "introspection gives no default step limit "
                             "(maxAutonomousSteps)"))  # fmt: skip
    if not POLICY_KEYS & said.keys():
        findings.append(cite("core:8.7.4:configuration-documented", "introspection describes none of the evaluator's"
                             " configuration (riskTolerance, deny, requiresApproval, autoApprove)"))  # fmt: skip
    return findings


def loop_call_findings(ctx: Context) -> list[str]:
    """What the drive of the loop shows, at the mode the server declares."""
    calls = calls_of(ctx, "execution_tests")
    if not calls or not offers_loop(ctx):
        return []
    _, mode = mode_of(ctx)
    if mode == "monitoring":
        return _monitoring(calls)
    if mode in ("logging", "disabled"):
        return []
    by_scenario: dict[str, list[Call]] = {}
    for call in calls:
        by_scenario.setdefault(str(call.case.get("scenario")), []).append(call)
    findings = _steps(calls)
    findings += _lifecycle(by_scenario.get(LIFECYCLE_SCENARIO, []))
    findings += _failure(by_scenario.get(FAILURE_SCENARIO, []))
    findings += _step_limit(ctx, by_scenario.get(STEP_LIMIT_SCENARIO, []))
    findings += _approval(by_scenario.get(APPROVAL_SCENARIO, []))
    findings += _verify(by_scenario.get(VERIFY_SCENARIO, []))
    findings += _expiry(by_scenario.get(EXPIRY_SCENARIO, []))
    findings += _deny(ctx, by_scenario.get(DENY_SCENARIO, []))
    return findings


def loop_evidence(ctx: Context) -> list[str]:
    """What the drive of the loop drew, for a report's ``evidence``: ``execution_tests:SCENARIO`` for each
    scenario driven against a loop judged as enforcing, and the labels of what the scenarios showed."""
    if not offers_loop(ctx):
        return []
    calls = calls_of(ctx, "execution_tests")
    _, mode = mode_of(ctx)
    if mode == "monitoring":
        return [SAFETY_LOOP, *([LOOP_MONITORING] if any(directive_of(c.response) for c in calls) else [])]
    if mode in ("logging", "disabled"):
        return [SAFETY_LOOP]
    held = [SAFETY_LOOP, *{f"execution_tests:{call.case.get('scenario')}": None for call in calls}]
    shown = {str(call.case.get("call")): call for call in calls}
    held += [label for label, drew in _drawn(ctx, calls, shown).items() if drew]
    return held


def _drawn(ctx: Context, calls: list[Call], shown: dict[str, Call]) -> dict[str, bool]:
    """Each label of what a scenario drew (the last call of each name stands for it)."""
    denied = directive_of(shown["denied"].response) if "denied" in shown else None  # json: call names of ours
    risky = next((directive_of(c.response) for c in calls if c.case.get("scenario") == VERIFY_SCENARIO
                  and c.case.get("call") == "risky"), None)  # fmt: skip
    blocked = denied is not None and denied.get("stopped") is True
    return {
        FAILURE_PAUSED: _pauses(shown.get("failed_outcome")),
        LIMIT_KNOWN: _known_limit(ctx, _walk(calls)) is not None,
        APPROVAL_PAUSED: "self_confirm" in shown,  # json: call names of ours
        VERIFY_TIER: risky is not None and str(risky.get("nextStepRisk")) == "verify",
        RATE_PROBED: len(_all(calls, "wrong_code")) > 10,
        CHALLENGE_WAITED: "after_expiry" in shown,  # json: call names of ours
        DENY_REPORTED: denied is not None,
        HARD_BLOCK: blocked,
        BYSTANDER: blocked and "bystander_step" in shown,  # json: call names of ours
    }


def _walk(calls: list[Call]) -> list[Call]:
    """The steps of the step-limit walk the server answered."""
    return [c for c in calls if c.case.get("scenario") == STEP_LIMIT_SCENARIO and c.case.get("operation") == STEP
            and c.answer.succeeded]  # fmt: skip


def _known_limit(ctx: Context, steps: list[Call]) -> int | None:
    """The step limit introspection documents, else the one the first directive counts down to."""
    limit = documented_step_limit(documented(ctx))
    counted = field_of(directive_of(steps[0].response), "stepsRemaining") if steps else None
    if limit is not None or isinstance(counted, bool) or not isinstance(counted, int):
        return limit
    return counted + 1


def _first(calls: list[Call], name: str) -> Call | None:
    return next((call for call in calls if call.case.get("call") == name), None)  # json: call names of ours


def _all(calls: list[Call], name: str) -> list[Call]:
    return [call for call in calls if call.case.get("call") == name]  # json: call names of ours


def _said(call: Call) -> str:
    """A directive as a finding shows it."""
    directive = directive_of(call.response)
    if directive is None:
        return call.answer.describe()
    shown = {k: directive[k] for k in ("continue", "stopped", "reason", "nextStepRisk") if k in directive}
    return plain(json.dumps(shown, default=str), max_len=160)


def _steps(calls: list[Call]) -> list[str]:
    """Every step answered as a success carries a directive with continue and factors (§8.6.2, §8.7.1)."""
    findings: list[str] = []
    for call in calls:
        if call.case.get("operation") != STEP or not call.answer.succeeded:
            continue
        directive = directive_of(call.response)
        if directive is None:
            findings.append(
                cite(
                    "core:8.6.2:reports-evaluated",
                    f"{STEP} ({call.case.get('call')}) answered "
                    "without an AutonomyDirective (no `continue`): the report was not evaluated",
                )
            )
            break
        if not isinstance(directive.get("factors"), list):
            findings.append(cite("core:8.7.1:continue-and-factors", f"{STEP} ({call.case.get('call')}) answered a "
                                 "directive without `factors`"))  # fmt: skip
            break
    return findings


def _lifecycle(calls: list[Call]) -> list[str]:
    findings: list[str] = []
    for name, rule, what in (("no_element_name", "core:8.6.3:element-name-required", "element_name"),
                             ("no_hint", "core:8.6.3:next-action-hint-required", "nextActionHint")):  # fmt: skip
        call = _first(calls, name)
        if call is not None and call.answer.succeeded:
            findings.append(cite(rule, f"{STEP} without {what} was taken ({_said(call)})"))
    return findings


def _continues(call: Call | None) -> bool:
    directive = directive_of(call.response) if call is not None else None
    return directive is not None and directive.get("continue") is True


def _pauses(call: Call | None) -> bool:
    directive = directive_of(call.response) if call is not None else None
    return directive is not None and directive.get("continue") is False


def _failure(calls: list[Call]) -> list[str]:
    failed, after = _first(calls, "failed_outcome"), _first(calls, "after_pause")
    if _continues(failed):
        return [cite("core:8.7.2:failure-pauses", f"a step reporting outcome 'failure' was let through "
                     f"({_said(failed)})")] if failed else []  # fmt: skip
    if _pauses(failed) and _continues(after):
        return [cite("core:8.6.4:no-proceed-after-pause", "after pausing on a failed outcome, the agent's next step "
                     f"went ahead with no human in between ({_said(after) if after else ''})")]  # fmt: skip
    return []


def _step_limit(ctx: Context, calls: list[Call]) -> list[str]:
    steps = [call for call in calls if call.case.get("operation") == STEP and call.answer.succeeded]
    if not steps:
        return []
    known = _known_limit(ctx, steps)
    last = steps[-1]
    if _continues(last):
        if known is None or len(steps) <= known:
            return []  # no limit known and none reached: not judged here
        return [cite("core:8.7.5:step-limit-minimum", f"{len(steps)} steps went ahead, past a step limit of {known}:"
                     " no step-limit stage paused the agent")]  # fmt: skip
    reason = str(field_of(directive_of(last.response), "reason") or "")
    if _pauses(last) and len(steps) > 1 and "limit" not in reason.casefold():
        return [cite("core:8.7.2:step-limit-pause", f"the pause after {len(steps) - 1} steps gives no step-limit "
                     f"reason ({_said(last)})")]  # fmt: skip
    return []


def _approval(calls: list[Call]) -> list[str]:
    """The agent confirmed its own paused action and was let through (§8.7.3); the pattern stage
    (§8.7.5) where neither the approval nor the deny hint paused."""
    confirm, after = _first(calls, "self_confirm"), _first(calls, "after_confirm")
    if confirm is not None and confirm.answer.succeeded and _continues(after):
        return [cite("core:8.7.3:self-approval-prevented", "the agent confirmed its own paused action with "
                     "confirm_operation on its own session, and its next report of it went ahead")]  # fmt: skip
    return []


def _verify(calls: list[Call]) -> list[str]:
    risky, again = _first(calls, "risky"), _first(calls, "again")
    directive = directive_of(risky.response) if risky is not None else None
    if directive is None or str(directive.get("nextStepRisk")) != "verify":
        return []  # the server's scoring did not put it in the verify tier: nothing here to judge
    challenge = challenge_of(directive)
    if challenge is None or not any(n.get("type") == "autonomy_pause" and verification_id(n)
                                    for n in notifications_of(directive)):  # fmt: skip
        return [cite("core:8.7.3:verify-verification-id", "a verify-tier directive has no autonomy_pause "
                     f"notification with metadata.verificationId ({_said(risky) if risky else ''})")]  # fmt: skip
    findings: list[str] = []
    if _continues(again):
        findings.append(cite("core:8.8:out-of-band-required", "the verify-tier action, reported again before any "
                             "verification, went ahead"))  # fmt: skip
    elif _pauses(again) and challenge not in str(field_of(directive_of(again.response) if again else None,
                                                          "reason")):  # fmt: skip
        findings.append(cite("core:8.8.3:pending-verify-pauses", "while its challenge was pending, the action's "
                             f"next report paused without citing the challenge {plain(challenge, max_len=60)} "
                             "in its reason"))  # fmt: skip
    return findings + _rate_limit(_all(calls, "wrong_code"))


def _rate_limited(call: Call) -> bool:
    said = f"{call.answer.code or ''} {call.answer.message[:500]}".casefold()
    return call.answer.refused and ("rate_limit" in said or "rate limit" in said or "too many" in said)


def _rate_limit(attempts: list[Call]) -> list[str]:
    """Twelve wrong codes within a minute (§8.8.5): refused as rate-limited from the eleventh on."""
    if len(attempts) <= 10:
        return []
    limited = [_rate_limited(call) for call in attempts]
    if not any(limited):
        return [cite("core:8.8.5:rate-limited", f"{len(attempts)} wrong verification codes in a row, none refused "
                     "as rate-limited")]  # fmt: skip
    first = limited.index(True)
    if first > 10:
        return [cite("core:8.8.5:ten-per-minute", f"wrong verification codes were rate-limited only from attempt "
                     f"{first + 1}: more than ten failures within a minute")]  # fmt: skip
    if not all(limited[first:]):
        later = attempts[first + limited[first:].index(False)]
        return [cite("core:8.8.5:over-limit-rejected", "past the rate limit, a later verification attempt was not "
                     f"refused as rate-limited ({later.answer.describe()})")]  # fmt: skip
    return []


def _expiry(calls: list[Call]) -> list[str]:
    risky, after = _first(calls, "risky"), _first(calls, "after_expiry")
    challenge = challenge_of(directive_of(risky.response)) if risky is not None else None
    if challenge is None or after is None or not after.answer.succeeded:
        return []
    if challenge in str(directive_of(after.response)):
        return [cite("core:8.8.2:challenge-expiry", f"past its documented timeout the challenge "
                     f"{plain(challenge, max_len=60)} still held the action")]  # fmt: skip
    if _continues(after):
        return [cite("core:8.8.3:expired-reevaluates", "reported again after its challenge expired, the risky action "
                     "went ahead with no new challenge")]  # fmt: skip
    return []


def _deny(ctx: Context, calls: list[Call]) -> list[str]:
    denied = _first(calls, "denied")
    directive = directive_of(denied.response) if denied is not None else None
    if directive is None:
        return []
    documented_deny = "deny" in documented(ctx)  # json: folded keys
    danger = str(directive.get("nextStepRisk")) == "danger_zone" or any(
        n.get("type") == "danger_zone" for n in notifications_of(directive))  # fmt: skip
    if directive.get("continue") is True and directive.get("stopped") is not True:
        approval = _first(calls, "needs_approval")
        if documented_deny or approval is None or _continues(approval):
            return [cite("core:8.7.5:pattern-stage", "an action matching a deny pattern went ahead: no pattern "
                         f"stage stopped it ({_said(denied) if denied else ''})")]  # fmt: skip
        return []
    if directive.get("stopped") is not True:
        if danger or documented_deny:
            return [cite("core:8.8.1:hard-block-stopped", "an action matching a deny pattern drew a directive "
                         f"without stopped: true ({_said(denied) if denied else ''})")]  # fmt: skip
        return []
    if not any(n.get("type") == "danger_zone" and verification_id(n) for n in notifications_of(directive)):
        return [cite("core:8.7.3:danger-verification-id", "a hard block's directive has no danger_zone notification "
                     "with metadata.verificationId")]  # fmt: skip
    return _after_block(calls)


def _after_block(calls: list[Call]) -> list[str]:
    findings: list[str] = []
    bystander = _first(calls, "bystander_step")
    seen = notifications_of(directive_of(bystander.response)) if bystander is not None else []
    if bystander is not None and bystander.answer.succeeded and not any(n.get("type") == "danger_zone" for n in seen):
        findings.append(cite("core:8.8.1:hard-block-broadcast", "another executing agent's next directive carried no "
                             "danger_zone notification of the hard block"))  # fmt: skip
    after = _first(calls, "after_block")
    stopped = directive_of(after.response) if after is not None else None
    if after is not None and after.answer.succeeded and (stopped is None or stopped.get("stopped") is not True):
        findings.append(cite("core:8.8.3:blocked-rejected", "the hard-blocked agent's next step was taken and "
                             f"evaluated as usual ({_said(after)})"))  # fmt: skip
    new = _first(calls, "new_execution")
    if new is not None and new.answer.succeeded:
        findings.append(cite("core:8.8.3:no-bypass-new-execution", "the hard-blocked agent started a new execution"))
    return findings


def _monitoring(calls: list[Call]) -> list[str]:
    """In monitoring mode no directive stops or pauses (§8.6.4)."""
    for call in calls:
        directive = directive_of(call.response)
        if directive is not None and (directive.get("stopped") is True or directive.get("continue") is False):
            return [cite("core:8.6.4:monitoring-never-stops", f"the loop declares monitoring mode, yet a directive "
                         f"paused or stopped the agent ({_said(call)})")]  # fmt: skip
    return []
