"""The execution safety loop, driven as an agent would (core §8.4, §8.6-8.8): for a server listing
execute_agent and record_execution_step, and a run allowed to call them (--allow-destructive: they
start executions), a few short executions under agent names of ours, each a scenario of
``execution_tests``: a benign step, steps missing what §8.6.3 requires, completion then an abort
(``lifecycle``); an abort of a running execution (``cancel``); a failed outcome then a benign step
(``failure``); steps past the step limit (``step_limit``); an action needing approval, confirmed by the
agent itself (``approval``); a risky action, reported twice, then wrong verification codes
(``verify``); the same past a documented challenge timeout (``expiry``); a denied action while a
second agent runs, then the blocked agent's next step and a new execution (``deny``).

What each step sends comes from the operation's documented parameters (folded names: element_name,
nextActionHint, execution_id...) and the hints from the patterns the server documents, else from the
spec's own examples. Every call is bounded: at most MAX_STEPS steps, one wait of at most MAX_WAIT
seconds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, get_args

import anyio

from mcpaql_conformance.capture.candidates import example_values
from mcpaql_conformance.capture.values import run_token
from mcpaql_conformance.evidence.execution import (
    LOOP_OPERATIONS,
    challenge_of,
    challenge_timeout,
    directive_of,
    documented_step_limit,
    execution_id_of,
    field_of,
    fold,
    loop_documentation,
    session_id,
)
from mcpaql_conformance.evidence.reading import protocol_of
from mcpaql_conformance.files.vocabulary import (
    APPROVAL_SCENARIO,
    CANCEL_SCENARIO,
    DENY_SCENARIO,
    EXPIRY_SCENARIO,
    FAILURE_SCENARIO,
    LIFECYCLE_SCENARIO,
    SESSION_SCENARIO,
    STEP_LIMIT_SCENARIO,
    VERIFY_SCENARIO,
    ExecutionScenario,
)
from mcpaql_conformance.live.discovery import Operation
from mcpaql_conformance.live.session import PHASE_SAFETY, Live, note

JsonObject = dict[str, Any]

AGENT = "zz-conformance-agent"
MAX_STEPS = 50  # the longest step-limit walk
UNDOCUMENTED_WALK = 25  # the walk where no limit is documented or counted down
MAX_WAIT = 10.0  # the longest challenge timeout capture waits out
WRONG_CODES = 12  # past core §8.8.5's ten failures a minute
WRONG_CODE = "00000000000000000000000000000000"
# Hints by what they ask (core §8.6.3): the spec's own example patterns (§8.7.2) where the server
# documents none.
BENIGN = "list_notes to read the current notes (read-only)"
SPEC_PATTERNS = {"autoapprove": "list_*", "requiresapproval": "deploy_*", "deny": "drop_*"}
RISKY = "rotating the production database credentials in the secrets vault"
NEEDED = ("execute_agent", "record_execution_step")


@dataclass
class Driver:
    """One run of the scenarios: the operations, the names and values learnt so far."""

    live: Live
    ops: dict[str, Operation]
    documented: dict[str, Any]
    agent_names: list[str] = field(default_factory=list)  # one fixed name where made-up ones are refused
    sent: int = 0
    marks: JsonObject = field(default_factory=dict)  # added to every case (the second session's `restarted`)

    def agent(self, number: int) -> str:
        """The agent of scenario ``number``: a name of ours and of this run (a block outlives the run)."""
        return self.agent_names[0] if self.agent_names else f"{AGENT}-{run_token() or 'run'}-{number}"

    async def call(self, scenario: ExecutionScenario, call: str, name: str, params: JsonObject, agent: str,
                   progress: bool = False, meta: JsonObject | None = None) -> Any:  # fmt: skip
        """One call of a scenario, recorded in execution_tests; its answer. With ``progress``, the call
        carries a progress token and the case keeps the notifications/progress it brought (mcp §5)."""
        op = self.ops[name]
        self.sent += 1
        arguments = {"operation": name, "params": params, **({"_meta": meta} if meta else {})}
        notified: list[JsonObject] | None = [] if progress else None
        response = await self.live.send((PHASE_SAFETY, self.sent), op.tool, arguments, name, "execution",
                                        f"safety loop ({scenario}): {call}", notified)  # fmt: skip
        case = {"scenario": scenario, "call": call, "operation": name, "agent": agent, **self.marks,
                **({"meta": self.live.redactor.value(meta)} if meta else {}),
                "request": self.live.redactor.params(name, params), "response": response}  # fmt: skip
        self.live.evidence.execution_tests.append(case if notified is None else {**case, "progress": notified})
        return response

    def params(self, name: str, **values: Any) -> JsonObject:
        """What a call of ``name`` sends: each documented parameter whose folded name says what a value
        of ours is (spec names where none is documented; a value of None: left out on purpose), and
        other required ones from its examples."""
        op = self.ops[name]
        if op.parameters is None:
            return {key: value for key, value in values.items() if value is not None}
        wanted = {fold(key): value for key, value in values.items()}
        sent: JsonObject = {}
        for parameter in op.parameters:
            key = fold(parameter["name"])
            meant = next((k for k in wanted if _names(key, k)), None)
            value = wanted[meant] if meant is not None else None  # json: our own keys
            if meant is None and parameter.get("required") is True:
                value = next(iter(example_values(parameter["name"], op.declarations)), None)
            if value is not None:
                sent[parameter["name"]] = value
        return sent

    def hint(self, kind: str) -> str:
        """An action hint matching the first pattern of ``kind`` the server documents, else the spec's."""
        patterns = self.documented.get(kind)
        pattern = next((p for p in patterns if isinstance(p, str) and p.strip("*?")), None) if isinstance(
            patterns, list) else None  # fmt: skip
        pattern = pattern or SPEC_PATTERNS[kind]
        return pattern.replace("*", "zz_conformance").replace("?", "z")[:200] + " (a conformance probe)"


