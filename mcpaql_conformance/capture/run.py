"""capture(options) -> an evidence bundle written atomically, records and metrics beside it."""

from __future__ import annotations

import datetime as dt
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from mcpaql_conformance import SPEC_VERSION, __version__
from mcpaql_conformance.capture.calls import (
    LastProbe,
    last_probe,
    probe_batch,
    probe_confirmation_batch,
    probe_requests,
    probe_unknown_operation,
    run_examples,
)
from mcpaql_conformance.capture.candidates import SeenValues, documented_identifiers, names_existing
from mcpaql_conformance.capture.cleanup import clean_up
from mcpaql_conformance.capture.collections import probe_next_pages
from mcpaql_conformance.capture.configurations import probe_configurations
from mcpaql_conformance.capture.cycles import Inferred, infer_cycles, run_plan_cycles
from mcpaql_conformance.capture.dryrun import plan_run
from mcpaql_conformance.capture.plan_writer import write_plan
from mcpaql_conformance.capture.probes import Sent, read_probes, send_probes
from mcpaql_conformance.capture.retry import retry_refused, seen_values
from mcpaql_conformance.capture.safety import probe_safety_loop
from mcpaql_conformance.capture.sessions import Later, later_sessions
from mcpaql_conformance.capture.values import run_values
from mcpaql_conformance.errors import ConfigError, InternalError
from mcpaql_conformance.evidence import identifiers
from mcpaql_conformance.evidence.bundle import refusal
from mcpaql_conformance.evidence.configurations import planned as planned_starts
from mcpaql_conformance.evidence.reading import Readings, parameters_of, read_detail
from mcpaql_conformance.files.jsonio import dumps, make_folder, write_atomic
from mcpaql_conformance.files.vocabulary import FAILED, NOT_APPLICABLE
from mcpaql_conformance.live.changes import change_entries
from mcpaql_conformance.live.connection import (
    CaptureError,
    CaptureStopped,
    Target,
    connect,
    read_log,
    server_log,
)
from mcpaql_conformance.live.discovery import (
    Operation,
    ask_unknown_names,
    describe_operations,
    describe_types,
    discover_tools,
    introspect,
    introspect_types,
)
from mcpaql_conformance.live.guard import Guard
from mcpaql_conformance.live.levels import Permission
from mcpaql_conformance.live.plan import Plan, check_plan_operations, check_plan_switches, load_plan
from mcpaql_conformance.live.records import RecordWriter
from mcpaql_conformance.live.redact import SHORT_SECRET, Redactor
from mcpaql_conformance.live.session import Evidence, Live, gather, note
from mcpaql_conformance.live.signals import Stop
from mcpaql_conformance.sanitize import plain

OVERALL_FACTOR = 30  # the whole capture may take this many per-call timeouts (--overall-timeout)...
PER_OPERATION = 0.1  # ...and this many seconds more for every operation the server lists (a capture takes ~7 ms)


@dataclass(frozen=True)
class CaptureOptions:
    target: Target
    bundle: Path
    plan: Path | None = None
    capture_dir: Path | None = None
    timeout: float = 20.0
    permission: Permission = Permission.READ_ONLY
    concurrency: int = 4
    write_plan: Path | None = None
    overall_timeout: float | None = None  # None: OVERALL_FACTOR x timeout
    per_operation: float = PER_OPERATION
    dry_run: bool = False  # introspect only: list what would be sent and withheld, write no bundle
    cleanup: bool = False  # delete what the run created, at its end (needs --allow-destructive)
    configurations: bool = False  # start the server again under other configurations (capture/configurations.py)
    previous: dict[str, Any] | None = None  # an earlier capture's references (evidence/previous.py): previous_version


