"""validate: coded diagnostics for evidence authors (a dry run: no check is executed)."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.evidence.bundle import Bundle, incomplete_invocation
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.files.schemas import bundle_schema, json_path, schema_document
from mcpaql_conformance.files.values import list_index
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain

ERROR, WARNING, INFO = "error", "warning", "info"
_TOOL_ID = lazy(r"^[a-z][a-z0-9_]*/[a-z][a-z0-9_]*$")
_OPERATION = lazy(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class Diagnostic:
    code: str
    severity: str
    path: str
    message: str
    hint: str

    def line(self) -> str:
        return f"{self.code} {self.severity} {self.path}: {self.message} (fix: {self.hint})"


@dataclass(frozen=True)
class Rule:
    code: str
    severity: str
    title: str
    hint: str
    find: Callable[[Any], Iterator[tuple[str, str]]]  # MQA001: the parsed data; the others: a Context


RULES: list[Rule] = []


def rule(
    code: str, severity: str, title: str, hint: str
) -> Callable[[Callable[[Any], Iterator[tuple[str, str]]]], Any]:
    def register(find: Callable[[Any], Iterator[tuple[str, str]]]) -> Any:
        RULES.append(Rule(code, severity, title, hint, find))
        return find

    return register


UNREADABLE = "MQA000"


def validate_file(path: Path) -> list[Diagnostic]:
    """The diagnostics of one file; a file that cannot be read or parsed, or that is another
    kind of document (a report, a suite...), is one MQA000 error that says why."""
    from mcpaql_conformance.files.jsonio import load_json_file
    from mcpaql_conformance.files.kinds import BUNDLE, refuse_other_kinds

    try:
        data = load_json_file(path, "bundle")
        refuse_other_kinds(data, plain(str(path)), BUNDLE)
    except ConfigError as exc:
        hint = "fix the file, or give it to the command the message names"
        return [Diagnostic(UNREADABLE, ERROR, "$", str(exc).removeprefix("error: "), hint)]
    return validate(data)


def validate(data: Any) -> list[Diagnostic]:
    """Every diagnostic for one parsed bundle; shape errors stop the deeper rules, which
    read the bundle through the checks' own indexes (so they see what the checks see)."""
    shape = list(_shape(data))
    if shape:
        first = RULES[0]
        return [Diagnostic(first.code, first.severity, path, message, first.hint) for path, message in shape]
    ctx = Context(bundle=Bundle(data=data))
    return [Diagnostic(r.code, r.severity, path, message, r.hint) for r in RULES[1:] for path, message in r.find(ctx)]


# --- rules ----------------------------------------------------------------------------------


@rule("MQA001", ERROR, "The bundle does not match the bundle schema", "see `mcpaql-conformance schema`")
def _shape(data: Any) -> Iterator[tuple[str, str]]:
    if not isinstance(data, dict):
        yield "$", "expected a JSON object (the evidence bundle)"
        return
    schema = bundle_schema()
    if schema.is_valid(data):
        return
    for reason in schema.explain(data, limit=20):
        path, _, message = reason.partition(": ")
        yield path, message


@rule("MQA002", WARNING, "Unknown top-level key", "rename it to the documented key, or remove it")
def _unknown_keys(ctx: Context) -> Iterator[tuple[str, str]]:
    known = list(schema_document("bundle")["properties"])
    for key in ctx.bundle.data:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            yield json_path([key]), f"unknown key {key!r}" + (f"; did you mean {close[0]!r}?" if close else "")


_NAMED_SECTIONS = {
    "error_tests": "name",
    "round_trip_tests": "name",
    "update_preservation_tests": "name",
    "constraint_tests": "name",
    "semantic_tests": "name",
    "agent_tests": "_description",
}


@rule("MQA003", ERROR, "Duplicate test name", "give every test in a section its own name")
def _duplicates(ctx: Context) -> Iterator[tuple[str, str]]:
    for section, key in _NAMED_SECTIONS.items():
        names = [case.get(key) for case in ctx.bundle.cases(section)]
        for name, count in Counter(n for n in names if isinstance(n, str)).items():
            if count > 1:
                index = names.index(name, names.index(name) + 1)
                yield json_path([section, index, key]), f"{name!r} is used {count} times in {section}"


