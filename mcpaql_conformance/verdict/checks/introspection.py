"""Introspection Fidelity (MUST): introspection tells the truth about the server."""

from __future__ import annotations

from collections import Counter
from itertools import chain
from typing import Any

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.execution import LOOP_OPERATIONS
from mcpaql_conformance.evidence.index import CRUDE_ENDPOINTS, Context, ParameterIndex
from mcpaql_conformance.evidence.reading import (
    Readings,
    detail_of,
)
from mcpaql_conformance.files.values import json_equal
from mcpaql_conformance.verdict.blame import case_blame
from mcpaql_conformance.verdict.checks.base import (
    CONFORMANCE,
    CORE,
    Category,
    Outcome,
    cite,
    judge,
    no_evidence,
    prefixed,
    single,
    split_withheld,
    told,
    uncited,
)
from mcpaql_conformance.verdict.checks.controls import (
    CONTROL_CALL_RULES,
    CONTROL_DOCUMENTATION_RULES,
    control_call_findings,
    control_documentation_findings,
)
from mcpaql_conformance.verdict.checks.details import (
    canonical_verb_findings,
    detail_schema_failures,
    shared_parameter_findings,
    tool_name_failures,
)
from mcpaql_conformance.verdict.checks.encoding import encoding_findings
from mcpaql_conformance.verdict.checks.execution import LIFECYCLE_RULES, lifecycle_findings
from mcpaql_conformance.verdict.checks.listing import (
    cached_findings,
    discovery_failures,
    introspect_answer,
    protocol_findings,
)
from mcpaql_conformance.verdict.checks.parameters import unknown_parameter_problem
from mcpaql_conformance.verdict.checks.previous import preserved_reference_findings
from mcpaql_conformance.verdict.checks.requests import (
    invalid_utf8_findings,
    limit_findings,
    null_byte_findings,
    request_shape_findings,
)
from mcpaql_conformance.verdict.checks.returns import return_shape_warnings
from mcpaql_conformance.verdict.checks.routing import routing_evidence_failures, unknown_operation_findings
from mcpaql_conformance.verdict.checks.safety import LOOP_RULES, loop_call_findings, loop_documentation_findings
from mcpaql_conformance.verdict.checks.sessions import SESSION_RULES, ended_session_findings
from mcpaql_conformance.verdict.checks.tools import mcp_tool_findings
from mcpaql_conformance.verdict.checks.typeinfo import (
    type_detail_failures,
    undiscoverable,
    unknown_name_findings,
    unknown_name_problem,
)
from mcpaql_conformance.verdict.checks.updates import update_input_documentation
from mcpaql_conformance.verdict.model import Requirement
from mcpaql_conformance.verdict.textmatch import all_snake_case, is_snake_case

INTROSPECTION = Category("Introspection Fidelity", required=True, level=1)
MUST = Requirement.MUST

RESERVED_OPERATIONS = {"introspect": "READ", **LOOP_OPERATIONS}  # core §8.5.4, with their endpoints

# Permission flags per semantic category (core spec section 6.1): (readOnly, destructive).
PERMISSION_TABLE = {
    "CREATE": (False, False),
    "READ": (True, False),
    "UPDATE": (False, True),
    "DELETE": (False, True),
    "EXECUTE": (False, True),
}


_INTROSPECTION_OPERATIONS_QUERY_RULES = (
    "core:3.3:one-mode", "core:4.7.5:limits-in-protocol", "core:6.2:one-category", "core:7.2:introspect",
    "introspection:7.3:caching",
    "core:10.1:l1-one-mode", "core:10.1:l1-introspect", "core:10.1:l1-classify", "core:10.1:l1-document-routing",
    "core:10.1:l2-meets-l1", "core:10.1:l2-passes-suite", "core:10.2:claiming",
    "conformance:2.1:introspection-fidelity", "conformance:4.1:level1-categories",
    "introspection:3.1:discriminated-union", "introspection:4.1.1:protocol-version",
    "introspection:4.1.1:protocol-conformance", "introspection:4.1.1:protocol-mode",
    "introspection:4.1.1:mode-semantic", "introspection:8.1:must-list", "introspection:8.1:protocol-object",
    "introspection:8.2:should-list", "operations:2.1:input-structure", "operations:2.4:snake-case",
    "operations:5.1:semantic-category", "operations:5.1:endpoint", "operations:5.1:description",
    "operations:9.1:introspect", "endpoint-modes:4.4:one-category-each", "endpoint-modes:8.1:conformance-musts",
    "crude:4.3:one-mode", "crude:6.6:document-classification", "crude:6.6:endpoint-discoverable",
    "crude:7.1:profile-musts",
)  # fmt: skip