class OverallLimit:
    """The time the whole capture may take: a base, and an allowance for every operation the
    server lists, added once it has listed them (the work grows with them). When it ends a
    capture, ``message`` says which limit it was, its value, how far the capture got, how to
    raise it."""

    def __init__(self, options: CaptureOptions) -> None:
        self.given = options.overall_timeout is not None
        self.base = options.overall_timeout if options.overall_timeout is not None else options.timeout * OVERALL_FACTOR
        self.per_operation = options.per_operation
        self.operations: int | None = None  # once listed
        self.probed = 0  # operations whose probes are done
        self.scope: anyio.CancelScope | None = None
        self.started = 0.0

    @property
    def seconds(self) -> float:
        return self.base + self.per_operation * (self.operations or 0)

    def start(self) -> anyio.CancelScope:
        """The scope that ends the capture at the limit (entered in the event loop)."""
        self.started = anyio.current_time()
        self.scope = anyio.CancelScope(deadline=self.started + self.seconds)
        return self.scope

    def listed(self, operations: int) -> None:
        self.operations = operations
        if self.scope is not None:
            self.scope.deadline = self.started + self.seconds

    def message(self) -> str:
        base = "--overall-timeout" if self.given else f"{OVERALL_FACTOR} x --timeout"
        if self.operations is None:
            which, done = base, "it ended before the server listed its operations"
        else:
            which = (
                f"{base}: {self.base:g} s, + {self.per_operation:g} s for each of the {self.operations} operation(s)"
            )
            done = f"{self.probed} of the {self.operations} operation(s) listed were probed"
        return (
            f"the capture did not finish within its overall time limit, {self.seconds:g} s ({which}): {done};"
            " raise the limit with --overall-timeout SECONDS or --overall-timeout-per-operation SECONDS"
        )


@dataclass(frozen=True)
class CaptureResult:
    bundle: dict[str, Any]
    metrics: dict[str, Any]
    records: Path | None
    source: str  # what was captured (command or URL), secrets masked
    not_sent: int = 0  # probes not sent (every one, not the notes that list them)
    warnings: tuple[str, ...] = ()  # what the server did that is worth a line but not an error
    dry_run: dict[str, Any] | None = None  # --dry-run: what would be sent and withheld (no bundle written)


def capture(options: CaptureOptions) -> CaptureResult:
    """Probe the server and write the bundle. Once the MCP handshake is done a bundle is
    always written (exit 0: the verdict is `test`'s); every other failure is a CaptureError."""
    if not options.timeout > 0 or options.timeout == float("inf"):
        raise CaptureError(f"--timeout must be a positive number of seconds, not {options.timeout:g}")
    if options.concurrency < 1:
        raise CaptureError(f"--concurrency must be at least 1, not {options.concurrency}")
    overall, per_operation = options.overall_timeout, options.per_operation
    if overall is not None and not 0 < overall < float("inf"):
        raise CaptureError(f"--overall-timeout must be a positive number of seconds, not {overall:g}")
    if not 0 <= per_operation < float("inf"):
        raise CaptureError(f"--overall-timeout-per-operation must be 0 or more seconds, not {per_operation:g}")
    if options.cleanup and options.permission is not Permission.DESTRUCTIVE:
        raise CaptureError("--cleanup deletes what the run created, which needs --allow-destructive")
    plan = load_plan(options.plan)
    check_plan_switches(plan, options.permission)
    if not options.dry_run:
        _check_outputs(options)
    result: list[CaptureResult] = []
    stop = Stop()
    limit = OverallLimit(options)

    async def main() -> None:
        with stop.on_signals(), limit.start(), identifiers.documented():
            result.append(await _capture(options, plan, stop, limit))

    anyio.run(main)
    if stop.signal is not None:
        raise CaptureStopped(stop.signal, stop.records_hint)
    if not result:  # the overall limit cancelled it
        raise CaptureError(limit.message() + stop.records_hint)
    return result[0]


