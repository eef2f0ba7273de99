"""evaluate(bundle, level, tier, category) -> Report."""

from __future__ import annotations

import functools
from typing import Any

from mcpaql_conformance import SPEC_VERSION, TOOL_NAME, __version__
from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.evidence.bundle import Bundle, incomplete_invocation
from mcpaql_conformance.evidence.reading import SINGLE
from mcpaql_conformance.files.jsonio import gc_paused
from mcpaql_conformance.files.schemas import schema_document
from mcpaql_conformance.files.vocabulary import (
    CUSTOM_FAMILY,
    FAILING_ITEM,
    QUERY_GRAMMAR,
    RELISTED,
    SEARCH,
    SHARED,
    SINGLE_TOOL,
    RequestTestName,
    SemanticCategory,
    words,
)
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks import CATEGORIES, Category, Context
from mcpaql_conformance.verdict.checks.aggregates import aggregate_evidence
from mcpaql_conformance.verdict.checks.applicability import applicability_evidence
from mcpaql_conformance.verdict.checks.configurations import configuration_evidence
from mcpaql_conformance.verdict.checks.deprecation import deprecation_evidence
from mcpaql_conformance.verdict.checks.descriptions import CRUDE_FAMILIES as CRUDE
from mcpaql_conformance.verdict.checks.details import shared_parameters
from mcpaql_conformance.verdict.checks.encoding import binary_evidence
from mcpaql_conformance.verdict.checks.execution import lifecycle_evidence
from mcpaql_conformance.verdict.checks.grammar import grammar_parameters
from mcpaql_conformance.verdict.checks.level2 import failed_items, profile_evidence
from mcpaql_conformance.verdict.checks.listing import relisted as relisted_lists
from mcpaql_conformance.verdict.checks.nesting import nesting_evidence
from mcpaql_conformance.verdict.checks.pages import pagination_evidence
from mcpaql_conformance.verdict.checks.relations import relationship_evidence
from mcpaql_conformance.verdict.checks.roundtrip import concurrency_evidence
from mcpaql_conformance.verdict.checks.safety import loop_evidence
from mcpaql_conformance.verdict.checks.searches import search_evidence
from mcpaql_conformance.verdict.checks.selection import selection_evidence
from mcpaql_conformance.verdict.checks.semantic import InvalidCalls, run_verdict
from mcpaql_conformance.verdict.checks.sessions import ended_session_evidence, session_evidence
from mcpaql_conformance.verdict.checks.sorting import sort_evidence
from mcpaql_conformance.verdict.checks.warned import warning_evidence
from mcpaql_conformance.verdict.metrics import agent_metrics, model_lines
from mcpaql_conformance.verdict.model import CategoryResult, Report, conformance_level, exit_code_for

LEVELS = (1, 2)
TIERS = ("1", "2", "both")


def categories_for(level: int) -> tuple[Category, ...]:
    return tuple(c for c in CATEGORIES if c.level <= level)


def select_category(level: int, name: str) -> Category:
    """The category named (case-insensitively; a unique start of its name as typed will do:
    ``s``, ``semantic``; else, for a plural, the start without its last ``s``: ``errors``), or
    a ConfigError listing the valid names."""
    wanted = " ".join(name.split()).casefold()
    exact = [c for c in CATEGORIES if c.name.casefold() == wanted]
    found = exact or _started(wanted) or (_started(wanted[:-1]) if len(wanted) > 1 and wanted[-1] == "s" else [])
    if found:
        category = found[0]
        if category.level > level:
            raise ConfigError(
                f"category {category.name!r} is a Level {category.level} category; add --level {category.level}"
            )
        return category
    valid = ", ".join(repr(c.name) for c in categories_for(level))
    raise ConfigError(f"unknown category {plain(name)!r}; valid categories at level {level}: {valid}")


def _started(prefix: str) -> list[Category]:
    """The one category whose name starts with ``prefix`` (none for an empty prefix, or several)."""
    starts = [c for c in CATEGORIES if prefix and c.name.casefold().startswith(prefix)]
    return starts if len(starts) == 1 else []