@INTROSPECTION.check(
    "L1.introspection.operations-query",
    "Operations query is implemented",
    f"{CONFORMANCE} §2.1; {CORE} §7.2-7.3",
    rules=_INTROSPECTION_OPERATIONS_QUERY_RULES,
    primary="core:7.2:introspect",
)
def operations_query(ctx: Context) -> Outcome:
    failures = discovery_failures(ctx, "operations")
    if ctx.bundle.operations_list is None:
        said = told(ctx, "introspect {query: operations} gave no operations list", "no introspection.operations_list")
        return no_evidence(MUST, said, failures)
    answer_failures, operations = introspect_answer(ctx, "operations")
    failures += answer_failures
    count = 0
    if operations is not None:
        count = len(operations)
        if not answer_failures:  # in the documented shape: every entry is named and classified
            named = operations
        else:
            named = [o for o in operations if isinstance(o.get("name"), str)]
            named = [o for o in named if isinstance(o.get("semantic_category"), str)]
        failures += _naming_failures(_names(named, ctx.listed_operations), "listed")
        failures += _reserved_failures(named)
        if not operations:
            failures.append("the operations list is empty")
    failures += protocol_findings(ctx) + cached_findings(ctx)
    passed = f"introspect {{query: operations}} answered {count} operation(s) in the documented shape."
    return single(MUST, failures, passed)


_INTROSPECTION_TYPES_QUERY_RULES = (
    "core:7.2:introspect", "core:9.2:types-discoverable", "core:10.1:l1-introspect", "core:10.1:l2-meets-l1",
    "core:10.1:l2-passes-suite", "conformance:2.1:introspection-fidelity", "conformance:4.1:level1-categories",
    "introspection:3.1:discriminated-union", "introspection:4.3:unknown-operation-null",
    "introspection:5.3:protocol-types", "introspection:8.1:must-list",
)  # fmt: skip


@INTROSPECTION.check(
    "L1.introspection.types-query",
    "Types query is implemented",
    f"{CONFORMANCE} §2.1; {CORE} §7.3",
    rules=_INTROSPECTION_TYPES_QUERY_RULES,
    primary="core:9.2:types-discoverable",
)
def types_query(ctx: Context) -> Outcome:
    failures = discovery_failures(ctx, "types")
    if ctx.bundle.types_list is None:
        return no_evidence(
            MUST, told(ctx, "introspect {query: types} gave no types list", "no introspection.types_list"), failures
        )
    answer_failures, types = introspect_answer(ctx, "types")
    failures += answer_failures
    missing, warnings = undiscoverable(ctx)
    detail_failures, described = type_detail_failures(ctx)
    unknown_failures, unknown = unknown_name_findings(ctx, "types")
    failures += missing + detail_failures + unknown_failures
    count = len(types) if types is not None else 0
    shown = [f"{count} type(s) in the documented shape"]
    shown += [f"{described} type detail(s) valid"] if described else []
    shown += ["a made-up name answered with `type: null`"] if unknown else []
    return judge(
        MUST,
        judged=1,
        failures=failures,
        warnings=warnings,
        passed=f"introspect {{query: types}} answered {', '.join(shown)}; every type an operation returns is listed.",
        no_evidence="",
    )