def _check_outputs(options: CaptureOptions) -> None:
    """Refuse unusable output paths before any server is started, naming the option."""
    for option, path in (("--bundle", options.bundle), ("--write-plan", options.write_plan)):
        if path is None:
            continue
        target = Path(os.path.realpath(path))
        if target.is_dir():
            raise CaptureError(f"{option} {plain(str(path))}: is a directory, expected a file")
        try:
            make_folder(target.parent, f"{option} {plain(str(path))}")
        except ConfigError as exc:
            raise CaptureError(str(exc)) from None
        if not target.exists() or target.is_file():
            _try_writing(option, path, target.parent)
    records = options.capture_dir
    if records is None:
        return
    if records.exists() and not records.is_dir():
        raise CaptureError(f"--capture-dir {plain(str(records))}: exists and is not a folder")
    try:
        records.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = plain(exc.strerror or str(exc))
        raise CaptureError(f"--capture-dir {plain(str(records))}: cannot create the folder: {reason}") from None
    _try_writing("--capture-dir", records, records)


def _try_writing(option: str, shown: Path, folder: Path) -> None:
    """Create and remove a file in ``folder``: the one check that holds for every user, root too."""
    import tempfile

    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        reason = plain(exc.strerror or str(exc))
        raise CaptureError(f"{option} {plain(str(shown))}: cannot write in {plain(str(folder))}: {reason}") from None


async def _capture(options: CaptureOptions, plan: Plan, stop: Stop, limit: OverallLimit | None = None) -> CaptureResult:
    started = dt.datetime.now(dt.UTC)
    redactor = Redactor()
    for secret in plan.secrets.values():
        redactor.add_secret(secret, everywhere=True)  # also in every line printed, cut or not
    # Milliseconds and the process id keep concurrent or quick successive runs apart.
    stamp = f"{started.strftime('%Y%m%dT%H%M%S')}{started.microsecond // 1000:03d}Z-{os.getpid()}"
    records_dir = None if options.dry_run else options.capture_dir  # a dry run writes nothing
    writer = RecordWriter(records_dir, stamp, plan.implementation or "server", redactor.value)
    warnings = _short_secret_warnings(plan)
    records = _Background(writer.flush)
    with server_log() as errlog, run_values(stamp) as token:
        try:
            guard = Guard(options.permission, dry_run=options.dry_run)
            restart = False  # a second connection once this one ended (capture/safety.py)
            last: LastProbe | None = None  # the request sent on a session of its own, at the end
            async with connect(options.target, options.timeout, errlog, warnings, guard) as connection:
                writer.implementation = plan.implementation or str(connection.server.get("name") or "server")
                live = Live(connection, writer, redactor, plan, options.concurrency)
                try:
                    if options.dry_run:
                        dry = await dry_run(live, options, limit)
                    else:
                        inferred, ended = await _probes_kept(live, limit)
                        cleaned = await clean_up(live, live.operations) if options.cleanup and not ended else {}
                        restart = bool(live.left) and not ended
                        last = None if ended else last_probe(live)
                        if ended:
                            warnings.append(
                                f"the capture ended early: {ended}; the bundle holds what was seen until then"
                            )
                finally:  # also when the capture fails: what happened until then, written while the server stops
                    if not restart and last is None:
                        records.start()
                server = dict(connection.server)
            if restart or last is not None:
                try:
                    later = Later(options.target, options.timeout, errlog, warnings, guard)
                    await later_sessions(later, live, restart, last)
                finally:
                    records.start()
            if options.configurations and not options.dry_run:
                await probe_configurations(options.target, options.timeout, errlog, guard, live.evidence, redactor)
        except CaptureError as exc:
            records.finish()
            writer.flush_log(read_log(errlog))
            raise CaptureError(redactor.text(f"{exc}{_records_hint(writer)}")) from None
        except anyio.get_cancelled_exc_class():  # a signal: the records so far, each file whole
            records.finish()
            writer.flush_log(read_log(errlog))
            stop.records_hint = redactor.text(_records_hint(writer))
            raise
        records.finish()
        writer.flush_log(read_log(errlog))
    if options.dry_run:
        source = redactor.value(options.target.describe())
        return CaptureResult({}, redactor.value(writer.metrics()), writer.folder, source, dry_run=redactor.value(dry))
    bundle = assemble(live, server, writer.implementation, options, started, cleaned, token)
    write_atomic(options.bundle, dumps(bundle))
    refuse_our_own(bundle, options.bundle, _records_hint(writer))
    if options.write_plan is not None:
        write_plan(options.write_plan, live, inferred)
    not_sent = sum(int(n.get("count", 1)) for n in live.evidence.notes)
    source = redactor.value(options.target.describe())
    metrics = redactor.value(writer.metrics())
    return CaptureResult(bundle, metrics, writer.folder, source, not_sent, tuple(redactor.value(warnings)))


