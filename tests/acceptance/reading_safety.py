"""The reading server's execution safety loop (core §8.4, §8.6-8.8), written from the spec: agents
start monitored executions with execute_agent, report each intended action with
record_execution_step and get an AutonomyDirective back, from a pipeline of a step limit, the
previous outcome, deny / approval / auto-approve patterns and a safety tier; verify and danger_zone
actions open out-of-band challenges whose codes are never shown; wrong codes are rate-limited.

Defect switches: ``broken("<rule id>")`` as in reading_server.py (the same $READING_DEFECT)."""

from __future__ import annotations

import datetime as dt
import fnmatch
import hashlib
import itertools
import json
import os
import secrets
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

JsonObject = dict[str, Any]
STORE = Path(tempfile.gettempdir()) / f"reading-safety-{getattr(os, 'getuid', lambda: 0)()}"
KEPT_SECONDS = 3600  # a file older than this is another day's: removed at start
DEFECT = os.environ.get("READING_DEFECT", "")


def broken(rule: str) -> bool:
    """Whether this run breaks ``rule`` on purpose (one switch per proven rule)."""
    return rule == DEFECT


MAX_STEPS = 5
CHALLENGE_SECONDS = 2  # short, so that a capture can wait a challenge out (core §8.8.2: configurable)
RATE_LIMIT = 11 if broken("core:8.8.5:ten-per-minute") else 10  # failed verifications a minute per agent
DENY, APPROVAL, AUTO = ["drop_*", "rm -rf*"], ["deploy_*", "*--force*"], ["list_*", "get_*"]
CONFIGURATION: JsonObject = {
    "maxAutonomousSteps": MAX_STEPS,
    "riskTolerance": "moderate",
    "deny": DENY,
    "requiresApproval": APPROVAL,
    "autoApprove": AUTO,
    "challengeTimeoutSeconds": CHALLENGE_SECONDS,
    "verificationFailuresPerMinute": RATE_LIMIT,
}
if broken("core:8.7.2:step-limit-documented"):
    del CONFIGURATION["maxAutonomousSteps"]
if broken("core:8.7.4:configuration-documented"):
    CONFIGURATION = {"maxAutonomousSteps": MAX_STEPS, "challengeTimeoutSeconds": CHALLENGE_SECONDS}
STATES = ["pending", "running", "completed", "failed", "cancelled"]
LIFECYCLE = {"states": STATES, "supports_cancel": True, "supports_retry": False, "progress_reporting": True}


def capability() -> JsonObject:
    """What ``_protocol.capabilities`` says of the loop (core §8.6.1, §8.6.7)."""
    if broken("core:8.6.1:support-documented"):
        return {}
    if broken("core:8.6.1:capability-exposed"):
        return {"safety_loop": "enforcing"}
    if broken("core:8.6.7:enforcement-indicated"):
        return {"execution_safety_loop": True}
    return {"execution_safety_loop": "monitoring" if broken("core:8.6.4:monitoring-never-stops") else "enforcing"}


def _param(name: str, kind: str, description: str, required: bool = False, **extra: Any) -> JsonObject:
    return {"name": name, "type": kind, "required": required, "description": description, **extra}


AGENT = _param("element_name", "string", "The agent (any name of yours, e.g. 'reviewer').", True, minLength=1,
               maxLength=80)  # fmt: skip
EXECUTION = _param("execution_id", "string", "The execution (from execute_agent); the agent's running one if left "
                   "out.", minLength=1)  # fmt: skip
HINT = _param("nextActionHint", "string", "The action the agent means to take next, in words (what, on what).", True,
              minLength=1, maxLength=500)  # fmt: skip
if broken("core:8.6.3:element-name-required"):
    AGENT = {**AGENT, "required": False}
if broken("core:8.6.3:next-action-hint-required"):
    HINT = {**HINT, "required": False}