_INTROSPECTION_OPERATION_DETAILS_RULES = (
    "core:3.3:one-mode", "core:4.5:update-input", "core:4.5:identifiers-in-params", "core:6.2:one-category",
    "core:6.2:one-family",
    "core:6.2:wrong-endpoint-rejected", "core:10.1:l1-one-mode", "core:10.1:l1-classify",
    "core:10.1:l1-document-routing", "core:10.1:l1-wrong-endpoint", "core:10.1:l2-meets-l1",
    "core:10.1:l2-passes-suite", "core:10.2:claiming", "core:8.5.2:snake-case-names", "core:8.5.4:reserved-names",
    "core:8.5.4:no-custom-reserved", "conformance:2.1:introspection-fidelity", "conformance:4.1:level1-categories",
    "introspection:4.1:endpoint-family-name", "introspection:4.3:unknown-operation-null",
    "introspection:8.1:must-list", "introspection:8.1.2:feature-parameters", "introspection:8.2:should-list",
    "operations:2.4:snake-case", "operations:4.3:required-or-optional", "operations:4.4.5:expand-inline",
    "operations:5.1:operation-schema", "operations:5.1:semantic-category", "operations:5.1:endpoint",
    "operations:5.1:description", "operations:5.2:parameter-fields", "operations:5.2:type",
    "operations:6.1:by-semantics", "operations:6.3:validate-endpoint", "operations:6.3:no-cross-execution",
    "operations:6.3:mismatch-error", "operations:9.1:introspect", "endpoint-modes:4.2:wrong-tool-rejected",
    "endpoint-modes:4.4:one-category-each", "endpoint-modes:4.5:wrong-family-rejected",
    "endpoint-modes:4.6:route-validated", "endpoint-modes:5.5:unknown-operation-structured",
    "endpoint-modes:8.1:conformance-musts", "endpoint-modes:8.2:conformance-shoulds", "crude:5.1:one-endpoint",
    "crude:5.1:reject-wrong-endpoint", "crude:6.6:document-classification", "crude:6.6:endpoint-discoverable",
    "crude:7.1:profile-musts", "mcp:2.2.1:standard-names", "mcp:2.2.1:names-introspected", "mcp:6.4:prefix-charset",
    "mcp:6.4:prefix-underscore", "mcp:7.2:conformance-shoulds", "mcp:2.1:introspect-in-descriptions",
    "mcp:2.3:tool-annotations", "mcp:2.3:conservative-annotations", "mcp:3.1:base-input-schema",
    "mcp:3.1:operation-required",
    "mcp:6.4:prefix-short", "endpoint-modes:7.1:tool-annotations", "endpoint-modes:7.1:conservative-annotations",
    "crude:3.3:tool-annotations", "operations:2.1:input-structure", "operations:2.2:operation-field",
    "operations:4.4.4:same-type", "operations:4.4.4:same-default", "operations:4.4.4:same-name",
    "operations:4.4.2:preserve-refs",
    "core:8.5.1:canonical-verbs", "core:8.5.3:non-canonical-explained", "operations:6.2:canonical-verbs",
    "crude:6.5:canonical-verbs",
    "operations:2.2:operation-defined", "operations:2.4:case-sensitive",
    "features/collection-querying:4.2:input-type-introspected",
    "mcp:2.1.1:crude-templates", "mcp:2.1.1:custom-template", "mcp:2.1.1:purpose-and-kinds",
    "endpoint-modes:4.7:family-description", "endpoint-modes:4.7:intent-revealing-names",
    "endpoint-modes:5.4:unified-description", *CONTROL_DOCUMENTATION_RULES,
)  # fmt: skip


