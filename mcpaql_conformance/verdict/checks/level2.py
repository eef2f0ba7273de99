"""Level 2 Features (SHOULD): both endpoint modes, field selection, batch operations."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.reading import BATCH_ALIASES, declares, protocol_capabilities, protocol_of, types_of
from mcpaql_conformance.files.values import json_equal
from mcpaql_conformance.files.vocabulary import PROFILES_LISTED
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import (
    CONFORMANCE,
    CORE,
    Category,
    Outcome,
    cite,
    judge,
    no_evidence,
    single,
    told,
    uncited,
)
from mcpaql_conformance.verdict.checks.configurations import (
    CONFIGURATION_RULES,
    configuration_findings,
    configured_modes,
)
from mcpaql_conformance.verdict.checks.confirmations import CONFIRMATION_RULES, confirmation_findings, gated_item
from mcpaql_conformance.verdict.model import LEVEL2_FEATURES, Requirement, Result

LEVEL2 = Category(LEVEL2_FEATURES, required=False, level=2)
SHOULD = Requirement.SHOULD
BOTH_MODES = "core:10.1:l2-both-modes"
DISCOVERABLE = "features/field-selection:5.3:discoverable"
PREFER_FIELDS = "features/field-selection:2.2:prefer-fields"
SELECTION_TYPE = "FieldSelection"  # the type features/field-selection §5.3 shows the options in
# What servers call a field-selection control that features/field-selection §2.2 asks to be `fields`.
SELECTION_NAMES = frozenset({"select", "projection", "include", "columns", "attributes", "field_mask", "only"})
BATCH_RESULTS = "operations:7.2:batch-results"
BATCH_FORMAT = "operations:7.1:batch-format"
BATCH_SEMANTICS = "operations:7.3:batch-semantics"
FAILURE_CONTINUES = "operations:7.3:failure-continues"
# `_protocol.mode` values that claim both endpoint modes in one configuration (introspection §4.1.1)
BOTH_AT_ONCE = ("all", "both")


ACTIVE_PROFILE = "endpoint-modes:3.3:active-profile-introspected"

_FEATURES_ENDPOINT_MODES_RULES = (
    "core:3.3:both-modes", "core:10.1:l2-both-modes", "core:10.1:l2-passes-suite",
    "conformance:2.2:level2-features", "conformance:4.2:level2-categories",
    "endpoint-modes:8.2:conformance-shoulds", "crude:4.3:both-modes", "crude:7.2:profile-shoulds", ACTIVE_PROFILE,
    *CONFIGURATION_RULES,
)  # fmt: skip


@LEVEL2.check(
    "L2.features.endpoint-modes",
    "Semantic and single endpoint modes are both supported",
    f"{CONFORMANCE} §2.2; {CORE} §3.3, §10.1",
    rules=_FEATURES_ENDPOINT_MODES_RULES,
    primary="core:10.1:l2-both-modes",
)
def endpoint_modes(ctx: Context) -> Outcome:
    configured = configuration_findings(ctx)  # capture --configurations' restarts, SHOULDs each
    modes = ctx.modes if not configured_modes(ctx) else (ctx.modes or set()) | configured_modes(ctx)
    if modes is None:
        return no_evidence(SHOULD, told(ctx, "the server's tools show no endpoint mode", "no endpoint_modes"))
    failures = list(configured)
    semantic = sorted(modes - {"single"})
    if ctx.captured and (not semantic or "single" not in modes):
        claimed = protocol_of(ctx.bundle.operations_list).get("mode")
        if claimed in BOTH_AT_ONCE:  # this configuration says it offers both: its tools show one
            seen = f"semantic mode ({', '.join(semantic)}) only" if semantic else "single mode (`mcp_aql`) only"
            text = f"`_protocol.mode` says {claimed!r} (both endpoint modes at once); the server's tools show {seen}"
            return judge(SHOULD, judged=1, failures=[cite(BOTH_MODES, text), *failures], passed="", no_evidence="")
        if profiles := profile_findings(ctx) + failures:
            return judge(SHOULD, judged=1, failures=profiles, passed="", no_evidence="")
        return Outcome(Result.WARN, _one_mode_seen(semantic))
    failures += profile_findings(ctx)
    if "single" not in modes:
        failures.append("single mode (`mcp_aql`) is not supported")
    if not semantic:
        failures.append("no semantic endpoint mode (`crude` or a custom family) is supported")
    return single(SHOULD, failures, f"Single mode and semantic mode ({', '.join(semantic)}) are both supported.")


def listed_profiles(ctx: Context) -> list[str]:
    """The semantic profiles ``_protocol.profiles`` lists (names, or objects' names)."""
    listed = protocol_of(ctx.bundle.operations_list).get("profiles")
    entries = listed[:50] if isinstance(listed, list) else []
    names = [entry.get("name") if isinstance(entry, dict) else entry for entry in entries]
    return [name for name in names if isinstance(name, str) and name]


def profile_findings(ctx: Context) -> list[str]:
    """A server listing several semantic profiles names the active one in ``_protocol.profile``
    (endpoint-modes §3.3, a SHOULD)."""
    profiles = listed_profiles(ctx)
    active = protocol_of(ctx.bundle.operations_list).get("profile")
    if len(profiles) < 2 or (isinstance(active, str) and active in profiles):  # json: names
        return []
    said = f"names {plain(repr(active), max_len=60)}, none of them" if active is not None else "names none"
    return [cite(ACTIVE_PROFILE, f"`_protocol.profiles` lists {len(profiles)} semantic profiles "
                 f"({', '.join(plain(p, max_len=30) for p in profiles[:5])}); `_protocol.profile` {said}")]  # fmt: skip


def profile_evidence(ctx: Context) -> list[str]:
    """PROFILES_LISTED where ``_protocol.profiles`` lists two profiles or more."""
    return [PROFILES_LISTED] if len(listed_profiles(ctx)) > 1 else []


def _one_mode_seen(semantic: list[str]) -> str:
    """A capture saw the tools of one configuration: a server may offer the other mode by
    configuration (endpoint-modes §3.1 asks for runtime configuration of the mode), so one run
    cannot tell "not supported"; what was seen, and how to show the other."""
    seen = f"semantic mode ({', '.join(semantic)})" if semantic else "single mode (`mcp_aql`)"
    other = "single mode" if semantic else "semantic mode"
    return (
        f"not judged: this capture saw the server in {seen} only; endpoint-modes §3.1 lets a server offer {other} "
        "by configuration: capture that configuration too (`-- SERVER... --also -- SECOND...` or `--also-url URL`), "
        "or let capture start the server under each MCP_AQL_ENDPOINT_MODE value (`--configurations`), to judge both "
        "in one report"
    )


_FEATURES_FIELD_SELECTION_RULES = (
    "core:10.1:l2-passes-suite", "core:10.1:l2-field-selection", "conformance:2.2:level2-features",
    "conformance:4.2:level2-categories", "operations:4.2:common-patterns",
    "features/field-selection:2.2:prefer-fields", "features/field-selection:5.1:must-list",
    "features/field-selection:5.3:discoverable", "features/collection-querying:6:expose-list",
)  # fmt: skip


@LEVEL2.check(
    "L2.features.field-selection",
    "Field selection is supported on READ operations",
    f"{CONFORMANCE} §2.2",
    rules=_FEATURES_FIELD_SELECTION_RULES,
    primary="core:10.1:l2-field-selection",
)
def field_selection(ctx: Context) -> Outcome:
    reads = ctx.operations_in("READ")
    with_fields = [op for op in reads if any(p["name"] == "fields" for p in ctx.parameters_of(op))]
    failures: list[str] = []
    if not _capability(ctx, "field_selection", "field_selection"):
        failures.append(
            "neither the bundle's capabilities.field_selection nor _protocol.capabilities.field_selection is true"
        )
    failures += _selection_options_findings(ctx, reads, with_fields)
    if not with_fields:
        own = sorted({p["name"] for op in reads for p in ctx.parameters_of(op) if p["name"] in SELECTION_NAMES})
        if own:  # a selection control under its own name
            text = f"no READ operation documents a `fields` parameter (field selection goes by {', '.join(own)})"
            failures.append(cite(PREFER_FIELDS, text))
        else:
            failures.append("no READ operation documents a `fields` parameter")
    return single(SHOULD, failures, f"Field selection is advertised and documented on {', '.join(with_fields[:5])}.")


def _selection_options_findings(ctx: Context, reads: list[str], with_fields: list[str]) -> list[str]:
    """features/field-selection §5.3: a server with field selection lets introspection show its
    options. Its example is the type `FieldSelection`; a `fields` parameter whose documentation
    names the presets (or lists its values) shows them too. Judged where the type list was read."""
    listed = types_of(ctx.bundle.types_list)[0]
    if not with_fields or listed is None:
        return []
    if SELECTION_TYPE in {entry.get("name") for entry in listed if isinstance(entry, dict)}:
        return []
    shown = [
        p for op in reads for p in ctx.parameters_of(op) if p["name"] == "fields" and _shows_options(p)
    ]  # fmt: skip
    if shown:
        return []
    text = (
        f"READ operations take `fields`, but introspection shows no selection options (no {SELECTION_TYPE} type, "
        "no preset named in a `fields` parameter)"
    )
    return [cite(DISCOVERABLE, text)]


def _shows_options(parameter: dict[str, Any]) -> bool:
    """A `fields` parameter whose documentation lists its values or names a preset."""
    if any(key in parameter for key in ("enum", "presets", "examples", "items")):
        return True
    description = str(parameter.get("description", "")).lower()
    return any(preset in description for preset in ("minimal", "standard", "full"))


_FEATURES_BATCH_RULES = (
    "core:10.1:l2-passes-suite", "core:10.1:l2-batch", "conformance:2.2:level2-features",
    "conformance:4.2:level2-categories", "operations:7.1:batch-format", "operations:7.2:batch-results",
    "operations:7.3:batch-semantics", "operations:7.3:failure-continues", *CONFIRMATION_RULES,
)  # fmt: skip


@LEVEL2.check(
    "L2.features.batch",
    "Batch operations return individual results",
    f"{CONFORMANCE} §2.2",
    rules=_FEATURES_BATCH_RULES,
    primary="core:10.1:l2-batch",
)
def batch(ctx: Context) -> Outcome:
    example = ctx.bundle.batch_example
    failures: list[str] = []
    if example is None:
        if not _capability(ctx, "batch_operations", "batch", BATCH_ALIASES):
            failures.append(
                told(
                    ctx,
                    "the server declares no batch support (`_protocol.capabilities.batch`) and no batch was answered",
                    "neither the bundle's capabilities.batch_operations nor _protocol.capabilities.batch is true",
                )
            )
        said = told(
            ctx,
            "no batch was sent (the server has no single tool mcp_aql, and declares no batch support that would "
            "let one go to an endpoint family)",
            "no batch_example",
        )
        return no_evidence(SHOULD, said, failures)
    warnings = _declared_batch(ctx, example)
    answer = classify(example)
    if _failed_with_results(example):  # read as the batch answer it is, its overall flag wrong
        failures.append(cite(BATCH_SEMANTICS, _failed_batch(example)))
        failures += [cite(BATCH_RESULTS, text) for text in _batch_shape(example)]
    elif not ctx.is_valid_result(example):
        failures.append(cite(BATCH_RESULTS, f"batch_example is not a valid operation result ({answer.describe()})"))
    elif answer.refused:
        said = f"batch_example is a failure, not a batch result ({answer.describe()})"
        declared = _capability(ctx, "batch_operations", "batch", BATCH_ALIASES)
        failures.append(cite(BATCH_FORMAT, f"{said}: the server declares batches, but refused the batch format") if
                        declared else said)  # fmt: skip
    else:
        failures += [cite(BATCH_RESULTS, text) for text in _batch_shape(example)]
        failures += _stopped_at_failure(ctx, example)
    failures += confirmation_findings(ctx)
    results = example.get("results")
    count = len(results) if isinstance(results, list) else 0
    passed = f"The batch answered {count} individual result(s) with a matching summary."
    return judge(SHOULD, judged=1, failures=failures, warnings=warnings, passed=passed, no_evidence="")


def _stopped_at_failure(ctx: Context, example: dict[str, Any]) -> list[str]:
    """Capture's batch fails in its middle item (an introspect query no server knows): a captured
    batch whose last result is a failure stopped there (operations §7.3: a failing item does not
    prevent the ones after it). A bundle written by hand may end on a failing item: not judged."""
    results = example.get("results")
    if not ctx.captured or not isinstance(results, list) or not results or example.get("halted_at") is not None:
        return []
    last = results[-1]
    outcome = last.get("result") if isinstance(last, dict) else None
    if not isinstance(outcome, dict) or outcome.get("success") is not False:
        return []
    text = f"the batch stopped at the failing item {last.get('index')}: the item after it has no result"
    return [cite(FAILURE_CONTINUES, text)]


def _failed_with_results(example: Any) -> bool:
    """A batch answered `success: false` beside its items' results: processed, yet failed whole."""
    return isinstance(example, dict) and example.get("success") is False and isinstance(example.get("results"), list)


def failed_items(batch: Any) -> list[Any]:
    """The indexes of a batch answer's items whose result failed (none for no batch answer)."""
    results = batch.get("results") if isinstance(batch, dict) else None
    return [item.get("index") for item in results if isinstance(item, dict) and isinstance(item.get("result"), dict)
            and item["result"].get("success") is False] if isinstance(results, list) else []  # fmt: skip


def _failed_batch(example: dict[str, Any]) -> str:
    failed = failed_items(example)
    items = f"item(s) {', '.join(map(str, failed[:5]))} failed" if failed else "no item failed"
    return (
        f"the batch answered success false beside its {len(example['results'])} result(s) ({items}): success is "
        "false only for a batch-level error, never for an item's"
    )


def _declared_batch(ctx: Context, example: Any) -> list[str]:
    """What the server's `_protocol.capabilities` says of batches, against the batch it answered:
    the flag under another name than the spec's `batch`, or `batch: false` beside a working batch
    (capabilities are a MAY: saying nothing is no finding)."""
    capabilities = _protocol_capabilities(ctx)
    findings: list[str] = []
    aliases = [key for key in BATCH_ALIASES if key in capabilities]
    if aliases and "batch" not in capabilities:
        findings.append(
            uncited(
                f"the batch flag is declared as `_protocol.capabilities.{aliases[0]}`; "
                "introspection §4.1.1 names it `batch`"
            )
        )
    answered = isinstance(example, dict) and isinstance(example.get("results"), list)
    if answered and capabilities.get("batch", capabilities.get(aliases[0]) if aliases else None) is False:
        findings.append(uncited("`_protocol.capabilities` declares no batch support, but a batch was answered"))
    if answered and ctx.bundle.capabilities.get("batch_operations") is False and not ctx.captured:
        findings.append(uncited("the bundle's capabilities.batch_operations is false, but its batch was answered"))
    return findings


def _protocol_capabilities(ctx: Context) -> dict[str, Any]:
    return protocol_capabilities(ctx.bundle.operations_list)


def _capability(ctx: Context, bundle_name: str, protocol_name: str, aliases: tuple[str, ...] = ()) -> bool:
    """A capability the bundle declares, or the server does in `_protocol.capabilities`
    (introspection §4.1.1) of its operations list, under the spec's name or one of ``aliases``."""
    if ctx.bundle.capabilities.get(bundle_name) is True:
        return True
    return declares(_protocol_capabilities(ctx), protocol_name, aliases)


def _batch_shape(example: dict[str, Any]) -> list[str]:
    """A batch's results, the operation it halted at and what it left pending (operations §7.5.2),
    against its summary: an item gated by a confirmation is no failure (§7.5.5)."""
    results, summary = example.get("results"), example.get("summary")
    if not isinstance(results, list) or not isinstance(summary, dict):
        return ["batch_example lacks `results` or `summary`"]
    halted = example.get("halted_at")
    listed = example.get("pending_operations")
    pending: list[Any] = listed if isinstance(listed, list) else []
    failures = []
    indexes = [item["index"] for item in [*results, *([halted] if isinstance(halted, dict) else []), *pending]]
    if sorted(indexes) != list(range(len(indexes))):
        failures.append(f"item indexes {indexes[:10]} are not 0..{len(indexes) - 1} each once")
    gated = [item for item in results if gated_item(item)]
    succeeded = sum(1 for item in results if item["result"].get("success") is True)
    counts = {
        "total": len(indexes),
        "succeeded": succeeded,
        "failed": len(results) - succeeded - len(gated),
    }
    if isinstance(halted, dict):
        counts.update(halted=1, pending=len(pending))
    if gated:
        counts["pending_confirmation"] = len(gated)
    for key, expected in counts.items():
        if key in summary and not json_equal(summary[key], expected):  # `true` is no count of 1
            failures.append(f"summary.{key} is {summary[key]}, the results show {expected}")
    return failures