@rule(
    "MQA004",
    WARNING,
    "Missing-parameter evidence for a parameter that is not required",
    "check the operation and parameter names against introspection",
)
def _not_required(ctx: Context) -> Iterator[tuple[str, str]]:
    documented = ctx.parameter_index.by_operation
    for index, case in enumerate(ctx.bundle.parameter_cases("missing_required")):
        parameters = documented.get(case["operation"], [])
        parameter = next((p for p in parameters if p["name"] == case["parameter"]), None)
        if case["operation"] in documented and (parameter is None or parameter.get("required") is not True):
            yield (
                json_path(["parameter_tests", "missing_required", index]),
                (f"{case['operation'] + '.' + case['parameter']!r} is not documented as required"),
            )


@rule(
    "MQA005",
    WARNING,
    "Required parameter without missing-parameter evidence",
    "record the answer to a call that omits it in parameter_tests.missing_required",
)
def _uncovered_required(ctx: Context) -> Iterator[tuple[str, str]]:
    cases = ctx.bundle.parameter_cases("missing_required")
    for operation, parameter in ctx.parameter_index.required.uncovered_pairs(cases):
        if ctx.withheld(operation) or ctx.not_probed(operation, ("missing_required",), parameter) is not None:
            continue  # capture did not ask, and said why (withheld for safety, or not safe to omit)
        yield "$.parameter_tests.missing_required", f"no evidence for required {f'{operation}.{parameter}'!r}"


@rule(
    "MQA006",
    WARNING,
    "Operation without detail evidence",
    "add its introspect {query: operations, name} answer to introspection.operation_details",
)
def _no_detail(ctx: Context) -> Iterator[tuple[str, str]]:
    listed = (ctx.bundle.operations_list or {}).get("data")
    operations = listed.get("operations") if isinstance(listed, dict) else None
    documented = ctx.details_by_name
    asked = {case.get("operation") for case in ctx.bundle.detail_queries}  # answered, if not with a detail
    for index, entry in enumerate(operations if isinstance(operations, list) else []):
        name = entry.get("name") if isinstance(entry, dict) else None
        if isinstance(name, str) and name not in documented and name not in asked:  # json: names as keys
            yield (
                json_path(["introspection", "operations_list", "data", "operations", index]),
                (f"{entry['name']!r} is listed but has no operation detail"),
            )


@rule("MQA007", WARNING, "Error test without must_mention", "list what an actionable message must mention")
def _unused_must_mention(ctx: Context) -> Iterator[tuple[str, str]]:
    for index, case in enumerate(ctx.bundle.cases("error_tests")):
        if not case.get("must_mention"):
            yield json_path(["error_tests", index]), f"{case['name']!r} has no must_mention: it judges nothing"


@rule("MQA008", WARNING, "Semantic test without tool calls", "record the calls the LLM made in tool_calls")
def _no_tool_calls(ctx: Context) -> Iterator[tuple[str, str]]:
    for index, case in enumerate(ctx.bundle.cases("semantic_tests")):
        if not case.get("tool_calls"):
            yield json_path(["semantic_tests", index]), f"{case['name']!r} records no tool_calls"


@rule(
    "MQA009",
    ERROR,
    "Expected value at a path that cannot exist",
    "use a dotted path (list indexes allowed) that exists in the recorded response",
)
def _impossible_paths(ctx: Context) -> Iterator[tuple[str, str]]:
    if ctx.captured:  # capture wrote each path from what it sent: an answer without it is the server's (checks)
        return
    for section, fields, response in (
        ("round_trip_tests", "expected_fields", "read_response"),
        ("update_preservation_tests", "preserved_fields", "read_response"),
    ):
        for index, case in enumerate(ctx.bundle.cases(section)):
            for path in case[fields]:
                reason = impossible_path(case[response], path)
                if reason is not None:
                    yield json_path([section, index, fields, path]), f"{path!r} cannot exist in {response}: {reason}"
    for index, case in enumerate(ctx.bundle.parameter_cases("optional_defaults")):
        reason = impossible_path(case["response"], case["expected_value_path"])
        if reason is not None:
            where = json_path(["parameter_tests", "optional_defaults", index, "expected_value_path"])
            yield where, f"{case['expected_value_path']!r} cannot exist in the response: {reason}"