@INTROSPECTION.check(
    "L1.introspection.operation-details",
    "Operation details are valid, named, routed and classified correctly",
    f"{CONFORMANCE} §3.1; {CORE} §6.1-6.2, §8.5.2, §8.5.4, §10.1",
    rules=_INTROSPECTION_OPERATION_DETAILS_RULES,
    primary="core:10.1:l1-document-routing",
)
def operation_details(ctx: Context) -> Outcome:
    details = ctx.details
    failures = tool_name_failures(ctx) + mcp_tool_findings(ctx, details) + _detail_query_failures(ctx)
    failures += [_deviation(line) for line in ctx.detail_readings.lines("operation")]
    schema_failures, valid = detail_schema_failures(ctx, details)
    failures += schema_failures
    failures += _naming_failures(_names(details, ctx.details_by_name), "documented")
    failures += _listing_failures(ctx, valid)
    failures += _reserved_failures(valid) + routing_evidence_failures(ctx) + unknown_operation_findings(ctx)
    failures += request_shape_findings(ctx) + shared_parameter_findings(valid) + canonical_verb_findings(valid)
    failures += control_documentation_findings(ctx, valid) + preserved_reference_findings(ctx)
    shape_failures, warnings = _shape_failures(ctx, valid)
    input_failures, input_warnings = update_input_documentation(valid, ctx.named_types)
    failures += shape_failures + input_failures
    warnings += _unlisted_introspect(ctx, valid) + input_warnings
    unknown_failures, unknown = unknown_name_findings(ctx, "operations")
    failures += unknown_failures
    asked = {
        case.get("operation")
        for case in ctx.bundle.detail_queries
        if case.get("operation") not in ctx.details_by_name  # json: a name among keys
    }
    uncovered = [name for name in ctx.listed_operations if name not in ctx.details_by_name and name not in asked]
    return judge(
        MUST,
        judged=len(details) + len(asked) + unknown,
        failures=failures,
        warnings=warnings,
        uncovered=uncovered,
        uncovered_label="listed operations without detail evidence",
        passed=f"{len(details)} operation detail(s) match the schema, naming, routing and permission rules.",
        no_evidence=told(
            ctx,
            "no introspect {query: operations, name} gave an operation's detail",
            "no introspection.operation_details",
        ),
    )


def _deviation(reading: str) -> str:
    """A lenient reading of the details as a finding: one read around a missing or unknown
    semantic category is about operations §5.1's category; any other about the test's rule."""
    text = f"operation details deviate from the spec: {reading}"
    return cite("operations:5.1:semantic-category", text) if "semantic_category" in reading else text


def _detail_query_failures(ctx: Context) -> list[str]:
    """Detail queries of listed operations that gave no usable detail, or one in another shape."""
    failures = []
    readings = Readings()
    for case in ctx.bundle.detail_queries:
        name = str(case.get("operation"))
        if name not in ctx.listed_operations and unknown_name_problem(case["response"], "operation") is None:
            continue  # `operation: null` for a name the server does not list: introspection §4.3's answer
        found = detail_of(case["response"], name)
        if found.detail is None:
            failures.append(f"introspect {{query: operations, name: {name}}}: {found.problem or 'gave no detail'}")
        readings.merge(found.readings)
    label = "introspect {query: operations, name} deviates from the spec"
    return failures + [f"{label}: {line}" for line in readings.lines("operation")]


def _names(entries: list[JsonObject], index: dict[str, JsonObject]) -> list[str]:
    """The string names of the entries: the keys of their index when every entry is in it."""
    if len(index) == len(entries):
        return list(index)
    return [entry["name"] for entry in entries if isinstance(entry.get("name"), str)]


def _naming_failures(names: list[str], how: str) -> list[str]:
    """Operation names must be snake_case and unique (``how``: "listed" or "documented")."""
    failures: list[str] = []
    if not all_snake_case(names):
        failures += [
            cite("core:8.5.2:snake-case-names", f"{name}: operation name is not snake_case")
            for name in names
            if not is_snake_case(name)
        ]
    if len(set(names)) != len(names):
        failures += [f"{name}: operation {how} {n} times" for name, n in Counter(names).items() if n > 1]
    return failures


def _unlisted_introspect(ctx: Context, valid: list[JsonObject]) -> list[str]:
    """introspection §8.2 item 7 advises listing `introspect` among the operations."""
    if not ctx.listed_operations or "introspect" in ctx.listed_operations:
        return []
    return [cite("introspection:8.2:should-list", "introspect is not in the operations list")]


def _listing_failures(ctx: Context, valid: list[JsonObject]) -> list[str]:
    """Details and the operations list must describe the same operations the same way."""
    listed = ctx.listed_operations
    if not listed:
        return []
    failures: list[str] = []
    for detail in valid:
        entry = listed.get(detail["name"])
        if entry is None:
            if detail["name"] != "introspect":  # introspection §8.2 item 7 only advises listing it
                failures.append(f"{detail['name']}: has a detail but is missing from the operations list")
            continue
        for key in ("semantic_category", "endpoint"):
            if key in entry and not json_equal(entry[key], detail[key]):
                failures.append(
                    f"{detail['name']}: {key} is {entry[key]!r} in the list but {detail[key]!r} in the detail"
                )
    return failures


