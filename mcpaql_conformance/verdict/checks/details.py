"""What operation details and tool names say against the spec: each deviation cites the rule
that asks for the field it concerns (operations §4.3-§5.2, introspection §8.1.2, mcp-integration
§2.2.1 and §6.4), the test's own rule where none does."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.execution import fold
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.reading import CROSS_CUTTING, STANDARD_TAIL, snake_case
from mcpaql_conformance.files.jsonio import dumps
from mcpaql_conformance.files.schemas import introspection_schema
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite
from mcpaql_conformance.verdict.textmatch import identifiers_folded


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
    its type introspection §8.1.2's, a query_* operation's `query` without one collection-querying
    §4.2's."""
    for reason in reasons:
        parameter = _parameter_at(detail, reason.partition(": ")[0])
        if parameter is not None and "$ref" in parameter:
            return "operations:4.4.5:expand-inline"
        table = _PARAMETER_FIELD_RULES if parameter is not None else _DETAIL_FIELD_RULES
        for field, rule in table:
            if field in reason:
                untyped = rule == "operations:5.2:type"
                if untyped and parameter and parameter.get("name") == "query" and _of_query(detail):
                    return "features/collection-querying:4.2:input-type-introspected"  # a grammar's input
                feature = untyped and parameter and parameter.get("name") in _FEATURE_PARAMETERS
                return "introspection:8.1.2:feature-parameters" if feature else rule
    return ""


def _of_query(detail: Any) -> bool:
    """A query_* operation: its `query` takes a grammar (features/collection-querying §1)."""
    return isinstance(detail, dict) and str(detail.get("name")).startswith("query_")


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


# The cross-cutting parameters (evidence/reading.py) whose default is a page size.
PAGE_SIZES = ("first", "last", "limit", "page_size")


def shared_parameters(details: list[JsonObject]) -> dict[str, list[tuple[str, JsonObject]]]:
    """Each cross-cutting parameter documented by two operations or more: (operation, entry) each."""
    found: dict[str, list[tuple[str, JsonObject]]] = {}
    for detail in details:
        parameters = detail.get("parameters") if isinstance(detail, dict) else None
        for entry in parameters if isinstance(parameters, list) else []:
            if isinstance(entry, dict) and entry.get("name") in CROSS_CUTTING:
                found.setdefault(entry["name"], []).append((str(detail.get("name")), entry))
    return {name: uses for name, uses in found.items() if len(uses) > 1}


def shared_parameter_findings(details: list[JsonObject]) -> list[str]:
    """A cross-cutting parameter takes one type everywhere, and a page size one default wherever it
    has one (operations §4.4.4 items 2 and 4, SHOULDs)."""
    findings: list[str] = []
    for name, uses in shared_parameters(details).items():
        types = _spread(uses, lambda entry: _type_key(entry.get("type")))
        if len(types) > 1:
            findings.append(cite("operations:4.4.4:same-type", f"`{name}` has several types: {_said(types)}"))
        defaulted = [use for use in uses if "default" in use[1]]
        defaults = _spread(defaulted, lambda entry: dumps(entry["default"], indent=False).strip())
        if name in PAGE_SIZES and len(defaults) > 1:
            findings.append(cite("operations:4.4.4:same-default", f"`{name}` has several defaults: {_said(defaults)}"))
    return findings + same_name_findings(details)


def same_name_findings(details: list[JsonObject]) -> list[str]:
    """One parameter under several spellings across operations (``book_id`` here, ``bookId`` or ``bookid``
    there: the same name, case and separators aside; operations §4.4.4 item 1, a SHOULD). A camelCase
    alias beside its snake_case name on one operation is one spelling of that operation's (operations §4.1)."""
    spellings: dict[str, dict[str, str]] = {}  # folded name -> spelling -> the first operation using it
    for detail in details:
        operation = str(detail.get("name"))
        names = [p.get("name") for p in detail.get("parameters") or [] if isinstance(p, dict)]
        named = [name for name in names if isinstance(name, str)]
        for name in named:
            if snake_case(name) != name and snake_case(name) in named:  # json: names; an alias beside its name
                continue
            spellings.setdefault(fold(name), {}).setdefault(name, operation)
    findings: list[str] = []
    for found in [found for found in spellings.values() if len(found) > 1][:10]:
        said = "; ".join(f"`{plain(name, max_len=40)}` on {plain(op, max_len=60)}" for name, op in found.items())
        findings.append(cite("operations:4.4.4:same-name", f"one parameter under {len(found)} names: {said}"))
    return findings