def evaluate(bundle: Bundle, level: int = 1, tier: str = "both", category: str | None = None) -> Report:
    """Run the categories for ``level`` (or only ``category``) and build the report."""
    if level not in LEVELS:
        raise ConfigError(f"invalid level {level!r}; valid levels: 1, 2")
    if tier not in TIERS:
        raise ConfigError(f"invalid tier {tier!r}; valid tiers: 1, 2, both")
    selected = (select_category(level, category),) if category else categories_for(level)
    ctx = Context(bundle=bundle, tier=tier)
    with gc_paused(freeze=False):
        results = tuple(CategoryResult(c.name, c.required, tuple(c.evaluate(ctx))) for c in selected)
    return Report(
        implementation=bundle.implementation,
        version=bundle.version,
        spec_version=SPEC_VERSION,
        evidence_spec_version=bundle.spec_version,
        requested_level=level,
        conformance_level=None if category else conformance_level(level, results),
        categories=results,
        exit_code=exit_code_for(results),
        tier=tier,
        category_filter=selected[0].name if category else None,
        tool=TOOL_NAME,
        tool_version=__version__,
        readings=tuple(str(reading) for reading in bundle.capture_readings),
        notes=note_lines(bundle.cases("capture_notes")),
        provenance=provenance_line(
            bundle.data.get("provenance"),
            bundle.data.get("capture_notes"),
            bundle.data.get("changes"),
            nothing_sent=ctx.introspection_withheld is not None,
        ),
        changes=change_lines(bundle.cases("changes")),
        captured_at=_captured_at(bundle.data.get("provenance")),
        agent_summary=agent_summary(bundle.cases("agent_runs")),
        agent_incomplete=agent_incomplete(bundle.cases("agent_runs")),
        evidence=evidence_held(bundle, ctx),
        agent_metrics=(
            metrics := agent_metrics(
                bundle.cases("agent_tests"),
                functools.partial(run_verdict, ctx),
                InvalidCalls(ctx),
                models_said(bundle.cases("agent_runs")),
                one_model(bundle.cases("agent_runs")),
            )
        ),
        agent_models=(*model_lines(metrics), *unusable_lines(bundle.cases("agent_runs"))),
    )


def evidence_held(bundle: Bundle, ctx: Context) -> tuple[str, ...]:
    """What the run had to judge by (a report's ``evidence``): the bundle's sections with entries
    (those its schema defines), and ``category:NAME`` for each standard semantic category its
    operations document."""
    present = [name for name in schema_document("bundle")["properties"] if _entries(bundle.data.get(name))]
    asked = {case.get("name") for case in bundle.cases("request_tests") if isinstance(case.get("name"), str)}
    requests = [f"request_tests:{name}" for name in words(RequestTestName) if name in asked]
    documented = [f"category:{name}" for name in words(SemanticCategory) if ctx.operations_in(name)]
    failing = [FAILING_ITEM] if failed_items(bundle.batch_example) else []
    shared = [SHARED] if shared_parameters(ctx.details) else []
    search = [SEARCH] if any(name.startswith("search_") for name in ctx.operations_in("READ")) else []
    grammar = [QUERY_GRAMMAR] if any(grammar_parameters(detail) is not None for detail in ctx.details) else []
    warned = warning_evidence(bundle.response_groups)
    relisted = [RELISTED] if relisted_lists(ctx) else []
    paged = (*pagination_evidence(ctx), *selection_evidence(ctx), *aggregate_evidence(ctx), *relationship_evidence(ctx))
    paged += (*deprecation_evidence(ctx), *search_evidence(ctx), *lifecycle_evidence(ctx), *loop_evidence(ctx))
    paged += (
        *sort_evidence(ctx),
        *session_evidence(ctx),
        *profile_evidence(ctx),
        *configuration_evidence(ctx),
        *nesting_evidence(ctx),
        *applicability_evidence(ctx),
        *ended_session_evidence(ctx),
        *concurrency_evidence(ctx),
        *binary_evidence(bundle),
    )
    held = (*failing, *shared, *search, *grammar, *warned, *relisted, *paged, *_described_tools(ctx))
    return (*present, *requests, *held, *documented)


def _described_tools(ctx: Context) -> list[str]:
    """SINGLE_TOOL and CUSTOM_FAMILY where such a tool's description was recorded."""
    listed = {tool.get("name"): tool for tool in ctx.bundle.mcp_tools or [] if isinstance(tool, dict)}
    families = {r.family for r in ctx.aql_tools if isinstance(listed.get(r.name, {}).get("description"), str)}
    custom = families - CRUDE - {SINGLE}
    return [label for label, held in ((SINGLE_TOOL, SINGLE in families), (CUSTOM_FAMILY, bool(custom))) if held]


def _entries(value: Any) -> bool:
    return isinstance(value, list | dict) and bool(value)


def latest_invocation(runs: list[Any]) -> dict[str, Any] | None:
    """The latest agent invocation a bundle records (its last ``agent_runs`` entry that is one)."""
    return next((run for run in reversed(runs) if isinstance(run, dict)), None)