def _reserved_failures(entries: list[JsonObject]) -> list[str]:
    """Reserved operations keep their documented category (and, via routing, its endpoint)."""
    return [
        cite(
            "core:8.5.4:no-custom-reserved",
            f"{e['name']}: reserved operation must be {RESERVED_OPERATIONS[e['name']]}, not {e['semantic_category']}",
        )
        for e in entries
        if e["name"] in RESERVED_OPERATIONS and e["semantic_category"] != RESERVED_OPERATIONS[e["name"]]
    ]


Shape = tuple[str, str, str, bool, bool]  # category, endpoint, mcpTool, readOnly, destructive


def _shape_failures(ctx: Context, valid: list[JsonObject]) -> tuple[list[str], list[str]]:
    """(failures, warnings) of routing and permissions. Thousands of operations share a
    handful of shapes: each shape is judged once."""
    failures: list[str] = []
    warnings: list[str] = []
    shape_findings: dict[Shape, tuple[list[str], list[str]]] = {}
    for detail in valid:
        shape = _shape(detail)
        findings = shape_findings.get(shape)
        if findings is None:
            findings = shape_findings[shape] = _shape_findings(ctx, *shape)
        if findings[0] or findings[1]:
            failures += [prefixed(f"{detail['name']}: ", text) for text in findings[0]]
            warnings += [prefixed(f"{detail['name']}: ", text) for text in findings[1]]
    return failures, warnings


def _shape(detail: JsonObject) -> Shape:
    permissions = detail["permissions"]
    return (
        detail["semantic_category"],
        detail["endpoint"],
        detail["mcpTool"],
        permissions["readOnly"],
        permissions["destructive"],
    )


def _shape_findings(ctx: Context, *shape: Any) -> tuple[list[str], list[str]]:
    """(failures, warnings) for every operation of this routing and permission shape."""
    category, endpoint, tool, read_only, destructive = shape
    severe, mild = _permission_findings(category, read_only, destructive)
    return _routing_failures(ctx, category, endpoint, tool) + severe, mild


FAMILY_NAME = "introspection:4.1:endpoint-family-name"


def _routing_failures(ctx: Context, category: str, endpoint: str, tool: str) -> list[str]:
    if endpoint.lower() not in CRUDE_ENDPOINTS:
        family = category.lower()
        if (
            category in PERMISSION_TABLE and endpoint in ctx.allowed_tools[family]
        ):  # the tool, not the family  # json: among tool names
            text = f"endpoint {endpoint!r} names the MCP tool where the family name {family!r} is advised"
            return [cite(FAMILY_NAME, text)]
        return _custom_family_failures(ctx, endpoint)
    failures: list[str] = []
    expected_endpoint = category.lower()
    if endpoint.lower() == expected_endpoint and endpoint != expected_endpoint:
        text = f"endpoint {endpoint!r} is not the lowercase family name {expected_endpoint!r}"
        failures.append(cite(FAMILY_NAME, text))  # introspection §4.1: a SHOULD
    elif endpoint != expected_endpoint:
        text = f"{category} operation routed to endpoint {endpoint!r}, expected {expected_endpoint!r}"
        failures.append(cite("operations:6.1:by-semantics", text))
    allowed = ctx.allowed_tools[expected_endpoint]
    if tool not in allowed:  # json: a tool among tool names (strings)
        failures.append(f"mcpTool {tool!r} is not the tool of a {category} operation (expected {' or '.join(allowed)})")
    return failures


def _custom_family_failures(ctx: Context, endpoint: str) -> list[str]:
    """A non-CRUDE endpoint must be one of the custom families the bundle declares."""
    if ctx.modes is None:
        return []  # modes not declared: a custom family's routing is its own
    custom = ctx.modes - {"crude", "single"}
    if endpoint in custom:
        return []
    if not custom:
        return [f"endpoint {endpoint!r} is not a CRUDE endpoint, and endpoint_modes declares no custom family"]
    return [f"endpoint {endpoint!r} is not among the declared endpoint families ({', '.join(sorted(custom))})"]


