"""What the server's MCP tools say of themselves (mcp-integration §2.1, §2.3, §3.1, §6.4): each
MCP-AQL tool's description points to introspect (and holds its template's parts: descriptions.py),
its input schema is the base one, its annotations hint at the riskiest operation it serves, and
a shared name prefix is short. Read from the tool list capture keeps (``mcp_tools``); annotations
only where it recorded them."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.reading import STANDARD_TAIL, ToolReading
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite, prefixed
from mcpaql_conformance.verdict.checks.descriptions import description_findings, served_by

INTROSPECT_NAMED = "mcp:2.1:introspect-in-descriptions"
BASE_SCHEMA = "mcp:3.1:base-input-schema"
OPERATION_REQUIRED = "mcp:3.1:operation-required"
NOT_REQUIRED = "its input schema does not require `operation` (and takes no batch as `operations`)"
ANNOTATED = "mcp:2.3:tool-annotations"
CONSERVATIVE = "mcp:2.3:conservative-annotations"
PREFIX_SHORT = "mcp:6.4:prefix-short"
MAX_PREFIX = 19  # mcp-integration §6.4: under 20 characters
DESTRUCTIVE = frozenset({"UPDATE", "DELETE", "EXECUTE"})  # categories whose operations overwrite or remove


def mcp_tool_findings(ctx: Context, details: list[JsonObject]) -> list[str]:
    """Every finding about the MCP-AQL tools themselves (each cites its rule; all warn but the
    base input schema, which core §10.1 makes a Level 1 MUST)."""
    listed = {tool["name"]: tool for tool in ctx.bundle.mcp_tools or [] if isinstance(tool, dict)}
    findings: list[str] = []
    for reading in ctx.aql_tools:
        tool = listed.get(reading.name, {})
        name = plain(reading.name, max_len=80)
        if "description" in tool and "introspect" not in str(tool["description"] or "").lower():  # recorded
            findings.append(cite(INTROSPECT_NAMED, f"tool {name}: its description does not mention introspect"))
        if "inputSchema" in tool:  # recorded (a hand-written bundle may leave it out)
            problems = schema_problems(tool["inputSchema"])
            findings += [
                cite(OPERATION_REQUIRED if problem == NOT_REQUIRED else BASE_SCHEMA, f"tool {name}: {problem}")
                for problem in problems
            ]
        if "annotations" in tool:  # recorded (a capture of this version): judged
            categories = _categories_of(reading, details)
            annotations = _annotation_findings(tool["annotations"], categories)
            findings += [prefixed(f"tool {name}: ", text) for text in annotations]
    return findings + description_findings(ctx.aql_tools, listed, details) + _prefix_findings(ctx.aql_tools)


def schema_problems(schema: Any) -> list[str]:
    """How an input schema departs from the base one: an object whose `operation` is a string
    (required, unless the tool also takes a batch as `operations`) and whose `params`, if it
    declares one, is an object. Types are read leniently (a list or anyOf that includes it)."""
    if not isinstance(schema, dict):
        return ["its input schema is not an object schema"]
    declared, listed = schema.get("properties"), schema.get("required")
    properties: dict[str, Any] = declared if isinstance(declared, dict) else {}
    required: list[Any] = listed if isinstance(listed, list) else []
    problems: list[str] = [] if _allows(schema, "object") else ["its input schema does not take an object"]
    operation = properties.get("operation")
    if not isinstance(operation, dict):
        return [*problems, "its input schema has no `operation` property"]
    if not _allows(operation, "string"):
        problems.append("its input schema's `operation` is not a string")
    if "operation" not in required and "operations" not in properties:
        problems.append(NOT_REQUIRED)
    params = properties.get("params")
    if isinstance(params, dict) and not _allows(params, "object"):
        problems.append("its input schema's `params` is not an object")
    return problems


def _allows(schema: dict[str, Any], kind: str) -> bool:
    """A (sub)schema that admits values of JSON type ``kind``: no type said, the type, a list of
    types or an anyOf/oneOf holding it."""
    declared = schema.get("type")
    if declared == kind or (isinstance(declared, list) and kind in declared):
        return True
    options = [option for key in ("anyOf", "oneOf") for option in schema.get(key) or [] if isinstance(option, dict)]
    if options:
        return any(_allows(option, kind) for option in options)
    return declared is None


def _categories_of(reading: ToolReading, details: list[JsonObject]) -> set[str]:
    """The semantic categories of the operations a tool serves (``served_by``)."""
    return {str(detail.get("semantic_category")) for detail in served_by(reading, details)}


def _annotation_findings(annotations: Any, categories: set[str]) -> list[str]:
    """mcp-integration §2.3: annotations are there, and no hint claims less risk than the riskiest
    operation the tool serves (MCP's defaults, readOnlyHint false and destructiveHint true, are
    the conservative ones)."""
    if not isinstance(annotations, dict) or not {"readOnlyHint", "destructiveHint"} & set(annotations):
        return [cite(ANNOTATED, "carries no readOnlyHint or destructiveHint annotation")]
    findings: list[str] = []
    writes = sorted(categories - {"READ"})
    if annotations.get("readOnlyHint") is True and writes:
        text = f"readOnlyHint is true, but it serves {', '.join(writes)} operations"
        findings.append(cite(CONSERVATIVE, text))
    destructive = sorted(categories & DESTRUCTIVE)
    if annotations.get("destructiveHint") is False and destructive:
        text = f"destructiveHint is false, but it serves {', '.join(destructive)} operations"
        findings.append(cite(CONSERVATIVE, text))
    return findings


def _prefix_findings(readings: list[ToolReading]) -> list[str]:
    """mcp-integration §6.4: the prefix the MCP-AQL tools share is under 20 characters."""
    prefixes = {
        reading.name[: found.start()]
        for reading in readings
        if reading.deviation is None and (found := STANDARD_TAIL.search(reading.name)) is not None
    }
    return [
        cite(PREFIX_SHORT, f"tool name prefix {plain(prefix, max_len=80)!r} is {len(prefix)} characters long")
        for prefix in sorted(prefixes)
        if len(prefix) > MAX_PREFIX
    ]
