"""capture(options) -> an evidence bundle written atomically, records and metrics beside it."""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import orjson

from mcpaql_conformance import SPEC_VERSION, __version__
from mcpaql_conformance.capture.connection import CaptureError, Target, connect
from mcpaql_conformance.capture.plan import Plan, load_plan
from mcpaql_conformance.capture.probes import Evidence, Prober
from mcpaql_conformance.capture.records import RecordWriter
from mcpaql_conformance.capture.redact import Redactor
from mcpaql_conformance.jsonio import write_atomic
from mcpaql_conformance.sanitize import plain

OVERALL_FACTOR = 30  # the whole capture may take this many per-call timeouts


@dataclass(frozen=True)
class CaptureOptions:
    target: Target
    bundle: Path
    plan: Path | None = None
    capture_dir: Path | None = None
    timeout: float = 20.0
    allow_destructive: bool = False


@dataclass(frozen=True)
class CaptureResult:
    bundle: dict[str, Any]
    metrics: dict[str, Any]
    records: Path | None
    source: str  # what was captured (command or URL), secrets masked


def capture(options: CaptureOptions) -> CaptureResult:
    """Probe the server and write the bundle; every failure is a CaptureError (exit 3)."""
    if options.timeout <= 0:
        raise CaptureError(f"--timeout must be positive, not {options.timeout:g}")
    plan = load_plan(options.plan)
    _check_outputs(options)
    result: list[CaptureResult] = []

    async def main() -> None:
        with anyio.fail_after(options.timeout * OVERALL_FACTOR):
            result.append(await _capture(options, plan))

    try:
        anyio.run(main)
    except TimeoutError:
        raise CaptureError(
            f"the capture did not finish within {options.timeout * OVERALL_FACTOR:g} s (30 x --timeout)"
        ) from None
    return result[0]


def _check_outputs(options: CaptureOptions) -> None:
    """Refuse unusable output paths before any server is started."""
    bundle = options.bundle
    if bundle.is_dir():
        raise CaptureError(f"--bundle {plain(str(bundle))}: is a directory, expected a file")
    if not bundle.parent.is_dir():
        raise CaptureError(f"--bundle {plain(str(bundle))}: folder {plain(str(bundle.parent))} does not exist")
    records = options.capture_dir
    if records is not None and records.exists() and not records.is_dir():
        raise CaptureError(f"--capture-dir {plain(str(records))}: exists and is not a folder")


async def _capture(options: CaptureOptions, plan: Plan) -> CaptureResult:
    started = dt.datetime.now(dt.UTC)
    redactor = Redactor()
    for secret in plan.secrets.values():
        redactor.add_secret(secret)
    async with connect(options.target, options.timeout) as connection:
        implementation = plan.implementation or str(connection.server.get("name") or "server")
        # Milliseconds and the process id keep concurrent or quick successive runs apart.
        stamp = f"{started.strftime('%Y%m%dT%H%M%S')}{started.microsecond // 1000:03d}Z-{os.getpid()}"
        writer = RecordWriter(options.capture_dir, stamp, implementation)
        prober = Prober(connection, plan, writer, redactor, options.allow_destructive)
        try:
            await prober.run()
        finally:
            writer.write_metrics()  # also when the capture fails: what happened until then
        server = dict(connection.server)
    bundle = assemble(prober, server, implementation, options, started)
    write_atomic(options.bundle, orjson.dumps(bundle, option=orjson.OPT_INDENT_2).decode() + "\n")
    return CaptureResult(bundle, writer.metrics(), writer.folder, redactor.value(options.target.describe()))


def assemble(
    prober: Prober, server: dict[str, Any], implementation: str, options: CaptureOptions, started: dt.datetime
) -> dict[str, Any]:
    """Our bundle format from the evidence (it passes our bundle schema)."""
    evidence: Evidence = prober.evidence
    reads = [d for d in evidence.details if d.get("semantic_category") == "READ"]
    field_selection = any(
        p.get("name") == "fields" for d in reads for p in d.get("parameters") or [] if isinstance(p, dict)
    )
    batch = evidence.batch_example
    bundle: dict[str, Any] = {
        "implementation": implementation,
        "version": str(server.get("version") or ""),
        "spec_version": SPEC_VERSION,
        "description": prober.redactor.value(
            f"Captured from {options.target.describe()} by mcpaql-conformance {__version__}."
        ),
        "provenance": {
            "captured": True,
            "tool": "mcpaql-conformance",
            "tool_version": __version__,
            "server": server,
            "captured_at": started.isoformat(timespec="seconds"),
            "transport": options.target.transport,
            "allow_destructive": options.allow_destructive,
        },
        "endpoint_modes": prober.modes,
        "capabilities": {
            "field_selection": field_selection,
            "batch_operations": isinstance(batch, dict) and isinstance(batch.get("results"), list),
        },
        "introspection": {
            "operations_list": evidence.operations_list,
            "types_list": evidence.types_list,
            "operation_details": evidence.details,
        },
        "accepted_parameters": evidence.accepted,
        "parameter_tests": {
            "missing_required": evidence.missing_required,
            "unknown_parameter": evidence.unknown_parameter,
            "optional_defaults": evidence.optional_defaults,
        },
        "error_tests": evidence.error_tests,
        "routing_tests": evidence.routing_tests,
        "valid_requests": evidence.valid_requests,
        "round_trip_tests": evidence.round_trip_tests,
        "update_preservation_tests": evidence.update_preservation_tests,
        "constraint_tests": evidence.constraint_tests,
        "capture_notes": evidence.notes,
    }
    if batch is not None:
        bundle["batch_example"] = batch
    return {key: value for key, value in bundle.items() if not _response_missing(key, value)}


def _response_missing(key: str, value: Any) -> bool:
    return key in ("operations_list", "types_list") and not isinstance(value, dict)