class OwnBundleRefused(InternalError):
    """Capture wrote a bundle that `test` refuses: a fault of ours (exit 70), never of the user's
    input. The bundle is kept (no evidence lost), and so are the records."""

    def __init__(self, problem: str, bundle: Path, records_hint: str = "") -> None:
        self.problem, self.bundle, self.records_hint = problem, bundle, records_hint
        super().__init__(
            f"internal error: capture wrote a bundle that `test` refuses ({problem}); the bundle is kept at"
            f" {plain(str(bundle))}{records_hint}; please report it"
        )


def refuse_our_own(bundle: dict[str, Any], path: Path, records_hint: str = "") -> None:
    """A bundle capture wrote is read back as `test` reads it: a refusal is our fault, said so."""
    problem = refusal(bundle)
    if problem is not None:
        raise OwnBundleRefused(problem, path, records_hint)


def _short_secret_warnings(plan: Plan) -> list[str]:
    """A secret is masked wherever it appears; one this short may also mask unrelated text."""
    return [
        f"the value of ${plain(plan.env[parameter])} is {len(secret)} character(s) long: it is masked wherever"
        " it appears, which may also mask unrelated text in the records and the bundle"
        for parameter, secret in plan.secrets.items()
        if 0 < len(secret) < SHORT_SECRET
    ]


class _Background:
    """A job run in a thread while the server stops (or at once, if it was never started)."""

    def __init__(self, job: Any) -> None:
        self.job = job
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.job()
        except BaseException as exc:  # re-raised by finish(), in the caller's thread
            self.error = exc

    def finish(self) -> None:
        if self.thread is None:
            self._run()
        else:
            self.thread.join()
        if self.error is not None:
            raise self.error


def _records_hint(writer: RecordWriter) -> str:
    folder = writer.folder
    if folder is None or not folder.is_dir():
        return ""
    return f" (records and the server's stderr: {plain(str(folder))})"


async def discover(live: Live, limit: OverallLimit | None = None) -> list[Operation]:
    """The tools, the operations, the types and every detail (introspect calls only); none
    when the server lists none (noted)."""
    if not await discover_tools(live):
        live.evidence.notes.append(
            note(None, "introspection", "the server exposes no MCP-AQL tool: nothing to probe", NOT_APPLICABLE)
        )
        return []
    names = await introspect(live)
    if limit is not None:
        limit.listed(len(names))
    if not names:
        reason = "no introspect answer listed an operation: nothing else to probe"
        live.evidence.notes.append(note(None, "introspection", reason, NOT_APPLICABLE))
        return []
    await introspect_types(live)
    await describe_types(live)
    operations = await describe_operations(live, names)
    identifiers.learn(documented_identifiers(operations))  # sku, supplier_code: keys not named *_id
    await ask_unknown_names(live, names)
    live.operations = operations
    check_plan_operations(live.plan, [op.name for op in operations])
    return operations


async def dry_run(live: Live, options: CaptureOptions, limit: OverallLimit | None = None) -> dict[str, Any]:
    """``--dry-run``: introspection, then the calls the run would send and withhold."""
    operations = await discover(live, limit)
    introspected = live.writer.metrics()["calls"]
    planned = plan_run(live, operations, introspected, options.cleanup).as_dict()
    planned["notes"] = [n for n in live.evidence.notes if n.get("operation") is None]  # introspection's own
    if options.configurations:
        planned["would_restart"] = planned_starts()
    return planned