def _permission_findings(category: str, read_only: bool, destructive: bool) -> tuple[list[str], list[str]]:
    """Dangerous contradictions fail; other departures from the spec table warn."""
    severe: list[str] = []
    if category == "READ" and not read_only:
        severe.append("READ operation is not readOnly")
    if category != "READ" and read_only:
        severe.append(f"{category} operation claims readOnly")
    if category == "DELETE" and not destructive:
        severe.append("DELETE operation is not marked destructive")
    if severe:
        return severe, []
    expected = PERMISSION_TABLE[category]
    if json_equal([read_only, destructive], list(expected)):
        return [], []
    return [], [
        uncited(  # core §6.1's table has no keyword: a warning, about no rule
            f"{category} permissions readOnly={str(read_only).lower()}, destructive={str(destructive).lower()} "
            f"differ from the spec table (readOnly={str(expected[0]).lower()}, destructive={str(expected[1]).lower()})"
        )
    ]


def _all_documented_exactly(accepted: dict[str, list[str]], index: ParameterIndex) -> bool:
    """The common case in C-level passes: the same operations in the same order, each
    accepting exactly its documented parameter names in the documented order."""
    if list(accepted) != list(index.by_operation):
        return False
    same_lengths = list(map(len, accepted.values())) == list(map(len, index.by_operation.values()))
    return same_lengths and list(chain.from_iterable(accepted.values())) == index.names


def _inconclusive_acceptance(ctx: Context) -> dict[str, str]:
    """Operations whose unknown-parameter probe was not refused as unknown, and what it got:
    what such an operation accepts cannot tell what it supports."""
    found = {}
    for case in ctx.bundle.parameter_cases("unknown_parameter"):
        if unknown_parameter_problem(case["parameter"], case["response"]) is None:
            continue
        if case_blame(case, case["parameter"]) is not None:  # refused our value: shows nothing either way
            continue
        answer = classify(case["response"])
        if answer.succeeded:
            found[case["operation"]] = (
                f"accepts any parameter (it accepted the unknown parameter {case['parameter']} too)"
            )
        else:
            found[case["operation"]] = (
                f"the unknown parameter {case['parameter']} got the same kind of answer ({answer.describe()})"
            )
    return found


# Offset- and page-style pagination parameters: features/collection-querying §2.6 asks that a server
# taking them say so in introspection.
_OFFSET_STYLE = frozenset({"limit", "offset", "page", "page_size", "per_page", "skip", "take"})


def _undocumented_rule(parameter: str) -> str:
    """An undocumented pagination style is collection-querying §2.6's; any other parameter §8.1.2's."""
    if parameter.lower() in _OFFSET_STYLE:
        return "features/collection-querying:2.6:style-documented"
    return "introspection:8.1.2:accepted-documented"


def _refused_valid_requests(ctx: Context) -> list[str]:
    """Requests built only from introspection must not be refused as invalid (Parameter Accuracy)."""
    failures: list[str] = []
    for case in ctx.bundle.cases("valid_requests"):
        answer = classify(case["response"])
        if answer.refused and answer.validation:
            refusal = answer.describe()
            text = f"{case['operation']}: a request built from introspection was refused ({refusal})"
            rule = _REFUSED_VALID.get(str(answer.code))
            failures.append(cite(rule, text) if rule else text)  # else: the test's own rule
    return failures


# A request built from introspection refused with this code: what introspection got wrong.
_REFUSED_VALID = {
    "VALIDATION_UNKNOWN_PARAM": "introspection:8.1.1:names-match",
    "VALIDATION_INVALID_TYPE": "introspection:8.1.1:types-match",
    "VALIDATION_MISSING_PARAM": "introspection:8.1.2:required-true",
}


