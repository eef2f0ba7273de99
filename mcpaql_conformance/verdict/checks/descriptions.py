"""What each MCP-AQL tool's description holds (mcp-integration §2.1.1, endpoint-modes §4.7, §5.4):
the parts the spec's templates give, read leniently, each part by what it is for rather than by
its wording. A family tool says what it is for, names operations it serves and shows a call; a
custom family also names its semantic categories; the single tool outlines its families or
categories and shows a call. Introspection guidance is judged for every tool by mcp-integration
§2.1 (tools.py), so it is not asked again here. A family named after the resource its operations
act on is a domain bucket, not an intent-revealing name (endpoint-modes §4.7)."""

from __future__ import annotations

from collections.abc import Iterable

from mcpaql_conformance.evidence.bundle import JsonObject
from mcpaql_conformance.evidence.reading import SINGLE, ToolReading
from mcpaql_conformance.files.values import json_equal
from mcpaql_conformance.files.vocabulary import SEMANTIC_CATEGORIES
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite
from mcpaql_conformance.verdict.textmatch import identifiers_folded

CRUDE_TEMPLATE = "mcp:2.1.1:crude-templates"
CUSTOM_TEMPLATE = "mcp:2.1.1:custom-template"
PURPOSE = "mcp:2.1.1:purpose-and-kinds"
UNIFIED = "endpoint-modes:5.4:unified-description"
INTENT_NAME = "endpoint-modes:4.7:intent-revealing-names"
CRUDE_FAMILIES = frozenset(category.lower() for category in SEMANTIC_CATEGORIES)

# A call shown in the text: `operation:` or `"operation":` and the name called (quick-start examples).
_CALL = lazy(r"""\boperation["']?\s*:\s*["']?([A-Za-z_][A-Za-z0-9_]*)""")
# A first line that is a list, a label or a call rather than a sentence of purpose.
_NOT_PURPOSE = lazy(
    r"(?i)^\s*(?:[-*{\[]|supported\s+operations\b|operations\s*:|quick[\s-]*start\b|primary\s+semantic)"
)
_WORD = lazy(r"[a-z0-9]+")


def description_findings(
    readings: Iterable[ToolReading], tools: dict[str, JsonObject], details: list[JsonObject]
) -> list[str]:
    """Every finding about the MCP-AQL tools' descriptions, one per tool and rule (all warn: the
    sentences say SHOULD). Only tools whose description capture recorded are read."""
    findings: list[str] = []
    for reading in readings:
        tool = tools.get(reading.name, {})
        if not isinstance(tool.get("description"), str):
            continue
        text, name = tool["description"], plain(reading.name, max_len=80)
        words = identifiers_folded(text)
        served = served_by(reading, details)
        if reading.family == SINGLE:
            findings += _unified(name, text, words, details)
            continue
        if not _has_purpose(text):
            findings.append(
                cite(
                    PURPOSE,
                    f"tool {name}: its description opens with no sentence saying what the "
                    f"family is for (it starts {_first_line(text)!r})",
                )
            )
        findings += _template(reading, name, text, words, served)
        findings += _bucket(reading, name, served)
    return findings


def _template(reading: ToolReading, name: str, text: str, words: set[str], served: list[JsonObject]) -> list[str]:
    """The template of §2.1.1 the tool's family follows: the CRUDE one for a CRUDE family, the
    custom-family one (which also names the semantic categories) otherwise."""
    crude = reading.family in CRUDE_FAMILIES
    missing = []
    operations = [str(op["name"]) for op in served if op.get("name") != "introspect"]
    if operations and not words & {operation.lower() for operation in operations}:
        missing.append(f"names none of its operations ({plain(', '.join(operations[:4]), max_len=120)})")
    called = {name.lower() for name in _CALL.findall(text)}
    if not called & {str(op.get("name")).lower() for op in served} and (served or not called):
        missing.append("shows no quick-start call of its operations ({ operation: ..., params: ... })")
    categories = sorted({str(op.get("semantic_category")) for op in served} & set(SEMANTIC_CATEGORIES))
    if not crude and categories and not words & {category.lower() for category in categories}:
        missing.append(f"names none of its semantic categories ({', '.join(categories)})")
    if not missing:
        return []
    template = f"the {reading.family.upper()} template" if crude else "the custom-family template"
    return [cite(CRUDE_TEMPLATE if crude else CUSTOM_TEMPLATE,
                 f"tool {name}: its description does not follow {template} of mcp-integration §2.1.1: it "
                 + "; it ".join(missing))]  # fmt: skip


def _unified(name: str, text: str, words: set[str], details: list[JsonObject]) -> list[str]:
    """endpoint-modes §5.4: the single tool outlines the families or categories and shows a call."""
    outline = set(SEMANTIC_CATEGORIES) | {str(d.get("endpoint")) for d in details if isinstance(d.get("endpoint"), str)}
    missing = []
    if not words & {word.lower() for word in outline}:
        missing.append("outlines none of the endpoint families or semantic categories")
    if not _CALL.search(text):
        missing.append("shows no quick-start call ({ operation: ..., params: ... })")
    if not missing:
        return []
    return [cite(UNIFIED, f"tool {name}: its description " + "; it ".join(missing))]


def _bucket(reading: ToolReading, name: str, served: list[JsonObject]) -> list[str]:
    """endpoint-modes §4.7: a custom family named after the resource its operations act on
    (`books` for list_books and get_book) is a domain bucket, not a name saying what it does."""
    family = reading.family
    if family in CRUDE_FAMILIES or not served:
        return []
    resources = {_resource(str(op.get("name", ""))) for op in served} - {""}
    if _singular(family) not in {_singular(resource) for resource in resources}:
        return []
    return [
        cite(
            INTENT_NAME,
            f"tool {name}: its family {plain(family, max_len=60)!r} is named after the resource "
            "its operations act on, not after what they do (query, manage, operate...)",
        )
    ]


def served_by(reading: ToolReading, details: list[JsonObject]) -> list[JsonObject]:
    """The operation details of what a tool serves: all for the single tool, its family's otherwise."""
    return [
        detail
        for detail in details
        if isinstance(detail, dict) and (reading.family == SINGLE or json_equal(detail.get("endpoint"), reading.family))
    ]


def _has_purpose(text: str) -> bool:
    """The description opens with a sentence (two words or more), not a list, label or call."""
    first = _first_line(text)
    return len(_WORD.findall(first.lower())) >= 2 and not _NOT_PURPOSE.match(first)


def _first_line(text: str) -> str:
    return plain(next((line.strip() for line in text.splitlines() if line.strip()), ""), max_len=60)


def _resource(operation: str) -> str:
    """The resource an operation name acts on: what follows its verb (`list_books` → `books`)."""
    return operation.partition("_")[2]


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word
