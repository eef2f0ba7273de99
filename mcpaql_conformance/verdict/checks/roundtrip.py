"""Round-Trip Integrity (MUST): what was written reads back unchanged."""

from __future__ import annotations

from collections import deque
from itertools import islice
from typing import Any

from mcpaql_conformance.evidence.answers import Kind, classify
from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.execution import LOOP_OPERATIONS
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.reading import protocol_of
from mcpaql_conformance.files.values import MISSING, json_equal, resolve_path, show
from mcpaql_conformance.files.vocabulary import ARRAY_REPLACED, STALE_PROBED
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import CONFORMANCE, Category, Outcome, cite, judge, skip, split_withheld
from mcpaql_conformance.verdict.model import Requirement

ROUND_TRIP = Category("Round-Trip Integrity", required=True, level=1)
MUST = Requirement.MUST


def _judge_cycles(
    ctx: Context, key: str, fields_key: str, semantic_category: str, what: str, more: list[str] | None = None
) -> Outcome:
    """The cycles of ``key`` judged, with ``more`` findings of the same test."""
    cases = ctx.bundle.cases(key)
    # the safety loop's reserved CREATEs (core §8.5.4) report and verify: they make no record to read back
    operations = [name for name in ctx.operations_in(semantic_category) if name not in LOOP_OPERATIONS]
    if not operations and not cases and ctx.operation_names:
        return skip(f"No {semantic_category} operation is documented.")
    failures: list[str] = list(more or [])
    warnings: list[str] = []
    for case in cases:
        failure, warning = _judge_case(case, fields_key)
        failures += failure
        warnings += warning
    probe = "create_read" if semantic_category == "CREATE" else "update_read"
    idle = [name for name in operations if ctx.nothing_to_keep(name, probe)]
    operations = [name for name in operations if name not in idle]
    uncovered, withheld = split_withheld(ctx, _uncovered(cases, operations) if cases else operations, ())
    reasons = {name: reason for name in uncovered if (reason := ctx.not_probed(name, (probe,)))}
    plain = [name for name in uncovered if name not in reasons]
    if not cases and not withheld and not reasons:
        plain = []  # the no-evidence detail names them
    return judge(
        MUST,
        judged=len(cases),
        failures=failures,
        warnings=warnings,
        uncovered=plain,
        explained=[f"{name} ({reason})" for name, reason in reasons.items()],
        withheld=withheld,
        uncovered_label=f"{semantic_category} operations without {what} evidence",
        passed=f"{len(cases)} {what} cycle(s) read back every expected field unchanged" + _idle(idle),
        no_evidence=(
            f"no {key} although {semantic_category} operations exist ({', '.join(operations[:5])})"
            if operations
            else f"no {key}, and no introspection to tell whether {semantic_category} operations exist"
        ),
    )


def _idle(operations: list[str]) -> str:
    if not operations:
        return "."
    return (
        f"; {', '.join(operations)}: nothing it writes can be read back to compare (its inputs name other records "
        "or are never given back)."
    )


def _judge_case(case: JsonObject, fields_key: str) -> tuple[list[str], list[str]]:
    name, response, fields = case["name"], case["read_response"], case[fields_key]
    if response.get("success") is not True or isinstance(response.get("data"), str):  # not plainly a record
        answer = classify(response)
        if answer.refused:
            return [f"{name}: the read failed ({answer.describe()})"], []
        if not answer.succeeded:
            return [f"{name}: the read gave no result ({answer.describe()})"], []
        if answer.kind is Kind.PROSE:
            return [f"{name}: the read answered prose, not the record ({answer.describe()})"], []
    if not fields:
        return [], [f"{name}: compares no fields"]
    failures = []
    for path, expected in fields.items():
        actual, where = read_back(response, path)
        if not json_equal(actual, expected):
            at = f" (at {where})" if where != path else ""
            failures.append(f"{name}: {path} expected {show(expected)}, got {show(actual)}{at}")
    return failures, []


MAX_NODES = 2_000  # objects looked at for a field the read answer holds deeper than expected
MAX_DEPTH = 4


def read_back(response: JsonObject, path: str) -> tuple[Any, str]:
    """The value at ``path`` (``data.entities``) in a read answer, and where it was found: where the
    path says, else, read leniently, the same field inside an object the server wrapped the record
    in (``data.structured_content.entities``, ``data.note.title``), the shallowest first."""
    actual = resolve_path(response, path)
    head, _, rest = path.partition(".")
    if actual is not MISSING or head != "data" or not rest:
        return actual, path
    queue: deque[tuple[Any, str, int]] = deque([(response.get("data"), "data", 0)])
    looked = 0
    while queue and looked < MAX_NODES:
        node, where, depth = queue.popleft()
        looked += 1
        if not isinstance(node, dict):
            continue
        if depth > 0 and (found := resolve_path(node, rest)) is not MISSING:
            return found, f"{where}.{rest}"
        if depth < MAX_DEPTH:
            queue.extend((value, f"{where}.{key}", depth + 1) for key, value in islice(node.items(), 200))
    return MISSING, path