_INTROSPECTION_COMPLETENESS_RULES = (
    "core:4.7.2:iso-8601", "core:4.7.2:utc", "core:10.1:l2-passes-suite", "core:10.2:claiming",
    "core:10.3:extensions-documented", "conformance:2.1:introspection-fidelity",
    "conformance:4.1:level1-categories", "introspection:8.1:must-list", "introspection:8.1.1:accurate",
    "introspection:8.1.1:names-match", "introspection:8.1.1:types-match", "introspection:8.1.1:required-match",
    "introspection:8.1.2:complete", "introspection:8.1.2:accepted-documented", "introspection:8.1.2:required-true",
    "introspection:8.1.2:feature-parameters", "operations:2.1:input-structure", "features/pagination:3.1:page-info",
    "features/collection-querying:2.6:style-documented", "features/collection-querying:4.2:input-type-introspected",
    "core:4.7.1:null-bytes", "core:4.7.1:invalid-utf-8", "core:4.7.4:base64", "core:4.7.5:enforce-limits",
    "core:4.7.5:too-large-error",
    "features/pagination:2.3:invalid-combinations", "features/collection-querying:2.2:unknown-filter-key",
    "features/collection-querying:6:expose-list", *CONTROL_CALL_RULES, *LIFECYCLE_RULES, *LOOP_RULES, *SESSION_RULES,
)  # fmt: skip


@INTROSPECTION.check(
    "L1.introspection.completeness",
    "Introspection is complete and accurate",
    f"{CONFORMANCE} §3.1 (Introspection Completeness)",
    rules=_INTROSPECTION_COMPLETENESS_RULES,
    primary="introspection:8.1.1:accurate",
)
def completeness(ctx: Context) -> Outcome:
    accepted = ctx.bundle.accepted_parameters or {}
    failures: list[str] = []
    warnings: list[str] = []
    if not _all_documented_exactly(accepted, ctx.parameter_index):
        inconclusive = _inconclusive_acceptance(ctx)
        for operation, parameters in accepted.items():
            known = operation in ctx.details_by_name
            names = ctx.parameter_index.names_of(operation)
            if known and parameters == names:
                continue  # the common case, decided without building sets or messages
            documented, seen = set(names), set(parameters)
            undocumented = [p for p in parameters if p not in documented]  # json: names in a set of names
            if operation in inconclusive and undocumented:
                # What an operation that takes (or refuses alike) a made-up parameter accepts shows
                # nothing about what it supports: the unknown-parameter test owns that, and
                # documenting the probes would not be the fix.
                warnings.append(
                    f"{operation}: {inconclusive[operation]}, so accepting {', '.join(undocumented)} shows nothing"
                )
            elif not known:
                text = f"{operation}: accepts {', '.join(parameters) or 'calls'} but has no introspection detail"
                failures.append(cite("introspection:8.1.2:complete", text))
                continue
            else:
                failures += [
                    cite(_undocumented_rule(p), f"{operation}.{p}: accepted but not documented") for p in undocumented
                ]
            warnings += [
                f"{operation}.{p}: documented but not accepted"
                for p in documented
                if p not in seen and ctx.not_probed(operation, ("accepted_parameters",), p) is None
            ]
    failures += _refused_valid_requests(ctx) + null_byte_findings(ctx) + invalid_utf8_findings(ctx)
    failures += limit_findings(ctx)
    failures += control_call_findings(ctx) + lifecycle_findings(ctx)
    failures += loop_documentation_findings(ctx) + loop_call_findings(ctx) + ended_session_findings(ctx)
    warnings += return_shape_warnings(ctx.bundle, ctx.details_by_name)
    encoding_failures, encoding_warnings = encoding_findings(ctx.bundle, ctx.details_by_name)
    failures += encoding_failures
    warnings += encoding_warnings
    uncovered, withheld = split_withheld(
        ctx, [name for name in ctx.details_by_name if name not in accepted], ("accepted_parameters",)
    )
    return judge(
        MUST,
        judged=len(accepted),
        failures=failures,
        warnings=sorted(warnings),
        uncovered=uncovered,
        withheld=withheld,
        uncovered_label="operations without accepted-parameter evidence",
        passed=f"Every accepted parameter of {len(accepted)} operation(s) is documented.",
        no_evidence=told(ctx, "no call of an operation with its parameters was answered", "no accepted_parameters"),
    )