def agent_summary(runs: list[Any]) -> str | None:
    """One line on the latest agent invocation recorded in the bundle."""
    latest = latest_invocation(runs)
    if latest is None:
        return None
    listed = latest.get("tool_list")
    tools: dict[str, Any] = listed if isinstance(listed, dict) else {}
    counted = tools.get("tokens")
    size = f"{tools.get('characters')} characters" + (f", {counted} tokens" if isinstance(counted, int) else "")
    shown = f"{tools.get('tools')} tool(s) shown to the model ({size})"
    scenarios = len(latest.get("scenarios") or [])
    models = [str(m.get("model")) for m in latest.get("models") or [] if isinstance(m, dict)]
    if not latest.get("model") and not models:
        parts = [f"{scenarios} scenario(s), no model", shown]
    else:
        model = str(latest["model"]) + (f" at {latest['base_url']}" if latest.get("base_url") else "")
        model = model if latest.get("model") else f"{len(models)} models side by side ({', '.join(models)})"
        parts = [model, f"{latest.get('runs')} run(s) per task, up to {latest.get('max_turns')} turns"]
        parts += [f"judge: {latest.get('judge') or 'none'}", shown]
        parts += [f"{scenarios} scenario(s)"] if scenarios else []
    parts.append(f"on {latest.get('date')}")
    return plain("; ".join(parts), max_len=500)


def models_said(runs: list[Any]) -> dict[str, dict[str, Any]]:
    """What the latest agent invocation says of each model it ran (its target flag, its price),
    by the name its runs give it."""
    latest = latest_invocation(runs)
    listed = latest.get("models") if latest is not None else None
    models = listed if isinstance(listed, list) else []
    return {str(m["model"]): m for m in models if isinstance(m, dict) and isinstance(m.get("model"), str)}


def one_model(runs: list[Any]) -> str:
    """The one model of the latest agent invocation, where it names one (its runs may name none:
    recorded before runs named their model), else ""."""
    latest = latest_invocation(runs)
    model = latest.get("model") if latest is not None else None
    return plain(model, max_len=300) if isinstance(model, str) else ""


def unusable_lines(runs: list[Any]) -> list[str]:
    """A line per model the latest agent invocation could not use, and why."""
    latest = latest_invocation(runs)
    gone = latest.get("unusable") if latest is not None else None
    items = [item for item in gone if isinstance(item, dict)] if isinstance(gone, list) else []
    return [plain(f"{item.get('model')}: not used, {item.get('reason')}", max_len=500) for item in items]


def agent_incomplete(runs: list[Any]) -> str | None:
    """The line every report shows when the latest agent invocation did not finish (stopped
    by a signal, a limit, a model that stopped answering, or the token budget): how many of
    its runs finished, why, and how to run the rest. None when it finished."""
    latest = incomplete_invocation(runs)
    if latest is None:
        return None
    finished, planned = latest.get("finished_runs"), latest.get("planned_runs")
    counted = isinstance(finished, int) and isinstance(planned, int)
    line = "incomplete agent evidence: " + (f"{finished} of {planned} runs finished" if counted else "runs are missing")
    if isinstance(latest.get("reason"), str) and latest["reason"]:
        line += f" ({latest['reason']})"
    return plain(f"{line}; the missing runs are not judged (agent --resume runs them)", max_len=500)


def _captured_at(provenance: Any) -> str | None:
    """When a captured bundle's evidence was captured (ISO 8601, as capture wrote it), if it says."""
    when = provenance.get("captured_at") if isinstance(provenance, dict) else None
    return plain(when, max_len=40) if isinstance(when, str) and when else None


def provenance_line(provenance: Any, notes: Any = None, changes: Any = None, nothing_sent: bool = False) -> str | None:
    """One line on where the evidence came from, from a bundle's ``provenance`` (None when the
    bundle has none: evidence written by hand or by another tool): the run's permission level,
    the operations it did not call (``nothing_sent``: its level kept capture from sending
    introspect), and the calls that may have changed data."""
    if not isinstance(provenance, dict):
        return None
    server = provenance.get("server")
    server = server if isinstance(server, dict) else {}
    named = " ".join(str(server[key]) for key in ("name", "version") if server.get(key) not in (None, ""))
    parts = ["captured" if provenance.get("captured") else "recorded"]
    if provenance.get("captured_at"):
        parts.append(f"at {provenance['captured_at']}")
    if provenance.get("tool"):
        parts.append(f"by {provenance['tool']} {provenance.get('tool_version') or ''}".rstrip())
    if named:
        parts.append(f"from {named}")
    if provenance.get("transport"):
        parts.append(f"over {provenance['transport']}")
    line = " ".join(parts) + _also(provenance.get("also")) + _permission(provenance, notes, changes, nothing_sent)
    return plain(line, max_len=500)


def _also(also: Any) -> str:
    """`` and a second configuration of it over stdio``: a capture of two configurations."""
    if not isinstance(also, dict):
        return ""
    over = f" over {also['transport']}" if also.get("transport") else ""
    return f", and a second configuration of it{over}"


_RUNS = {
    "read-only": "read-only run",
    "writes": "run with --allow-writes",
    "destructive": "run with --allow-destructive",
}


