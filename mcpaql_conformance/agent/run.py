"""run_agent(options): connect to the server as capture does, learn its operations, let the
models (or each scenario) drive it through its MCP tools, and write the evidence.

Runs are independent: up to ``concurrency`` runs of each model go at once over the one MCP
session, every model side by side, each model's started in plan order (task by task, run by
run; scenarios after them, one at a time). Every model runs the same tasks and runs; each run
names its model. The bundle is rewritten after every finished run, in plan order whatever
order they finish in, and marked incomplete until the last is in; a signal, the overall limit,
a model that stops answering or the token budget leaves it holding every finished run, and
``resume`` runs only the rest."""

from __future__ import annotations

import datetime as dt
import functools
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio
import orjson

from mcpaql_conformance import __version__
from mcpaql_conformance.agent.budget import BudgetReached, Stops
from mcpaql_conformance.agent.endpoints import AgentError, Endpoint
from mcpaql_conformance.agent.evidence import (
    NO_MODEL,
    BundleWriter,
    Planned,
    RunKey,
    Transcripts,
    existing_bundle,
    finished_runs,
    new_bundle,
    run_entry,
    scenario_entry,
    task_entry,
)
from mcpaql_conformance.agent.judge import judge_run
from mcpaql_conformance.agent.loop import SYSTEM, RunRecord, ToolCaller, run_model
from mcpaql_conformance.agent.preflight import Unusable, check_models, tool_list_tokens
from mcpaql_conformance.agent.providers import Provider, open_provider
from mcpaql_conformance.agent.resume import NothingToResume, Resume, models_of, resumed
from mcpaql_conformance.agent.scenario import Scenario, load_scenario, run_scenario
from mcpaql_conformance.agent.tasks import OperationView, Task, builtin_tasks, load_tasks
from mcpaql_conformance.errors import ConfigError, InternalError
from mcpaql_conformance.files.jsonio import make_folder
from mcpaql_conformance.live.changes import change_entries
from mcpaql_conformance.live.connection import CaptureError, CaptureStopped, Target, connect, server_log
from mcpaql_conformance.live.discovery import describe_operations, discover_tools, introspect
from mcpaql_conformance.live.guard import Guard
from mcpaql_conformance.live.levels import Permission
from mcpaql_conformance.live.plan import Plan
from mcpaql_conformance.live.records import RecordWriter
from mcpaql_conformance.live.redact import Redactor
from mcpaql_conformance.live.session import Live
from mcpaql_conformance.live.signals import Stop
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.secrecy import masked_url

OVERALL_SECONDS_PER_RUN = 600  # a whole run (every turn and call) may take this long
# Runs at once: hosted APIs serve many requests at a time; a local model server that serves one
# at a time (llama-cpp-python's, llama.cpp's without --parallel) gains nothing: give it 1.
DEFAULT_CONCURRENCY = 4


@dataclass(frozen=True)
class AgentOptions:
    target: Target
    bundle: Path
    models: tuple[Endpoint, ...] = ()  # every model runs every task
    targets: tuple[str, ...] = ()  # the models (by name) whose runs decide the verdict; none: every model
    unusable: tuple[Unusable, ...] = ()  # models the preflight could not use (their runs are skipped)
    judge: Endpoint | None = None
    tasks: Path | None = None
    scenarios: tuple[Path, ...] = ()
    builtin: bool = True
    builtin_kinds: tuple[str, ...] | None = None  # only these built-in tasks (a preset's); None: all
    runs: int = 3
    min_pass_rate: float = 0.8
    max_turns: int = 8
    transcripts: Path | None = Path("transcripts")
    permission: Permission = Permission.READ_ONLY
    timeout: float = 20.0
    preflight: bool = True  # check each model endpoint first (False: done already, as check --agent does)
    concurrency: int = DEFAULT_CONCURRENCY  # runs of each model at once
    max_tokens_total: int | None = None  # the token budget (model and judge, in and out)
    max_tokens_per_model: int | None = None  # each model's own budget (its runs, in and out)
    prices: dict[str, dict[str, Any]] = field(default_factory=dict)  # by model name, as the bundle records them
    resume: bool = False  # continue the incomplete agent runs in ``bundle``
    bundle_kept: bool = True  # False: ``bundle`` is a scratch file (check --agent without --bundle)