def _op(name: str, category: str, description: str, parameters: list[JsonObject], returns: str,
        example: JsonObject, **extra: Any) -> JsonObject:  # fmt: skip
    shown = [{"description": description.split(".")[0], "request": {"operation": name, "params": example}}]
    return {"name": name, "semantic_category": category, "description": description, "parameters": parameters,
            "returns": {"name": returns, "kind": "object", "description": "The execution's state."},
            "examples": shown, **extra}  # fmt: skip


# fmt: off
OPERATIONS = [
    _op("execute_agent", "EXECUTE", "Start a monitored execution of an agent (the execution safety loop): from then "
        "on the agent reports each action with record_execution_step.", [AGENT], "ExecutionState",
        {"element_name": "reviewer"}, lifecycle=LIFECYCLE),
    _op("record_execution_step", "CREATE", "Report the agent's next action before taking it; answers the execution "
        "state with an AutonomyDirective (`autonomy`): go ahead only where continue is true.", [
            AGENT, EXECUTION, HINT,
            _param("stepDescription", "string", "What the step just finished did.", maxLength=500),
            _param("outcome", "string", "How the step just finished went.", enum=["success", "failure", "skipped"]),
            _param("findings", "string", "What the finished step found.", maxLength=2000)],
        "ExecutionState", {"element_name": "reviewer", "nextActionHint": "list_books on shelf_main to pick the next "
                           "book", "outcome": "success"}),
    _op("complete_execution", "EXECUTE", "End an execution normally.", [AGENT, EXECUTION], "ExecutionState",
        {"element_name": "reviewer"}),
    _op("abort_execution", "EXECUTE", "End an execution early (it is cancelled).", [AGENT, EXECUTION],
        "ExecutionState", {"element_name": "reviewer"}),
    _op("confirm_operation", "EXECUTE", "Confirm an action an execution paused for approval, with the confirmation "
        "token shown to the human operator (never to the agent).", [
            _param("operation", "string", "The paused action, as reported.", True, minLength=1),
            AGENT, _param("confirmation_token", "string", "The token shown to the operator.",
                          not broken("core:8.7.3:self-approval-prevented"), minLength=1)],
        "ExecutionState", {"operation": "deploy_site to staging", "element_name": "reviewer",
                           "confirmation_token": "tok_from_operator"}),
    _op("verify_challenge", "CREATE", "Give the verification code of a challenge, as shown to the human operator "
        "out of band (never to the agent).", [
            _param("challenge_id", "string", "The challenge (verificationId of the notification).", True, minLength=1),
            _param("code", "string", "The code the operator was shown.", True, minLength=1)],
        "ExecutionState", {"challenge_id": "00000000-0000-4000-8000-000000000000", "code": "from-the-operator"}),
]
# fmt: on
if broken("core:8.4.5:states-introspected"):
    del OPERATIONS[0]["lifecycle"]
TYPES = [{"name": "ExecutionState", "kind": "object", "description": "An execution's state (core §8.4.3), with an "
          "AutonomyDirective (`autonomy`) on record_execution_step.", "fields": [
              _param("execution_id", "string", "The execution.", True),
              _param("status", "string", "pending, running, completed, failed or cancelled.", True),
              _param("element_name", "string", "The agent."),
              _param("started_at", "string", "When it started (ISO 8601)."),
              _param("finished_at", "string", "When it ended (ISO 8601)."),
              _param("progress", "object", "current and total steps, and a message."),
              _param("autonomy", "object", "The AutonomyDirective (core §8.7.1).")]}]  # fmt: skip
NAMES = frozenset(op["name"] for op in OPERATIONS)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _refuse(code: str, message: str, **details: Any) -> JsonObject:
    return {"success": False, "error": {"code": code, "message": message, "details": details}}