# What a value of ours stands for, by folded name, and the folded parameter names that take it.
_TAKERS = {
    "elementname": ("elementname", "agent", "agentname", "element"),
    "nextactionhint": ("nextactionhint", "actionhint", "hint"),
    "stepdescription": ("stepdescription",),
    "outcome": ("outcome",),
    "executionid": ("executionid", "execution"),
    "challengeid": ("challengeid", "verificationid", "challenge"),
    "code": ("code", "verificationcode"),
    "operation": ("operation", "operationname", "action"),
}


def _names(parameter: str, value: str) -> bool:
    return parameter in _TAKERS.get(value, (value,))


async def probe_safety_loop(live: Live) -> None:
    """The scenarios, where the server lists the loop's operations and the run allows them."""
    ops = {op.name: op for op in live.operations if op.name in LOOP_OPERATIONS}  # json: names of ours
    if not all(name in ops for name in NEEDED):
        return
    barred = [op for op in ops.values() if not live.allows(op.need)]
    if barred:
        what = "the execution safety loop's scenarios (they start executions)"
        live.evidence.notes.append(live.withheld(barred[0].name, "execution", barred[0].need, 1, what))
        return
    documented = loop_documentation(
        protocol_of(live.evidence.operations_list), [op.declarations for op in ops.values()]
    )
    driver = Driver(live, ops, documented)
    if not await _lifecycle(driver):
        return
    for scenario in SCENARIOS:
        await scenario(driver)


async def _start(driver: Driver, scenario: ExecutionScenario, agent: str, call: str = "start") -> str | None:
    """execute_agent for ``agent``; the execution id it answers ("" when it answers none), None if refused.
    The lifecycle's start carries a progress token (mcp-integration §5.2)."""
    params = driver.params("execute_agent", element_name=agent)
    response = await driver.call(scenario, call, "execute_agent", params, agent, scenario == LIFECYCLE_SCENARIO)
    if not isinstance(response, dict) or response.get("success") is not True:
        return None
    return execution_id_of(response) or ""


async def _step(driver: Driver, scenario: ExecutionScenario, call: str, agent: str | None, hint: str | None,
                outcome: str | None = "success", execution: str | None = None, meta: JsonObject | None = None
                ) -> Any:  # fmt: skip
    params = driver.params("record_execution_step", element_name=agent, nextActionHint=hint, outcome=outcome,
                           stepDescription="a conformance probe step" if outcome else None,
                           execution_id=execution or None)  # fmt: skip
    return await driver.call(scenario, call, "record_execution_step", params, agent or "", meta=meta)


async def _end(driver: Driver, scenario: ExecutionScenario, name: str, agent: str, execution: str,
               call: str = "") -> Any:  # fmt: skip
    if name not in driver.ops:
        return None
    params = driver.params(name, element_name=agent, execution_id=execution or None)
    return await driver.call(scenario, call or name, name, params, agent)


