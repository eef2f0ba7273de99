"""run_agent(options): connect to the server as capture does, learn its operations, let the
model (or each scenario) drive it through its MCP tools, and write the evidence."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import orjson

from mcpaql_conformance import __version__
from mcpaql_conformance.agent.evidence import (
    Transcripts,
    existing_bundle,
    run_entry,
    scenario_entry,
    task_entry,
    write_bundle,
)
from mcpaql_conformance.agent.judge import judge_run
from mcpaql_conformance.agent.loop import SYSTEM, RunRecord, ToolCaller, run_model
from mcpaql_conformance.agent.providers import AgentError, Endpoint, Provider, open_provider
from mcpaql_conformance.agent.scenario import Scenario, load_scenario, run_scenario
from mcpaql_conformance.agent.tasks import OperationView, Task, builtin_tasks, load_tasks
from mcpaql_conformance.capture.connection import CaptureError, CaptureStopped, Target, connect, server_log
from mcpaql_conformance.capture.discovery import describe_operations, discover_tools, introspect
from mcpaql_conformance.capture.live import Live
from mcpaql_conformance.capture.plan import Plan
from mcpaql_conformance.capture.records import RecordWriter
from mcpaql_conformance.capture.redact import Redactor
from mcpaql_conformance.capture.signals import Stop
from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.jsonio import make_folder
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.secrecy import masked_url

OVERALL_SECONDS_PER_RUN = 600  # a whole run (every turn and call) may take this long


@dataclass(frozen=True)
class AgentOptions:
    target: Target
    bundle: Path
    model: Endpoint | None = None
    judge: Endpoint | None = None
    tasks: Path | None = None
    scenarios: tuple[Path, ...] = ()
    builtin: bool = True
    runs: int = 3
    min_pass_rate: float = 0.8
    max_turns: int = 8
    transcripts: Path | None = Path("transcripts")
    allow_destructive: bool = False
    timeout: float = 20.0


@dataclass
class AgentResult:
    bundle: dict[str, Any]
    transcripts: Path | None
    runs: int
    skipped: list[str] = field(default_factory=list)  # built-in tasks that did not apply, and why
    warnings: list[str] = field(default_factory=list)


@dataclass
class _Plan:
    """What the options ask for, checked before any server is started."""

    tasks: list[Task]
    scenarios: list[Scenario]
    model: Provider | None
    judge: Provider | None


def run_agent(options: AgentOptions, progress: Callable[[str], None] = lambda line: None) -> AgentResult:
    """Run every task and scenario; a CaptureError/AgentError (exit 3) when it cannot."""
    if options.model is None and not options.scenarios:
        raise AgentError("give --model PROVIDER:MODEL to run tasks with a model, or --scenario FILE to play one")
    if options.judge is not None and options.model is None:
        raise AgentError("--judge grades model runs: give --model too")
    if options.runs < 1 or options.max_turns < 1 or not 0 <= options.min_pass_rate <= 1:
        raise AgentError("--runs and --max-turns must be at least 1, --min-pass-rate between 0 and 1")
    planned = _plan(options)
    _check_outputs(options)
    stop = Stop()
    result: list[AgentResult] = []
    kept: list[Transcripts] = []  # the run's transcripts, once its folder is known
    existed = Path(os.path.realpath(options.bundle)).is_file()
    limit = OVERALL_SECONDS_PER_RUN * (options.runs * (len(planned.tasks) + 4) + len(planned.scenarios) + 1)

    async def main() -> None:
        try:
            with stop.on_signals(), anyio.fail_after(limit):
                result.append(await _agent(options, planned, progress, kept))
        finally:
            for provider in (planned.model, planned.judge):
                if provider is not None:
                    with anyio.CancelScope(shield=True):
                        await provider.aclose()

    try:
        anyio.run(main)
    except TimeoutError:
        raise AgentError(f"the agent runs did not finish within {limit} s") from None
    if stop.signal is not None:
        raise AgentStopped(stop.signal, _transcripts_written(options, kept), _bundle_unchanged(options.bundle, existed))
    return result[0]


class AgentStopped(CaptureStopped):
    """A signal stopped the agent runs (exit 128 + N): the server was stopped, and the message
    says what was written (the transcripts of the runs that finished) and what was not (the
    agent evidence). ``saying`` puts another account of the bundle in (`check --agent`'s)."""

    def __init__(self, number: int, transcripts: str, bundle: str) -> None:
        import signal

        super().__init__(number)
        self.number, self.transcripts = number, transcripts
        name = signal.Signals(number).name
        self.args = (f"stopped by {name} during the agent runs: the server was stopped; {bundle}; {transcripts}",)

    def saying(self, bundle: str) -> AgentStopped:
        return AgentStopped(self.number, self.transcripts, bundle)


def _bundle_unchanged(path: Path, existed: bool) -> str:
    if existed:
        return f"the agent evidence was not added to {plain(str(path))}, which is as it was"
    return f"no bundle was written ({plain(str(path))} was not created)"


def _transcripts_written(options: AgentOptions, kept: list[Transcripts]) -> str:
    written = sum(transcripts.written for transcripts in kept)
    if options.transcripts is None:
        return "no transcript is kept"
    if not written or kept[0].folder is None:
        return "no run had finished, so no transcript was written"
    return f"the transcripts of the {written} run(s) that finished are in {plain(str(kept[0].folder))}"


def _plan(options: AgentOptions) -> _Plan:
    for endpoint in (options.model, options.judge):  # keys kept from the server, registered, their way checked
        if endpoint is not None:
            endpoint.prepare()
    tasks = load_tasks(options.tasks) if options.tasks is not None else []
    scenarios = [load_scenario(path) for path in options.scenarios]
    names = [task.name for task in tasks] + [scenario.name for scenario in scenarios]
    duplicated = sorted({name for name in names if names.count(name) > 1})
    if duplicated:
        raise AgentError(f"two tasks or scenarios are named {duplicated[0]!r}: every test needs its own name")
    model = open_provider(options.model) if options.model is not None else None
    judge = open_provider(options.judge) if options.judge is not None else None
    return _Plan(tasks, scenarios, model, judge)


def _check_outputs(options: AgentOptions) -> None:
    target = Path(os.path.realpath(options.bundle))
    if target.is_dir():
        raise CaptureError(f"--bundle {plain(str(options.bundle))}: is a directory, expected a file")
    try:
        make_folder(target.parent, f"--bundle {plain(str(options.bundle))}")
        if options.transcripts is not None:
            make_folder(options.transcripts, f"--transcripts {plain(str(options.transcripts))}")
    except ConfigError as exc:
        raise CaptureError(str(exc)) from None
    if target.is_file():  # evidence joins it: one `test` would refuse is refused now, not after the runs
        existing_bundle(target)


async def _agent(
    options: AgentOptions, planned: _Plan, progress: Callable[[str], None], kept: list[Transcripts]
) -> AgentResult:
    started = dt.datetime.now(dt.UTC)
    redactor = Redactor()
    for endpoint in (options.model, options.judge):
        for secret in endpoint.secrets if endpoint is not None else []:
            redactor.add_secret(secret)
    stamp = f"{started.strftime('%Y%m%dT%H%M%S')}{started.microsecond // 1000:03d}Z-{os.getpid()}"
    warnings: list[str] = []
    with server_log() as errlog:
        try:
            async with connect(options.target, options.timeout, errlog, warnings) as connection:
                live = Live(connection, RecordWriter(None, stamp), redactor, Plan(), options.allow_destructive)
                views = await _discover(live)
                tasks, skipped = list(planned.tasks), list[str]()
                if planned.model is not None and options.builtin:
                    builtins, skipped = builtin_tasks(views, options.allow_destructive)
                    tasks = builtins + tasks
                server = dict(connection.server)
                transcripts = Transcripts(options.transcripts, stamp, str(server.get("name") or "server"), redactor)
                kept.append(transcripts)
                caller = ToolCaller(
                    connection, list(live.tools), {v.name: v.destructive for v in views}, options.allow_destructive
                )
                tools = live.evidence.mcp_tools or []
                entries = await _run_tasks(options, planned, tasks, caller, tools, transcripts, progress)
                entries += await _run_scenarios(planned.scenarios, caller, transcripts, progress)
        except CaptureError as exc:
            raise CaptureError(redactor.text(str(exc))) from None
    info = _run_info(options, planned, tasks, skipped, tools, started)
    bundle = write_bundle(options.bundle, entries, info, server, redactor)
    runs = sum(len(entry["runs"]) for entry in entries)
    return AgentResult(bundle, transcripts.folder, runs, skipped, redactor.value(warnings))


async def _discover(live: Live) -> list[OperationView]:
    """The server's operations, read as capture reads them (with every declaration's danger)."""
    if not await discover_tools(live):
        return []
    names = await introspect(live)
    operations = await describe_operations(live, names) if names else []
    return [OperationView(op.name, op.category, op.parameters, op.destructive) for op in operations]


async def _run_tasks(
    options: AgentOptions,
    planned: _Plan,
    tasks: list[Task],
    caller: ToolCaller,
    tools: list[dict[str, Any]],
    transcripts: Transcripts,
    progress: Callable[[str], None],
) -> list[dict[str, Any]]:
    model, entries = planned.model, []
    if model is None:
        return []
    for task in tasks:
        runs = []
        count = task.runs or options.runs
        for index in range(1, count + 1):
            record = RunRecord(task=task.name, run=index, input=task.input)
            conversation = model.conversation(SYSTEM, task.input, tools)
            await run_model(conversation, caller, record, options.max_turns, task.induce_error_on)
            if planned.judge is not None and task.intent is not None:
                record.judge = await judge_run(planned.judge, task, record)
            runs.append(run_entry(record, transcripts.write(record)))
            progress(_progress(task.name, index, count, record))
        entries.append(task_entry(task, runs, options.min_pass_rate))
    return entries


async def _run_scenarios(
    scenarios: list[Scenario], caller: ToolCaller, transcripts: Transcripts, progress: Callable[[str], None]
) -> list[dict[str, Any]]:
    entries = []
    for scenario in scenarios:
        record = await run_scenario(scenario, caller)
        entries.append(scenario_entry(scenario, run_entry(record, transcripts.write(record))))
        progress(_progress(scenario.name, 1, 1, record))
    return entries


def _progress(name: str, index: int, count: int, record: RunRecord) -> str:
    ended = "answered" if record.completed else f"no answer ({record.error['message'] if record.error else 'stopped'})"
    verdict = f", judge: {record.judge['verdict']}" if record.judge else ""
    return (
        f"{plain(name)} run {index}/{count}: {len(record.turns)} turn(s), {len(record.calls)} call(s), {ended}{verdict}"
    )


def _run_info(
    options: AgentOptions,
    planned: _Plan,
    tasks: list[Task],
    skipped: list[str],
    tools: list[dict[str, Any]],
    started: dt.datetime,
) -> dict[str, Any]:
    return {
        "date": started.isoformat(timespec="seconds"),
        "tool": "mcpaql-conformance",
        "tool_version": __version__,
        "model": str(options.model.spec) if options.model is not None else None,
        "base_url": masked_url(options.model.base_url) if options.model and options.model.base_url else None,
        "judge": str(options.judge.spec) if options.judge is not None else None,
        "runs": options.runs,
        "max_turns": options.max_turns,
        "min_pass_rate": options.min_pass_rate,
        "transport": options.target.transport,
        "allow_destructive": options.allow_destructive,
        "tool_list": {"tools": len(tools), "characters": len(orjson.dumps(tools))},
        "tasks": [task.name for task in tasks],
        "scenarios": [scenario.name for scenario in planned.scenarios],
        "not_applicable": skipped,
    }
