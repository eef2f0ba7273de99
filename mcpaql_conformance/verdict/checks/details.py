"""What operation details and tool names say against the spec: each deviation cites the rule
that asks for the field it concerns (operations §4.3-§5.2, introspection §8.1.2, mcp-integration
§2.2.1 and §6.4), the test's own rule where none does."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.reading import STANDARD_TAIL
from mcpaql_conformance.files.schemas import introspection_schema
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.verdict.checks.base import cite


def tool_name_failures(ctx: Context) -> list[str]:
    """MCP-AQL tools carry the names the spec gives them (a prefix is allowed): mcp-integration
    §2.2.1 says SHOULD (the core's §3.3 names them without a keyword), so another name warns."""
    return [
        cite(_tool_name_rule(reading.name), reading.deviation)
        for reading in ctx.aql_tools
        if reading.deviation is not None
    ]


def _tool_name_rule(name: str) -> str:
    """A standard tool name behind a prefix of other characters than lowercase letters, digits and
    underscores, or without its closing underscore, is mcp-integration §6.4's; else §2.2.1's."""
    standard = STANDARD_TAIL.search(name)
    prefix = name[: standard.start()] if standard is not None else ""
    if prefix and not _PREFIX_CHARACTERS.fullmatch(prefix):
        return "mcp:6.4:prefix-charset"
    return "mcp:6.4:prefix-underscore" if prefix and not prefix.endswith("_") else TOOL_NAMES


_PREFIX_CHARACTERS = lazy(r"[a-z0-9_]+")


TOOL_NAMES = "mcp:2.2.1:standard-names"


def detail_schema_failures(ctx: Context, details: list[JsonObject]) -> tuple[list[str], list[JsonObject]]:
    """Failures of the details that do not match OperationDetails, and the valid details."""
    if ctx.all_details_valid:
        return [], details
    schema = introspection_schema("OperationDetails")
    failures: list[str] = []
    valid: list[JsonObject] = []
    for index, detail in enumerate(details):
        if schema.is_valid(detail):
            valid.append(detail)
        else:
            name = detail.get("name") if isinstance(detail, dict) else None
            where = name if isinstance(name, str) else f"$.introspection.operation_details[{index}]"
            reasons = schema.explain(detail)
            text, rule = f"{where}: {'; '.join(reasons)}", _detail_rule(reasons, detail)
            failures.append(cite(rule, text) if rule else text)  # else: the test's own rule
    return failures, valid


# What a reason of OperationDetails' schema names, and the rule that asks for it (most specific first).
_DETAIL_FIELD_RULES = (
    ("semantic_category", "operations:5.1:semantic-category"),
    ("'endpoint'", "operations:5.1:endpoint"),
    ("'description'", "operations:5.1:description"),
    ("'mcpTool'", "mcp:2.2.1:names-introspected"),
    ("$.examples", "introspection:8.1:must-list"),  # OperationExample objects (Appendix D's normative schema)
)
_PARAMETER_FIELD_RULES = (("'type'", "operations:5.2:type"), ("'required'", "operations:4.3:required-or-optional"))


# Parameters of the cross-cutting features introspection §8.1.2 item 4 names (and their kin).
_FEATURE_PARAMETERS = frozenset({"fields", "limit", "offset", "first", "after", "last", "before", "sort", "filter"})


def _detail_rule(reasons: list[str], detail: Any) -> str:
    """The rule the first reason that names a field the spec asks for is about ("": the test's
    own): a parameter given as a reference is operations §4.4.5's, a feature parameter without
    its type introspection §8.1.2's."""
    for reason in reasons:
        parameter = _parameter_at(detail, reason.partition(": ")[0])
        if parameter is not None and "$ref" in parameter:
            return "operations:4.4.5:expand-inline"
        table = _PARAMETER_FIELD_RULES if parameter is not None else _DETAIL_FIELD_RULES
        for field, rule in table:
            if field in reason:
                feature = rule == "operations:5.2:type" and parameter and parameter.get("name") in _FEATURE_PARAMETERS
                return "introspection:8.1.2:feature-parameters" if feature else rule
    return ""


def _parameter_at(detail: Any, path: str) -> dict[str, Any] | None:
    """The parameter a reason's path (``$.parameters[3]...``) is about, or None."""
    if not path.startswith("$.parameters[") or not isinstance(detail, dict):
        return None
    index = path.removeprefix("$.parameters[").partition("]")[0]
    parameters = detail.get("parameters")
    if not index.isdigit() or not isinstance(parameters, list) or int(index) >= len(parameters):
        return None
    found = parameters[int(index)]
    return found if isinstance(found, dict) else None