@dataclass
class AgentResult:
    bundle: dict[str, Any]
    transcripts: Path | None
    runs: int  # runs recorded by this invocation
    skipped: list[str] = field(default_factory=list)  # built-in tasks that did not apply, and why
    warnings: list[str] = field(default_factory=list)
    incomplete: str | None = None  # the evidence is incomplete (the token budget): why, and what is kept
    said: list[str] = field(default_factory=list)  # what a resumed invocation found


@dataclass
class _Plan:
    """What the options ask for, checked before any server is started."""

    tasks: list[Task]
    scenarios: list[Scenario]
    models: dict[str, Provider]  # by name, in the order given
    judge: Provider | None
    unused: list[Provider] = field(default_factory=list)  # the providers of models the preflight could not use


def run_agent(options: AgentOptions, progress: Callable[[str], None] = lambda line: None) -> AgentResult:
    """Run every task and scenario; a CaptureError/AgentError (exit 3) when it cannot."""
    if not options.models and not options.scenarios:
        raise AgentError("give --model PROVIDER:MODEL to run tasks with a model, or --scenario FILE to play one")
    if options.judge is not None and not options.models:
        raise AgentError("--judge grades model runs: give --model too")
    if options.runs < 1 or options.max_turns < 1 or not 0 <= options.min_pass_rate <= 1:
        raise AgentError("--runs and --max-turns must be at least 1, --min-pass-rate between 0 and 1")
    budgets = (options.max_tokens_total, options.max_tokens_per_model)
    if options.concurrency < 1 or any(budget is not None and budget < 1 for budget in budgets):
        raise AgentError("--concurrency, --max-tokens-total and --max-tokens-per-model must be at least 1")
    planned = _plan(options)
    _check_outputs(options)
    try:
        resume, said = _resumed(options)
    except NothingToResume as done:
        anyio.run(_close, planned)
        return AgentResult(done.bundle, None, 0, said=[str(done)])
    for line in said:
        progress(line)
    if options.preflight:  # every endpoint answers before any server starts or any run is paid for
        options = usable_models(options, progress)
    usable = _names(options.models)
    planned.unused = [provider for name, provider in planned.models.items() if name not in usable]
    planned.models = {name: planned.models[name] for name in usable}  # the others: skipped (closed at the end)
    stop = Stop()
    result: list[AgentResult] = []
    kept: list[Transcripts] = []  # the run's transcripts, once its folder is known
    writers: list[BundleWriter] = []  # the bundle's writer, once the runs are planned
    existed = Path(os.path.realpath(options.bundle)).is_file()
    model_runs = options.runs * (len(planned.tasks) + 4) * max(1, len(options.models))
    limit = OVERALL_SECONDS_PER_RUN * (model_runs + len(planned.scenarios) + 1)

    async def main() -> None:
        try:
            with stop.on_signals(), anyio.fail_after(limit):
                result.append(await _agent(options, planned, progress, kept, writers, resume))
        finally:
            with anyio.CancelScope(shield=True):
                await _close(planned)

    failure: ConfigError | InternalError | None = None
    try:
        anyio.run(main)
    except TimeoutError:
        failure = AgentError(f"the agent runs did not finish within {limit} s")
    except (ConfigError, InternalError) as exc:  # the model or the server could not go on (exit 3), or ours (70)
        failure = exc
    writer = writers[0] if writers else None
    if stop.signal is not None:
        import signal

        reason = f"stopped by {signal.Signals(stop.signal).name}"
        kept_runs = _kept(options, writer, reason)
        written = kept_runs or _bundle_unchanged(options.bundle, existed, resume is not None)
        raise AgentStopped(stop.signal, _transcripts_written(options, kept), written, kept_runs)
    if failure is not None:
        kept_runs = _kept(options, writer, plain(str(failure), max_len=300))
        if kept_runs is not None:
            failure.args = (f"{failure}; {kept_runs}",)
        raise failure
    return result[0]


def usable_models(options: AgentOptions, progress: Callable[[str], None]) -> AgentOptions:
    """The options with only the models the preflight could use (each endpoint asked once); the
    others are said and kept as ``unusable``. An AgentError (exit 3) when none can be used, or the
    judge cannot."""
    usable, unusable = check_models(options.models, options.judge, progress)
    return replace(options, models=tuple(usable), unusable=(*options.unusable, *unusable), preflight=False)