class SafetyLoop:
    """The executions, blocks, challenges and notifications of one server's life."""

    def __init__(self) -> None:
        self.executions: dict[str, JsonObject] = {}
        self.running: dict[str, str] = {}  # agent -> its running execution
        self.blocked: dict[str, str] = {}  # agent -> the challenge that blocks it
        self.pending: dict[str, str] = {}  # agent -> its open verify challenge
        self.challenges: dict[str, JsonObject] = {}
        self.inbox: dict[str, list[JsonObject]] = {}  # agent -> notifications not yet delivered
        self.failures: dict[str, list[float]] = {}  # agent -> times of failed verifications
        self.expired: set[tuple[str, str]] = set()  # (agent, hint) whose challenge ran out
        self.numbers = itertools.count(1)
        self.prefix = secrets.token_hex(3)  # execution ids of this process: a restart's never collide
        self.session, self.claimed = "", None  # the MCP session calling, and the one a request's _meta claims
        self._restore()

    # Persistence (core §8.8.3: a hard block survives a restart; §2.3.3: a running execution ends with
    # its session): a file per blocked agent and per execution, in a folder of the machine's.
    def _restore(self) -> None:
        STORE.mkdir(parents=True, exist_ok=True)
        for path in STORE.glob("*.json"):
            try:
                if time.time() - path.stat().st_mtime > KEPT_SECONDS:
                    path.unlink()
                    continue
                saved = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue  # another server's file, half written or just removed
            if path.name.startswith("block-") and not broken("core:8.8.3:block-persists"):
                self.blocked[saved["agent"]] = saved["challenge"]
                self.challenges[saved["challenge"]] = saved["record"]
            elif path.name.startswith("exec-"):
                self._restore_execution(saved)

    def _restore_execution(self, execution: JsonObject) -> None:
        """A running execution of an ended session: failed (§2.3.3), save where a defect keeps it running."""
        if execution["status"] == "running" and broken("core:2.3.3:session-state-ends"):
            self.running[execution["element_name"]] = execution["execution_id"]  # taken up again
        elif execution["status"] == "running" and broken("core:2.3.3:executions-end"):
            execution["orphaned"] = True  # refused, but still running
        elif execution["status"] == "running":
            execution |= {"status": "failed", "finished_at": _now(), "ended": True}
        self.executions[execution["execution_id"]] = execution

    def _keep(self, execution: JsonObject) -> None:
        _write(STORE / f"exec-{execution['execution_id']}.json", execution)

    def _keep_block(self, agent: str, challenge: str) -> None:
        name = f"block-{hashlib.sha256(agent.encode()).hexdigest()[:16]}.json"
        _write(STORE / name, {"agent": agent, "challenge": challenge, "record": self.challenges[challenge]})

    def _state(self, execution: JsonObject, **extra: Any) -> JsonObject:
        shown = {k: execution[k] for k in ("execution_id", "status", "element_name", "started_at")}
        shown |= {"finished_at": execution["finished_at"]} if "finished_at" in execution else {}
        if broken("core:8.4.3:state-fields"):
            shown["state"] = shown.pop("status")
        if broken("core:8.4.4:custom-states-documented") and shown.get("status") == "running":
            shown["status"] = "monitored"
        return {"success": True, "data": {**shown, **extra}}

    def _blocked(self, agent: str) -> JsonObject | None:
        if agent in self.blocked:
            return _refuse(
                "PERMISSION_DENIED",
                f"Agent '{agent}' is hard-blocked until a human verifies challenge '{self.blocked[agent]}'.",
                element_name=agent,
                verificationId=self.blocked[agent],
            )
        return None

    def execute_agent(self, params: JsonObject) -> JsonObject:
        agent = params["element_name"]
        refused = None if broken("core:8.8.3:no-bypass-new-execution") else self._blocked(agent)
        if refused is not None:
            return refused
        execution = {"execution_id": f"exec_{self.prefix}_{next(self.numbers)}", "status": "running",
                     "element_name": agent, "started_at": _now(), "steps": 0, "paused": None,
                     "session": self.session}  # fmt: skip
        self.executions[execution["execution_id"]] = execution
        self.running[agent] = execution["execution_id"]
        self._keep(execution)
        return self._state(execution)

    def _execution(self, params: JsonObject, agent: str) -> JsonObject | None:
        wanted = params.get("execution_id") or self.running.get(agent)
        found = self.executions.get(str(wanted))
        return found if found is not None and found["element_name"] == agent else None

    def _end(self, params: JsonObject, status: str) -> JsonObject:
        agent = params.get("element_name", "")
        refused = self._blocked(agent)
        execution = self._execution(params, agent)
        if refused is not None:
            return refused
        if execution is None:
            return _refuse("NOT_FOUND_RESOURCE", f"No execution of agent '{agent}'; start one with execute_agent.",
                           element_name=agent)  # fmt: skip
        if execution["status"] != "running" and not (broken("core:8.4.2:terminal-final") and status == "cancelled"):
            return _refuse("CONFLICT_EXECUTION_STATE", f"Execution '{execution['execution_id']}' is already "
                           f"{execution['status']}.", execution_id=execution["execution_id"])  # fmt: skip
        if broken("core:8.4.4:cancel-from-any") and status == "cancelled" and execution["steps"] == 0:
            return _refuse("CONFLICT_EXECUTION_STATE", "Only an execution that has taken a step can be aborted.",
                           execution_id=execution["execution_id"])  # fmt: skip
        execution |= {"status": status, "finished_at": _now()}
        self._keep(execution)
        self.running.pop(agent, None)
        return self._state(execution)

    def complete_execution(self, params: JsonObject) -> JsonObject:
        return self._end(params, "completed")

    def abort_execution(self, params: JsonObject) -> JsonObject:
        return self._end(params, "cancelled")

    def confirm_operation(self, params: JsonObject) -> JsonObject:
        if not broken("core:8.7.3:self-approval-prevented") or "confirmation_token" in params:
            return _refuse("TOKEN_INVALID", "Confirmation token not found: only the token shown to the operator "
                           "confirms a paused action.", param_name="confirmation_token")  # fmt: skip
        agent = params.get("element_name", "")
        execution = self._execution(params, agent)
        if execution is None:
            return _refuse("NOT_FOUND_RESOURCE", f"No execution of agent '{agent}'.", element_name=agent)
        execution["paused"] = None
        execution["approved"] = params["operation"]
        return self._state(execution, confirmed=params["operation"])

    def verify_challenge(self, params: JsonObject) -> JsonObject:
        challenge = self.challenges.get(params["challenge_id"])
        if challenge is None:
            return _refuse("NOT_FOUND_RESOURCE", f"No challenge '{params['challenge_id'][:80]}'.",
                           challenge_id=params["challenge_id"][:80])  # fmt: skip
        agent = challenge["agent"]
        recent = [t for t in self.failures.get(agent, []) if time.monotonic() - t < 60]
        if len(recent) >= RATE_LIMIT and not broken("core:8.8.5:rate-limited"):
            if broken("core:8.8.5:over-limit-rejected"):
                recent = []  # the counter starts again after one refusal
            self.failures[agent] = recent
            return _refuse("RATE_LIMIT_EXCEEDED", f"Too many failed verifications for agent '{agent}': at most "
                           f"{RATE_LIMIT} a minute.", element_name=agent, retry_after_seconds=60)  # fmt: skip
        if challenge["used"] or not secrets.compare_digest(str(params["code"]), challenge["code"]):
            challenge["used"] = True  # one-time: a wrong code spends it (core §8.8.2)
            self.failures[agent] = [*recent, time.monotonic()]
            return _refuse("PERMISSION_DENIED", f"Verification failed for challenge '{params['challenge_id']}'; it "
                           "can no longer be used.", challenge_id=params["challenge_id"])  # fmt: skip
        self.blocked.pop(agent, None)
        self.pending.pop(agent, None)
        return {"success": True, "data": {"challenge_id": params["challenge_id"], "verified": True}}

    # Evaluation (core §8.7.2) -------------------------------------------------------------------
    def record_execution_step(self, params: JsonObject) -> JsonObject:
        known = self.executions.get(str(params.get("execution_id")))
        agent = params.get("element_name") or (known["element_name"] if known else "anonymous")
        refused = None if broken("core:8.8.3:blocked-rejected") else self._blocked(agent)
        if refused is not None:
            return refused
        execution = self._execution(params, agent)
        if (
            execution is not None
            and execution.get("ended")
            and self.claimed == execution.get("session")
            and broken("core:2.3.5:meta-not-identity")
        ):  # the closed session, claimed in _meta, taken at its word
            execution |= {"status": "running", "orphaned": False, "ended": False}
        if execution is not None and (execution["status"] != "running" or execution.get("orphaned")):
            return _refuse("CONFLICT_EXECUTION_STATE", f"Execution '{execution['execution_id']}' is "
                           f"{execution['status']}: start another with execute_agent.",
                           execution_id=execution["execution_id"], status=execution["status"])  # fmt: skip
        if execution is None:
            return _refuse("NOT_FOUND_RESOURCE", f"No running execution of agent '{agent}'; start one with "
                           "execute_agent.", element_name=agent)  # fmt: skip
        directive = self._evaluate(agent, execution, params.get("nextActionHint") or "", params.get("outcome"))
        notes = self.inbox.pop(agent, [])
        directive["notifications"] = [*notes, *directive.get("notifications", [])]
        directive["stepsRemaining"] = max(0, MAX_STEPS - execution["steps"])
        progress = {"current": execution["steps"], "total": MAX_STEPS, "message": "steps taken of the limit"}
        if broken("core:8.4.3:progress-content"):
            progress = {"steps": execution["steps"]}
        if broken("core:8.6.2:reports-evaluated"):
            return self._state(execution, progress=progress, recorded=True)
        if broken("core:8.7.1:continue-and-factors"):
            del directive["factors"]
        answer = self._state(execution, progress=progress, autonomy=directive)
        if broken("core:8.4:standard-lifecycle"):
            answer["data"]["status"] = "pending"
        return answer

    def _evaluate(self, agent: str, execution: JsonObject, hint: str, outcome: Any) -> JsonObject:
        pending = self.pending.get(agent)
        if pending is not None and not broken("core:8.8.2:challenge-expiry") and self._expired(pending):
            self.pending.pop(agent)
            self.expired.add((agent, self.challenges[pending]["hint"]))
            pending = None
        if pending is not None and broken("core:8.8:out-of-band-required"):
            return _go(hint, "reported before")  # the pending challenge never holds the agent
        if pending is not None:
            said = "" if broken("core:8.8.3:pending-verify-pauses") else f" '{pending}'"
            return _pause(f"Verification{said} pending: a human must verify the challenge first.")
        if execution["paused"] is not None and not broken("core:8.6.4:no-proceed-after-pause"):
            return _pause(f"{execution['paused']} A human must confirm before the agent goes on.")
        execution["steps"] += 1
        if execution["steps"] > MAX_STEPS and not broken("core:8.7.5:step-limit-minimum"):
            execution["paused"] = "Paused." if broken("core:8.7.2:step-limit-pause") else "Step limit exceeded."
            return _pause(execution["paused"])
        if outcome == "failure" and not broken("core:8.7.2:failure-pauses"):
            execution["paused"] = "Previous step failed."
            return _pause(execution["paused"])
        if execution.get("approved") == hint:
            return _go(hint, "confirmed by the operator")
        if not broken("core:8.7.5:pattern-stage"):
            if any(fnmatch.fnmatchcase(hint, pattern) for pattern in DENY):
                return self._block(agent, hint)
            if any(fnmatch.fnmatchcase(hint, pattern) for pattern in APPROVAL):
                execution["paused"] = f"Action needs approval: {hint[:80]}."
                note = _notice("autonomy_pause", execution["paused"], operation=hint[:80])
                return _pause(execution["paused"], "confirm", [note])
            if any(fnmatch.fnmatchcase(hint, pattern) for pattern in AUTO):
                return _go(hint, "auto-approved pattern")
        if "production" in hint.casefold() and (agent, hint) not in self.expired - self._reevaluated():
            return self._verify(agent, hint)
        return _go(hint, "advisory risk")

    def _reevaluated(self) -> set[tuple[str, str]]:
        """The expired (agent, hint) pairs evaluated afresh: all of them, unless a defect lets them through."""
        return set() if broken("core:8.8.3:expired-reevaluates") else set(self.expired)

    def _expired(self, challenge: str) -> bool:
        return time.monotonic() > self.challenges[challenge]["expires"]

    def _challenge(self, agent: str, hint: str) -> str:
        challenge = str(uuid.uuid4())
        self.challenges[challenge] = {"agent": agent, "hint": hint, "code": secrets.token_hex(16), "used": False,
                                      "expires": time.monotonic() + CHALLENGE_SECONDS}  # fmt: skip
        return challenge

    def _verify(self, agent: str, hint: str) -> JsonObject:
        challenge = self._challenge(agent, hint)
        self.pending[agent] = challenge
        metadata = {} if broken("core:8.7.3:verify-verification-id") else {"verificationId": challenge}
        note = _notice("autonomy_pause", "A human must verify this action out of band.", **metadata)
        return _pause("Verification required for a risky action.", "verify", [note])

    def _block(self, agent: str, hint: str) -> JsonObject:
        challenge = self._challenge(agent, hint)
        self.blocked[agent] = challenge
        self._keep_block(agent, challenge)
        metadata = {} if broken("core:8.7.3:danger-verification-id") else {"verificationId": challenge}
        note = _notice("danger_zone", f"Agent '{agent}' is hard-blocked: a denied action.", **metadata)
        others = [] if broken("core:8.8.1:hard-block-broadcast") else [a for a in self.running if a != agent]
        for other in others:
            self.inbox.setdefault(other, []).append(note)
        directive = _pause("Denied action: a human must verify out of band.", "danger_zone", [note])
        return directive if broken("core:8.8.1:hard-block-stopped") else directive | {"stopped": True}