async def _lifecycle(driver: Driver) -> bool:
    """Start, a benign step, a step without element_name, one without nextActionHint, complete, then
    abort the completed execution. False when no execution could be started at all (noted)."""
    agent = driver.agent(1)
    execution = await _start(driver, LIFECYCLE_SCENARIO, agent)
    if execution is None:
        example = next(iter(example_values("element_name", driver.ops["execute_agent"].declarations)), None)
        if not isinstance(example, str) or not example:
            reason = "execute_agent refused an agent name of ours and documents no example element_name"
            driver.live.evidence.notes.append(note("execute_agent", "execution", reason, "failed"))
            return False
        driver.agent_names.append(example)
        agent = example
        execution = await _start(driver, LIFECYCLE_SCENARIO, agent)
        if execution is None:
            reason = f"execute_agent refused its own example agent {example[:60]!r}: no execution to follow"
            driver.live.evidence.notes.append(note("execute_agent", "execution", reason, "failed"))
            return False
    await _step(driver, LIFECYCLE_SCENARIO, "step", agent, BENIGN, execution=execution)
    await _step(driver, LIFECYCLE_SCENARIO, "no_element_name", None, BENIGN, execution=execution)
    await _step(driver, LIFECYCLE_SCENARIO, "no_hint", agent, None, execution=execution)
    await _end(driver, LIFECYCLE_SCENARIO, "complete_execution", agent, execution)
    await _end(driver, LIFECYCLE_SCENARIO, "abort_execution", agent, execution, "after_terminal")
    return True


async def _cancel(driver: Driver) -> None:
    agent = driver.agent(2)
    execution = await _start(driver, CANCEL_SCENARIO, agent)
    if execution is not None:
        await _end(driver, CANCEL_SCENARIO, "abort_execution", agent, execution, "abort_running")


async def _failure(driver: Driver) -> None:
    agent = driver.agent(3)
    execution = await _start(driver, FAILURE_SCENARIO, agent)
    if execution is None:
        return
    await _step(driver, FAILURE_SCENARIO, "failed_outcome", agent, BENIGN, "failure", execution)
    await _step(driver, FAILURE_SCENARIO, "after_pause", agent, BENIGN, execution=execution)
    await _end(driver, FAILURE_SCENARIO, "abort_execution", agent, execution)


async def _step_limit(driver: Driver) -> None:
    agent = driver.agent(4)
    execution = await _start(driver, STEP_LIMIT_SCENARIO, agent)
    if execution is None:
        return
    limit = documented_step_limit(driver.documented)
    walk = limit + 1 if limit is not None else None
    for number in range(1, MAX_STEPS + 1):
        response = await _step(driver, STEP_LIMIT_SCENARIO, "step", agent, driver.hint("autoapprove"),
                               execution=execution)  # fmt: skip
        directive = directive_of(response)
        if directive is None or directive.get("continue") is not True:
            break
        remaining = field_of(directive, "stepsRemaining")
        if walk is None and isinstance(remaining, int) and not isinstance(remaining, bool) and remaining >= 0:
            walk = number + remaining + 1
        if number >= (walk or UNDOCUMENTED_WALK):
            break
    await _end(driver, STEP_LIMIT_SCENARIO, "abort_execution", agent, execution)


async def _approval(driver: Driver) -> None:
    """An action the patterns say needs approval; where it pauses, the agent confirms it itself and
    reports it again."""
    agent = driver.agent(5)
    execution = await _start(driver, APPROVAL_SCENARIO, agent)
    if execution is None:
        return
    hint = driver.hint("requiresapproval")
    directive = directive_of(await _step(driver, APPROVAL_SCENARIO, "needs_approval", agent, hint,
                                         execution=execution))  # fmt: skip
    if directive is not None and directive.get("continue") is False and "confirm_operation" in driver.ops:
        params = driver.params("confirm_operation", element_name=agent, operation=hint, execution_id=execution or None)
        await driver.call(APPROVAL_SCENARIO, "self_confirm", "confirm_operation", params, agent)
        await _step(driver, APPROVAL_SCENARIO, "after_confirm", agent, hint, execution=execution)
    await _end(driver, APPROVAL_SCENARIO, "abort_execution", agent, execution)