async def _probes_kept(live: Live, limit: OverallLimit | None) -> tuple[Inferred, str | None]:
    """``run_probes``; when the server's stdout stopped carrying MCP midway (a stream that never
    became MCP again), what was seen until then, with a note, and why it ended (else None)."""
    probed: list[Sent] = []
    try:
        return await run_probes(live, limit, probed), None
    except CaptureError:
        lost = live.connection.noise.lost
        if lost is None:
            raise
    _merge(live, probed)  # the operations probed but not yet merged when it ended
    reason = f"the capture ended early: {lost}; nothing was sent after that"
    live.evidence.notes.append(note(None, "capture", reason, FAILED))
    return Inferred(), lost


async def run_probes(live: Live, limit: OverallLimit | None = None, probed: list[Sent] | None = None) -> Inferred:
    """Discover, probe every operation, then the plan's examples and cycles, inferred cycles
    and the batch. A server that deviates is read leniently and probed all the same.
    ``probed``: each operation's probes as they finish, until they are merged (emptied then)."""
    probed = probed if probed is not None else []
    operations = await discover(live, limit)
    if not operations:
        return Inferred()
    reads, makers, users, deletes = _stages(operations)
    sent = await gather([_prober(live, op, limit, probed) for op in reads])  # what the server has, first
    sent += await gather([_prober(live, op, limit, probed, seen_values(sent)) for op in makers])
    sent += await gather([_prober(live, op, limit, probed, seen_values(sent)) for op in users])
    seen = await retry_refused(live, sent)  # probes refused for a value of ours: once more, with the next value
    _merge(live, probed)
    await probe_next_pages(live)  # by the cursors the reads' pages of one gave
    by_name = {op.name: op for op in operations}
    await run_examples(live, by_name)
    await run_plan_cycles(live, by_name)
    inferred = await infer_cycles(live, operations, seen)
    # deletes last: no cycle reads or updates a record a delete probe took away before it
    last = await gather([_prober(live, op, limit, probed, seen) for op in deletes])
    await retry_refused(live, last)
    _merge(live, probed)
    await probe_batch(live)
    await probe_confirmation_batch(live)
    await probe_safety_loop(live)  # after every other probe: a block it draws may outlive the run
    await probe_unknown_operation(live)
    await probe_requests(live)
    return inferred


Stages = tuple[list[Operation], list[Operation], list[Operation], list[Operation]]


def _stages(operations: list[Operation]) -> Stages:
    """(reads that name no existing record, the other operations that name none, every other
    operation but deletes, deletes), each in the order introspection listed them: what a later
    stage needs (list_shelves' shelves for add_book, create_note's note for get_note), an
    earlier one found or made."""
    deletes = [op for op in operations if op.category == "DELETE"]
    users = [
        op
        for op in operations
        if op not in deletes and any(names_existing(op.name, p["name"], op.category) for p in op.required)
    ]
    free = [op for op in operations if op not in deletes and op not in users]
    reads = [op for op in free if op.category == "READ"]
    return reads, [op for op in free if op not in reads], users, deletes


def _merge(live: Live, probed: list[Sent]) -> None:
    """Each operation's probes into the evidence, in the order of the stages that probe them
    (whichever finished first); ``probed`` emptied."""
    order = {id(op): index for index, op in enumerate(_in_stages(live.operations))}
    for sent in sorted(probed, key=lambda sent: order.get(id(sent.op), len(order))):
        live.evidence.merge(sent.op.name, read_probes(live, sent))
    probed.clear()


def _in_stages(operations: list[Operation]) -> list[Operation]:
    return [op for stage in _stages(operations) for op in stage]


def _prober(
    live: Live, op: Operation, limit: OverallLimit | None, probed: list[Sent], seen: SeenValues | None = None
) -> Any:
    async def probe() -> Any:
        found = await send_probes(live, op, seen)
        probed.append(found)
        if limit is not None:
            limit.probed += 1
        return found

    return probe