def _names(models: tuple[Endpoint, ...]) -> list[str]:
    return [model.name for model in models]


async def _close(planned: _Plan) -> None:
    for provider in (*planned.models.values(), *planned.unused, planned.judge):
        if provider is not None:
            await provider.aclose()


def _kept(options: AgentOptions, writer: BundleWriter | None, reason: str) -> str | None:
    """After an interruption: the bundle rewritten with its finished runs, marked incomplete
    with ``reason``, and what that means; None when no run of this invocation had finished (the
    bundle is as it was)."""
    if writer is None or writer.written is None:
        return None
    if writer.complete:  # stopped after the last run was in (while the server was being stopped)
        where = f"in {plain(str(options.bundle))}" if options.bundle_kept else "not kept (give --bundle FILE)"
        return f"all {writer.planned_runs} agent run(s) had finished: they are {where}"
    writer.write(reason)
    return _incomplete_line(options, writer)


def _incomplete_line(options: AgentOptions, writer: BundleWriter) -> str:
    counts = f"{writer.finished_runs} of {writer.planned_runs} agent run(s) had finished"
    if not options.bundle_kept:
        return f"{counts}; the agent evidence was not kept (give --bundle FILE to keep it)"
    where = plain(str(options.bundle))
    return f"{counts}: they are in {where}, marked incomplete (agent --resume --bundle {where} runs the rest)"


def _resumed(options: AgentOptions) -> tuple[Resume | None, list[str]]:
    """With ``resume``: the incomplete invocation in the bundle (see ``agent/resume.py``)."""
    if not options.resume:
        return None, []
    now: dict[str, Any] = {
        "models": _names(options.models) + [gone.model.name for gone in options.unusable],
        "judge": str(options.judge.spec) if options.judge else None,
        "runs": options.runs,
        "max_turns": options.max_turns,
    }
    return resumed(options.bundle, now)


class AgentStopped(CaptureStopped):
    """A signal stopped the agent runs (exit 128 + N): the server was stopped, and the message
    says what was written: the bundle with every run that had finished, marked incomplete (or
    that no run had finished), and their transcripts. ``saying`` puts another account of the
    bundle in (`check --agent`'s); ``kept_runs`` says which runs the bundle keeps (None: none)."""

    def __init__(self, number: int, transcripts: str, bundle: str, kept_runs: str | None = None) -> None:
        import signal

        super().__init__(number)
        self.number, self.transcripts, self.kept_runs = number, transcripts, kept_runs
        name = signal.Signals(number).name
        self.args = (f"stopped by {name} during the agent runs: the server was stopped; {bundle}; {transcripts}",)

    def saying(self, bundle: str) -> AgentStopped:
        return AgentStopped(self.number, self.transcripts, bundle, self.kept_runs)


def _bundle_unchanged(path: Path, existed: bool, resumed: bool = False) -> str:
    if resumed:
        return f"no further run had finished: {plain(str(path))} is as it was, incomplete (--resume goes on)"
    if existed:
        return f"no run had finished: {plain(str(path))} is as it was"
    return f"no run had finished: no bundle was written ({plain(str(path))} was not created)"


def _transcripts_written(options: AgentOptions, kept: list[Transcripts]) -> str:
    written = sum(transcripts.written for transcripts in kept)
    if options.transcripts is None:
        return "no transcript is kept"
    if not written or kept[0].folder is None:
        return "no run had finished, so no transcript was written"
    return f"the transcripts of the {written} run(s) that finished are in {plain(str(kept[0].folder))}"