async def _verify(driver: Driver) -> None:
    """A risky action, reported twice; then wrong codes for its challenge (core §8.8.5)."""
    agent = driver.agent(6)
    execution = await _start(driver, VERIFY_SCENARIO, agent)
    if execution is None:
        return
    challenge = challenge_of(directive_of(await _step(driver, VERIFY_SCENARIO, "risky", agent, RISKY,
                                                      execution=execution)))  # fmt: skip
    await _step(driver, VERIFY_SCENARIO, "again", agent, RISKY, execution=execution)
    if challenge is not None and "verify_challenge" in driver.ops:
        params = driver.params("verify_challenge", challenge_id=challenge, code=WRONG_CODE)
        for _ in range(WRONG_CODES):
            await driver.call(VERIFY_SCENARIO, "wrong_code", "verify_challenge", params, agent)
    await _end(driver, VERIFY_SCENARIO, "abort_execution", agent, execution)


async def _expiry(driver: Driver) -> None:
    """Where the server documents a challenge timeout capture can wait out: a risky action, the
    wait, then the same action again (core §8.8.2, §8.8.3)."""
    timeout = challenge_timeout(driver.documented)
    if timeout is None or timeout > MAX_WAIT:
        return
    agent = driver.agent(7)
    execution = await _start(driver, EXPIRY_SCENARIO, agent)
    if execution is None:
        return
    directive = directive_of(await _step(driver, EXPIRY_SCENARIO, "risky", agent, RISKY, execution=execution))
    if challenge_of(directive) is not None:
        await anyio.sleep(timeout + 0.5)
        await _step(driver, EXPIRY_SCENARIO, "after_expiry", agent, RISKY, execution=execution)
    await _end(driver, EXPIRY_SCENARIO, "abort_execution", agent, execution)


async def _deny(driver: Driver) -> None:
    """A second agent runs while the first reports a denied action; then each reports a step, and the
    blocked one starts a new execution. Last: a block may outlive the run (core §8.8.3)."""
    blocked, bystander = driver.agent(8), driver.agent(9)
    other = await _start(driver, DENY_SCENARIO, bystander, "start_bystander") if blocked != bystander else None
    execution = await _start(driver, DENY_SCENARIO, blocked)
    if execution is None:
        return
    denied = directive_of(await _step(driver, DENY_SCENARIO, "denied", blocked, driver.hint("deny"),
                                      execution=execution))  # fmt: skip
    if denied is not None and denied.get("stopped") is True:
        driver.live.left["blocked"] = blocked
    if other is not None:
        await _step(driver, DENY_SCENARIO, "bystander_step", bystander, BENIGN, execution=other)
    await _step(driver, DENY_SCENARIO, "after_block", blocked, BENIGN, execution=execution)
    await _start(driver, DENY_SCENARIO, blocked, "new_execution")
    if other is not None:
        await _end(driver, DENY_SCENARIO, "complete_execution", bystander, other)


async def _session(driver: Driver) -> None:
    """An execution left running as the connection ends, for the next connection to find (core §2.3.3)."""
    agent = driver.agent(10)
    execution = await _start(driver, SESSION_SCENARIO, agent)
    if execution is not None:
        await _step(driver, SESSION_SCENARIO, "step", agent, BENIGN, execution=execution)
        session = session_id(protocol_of(driver.live.evidence.operations_list))
        driver.live.left |= {"agent": agent, "execution": execution, **({"session": session} if session else {})}


async def probe_new_session(live: Live, left: JsonObject, restarted: bool) -> None:
    """On a second connection, once the first ended (a restart, for a server started by command): the
    hard-blocked agent starts an execution (core §8.8.3: the block persists across restarts), and the
    execution the first session left running takes a step (core §2.3.3: it ends with its session)."""
    ops = {op.name: op for op in live.operations if op.name in LOOP_OPERATIONS}  # json: names of ours
    driver = Driver(live, ops, {}, sent=10_000, marks={"restarted": restarted})
    if isinstance(left.get("blocked"), str):
        await _start(driver, SESSION_SCENARIO, left["blocked"], "restart_blocked")
    if isinstance(left.get("agent"), str):
        await _step(driver, SESSION_SCENARIO, "old_execution", left["agent"], BENIGN, execution=left.get("execution"))
    if isinstance(left.get("agent"), str) and isinstance(left.get("session"), str):  # core §2.3.5: a label only
        await _step(driver, SESSION_SCENARIO, "old_execution_claimed", left["agent"], BENIGN,
                    execution=left.get("execution"), meta={"session_id": left["session"]})  # fmt: skip


SCENARIOS: tuple[Callable[[Driver], Any], ...] = (
    _cancel, _failure, _step_limit, _approval, _verify, _expiry, _deny, _session
)  # fmt: skip
SCENARIO_NAMES: tuple[str, ...] = get_args(ExecutionScenario)