_RESULT_KEYS = ("success", "data", "error", "warnings", "_meta", "results", "summary")


def impossible_path(document: Any, path: str) -> str | None:
    """Why a dotted path can never resolve in ``document`` (a key merely missing from an
    object could be a server dropping a field: that is the checks' business, not an error)."""
    segments = path.split(".")
    if segments[0] not in _RESULT_KEYS:
        return f"an operation result has no {segments[0]!r} (paths start with data)"
    current = document
    for depth, segment in enumerate(segments):
        if isinstance(current, dict):
            if segment not in current:
                return None
            current = current[segment]
        elif isinstance(current, list):
            index = list_index(segment)
            if index is None:
                return f"{'.'.join(segments[:depth])} is a list, indexed by numbers, not {segment!r}"
            if index >= len(current):
                return None
            current = current[index]
        else:
            return f"{'.'.join(segments[:depth])} is a {type(current).__name__} value, not an object or a list"
    return None


@rule("MQA010", ERROR, "Agent test without input", "give the prompt the agent was given in input")
def _agent_input(ctx: Context) -> Iterator[tuple[str, str]]:
    for index, case in enumerate(ctx.bundle.cases("agent_tests")):
        if not case["input"].strip() and case.get("kind") != "scenario":
            yield json_path(["agent_tests", index, "input"]), "the input prompt is empty"


@rule("MQA011", ERROR, "Agent test without expectedTools", "list the operations the agent must call")
def _agent_tools(ctx: Context) -> Iterator[tuple[str, str]]:
    for index, case in enumerate(ctx.bundle.cases("agent_tests")):
        if not case.get("expectedTools") and case.get("kind") != "scenario":  # a scenario has its own `expect`
            yield json_path(["agent_tests", index, "expectedTools"]), "no expected tools: tool use cannot be checked"


@rule(
    "MQA012",
    ERROR,
    "Invalid tool id in an agent test",
    "write a documented operation (get_note) or its endpoint/operation id (read/get_note)",
)
def _agent_tool_ids(ctx: Context) -> Iterator[tuple[str, str]]:
    endpoints = {name: detail.get("endpoint") for name, detail in ctx.details_by_name.items()}
    for index, case in enumerate(ctx.bundle.cases("agent_tests")):
        for position, tool in enumerate(case.get("expectedTools") or []):
            where = json_path(["agent_tests", index, "expectedTools", position])
            if _OPERATION.match(tool):
                if endpoints and tool not in endpoints and tool != "introspect":
                    yield where, f"{tool!r} is not a documented operation"
                continue
            if not _TOOL_ID.match(tool):
                yield where, f"{tool!r} is neither an operation name nor an endpoint/operation id"
                continue
            endpoint, operation = tool.split("/")
            if endpoints and operation not in endpoints:
                yield where, f"{operation!r} is not a documented operation"
            elif endpoints and endpoints[operation] != endpoint:
                yield where, f"{operation!r} is on endpoint {endpoints[operation]!r}, not {endpoint!r}"


@rule("MQA013", INFO, "No expected_exit_code", "declare the exit code verify-fixtures should expect")
def _no_expected_exit(ctx: Context) -> Iterator[tuple[str, str]]:
    if "expected_exit_code" not in ctx.bundle.data:
        yield "$", "verify-fixtures will count this bundle as a mismatch"


@rule(
    "MQA014",
    WARNING,
    "Incomplete agent evidence",
    "run the missing runs with `agent --resume` (the same options), or run the agent again",
)
def _agent_incomplete(ctx: Context) -> Iterator[tuple[str, str]]:
    runs = ctx.bundle.cases("agent_runs")
    latest = incomplete_invocation(runs)
    if latest is not None:
        counts = f"{latest.get('finished_runs')} of {latest.get('planned_runs')} runs finished"
        yield json_path(["agent_runs", len(runs) - 1]), f"{counts} ({plain(str(latest.get('reason')), max_len=200)})"