def _permission(provenance: dict[str, Any], notes: Any, changes: Any, nothing_sent: bool = False) -> str:
    """``; read-only run: 12 operation(s) not called (see Not probed during capture)``, and for
    a run that could change data, how many of its calls may have; older bundles say only
    whether destructive operations were allowed."""
    level = provenance.get("permission")
    if level not in _RUNS:  # an older bundle
        if provenance.get("allow_destructive") is True:
            return "; destructive operations called"
        return _withheld(provenance, notes) if provenance.get("allow_destructive") is False else ""
    line = f"; {_RUNS[level]}"
    count = provenance.get("withheld_operations")
    if nothing_sent:
        line += ": introspect not sent, so nothing else was (see Not probed during capture)"
    elif _count(count) and count:
        line += f": {count} operation(s) not called (see Not probed during capture)"
    elif _count(count):
        line += ": every operation called"
    if level != "read-only":
        calls = len(changes) if isinstance(changes, list) else 0
        seen = " (see Changed during the run)" if calls else ""
        line += f"; {calls} call(s) may have created or changed data{seen}"
    return line


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _withheld(provenance: dict[str, Any], notes: Any) -> str:
    """What an older capture withheld: the count it wrote, else the operations its notes name as
    withheld for being destructive; with neither, only that none was called."""
    count = provenance.get("destructive_withheld")
    if not _count(count):
        if not isinstance(notes, list):
            return "; destructive operations not called"
        named = {
            note["operation"]
            for note in notes
            if isinstance(note, dict) and note.get("cause") == "destructive" and isinstance(note.get("operation"), str)
        }
        count = len(named)
    return f"; destructive operations withheld ({count})" if count else "; no destructive operation"


MAX_CHANGE_LINES = 200


def change_lines(changes: list[Any]) -> tuple[str, ...]:
    """``create_note at 2026-...: note_id=n1 (capture, needed --allow-writes; answered: success)``,
    one line per call that may have created or changed data, at most MAX_CHANGE_LINES."""
    lines = []
    for change in changes[:MAX_CHANGE_LINES]:
        identifiers = change.get("identifiers")
        named = ", ".join(
            f"{key}={value}" for key, value in (identifiers.items() if isinstance(identifiers, dict) else [])
        )
        flag = {"writes": "--allow-writes", "destructive": "--allow-destructive"}.get(str(change.get("needed")), "?")
        said = f" ({change.get('source') or 'capture'}, needed {flag}; answered: {change.get('answer') or '?'})"
        lines.append(
            plain(f"{change.get('operation') or '?'} at {change.get('at') or '?'}: {named or 'no identifier'}{said}")
        )
    if len(changes) > MAX_CHANGE_LINES:
        lines.append(f"... and {len(changes) - MAX_CHANGE_LINES} more (the bundle's changes list them all)")
    return tuple(lines)


def note_lines(notes: list[Any]) -> tuple[str, ...]:
    """``operation, operation: probe, probe: reason``: the probes of an operation with one reason
    together, and then the operations with the same probes and reason (the same refusal of every
    call, from an upstream without credentials, is one line, not one per operation), in first-seen
    order; past NAMED_OPERATIONS names the line counts the rest."""
    by_operation: dict[tuple[str, str], list[str]] = {}
    for note in notes:
        key = (str(note.get("operation") or "(all)"), str(note["reason"]))
        probes = by_operation.setdefault(key, [])
        if str(note["probe"]) not in probes:
            probes.append(str(note["probe"]))
    by_reason: dict[tuple[str, str], list[str]] = {}
    for (operation, reason), probes in by_operation.items():
        by_reason.setdefault((", ".join(probes), reason), []).append(operation)
    return tuple(f"{_named(operations)}: {probes}: {reason}" for (probes, reason), operations in by_reason.items())


NAMED_OPERATIONS = 12


def _named(operations: list[str]) -> str:
    if len(operations) <= NAMED_OPERATIONS:
        return ", ".join(operations)
    rest = len(operations) - NAMED_OPERATIONS
    return f"{', '.join(operations[:NAMED_OPERATIONS])} and {rest} more operation(s)"


def judge_safely(data: Any, source: str, level: int | None, tier: str) -> tuple[Report | None, str | None]:
    """``(report, None)``, or ``(None, error)`` when the bundle is invalid or a bug of ours
    raised: one bundle of many never stops the others. ``level`` None: the bundle's
    expected_level (default 1)."""
    from mcpaql_conformance.evidence.bundle import bundle_from_data

    try:
        bundle = bundle_from_data(data, source)
        return evaluate(bundle, level or bundle.expected_level or 1, tier), None
    except ConfigError as exc:
        return None, str(exc)
    except Exception as exc:
        return None, f"internal error ({type(exc).__name__}): {exc}; please report it"