# The verbs core §8.5.2's examples set against the canonical ones (create_user, not add_user...), by the
# semantic category whose canonical verb they stand in for.
DISCOURAGED = {("add", "CREATE"): "create", ("fetch", "READ"): "get", ("find", "READ"): "list",
               ("edit", "UPDATE"): "update", ("remove", "DELETE"): "delete", ("run", "EXECUTE"): "execute"}  # fmt: skip


def canonical_verb_findings(details: list[JsonObject]) -> list[str]:
    """An operation named with a verb core §8.5.2 sets against its category's canonical verb, whose
    description does not name the canonical one (§8.5.3: note the canonical equivalent; SHOULDs)."""
    findings: list[str] = []
    for detail in details:
        name, category = str(detail.get("name")), str(detail.get("semantic_category"))
        canonical = DISCOURAGED.get((name.split("_", 1)[0], category)) if "_" in name else None  # {verb}_{resource}
        if canonical is None or canonical in identifiers_folded(str(detail.get("description") or "")):
            continue
        findings.append(cite("core:8.5.1:canonical-verbs", f"{plain(name, max_len=60)} ({category}) is named with "
                             f"`{name.split('_', 1)[0]}`, not `{canonical}`, and its description does not name "
                             f"`{canonical}` as the canonical equivalent"))  # fmt: skip
    return findings[:20]


def _type_key(value: Any) -> str:
    """A documented type, its spacing, case and the order of a union's members aside."""
    text = dumps(value, indent=False).strip() if not isinstance(value, str) else value
    return "|".join(sorted("".join(text.split()).casefold().split("|")))


def _spread(uses: list[tuple[str, JsonObject]], key: Any) -> dict[str, list[str]]:
    """The operations by what ``key`` reads of their entry."""
    spread: dict[str, list[str]] = {}
    for operation, entry in uses:
        spread.setdefault(plain(key(entry), max_len=60), []).append(plain(operation, max_len=60))
    return spread


def _said(spread: dict[str, list[str]]) -> str:
    return "; ".join(f"{value} on {', '.join(operations[:4])}" for value, operations in list(spread.items())[:4])


# Parameters that are no free text whatever their type (controls, cursors, identifiers).
_CONTROLS = frozenset({*CROSS_CUTTING, "query"})


def search_query_findings(details: list[JsonObject]) -> list[str]:
    """A search_* operation takes its free text in `query` (features/collection-querying §2.1 and
    §3, SHOULDs): one taking a text parameter under another name is named with it (one taking no
    text at all has no text-search parameter to name)."""
    findings: list[str] = []
    for detail in details:
        name = detail.get("name") if isinstance(detail, dict) else None
        if not isinstance(name, str) or not name.startswith("search_") or detail.get("semantic_category") != "READ":
            continue
        parameters = [p for p in detail.get("parameters") or [] if isinstance(p, dict)]
        if any(p.get("name") == "query" for p in parameters):
            continue
        texts = [str(p.get("name")) for p in parameters if p.get("type") == "string" and p.get("name") not in _CONTROLS
                 and not str(p.get("name")).endswith("_id")]  # fmt: skip
        if texts:
            text = f"{plain(name, max_len=80)} takes no `query` parameter; its free text seems to go in "
            findings.append(
                cite("features/collection-querying:2.1:search-query-name", f"{text}`{plain(texts[0], max_len=60)}`")
            )
    return findings


def list_query_findings(details: list[JsonObject]) -> list[str]:
    """A list_* operation does not require `query` (features/collection-querying §2.1, a SHOULD NOT):
    listing a collection needs no search text."""
    return [
        cite("features/collection-querying:2.1:list-no-query", f"{plain(name, max_len=80)} requires `query`")
        for detail in details
        if isinstance(detail, dict)
        and isinstance(name := detail.get("name"), str)
        and name.startswith("list_")
        and any(isinstance(p, dict) and p.get("name") == "query" and p.get("required") is True
                for p in detail.get("parameters") or [])
    ]  # fmt: skip