def progress(token: Any, arguments: JsonObject) -> list[JsonObject]:
    """The notifications/progress an execute_agent call carrying ``token`` sends before its answer
    (mcp-integration §5.2-5.3): preparing the agent, then starting it."""
    if arguments.get("operation") != "execute_agent" or broken("mcp:5.2:progress-on-token"):
        return []
    stages = [(1, "preparing the agent"), (2, "starting the execution")]
    if broken("mcp:5.3:mcp-progress-format"):
        stages.reverse()  # progress that falls back
    return [{"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": step,
             "total": 2, "message": message}} for step, message in stages]  # fmt: skip


def _write(path: Path, value: JsonObject) -> None:
    """``value`` as the whole of ``path`` (written aside, then moved: never read half written)."""
    aside = path.with_name(f".{path.name}.{os.getpid()}")
    aside.write_text(json.dumps(value), encoding="utf-8")
    os.replace(aside, path)


def _notice(kind: str, message: str, **metadata: Any) -> JsonObject:
    return {"type": kind, "message": message, "metadata": metadata, "timestamp": _now()}


def _pause(reason: str, risk: str = "advisory", notes: list[JsonObject] | None = None) -> JsonObject:
    return {"continue": False, "factors": [reason], "reason": reason, "nextStepRisk": risk,
            "notifications": notes or []}  # fmt: skip


def _go(hint: str, why: str) -> JsonObject:
    return {"continue": True, "factors": [f"{why}: {hint[:80]}"], "nextStepRisk": "advisory", "notifications": []}