def _plan(options: AgentOptions) -> _Plan:
    for endpoint in (*options.models, options.judge):  # keys kept from the server, registered, their way checked
        if endpoint is not None:
            endpoint.prepare()
    tasks = load_tasks(options.tasks) if options.tasks is not None else []
    scenarios = [load_scenario(path) for path in options.scenarios]
    names = [task.name for task in tasks] + [scenario.name for scenario in scenarios]
    duplicated = sorted({name for name in names if names.count(name) > 1})
    if duplicated:
        raise AgentError(f"two tasks or scenarios are named {duplicated[0]!r}: every test needs its own name")
    models = {model.name: open_provider(model) for model in options.models}
    judge = open_provider(options.judge) if options.judge is not None else None
    return _Plan(tasks, scenarios, models, judge)


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
    options: AgentOptions,
    planned: _Plan,
    progress: Callable[[str], None],
    kept: list[Transcripts],
    writers: list[BundleWriter],
    resume: Resume | None,
) -> AgentResult:
    started = dt.datetime.now(dt.UTC)
    redactor = Redactor()
    for endpoint in (*options.models, *(gone.model for gone in options.unusable), options.judge):
        for secret in endpoint.secrets if endpoint is not None else []:
            redactor.add_secret(secret)
    stamp = f"{started.strftime('%Y%m%dT%H%M%S')}{started.microsecond // 1000:03d}Z-{os.getpid()}"
    warnings: list[str] = []
    with server_log() as errlog:
        try:
            guard = Guard(options.permission)
            async with connect(options.target, options.timeout, errlog, warnings, guard) as connection:
                live = Live(connection, RecordWriter(None, stamp), redactor, Plan())
                views = await _discover(live)
                tasks, skipped = list(planned.tasks), list[str]()
                if planned.models and options.builtin:
                    builtins, skipped = builtin_tasks(views)
                    if options.builtin_kinds is not None:  # a preset's choice (quick)
                        builtins = [task for task in builtins if task.kind in options.builtin_kinds]
                        skipped = [why for why in skipped if why.split(":")[0] in options.builtin_kinds]
                    tasks = builtins + tasks
                server = dict(connection.server)
                implementation = str(server.get("name") or "server")
                by_model = len(planned.models) > 1
                transcripts = Transcripts(options.transcripts, stamp, implementation, redactor, by_model)
                kept.append(transcripts)
                caller = ToolCaller(connection, list(live.tools))
                tools = live.evidence.mcp_tools or []
                first = next(iter(planned.models.values()), None)  # measured with the first model's tokenizer
                tool_tokens = await tool_list_tokens(first, tools) if first is not None and tasks else None
                info = _run_info(options, planned, tasks, skipped, tools, started)
                info["tool_list"]["tokens"] = tool_tokens  # measured once (agent/preflight.py); None: not reported
                writer = _writer(options, tasks, planned.scenarios, info, server, redactor, resume)
                if options.permission > Permission.READ_ONLY:  # what the model's calls may have changed
                    writer.changes = lambda: change_entries(guard.changes, redactor, "agent")
                writers.append(writer)
                budgets = Stops(options.max_tokens_total, options.max_tokens_per_model, planned.models, planned.judge)
                for gone in options.unusable:  # a resumed model that cannot be used this time
                    if any(gone.model.name in test.models for test in writer.planned):
                        budgets.gone[gone.model.name] = gone.reason
                metered_plan = replace(planned, models=budgets.models, judge=budgets.judge)
                await _run_tasks(options, metered_plan, tasks, caller, tools, transcripts, writer, progress, budgets)
                await _run_scenarios(planned.scenarios, caller, transcripts, writer, progress)
        except CaptureError as exc:
            raise CaptureError(redactor.text(str(exc))) from None
    incomplete = None if writer.complete else budgets.reason
    bundle = writer.write(incomplete)
    if incomplete is not None:
        incomplete = f"stopped: {incomplete}; {_incomplete_line(options, writer)}"
    return AgentResult(bundle, transcripts.folder, writer.recorded, skipped, redactor.value(warnings), incomplete)