def _uncovered(cases: list[JsonObject], operations: list[str]) -> list[str]:
    """Operations not exercised; only knowable when every case names its operation."""
    if not cases or any(not isinstance(case.get("operation"), str) for case in cases):
        return []
    covered = {case["operation"] for case in cases}
    return [name for name in operations if name not in covered]


OPTIMISTIC = "core:9.3.2:optimistic-concurrency"
MERGE_RESULT = "core:4.5.1:merge-result"

_ROUNDTRIP_CREATE_READ_RULES = (
    "core:10.1:l2-passes-suite", "conformance:2.1:round-trip-integrity", "conformance:4.1:level1-categories",
)  # fmt: skip


@ROUND_TRIP.check(
    "L1.roundtrip.create-read",
    "Create-read cycles preserve submitted fields",
    f"{CONFORMANCE} §3.4 (Create-Read Consistency)",
    rules=_ROUNDTRIP_CREATE_READ_RULES,
    primary="conformance:2.1:round-trip-integrity",
)
def create_read(ctx: Context) -> Outcome:
    return _judge_cycles(ctx, "round_trip_tests", "expected_fields", "CREATE", "create-read")


_ROUNDTRIP_UPDATE_PRESERVATION_RULES = (
    "core:4.5.1:deep-merge", MERGE_RESULT, OPTIMISTIC, "core:10.1:l2-passes-suite",
    "conformance:2.1:round-trip-integrity", "conformance:4.1:level1-categories",
)  # fmt: skip


@ROUND_TRIP.check(
    "L1.roundtrip.update-preservation",
    "Updates preserve non-targeted fields",
    f"{CONFORMANCE} §3.4 (Update Preservation)",
    rules=_ROUNDTRIP_UPDATE_PRESERVATION_RULES,
    primary="core:4.5.1:deep-merge",
)
def update_preservation(ctx: Context) -> Outcome:
    return _judge_cycles(ctx, "update_preservation_tests", "preserved_fields", "UPDATE", "update-read",
                         [*merge_findings(ctx), *concurrency_findings(ctx)])  # fmt: skip


def merge_findings(ctx: Context) -> list[str]:
    """An array sent in an update is what the read gives back: replaced whole, never merged into the old one
    (core §4.5.1's result)."""
    findings: list[str] = []
    for case in ctx.bundle.cases("update_preservation_tests"):
        replaced = case.get("array_replaced")
        if not isinstance(replaced, dict) or not classify(replaced.get("read_response")).succeeded:
            continue
        path, sent = str(replaced.get("path")), replaced.get("sent")
        actual, where = read_back(replaced["read_response"], path)
        if not json_equal(actual, sent):
            findings.append(cite(MERGE_RESULT, f"{plain(case.get('operation'), max_len=60)}: the array {where} sent as "
                                 f"{show(sent)} reads back as {show(actual)}: merged, not replaced"))  # fmt: skip
    return findings


# core §9.3.1's categories that let writes run concurrently
CONCURRENT_WRITES_MODELS = ("fully-concurrent", "resource-locked")


def concurrency_findings(ctx: Context) -> list[str]:
    """An adapter declaring concurrent writes (``_protocol.concurrency``) takes if_match on its UPDATEs and
    refuses one whose precondition names no version with CONFLICT_VERSION_MISMATCH (core §9.3.2, a SHOULD)."""
    declared = protocol_of(ctx.bundle.operations_list).get("concurrency")
    if declared not in CONCURRENT_WRITES_MODELS:  # json: category names
        return []
    updates = ctx.operations_in("UPDATE")
    if updates and not any(p["name"] == "if_match" for op in updates for p in ctx.parameters_of(op)):
        return [cite(OPTIMISTIC, f"`_protocol.concurrency` is {declared!r} (writes run concurrently), yet no UPDATE "
                     "takes if_match")]  # fmt: skip
    findings: list[str] = []
    for case in ctx.bundle.cases("update_preservation_tests"):
        if "stale_if_match" not in case:  # json: a key of our section
            continue
        answer, operation = classify(case["stale_if_match"]), plain(case.get("operation"), max_len=60)
        if answer.succeeded:
            findings.append(cite(OPTIMISTIC, f"{operation} took an update whose if_match names no version of the "
                                 "record"))  # fmt: skip
        elif answer.refused and answer.code != "CONFLICT_VERSION_MISMATCH":
            findings.append(cite(OPTIMISTIC, f"{operation} refused an update whose if_match names no version with "
                                 f"{answer.describe()}, not CONFLICT_VERSION_MISMATCH"))  # fmt: skip
    return findings


def concurrency_evidence(ctx: Context) -> list[str]:
    """STALE_PROBED where an update was sent with an if_match naming no version."""
    cases = ctx.bundle.cases("update_preservation_tests")
    held = [STALE_PROBED] if any("stale_if_match" in c for c in cases) else []  # json: keys of our section
    return held + ([ARRAY_REPLACED] if any("array_replaced" in c for c in cases) else [])  # json: keys of ours