def assemble(
    live: Live,
    server: dict[str, Any],
    implementation: str,
    options: CaptureOptions,
    started: dt.datetime,
    cleaned: dict[int, str] | None = None,
    token: str = "",
) -> dict[str, Any]:
    """Our bundle format from the evidence (it passes our bundle schema); ``token``: the one at
    the end of the run's made-up values."""
    evidence: Evidence = live.evidence
    batch = evidence.batch_example
    bundle: dict[str, Any] = {
        "implementation": implementation,
        "version": str(server.get("version") or ""),
        "spec_version": SPEC_VERSION,
        "description": live.redactor.value(
            f"Captured from {options.target.describe()} by mcpaql-conformance {__version__}."
        ),
        "provenance": {
            "captured": True,
            "tool": "mcpaql-conformance",
            "tool_version": __version__,
            "server": server,
            "captured_at": started.isoformat(timespec="seconds"),
            "transport": options.target.transport,
            "permission": options.permission.label,
            "allow_writes": options.permission >= Permission.WRITES,
            "allow_destructive": options.permission is Permission.DESTRUCTIVE,
            "withheld_operations": sum(not live.allows(op.need) for op in live.operations),
            "made_up_token": token,
        },
        "endpoint_modes": live.modes,
        "capabilities": {
            "field_selection": _field_selection(evidence.details),
            "batch_operations": isinstance(batch, dict) and isinstance(batch.get("results"), list),
        },
        "mcp_tools": evidence.mcp_tools,
        "introspection": {
            "operations_list": evidence.operations_list,
            "types_list": evidence.types_list,
            "operation_details": evidence.details,
            "type_details": evidence.type_details,
            "detail_queries": evidence.detail_queries,
            "type_queries": evidence.type_queries,
            "unknown_name_queries": evidence.unknown_name_queries,
            "query_attempts": evidence.query_attempts,
        },
        "accepted_parameters": evidence.accepted,
        "parameter_tests": {
            "missing_required": evidence.missing_required,
            "unknown_parameter": evidence.unknown_parameter,
            "optional_defaults": evidence.optional_defaults,
            "optional_omitted": evidence.optional_omitted,
        },
        "error_tests": evidence.error_tests,
        "routing_tests": evidence.routing_tests,
        "valid_requests": evidence.valid_requests,
        "round_trip_tests": evidence.round_trip_tests,
        "update_preservation_tests": evidence.update_preservation_tests,
        "update_input_tests": evidence.update_input_tests,
        "request_tests": evidence.request_tests,
        "pagination_tests": evidence.pagination_tests,
        "filter_tests": evidence.filter_tests,
        "field_tests": evidence.field_tests,
        "aggregate_tests": evidence.aggregate_tests,
        "relationship_tests": evidence.relationship_tests,
        "search_tests": evidence.search_tests,
        "sort_tests": evidence.sort_tests,
        "constraint_tests": evidence.constraint_tests,
        "execution_tests": evidence.execution_tests,
        "configuration_tests": evidence.configuration_tests,
        "capture_readings": live.readings.lines(""),
        "capture_notes": evidence.notes,
    }
    bundle.update(live.connection.stream_evidence())
    if options.permission > Permission.READ_ONLY:  # what the run may have created or changed, to clean up
        bundle["changes"] = change_entries(live.guard.changes, live.redactor, "capture", cleaned or {})
    if batch is not None:
        bundle["batch_example"] = batch
    if evidence.confirmation_batch is not None:
        bundle["confirmation_batch"] = evidence.confirmation_batch
    if options.previous is not None:
        bundle["previous_version"] = options.previous
    return live.redactor.value(_without_missing(bundle))  # type: ignore[no-any-return]


def _field_selection(details: list[dict[str, Any]]) -> bool:
    """Whether a READ operation documents a `fields` parameter (its details read leniently)."""
    for raw in details:
        detail = read_detail(raw, Readings())
        parameters = parameters_of(detail)[0] or []
        if detail.get("semantic_category") == "READ" and any(
            isinstance(p, dict) and p.get("name") == "fields" for p in parameters
        ):
            return True
    return False


def _without_missing(bundle: dict[str, Any]) -> dict[str, Any]:
    """Drop what was never asked (no answer is not an answer to judge)."""
    introspection = {k: v for k, v in bundle["introspection"].items() if v is not None and v != []}
    bundle = {**bundle, "introspection": introspection}
    if bundle["mcp_tools"] is None:
        del bundle["mcp_tools"]
    return bundle