def _writer(
    options: AgentOptions,
    tasks: list[Task],
    scenarios: list[Scenario],
    info: dict[str, Any],
    server: dict[str, Any],
    redactor: Redactor,
    resume: Resume | None,
) -> BundleWriter:
    """The bundle's writer with every run planned (a resumed invocation's finished runs in)."""
    if resume is not None:
        base, done = resume.base, resume.data
        info = {**info, "resumed_from": resume.entry.get("date")}
    else:
        path = Path(os.path.realpath(options.bundle))
        base, done = (existing_bundle(path) if path.is_file() else new_bundle(server)), {}
    writer = BundleWriter(options.bundle, base, info, redactor)
    names = tuple(_names(options.models)) + _kept_models(options, resume)
    before = models_of(resume.entry) if resume is not None else list(names)
    default = before[0] if len(before) == 1 else NO_MODEL  # a resumed run of old named no model
    for task in tasks if names else []:
        count = task.runs or options.runs
        finished = finished_runs(done, task.name, default)
        runs = {key: run for key, run in finished.items() if _kept_run(key, names, count)}
        entry = functools.partial(_task_entry, task, options.min_pass_rate, options.targets)
        writer.plan(Planned(task.name, count, entry, runs, names))
    for scenario in scenarios:
        runs = {key: run for key, run in finished_runs(done, scenario.name).items() if key == (NO_MODEL, 1)}
        writer.plan(Planned(scenario.name, 1, functools.partial(_scenario_entry, scenario), runs))
    return writer


def _kept_models(options: AgentOptions, resume: Resume | None) -> tuple[str, ...]:
    """The models a resumed invocation ran that cannot be used this time: their finished runs are
    kept and their missing runs stay missing (a later --resume runs them)."""
    ran = models_of(resume.entry) if resume is not None else []
    return tuple(gone.model.name for gone in options.unusable if gone.model.name in ran)


def _kept_run(key: RunKey, models: tuple[str, ...], count: int) -> bool:
    """Whether a finished run of a resumed invocation is one this invocation plans."""
    return key[0] in models and 1 <= key[1] <= count


def _task_entry(
    task: Task, min_pass_rate: float, targets: tuple[str, ...], runs: list[dict[str, Any]]
) -> dict[str, Any]:
    entry = task_entry(task, runs, min_pass_rate)
    if targets:
        entry["targetModels"] = list(targets)
    return entry


def _scenario_entry(scenario: Scenario, runs: list[dict[str, Any]]) -> dict[str, Any]:
    return scenario_entry(scenario, runs[0])


async def _discover(live: Live) -> list[OperationView]:
    """The server's operations, read as capture reads them (with every declaration's danger)."""
    if not await discover_tools(live):
        return []
    names = await introspect(live)
    operations = await describe_operations(live, names) if names else []
    return [OperationView(op.name, op.category, op.parameters, live.allows(op.need)) for op in operations]


async def _run_tasks(
    options: AgentOptions,
    planned: _Plan,
    tasks: list[Task],
    caller: ToolCaller,
    tools: list[dict[str, Any]],
    transcripts: Transcripts,
    writer: BundleWriter,
    progress: Callable[[str], None],
    budgets: Stops,
) -> None:
    """Every task's missing runs of every model: each model's runs up to ``options.concurrency`` at
    once, in plan order, every model side by side (their endpoints are independent: N models take
    about the time of one when the server is not the bottleneck); each finished run goes into
    the bundle at once. The first error that ends the agent (a model that stops answering) stops
    the others; a token budget stops the runs it meters at their next turn (a model's own: that
    model's alone)."""
    if not planned.models:
        return
    counts = {planned.name: planned.count for planned in writer.planned}
    by_name = {test.name: test for test in writer.planned}
    jobs: dict[str, list[tuple[Task, int]]] = {}
    for task in tasks:
        for model, index in by_name[task.name].missing:
            if model in planned.models:  # a resumed model that cannot be used this time: its runs stay missing
                transcripts.reserve(task.name, index, model)  # named in plan order, whatever order they finish in
                jobs.setdefault(model, []).append((task, index))
    failures: list[Exception] = []
    stopped: set[str] = set()  # models whose budget is spent
    several = len(planned.models) > 1

    async def worker(model: str, queue: Iterator[tuple[Task, int]], scope: anyio.CancelScope) -> None:
        for task, index in queue:
            if model in stopped or budgets.total.reached:
                return
            try:
                record = await _one_run(options, planned, task, index, model, caller, tools)
                writer.finished(task.name, (model, index), run_entry(record, transcripts.write(record)))
                writer.write()
            except BudgetReached:
                stopped.add(model)
                return
            except AgentError as exc:  # this model cannot go on: the others do, when there are others
                if several:
                    budgets.gone.setdefault(model, plain(str(exc), max_len=300))
                    stopped.add(model)
                    return
                failures.append(exc)
                scope.cancel()
                return
            except Exception as exc:  # the agent ends: the runs in flight are stopped
                failures.append(exc)
                scope.cancel()
                return
            progress(_progress(task.name, index, counts[task.name], record, several))

    async with anyio.create_task_group() as group:
        for model, mine in jobs.items():
            queue = iter(mine)  # shared by the model's workers
            for _ in range(min(options.concurrency, len(mine))):
                group.start_soon(worker, model, queue, group.cancel_scope)
    if failures:
        raise failures[0]
    if jobs and all(model in budgets.gone for model in jobs):  # no model could go on: as one model's failure
        raise AgentError("; ".join(f"{model}: {why}" for model, why in budgets.gone.items()))


async def _one_run(
    options: AgentOptions,
    planned: _Plan,
    task: Task,
    index: int,
    model: str,
    caller: ToolCaller,
    tools: list[dict[str, Any]],
) -> RunRecord:
    """One run of a task by one model: the model's turns, then the judge's verdict."""
    provider = planned.models[model]
    record = RunRecord(task=task.name, run=index, input=task.input, model=model, started=time.time())
    record.endpoint = masked_url(provider.endpoint.url)
    began = time.perf_counter()
    conversation = provider.conversation(SYSTEM, task.input, tools)
    await run_model(conversation, caller, record, options.max_turns, task.induce_error_on)
    if planned.judge is not None and task.intent is not None:
        record.judge = await judge_run(planned.judge, task, record)
    record.wall_seconds = time.perf_counter() - began
    return record


async def _run_scenarios(
    scenarios: list[Scenario],
    caller: ToolCaller,
    transcripts: Transcripts,
    writer: BundleWriter,
    progress: Callable[[str], None],
) -> None:
    """The scenarios not played yet, one after another (they use no model, so no budget)."""
    played = {planned.name for planned in writer.planned if not planned.missing}
    for scenario in scenarios:
        if scenario.name in played:
            continue
        record = await run_scenario(scenario, caller)
        writer.finished(scenario.name, (NO_MODEL, 1), run_entry(record, transcripts.write(record)))
        writer.write()
        progress(_progress(scenario.name, 1, 1, record))


def _progress(name: str, index: int, count: int, record: RunRecord, by_model: bool = False) -> str:
    ended = "answered" if record.completed else f"no answer ({record.error['message'] if record.error else 'stopped'})"
    verdict = f", judge: {record.judge['verdict']}" if record.judge else ""
    whose = f" ({plain(record.model)})" if by_model and record.model else ""
    return (
        f"{plain(name)} run {index}/{count}{whose}: {len(record.turns)} turn(s), {len(record.calls)} call(s),"
        f" {ended}{verdict}"
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
        "model": str(options.models[0].spec) if len(options.models) == 1 else None,
        "base_url": masked_url(options.models[0].base_url or "") or None if len(options.models) == 1 else None,
        "models": [_model_info(model, options.targets, options.prices.get(model.name)) for model in options.models],
        "judge": str(options.judge.spec) if options.judge is not None else None,
        "runs": options.runs,
        "max_turns": options.max_turns,
        "concurrency": options.concurrency,
        "min_pass_rate": options.min_pass_rate,
        "transport": options.target.transport,
        "permission": options.permission.label,
        "allow_destructive": options.permission is Permission.DESTRUCTIVE,
        "tool_list": {"tools": len(tools), "characters": len(orjson.dumps(tools))},
        "tasks": [task.name for task in tasks],
        "scenarios": [scenario.name for scenario in planned.scenarios],
        "not_applicable": skipped,
        **({"unusable": [gone.evidence() for gone in options.unusable]} if options.unusable else {}),
        **({"target_models": list(options.targets)} if options.targets else {}),
    }


def _model_info(model: Endpoint, targets: tuple[str, ...], price: dict[str, Any] | None) -> dict[str, Any]:
    """What the bundle says of a model that ran: its name, provider, endpoint (credentials
    masked; the provider's own API when none was given), whether it decides the verdict, and its
    price where the prices file gave one."""
    info: dict[str, Any] = {
        "model": model.name,
        "provider": model.spec.provider,
        "name": model.spec.model,
        "endpoint": masked_url(model.url),
        "target": not targets or model.name in targets,
    }
    if price is not None:
        info["price"] = price
    return info
