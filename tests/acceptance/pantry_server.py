"""Pantry: an in-memory MCP-AQL adapter (kitchen items, suppliers, recipes) served over MCP streamable HTTP.

An independent reading of the MCP-AQL 1.0.0-draft specification, used as a test server.
It claims MCP-AQL Level 2 against specification version 1.0.0-draft.

    python tests/acceptance/pantry_server.py [--port N] [--mode semantic|single|all]

Listens on 127.0.0.1 only.  With --port 0 (the default) a free port is chosen.  Once connections are
accepted it prints one line ``PANTRY_URL=http://127.0.0.1:PORT/mcp``.  When $PANTRY_LOG is set, each
tools/call is appended to it as one JSON line (tool, operation, params).  SIGTERM stops it cleanly.
The mode may also come from $MCP_AQL_ENDPOINT_MODE, a tool-name prefix from $MCP_AQL_TOOL_PREFIX.

Conformance changelog, by section number
  versions/v1.0.0-draft.md (normative)
    2.3      the MCP session id (when the transport has one) in _protocol, logs and error _meta;
             no session-scoped state is kept
    3.3      semantic mode (CRUDE profile, the default) and single mode; 'all' exposes both
    4.1-4.3  {operation, params}; parameters also accepted at top level, params wins; snake_case names
    4.5      update_item takes `sku` plus an `input` object (named type ItemUpdateInput): deep merge,
             arrays replaced, null removes; 4.5.3 rules 1-5 (missing input -> VALIDATION_MISSING_PARAM,
             object, schema, unknown fields -> VALIDATION_UNKNOWN_FIELD, identifier inside input refused)
    4.6      unknown parameters refused, VALIDATION_UNKNOWN_PARAM with unknown/valid lists;
             '_'-prefixed metadata keys exempt; always strict
    4.7      unpaired surrogates and NUL refused (VALIDATION_INVALID_ENCODING); ISO 8601 dates (date-only
             values are calendar dates without time zone, timestamps UTC 'Z'); safe-integer range; no
             numeric parameter needs a string form; size/string/array/depth limits enforced
             (VALIDATION_PAYLOAD_TOO_LARGE) and published in _protocol.limits, null semantics likewise
    5        every answer is the discriminated union, as JSON text in the tool result
    6        standard categories and permission table; one endpoint per operation; route enforcement
    7        introspect (query operations|types, optional name)
    8.1-8.5  classification; canonical verbs; execute_restock returns the execution state format
    8.6      no execution safety loop: capabilities.execution_safety_loop = "disabled"
    9.2-9.3  domain types discoverable; concurrency "serialized" in _protocol
    10       Level 2: both modes, field selection, batches
  introspection.md 2-8     lists and details for every operation and type, null for unknown names,
                           _protocol block, protocol types, ParameterInfo constraints; named object
                           types (kind object, fields) and a named enum used as parameter types
  operations.md 2-9        parameter resolution, response format, cross-cutting parameters, validation
                           before execution (5.4), routing errors (6.3), batches (7.1-7.4)
  error-codes.md 3-7       registry codes and message templates; CONFLICT_ALREADY_EXISTS for duplicates
  endpoint-modes.md 3-8, crude-pattern.md 2-5, mcp-integration.md 2-4 and 6.2-6.4
                           tool names and descriptions (naming introspect), annotations, base input
                           schema, isError only for unrecoverable errors, MCP_AQL_TOOL_PREFIX
  features/field-selection.md 2-5   `fields`: preset or list of (dotted) paths, validated
  features/pagination.md 2-6        cursor pagination first/after/last/before with pageInfo
  features/collection-querying.md 2, 5   filter (unknown keys refused) and sort on list_items
"""

import argparse
import asyncio
import base64
import copy
import datetime as dt
import json
import math
import os
import re
import signal
import socket
import urllib.parse
import uuid
from typing import Annotated, Any

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import WithJsonSchema

SPEC_VERSION = "1.0.0-draft"
CATEGORIES = ("CREATE", "READ", "UPDATE", "DELETE", "EXECUTE")
PERMISSIONS = {  # core 6.1, crude-pattern 3.1
    "CREATE": {"readOnly": False, "destructive": False},
    "READ": {"readOnly": True, "destructive": False},
    "UPDATE": {"readOnly": False, "destructive": True},
    "DELETE": {"readOnly": False, "destructive": True},
    "EXECUTE": {"readOnly": False, "destructive": True},
}
LIMITS = {  # core 4.7.5, inside the configurable ranges
    "max_request_size": 1_048_576,
    "max_response_size": 10_485_760,
    "max_string_length": 65_536,
    "max_array_elements": 1_000,
    "max_nesting_depth": 16,
}
MAX_BATCH, SAFE_INT, PAGE_DEFAULT, PAGE_MAX = 50, 2**53 - 1, 20, 100
BATCH_ITEM = {"type": "OperationInput", "description": "a request {operation, params}"}
PRESETS = ("minimal", "standard", "full")


class OpError(Exception):
    """A failure, answered as {success: false, error: {code, message, details}}."""

    def __init__(self, code: str, message: str, **details: Any):
        super().__init__(message)
        self.code, self.message, self.details = code, message, details


def json_type(v: Any) -> str:
    names = {type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string"}
    return names.get(type(v)) or ("array" if isinstance(v, list) else "object")


def invalid(path: str, spec: dict, value: Any, expected: str = "", constraint: str = "", **extra: Any) -> OpError:
    """VALIDATION_INVALID_TYPE: a wrong JSON type, or (with constraint) a value breaking a constraint."""
    t = spec.get("type", "value")
    hint = f". Expected: {t} ({spec['description']})" if spec.get("description") else ""
    if constraint:
        shown = value if value is None or isinstance(value, (int, float)) else str(value)[:80]
        extra.update(constraint=constraint, value=shown)
        msg = f"Parameter '{path}' expected {expected}, got {json.dumps(shown)}{hint}"
    else:
        msg = f"Parameter '{path}' expected '{expected or t}', got '{json_type(value)}'{hint}"
    details = {"param_name": path, "expected_type": expected or t, "actual_type": json_type(value)}
    return OpError("VALIDATION_INVALID_TYPE", msg, **details, **extra)


def missing(path: str, spec: dict, **context: Any) -> OpError:
    what = "field" if "." in path or "[" in path else "parameter"
    msg = f"Missing required {what} '{path}'. Expected: {spec['type']} ({spec['description']})"
    return OpError("VALIDATION_MISSING_PARAM", msg, param_name=path, **context)


def too_large(kind: str, limit: int, actual: int, where: str = "") -> OpError:
    """VALIDATION_PAYLOAD_TOO_LARGE (core 4.7.5); kind is request_size, string_length, array_elements, ..."""
    unit = {"nesting_depth": "levels", "array_elements": "elements"}.get(kind, "bytes")
    msg = f"Payload exceeds {kind} limit of {limit}" + (f" at '{where}'" if where else "")
    details = {"limit_type": kind, "limit_value": limit, "actual_value": actual, "unit": unit}
    return OpError("VALIDATION_PAYLOAD_TOO_LARGE", msg, **details)


def not_found(resource: str, key: str, param: str) -> OpError:
    msg = f"Resource '{resource.lower()}' not found: '{key}' (parameter '{param}'); check the key or list records"
    return OpError("NOT_FOUND_RESOURCE", msg, resource_type=resource.lower(), resource_id=key, param_name=param)


# --------------------------------------------------------------------------------------------------
# Type registry (introspection 3.4-3.6, 5): the one source for introspection and for validation
# --------------------------------------------------------------------------------------------------
TYPES: dict[str, dict] = {}
NOT_NULLABLE: dict[str, set] = {}  # UPDATE-input types: fields that may change but may not be removed
INPUT_KEYS = {"ItemUpdateInput": "sku"}  # core 4.5.3 rule 5: identifiers stay out of `input`


def P(name: str, type_: str, required: bool = False, description: str = "", **extra: Any) -> dict:
    """A ParameterInfo (introspection 3.4)."""
    return {"name": name, "type": type_, "required": required, "description": description, **extra}


def object_type(name: str, description: str, *fields: dict) -> str:
    TYPES[name] = {"name": name, "kind": "object", "description": description, "fields": list(fields)}
    return name


def enum_type(name: str, description: str, values: list) -> str:
    TYPES[name] = {"name": name, "kind": "enum", "description": description, "values": list(values)}
    return name


def is_object(type_name: str) -> bool:
    return TYPES.get(type_name, {}).get("kind") == "object"


def partial_type(name: str, description: str, fields: list, exclude: tuple = ()) -> str:
    """UPDATE-input flavour of a field list: everything optional, nested object types partial as well."""
    out = []
    for f in (f for f in fields if f["name"] not in exclude):
        g = {k: v for k, v in f.items() if k != "default"} | {"required": False}
        if is_object(f["type"]):
            g["type"] = partial_type(
                f["type"] + "Patch", f"Partial {f['type']}: given keys merge, others stay.", TYPES[f["type"]]["fields"]
            )
        if f["required"]:
            g["description"] += " May not be null."
        else:
            g["description"] += (
                f" null resets it to {json.dumps(f['default'])}." if "default" in f else " null removes it."
            )
        out.append(g)
    NOT_NULLABLE[name] = {f["name"] for f in fields if f["required"] and f["name"] not in exclude}
    return object_type(name, description, *out)


def record_type(name: str, description: str, params: list) -> str:
    """Stored-record type: the create parameters (defaulted ones always present) plus timestamps."""
    return object_type(name, description, *[f | {"required": f["required"] or "default" in f} for f in params], *STAMPS)


UNITS = ["g", "kg", "ml", "l", "pcs"]
ROOMS = ["pantry", "cellar", "fridge", "freezer", "garage"]
SKU = {"pattern": r"^[A-Z]{3}-[0-9]{4}$"}
SUPPLIER_CODE = {"pattern": r"^SUP-[0-9]{3}$"}
SLUG = {"pattern": r"^[a-z][a-z0-9-]{2,39}$"}
DATE = {"format": "date", "pattern": r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}
PHONE = {"pattern": r"^\+?[0-9][0-9 -]{5,18}[0-9]$"}
CATEGORY_VALUES = ["produce", "dairy", "dry_goods", "oils", "spices", "frozen", "beverages", "baking"]

# fmt: off
enum_type("ItemCategory", "Kinds of pantry item.", CATEGORY_VALUES)
object_type("Room", "The room a shelf stands in.",
    P("name", "string", True, "Room name.", enum=ROOMS),
    P("temperature_c", "number", False, "Usual temperature in degrees Celsius.", minimum=-40, maximum=40))
object_type("Location", "Where an item is stored.",
    P("shelf", "string", True, "Shelf label, e.g. A.", minLength=1, maxLength=10),
    P("bin", "integer", True, "Bin number on the shelf.", minimum=1, maximum=40),
    P("room", "Room", False, "Room holding the shelf."))
object_type("Ingredient", "One component of a composite item (a spice mix, say).",
    P("name", "string", True, "Component name.", minLength=1, maxLength=60),
    P("quantity", "number", True, "Amount of the component.", minimum=0),
    P("unit", "string", False, "Unit of the amount.", enum=UNITS))
ITEM_PARAMS = [
    P("sku", "string", True, "The item's unique key (3 capitals, dash, 4 digits), e.g. ABC-1234; must be new.", **SKU),
    P("name", "string", True, "Display name.", minLength=1, maxLength=80),
    P("category", "ItemCategory", True, "Item category.", enum=CATEGORY_VALUES),
    P("quantity", "number", False, "Amount in stock, in `unit`.", default=0, minimum=0, maximum=100000),
    P("unit", "string", False, "Unit of `quantity`.", default="pcs", enum=UNITS),
    P("reorder_level", "integer", False, "Restock at or below this.", default=0, minimum=0, maximum=10000),
    P("location", "Location", True, "Where the item is stored."),
    P("best_before", "string", False, "Calendar date YYYY-MM-DD (no time zone), e.g. 2027-05-31.", **DATE),
    P("ingredients", "array", False, "Components, for composite items.", items={"type": "Ingredient"}),
    P("batch_uuid", "string", False, "Manufacturer batch identifier (UUID).", format="uuid"),
    P("supplier_code", "string", False, "An existing supplier's code, e.g. SUP-001.", **SUPPLIER_CODE),
    P("notes", "string", False, "Free text.", maxLength=500),
]
STAMPS = [
    P("created_at", "string", True, "When created (UTC); read-only, set by the server.", format="date-time"),
    P("updated_at", "string", True, "When last changed (UTC); read-only, set by the server.", format="date-time"),
]

record_type("Item", "A pantry item as stored and returned.", ITEM_PARAMS)
partial_type(
    "ItemUpdateInput",
    "Changes for update_item `input`: given fields replace (objects merge key by key), absent fields stay, "
    "arrays are replaced whole, null removes an optional field. The key `sku` is not allowed here.",
    ITEM_PARAMS,
    exclude=("sku",))
object_type("ItemFilter", "Filter for list_items; every given condition must hold.",
    P("category", "ItemCategory", False, "Only this category.", enum=CATEGORY_VALUES),
    P("supplier_code", "string", False, "Only items from this supplier.", **SUPPLIER_CODE),
    P("name_contains", "string", False, "Case-insensitive part of the name.", minLength=1, maxLength=80),
    P("low_stock", "boolean", False, "true: quantity at or below reorder_level; false: above it."),
    P("expires_before", "string", False, "Only items with an earlier best_before.", **DATE),
    P("room", "string", False, "Only items stored in this room.", enum=ROOMS))
object_type("ItemSort", "Sort order for list_items.",
    P("field", "string", True, "Field to sort by.", enum=["sku", "name", "quantity", "best_before", "created_at"]),
    P("order", "string", False, "Direction.", default="asc", enum=["asc", "desc"]))
object_type("SupplierContact", "A person at a supplier.",
    P("name", "string", True, "Full name.", minLength=1, maxLength=80),
    P("email", "string", True, "E-mail address.", format="email", maxLength=254),
    P("role", "string", False, "What they handle.", enum=["sales", "support", "billing", "delivery"]),
    P("phone", "string", False, "Digits with optional +, spaces, dashes.", **PHONE))
SUPPLIER_PARAMS = [
    P("supplier_code", "string", True, "The supplier's unique key, e.g. SUP-001; must be new.", **SUPPLIER_CODE),
    P("name", "string", True, "Company name.", minLength=1, maxLength=80),
    P("email", "string", True, "Order e-mail address.", format="email", maxLength=254),
    P("website", "string", False, "Absolute URI, e.g. https://greenvalley.example.", format="uri", maxLength=2048),
    P("phone", "string", False, "Phone number.", **PHONE),
    P("contacts", "array", False, "People to contact.", items={"type": "SupplierContact"}),
    P("registered_at", "string", False, "RFC 3339 date-time, e.g. 2024-03-01T09:00:00Z.", format="date-time"),
    P("rating", "integer", False, "Rating from 1 to 5.", minimum=1, maximum=5),
    P("active", "boolean", False, "Whether orders may be placed.", default=True),
]
record_type("Supplier", "A supplier as stored and returned.", SUPPLIER_PARAMS)
object_type("RecipeLine", "One line of a recipe, naming a pantry item.",
    P("sku", "string", True, "An existing item's sku, e.g. ABC-1234.", **SKU),
    P("quantity", "number", True, "Amount used.", minimum=0),
    P("unit", "string", False, "Unit of the amount.", enum=UNITS))
RECIPE_PARAMS = [
    P("recipe_slug", "string", True, "The recipe's unique key (lowercase, digits, dashes), e.g. rice-pilaf.", **SLUG),
    P("title", "string", True, "Recipe title.", minLength=1, maxLength=100),
    P("servings", "integer", True, "Number of servings.", minimum=1, maximum=50),
    P("lines", "array", True, "Ingredients; every sku must be an existing item.", items={"type": "RecipeLine"}),
    P("prep_minutes", "integer", False, "Preparation time in minutes.", minimum=0, maximum=1440),
]
record_type("Recipe", "A recipe as stored and returned.", RECIPE_PARAMS)
object_type("RestockLine", "One low-stock item of a restock run.",
    P("sku", "string", True, "Item key."),
    P("name", "string", True, "Item name."),
    P("quantity_before", "number", True, "Quantity before the run."),
    P("quantity_after", "number", True, "Quantity after the run (unchanged on a dry run)."),
    P("added", "number", True, "Amount added (or that would be added)."))
object_type("RestockExecution", "State of a restock execution (core 8.4.3); runs finish before the call returns.",
    P("execution_id", "string", True, "Execution identifier.", format="uuid"),
    P("status", "string", True, "Execution state.", enum=["running", "completed", "failed"]),
    P("dry_run", "boolean", True, "Whether quantities were left untouched."),
    P("started_at", "string", True, "Start (UTC).", format="date-time"),
    P("finished_at", "string", True, "End (UTC).", format="date-time"),
    P("items_checked", "integer", True, "Items examined."),
    P("lines", "array", True, "Low-stock items and their top-up.", items={"type": "RestockLine"}),
    P("reason", "string", False, "Reason given by the caller."))
object_type("PageInfo", "Cursor pagination metadata.",
    P("hasNextPage", "boolean", True, "More items after this page."),
    P("hasPreviousPage", "boolean", True, "More items before this page."),
    P("startCursor", "string", False, "Cursor of the first item (when items are returned)."),
    P("endCursor", "string", False, "Cursor of the last item (when items are returned)."),
    P("totalCount", "integer", False, "Items matching the query."))
object_type("ItemConnection", "A page of items.",
    P("items", "array", True, "Items, projected by `fields`.", items={"type": "Item"}),
    P("pageInfo", "PageInfo", True, "Pagination metadata."))
for _res, _key in (("Item", "sku"), ("Supplier", "supplier_code"), ("Recipe", "recipe_slug")):
    object_type(f"{_res}DeleteResult", f"Outcome of deleting a {_res.lower()}.",
                P(_key, "string", True, "Key of the deleted record."), P("deleted", "boolean", True, "Always true."))
TYPES["SupplierDeleteResult"]["fields"].append(P("items_unlinked", "array", True, "Items whose supplier_code was "
                                                 "removed.", items={"type": "string"}))
PRESET_FIELDS = {  # features/field-selection 3; "full" is every field
    "Item": {"minimal": ["sku", "name"], "standard": ["sku", "name", "category", "quantity", "unit", "location"]},
    "Supplier": {"minimal": ["supplier_code", "name"], "standard": ["supplier_code", "name", "email", "active"]},
    "Recipe": {"minimal": ["recipe_slug", "title"], "standard": ["recipe_slug", "title", "servings", "lines"]},
    "RestockExecution": {"minimal": ["execution_id", "status"], "standard": ["execution_id", "status", "dry_run"]},
}
object_type(
    "FieldSelection",
    "The `fields` parameter of READ operations: a preset name or a list of field paths (dotted for nested "
    "fields, e.g. location.room.name). See `presets` for what each preset holds.",
    P("presets", "array", True, "Preset names.", items={"type": "string", "enum": list(PRESETS)}),
    P("fields", "object", True, "Selectable top-level fields by record type."),
    P("computed_fields", "array", True, "Derived fields (none).", items={"type": "string"}))
TYPES["FieldSelection"] |= {"presets": PRESET_FIELDS, "selectable": {r: [] for r in PRESET_FIELDS}}
object_type("IntrospectionResult", "Answer of introspect: operations (with _protocol), operation, types or type.",
    P("_protocol", "object", False, "Protocol metadata (operations list only)."),
    P("operations", "array", False, "OperationInfo list."),
    P("operation", "object", False, "OperationDetails, or null for an unknown name."),
    P("types", "array", False, "TypeInfo list."),
    P("type", "object", False, "TypeDetails, or null for an unknown name."))
# protocol types (introspection 5.3)
enum_type("SemanticCategory", "The five semantic categories of operations.", list(CATEGORIES))
object_type("OperationInput", "Request of one operation.",
    P("operation", "string", True, "Operation name."),
    P("params", "object", False, "Operation parameters (they may also sit at top level; params wins)."))
object_type("BatchInput", "Batch request: the operations run in order, each on its own.",
    P("operations", "array", True, f"1 to {MAX_BATCH} requests.", items={"type": "OperationInput"}))
TYPES["OperationResult"] = {"name": "OperationResult", "kind": "union", "description": "Result of any operation.",
                            "members": ["OperationSuccess", "OperationFailure"]}
object_type("OperationSuccess", "A result with success true.",
    P("success", "boolean", True, "Always true."),
    P("data", "object", True, "Operation payload (may be null)."))
object_type("OperationFailure", "A result with success false.",
    P("success", "boolean", True, "Always false."),
    P("error", "ErrorDetail", True, "What went wrong."))
object_type("ErrorDetail", "Structured error.",
    P("code", "string", True, "Machine-readable code, e.g. VALIDATION_MISSING_PARAM."),
    P("message", "string", True, "Human-readable, actionable message."),
    P("details", "object", False, "Context such as param_name."))
object_type("EndpointPermissions", "Permission flags of an operation.",
    P("readOnly", "boolean", True, "Does not modify state."),
    P("destructive", "boolean", True, "May remove or overwrite state."))
# fmt: on

# --------------------------------------------------------------------------------------------------
# Validation (operations 5.4; core 4.5.3, 4.6, 4.7)
# --------------------------------------------------------------------------------------------------
_RE_CACHE: dict[str, re.Pattern] = {}
_D2 = "([0-9]{2})"
_RE_DATE = re.compile(rf"^([0-9]{{4}})-{_D2}-{_D2}$")
_RE_DATETIME = re.compile(
    rf"^([0-9]{{4}})-{_D2}-{_D2}[Tt]{_D2}:{_D2}:{_D2}(\.[0-9]+)?([Zz]|[+-][0-9]{{2}}:[0-9]{{2}})$"
)
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_RE_EMAIL = re.compile(rf"^{_ATEXT}(?:\.{_ATEXT})*@{_LABEL}(?:\.{_LABEL})*$")
_RE_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$")
_RE_UUID = re.compile(r"^[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}$")
_RE_BAD_CHARS = re.compile("[\ud800-\udfff\x00]")
FORMAT_HINTS = {
    "date": "a real calendar date YYYY-MM-DD, e.g. 2027-05-31",
    "date-time": "an RFC 3339 date-time with offset, e.g. 2026-02-04T10:30:00Z",
    "email": "an e-mail address, e.g. orders@example.com",
    "uri": "an absolute URI with a scheme, e.g. https://example.com/",
    "uuid": "a UUID, e.g. 1b4e28ba-2fa1-11d2-883f-0016d3cca427",
}


def format_ok(fmt: str, s: str) -> bool:
    """Real checks, not shapes: impossible dates and times, bad ports and the like fail."""
    try:
        if fmt == "date":
            m = _RE_DATE.match(s)
            return bool(m) and bool(dt.date(*map(int, m.groups())))
        if fmt == "date-time":
            m = _RE_DATETIME.match(s)
            if not m:
                return False
            y, mo, d, h, mi, sec = map(int, m.groups()[:6])
            tz = m.group(8).upper()
            off = 0 if tz == "Z" else (1 if tz[0] == "+" else -1) * (int(tz[1:3]) * 60 + int(tz[4:6]))
            if tz != "Z" and (int(tz[1:3]) > 23 or int(tz[4:6]) > 59):
                return False
            if sec == 60:  # a leap second can only be 23:59:60 UTC
                utc = dt.datetime(y, mo, d, h, mi, 59) - dt.timedelta(minutes=off)
                return (utc.hour, utc.minute) == (23, 59)
            return bool(dt.datetime(y, mo, d, h, mi, sec))
        if fmt == "email":
            return bool(_RE_EMAIL.match(s)) and len(s) <= 254 and len(s.rpartition("@")[0]) <= 64
        if fmt == "uri":
            parts = urllib.parse.urlsplit(s) if _RE_URI.match(s) else None
            if parts is None or (parts.scheme.lower() in ("http", "https") and not parts.hostname):
                return False
            return parts.port is not None or True  # .port raises ValueError on a bad port
        if fmt == "uuid":
            return bool(_RE_UUID.match(s))
    except ValueError:
        return False
    return True


class Params(dict):
    """Validated values; `defaulted` names those filled in from documented defaults."""

    def __init__(self) -> None:
        super().__init__()
        self.defaulted: set = set()


def check_value(spec: dict, value: Any, path: str) -> Any:
    t = spec["type"]
    if is_object(t):
        if not isinstance(value, dict):  # e.g. a string where a Location object belongs
            raise invalid(path, spec, value)
        return check_object(TYPES[t]["fields"], value, path, t)
    base = "string" if t in TYPES else t  # named enum types hold strings
    ok = {
        "string": isinstance(value, str),
        "integer": type(value) is int or (isinstance(value, float) and value.is_integer()),
        "number": type(value) in (int, float),
        "boolean": isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
        "string | string[]": isinstance(value, str)
        or (isinstance(value, list) and all(isinstance(x, str) for x in value)),
    }.get(base, True)
    if not ok:
        raise invalid(path, spec, value)
    if base == "integer":
        value = int(value)
    if base in ("integer", "number"):
        if not math.isfinite(value) or abs(value) > SAFE_INT:
            raise invalid(path, spec, value, f"a number within +/-{SAFE_INT}", "range")
        if "minimum" in spec and value < spec["minimum"]:
            raise invalid(path, spec, value, f"{base} >= {spec['minimum']}", "minimum", minimum=spec["minimum"])
        if "maximum" in spec and value > spec["maximum"]:
            raise invalid(path, spec, value, f"{base} <= {spec['maximum']}", "maximum", maximum=spec["maximum"])
    enum = spec.get("enum") or TYPES.get(t, {}).get("values")
    if enum is not None and value not in enum:
        raise invalid(path, spec, value, "one of " + ", ".join(map(str, enum)), "enum", allowed=enum)
    if base == "string":
        if len(value) < spec.get("minLength", 0):
            raise invalid(path, spec, value, f"at least {spec['minLength']} characters", "minLength")
        if len(value) > spec.get("maxLength", math.inf):
            raise invalid(path, spec, value, f"at most {spec['maxLength']} characters", "maxLength")
        rx = spec.get("pattern") and _RE_CACHE.setdefault(spec["pattern"], re.compile(spec["pattern"]))
        if rx and not rx.search(value):
            raise invalid(path, spec, value, f"a string matching {spec['pattern']}", "pattern", pattern=rx.pattern)
        if "format" in spec and not format_ok(spec["format"], value):
            fmt = spec["format"]
            raise invalid(path, spec, value, FORMAT_HINTS.get(fmt, fmt), "format", format=fmt)
    if base == "array" and "items" in spec:
        item = {"description": "", **spec["items"]}
        value = [check_value(item, v, f"{path}[{i}]") for i, v in enumerate(value)]
    return value


def check_object(fields: list, value: Any, path: str, type_name: str = "", operation: str = "") -> Params:
    """Validate an object field by field; path "" means the top-level params of `operation`."""
    if not isinstance(value, dict):
        raise invalid(path, {"type": type_name or "object"}, value)
    names = [f["name"] for f in fields]
    unknown = [k for k in value if k not in names and not (not path and k.startswith("_"))]
    key = INPUT_KEYS.get(type_name)
    if unknown and not path:
        msg = f"Unknown parameter(s) for operation '{operation}': {', '.join(unknown)}. Valid: {', '.join(names)}"
        raise OpError("VALIDATION_UNKNOWN_PARAM", msg, operation=operation, unknown_params=unknown, valid_params=names)
    if unknown:
        msg = f"Unknown field(s) in '{path}' ({type_name}): {', '.join(unknown)}. Valid fields: {', '.join(names)}"
        if key in unknown:
            msg, unknown = f"Identifier '{key}' may not appear inside '{path}'; pass it in params instead", [key]
        where = f"{path}.{unknown[0]}" if len(unknown) == 1 else path
        details = {"param_name": where, "type": type_name, "unknown_fields": [f"{path}.{k}" for k in unknown]}
        raise OpError("VALIDATION_UNKNOWN_FIELD", msg, **details, valid_fields=names)
    nullable = NOT_NULLABLE.get(type_name)  # a set for UPDATE-input types, None otherwise
    out = Params()
    for f in fields:
        name, sub, v = f["name"], f"{path}.{f['name']}" if path else f["name"], value.get(f["name"], ...)
        if v is None and nullable is not None:  # null in an UPDATE input: remove the field (core 4.5.2)
            if name in nullable:
                raise invalid(sub, f, v, f"a {f['type']} (a required field cannot be removed with null)", "nullable")
            out[name] = None
        elif v is ... or (v is None and not f["required"]):  # null for an optional parameter = left out
            if f["required"]:
                raise missing(sub, f, **({"operation": operation} if operation else {"type": type_name}))
            if "default" in f:
                out[name] = copy.deepcopy(f["default"])
                out.defaulted.add(name)
        else:
            out[name] = check_value(f, v, sub)
    return out


def scan_limits(value: Any, where: str = "arguments", depth: int = 1) -> None:
    """Encoding (core 4.7.1) and size limits (core 4.7.5) over the raw arguments."""

    if isinstance(value, (dict, list)) and depth > LIMITS["max_nesting_depth"]:
        raise too_large("nesting_depth", LIMITS["max_nesting_depth"], depth, where)
    if isinstance(value, str):
        if len(value) > LIMITS["max_string_length"]:
            raise too_large("string_length", LIMITS["max_string_length"], len(value), where)
        if m := _RE_BAD_CHARS.search(value):
            what = "a NUL character" if m.group() == "\x00" else "an unpaired surrogate (not valid UTF-8)"
            msg = f"Invalid character encoding in request: '{where}' contains {what}; send valid UTF-8 text"
            raise OpError("VALIDATION_INVALID_ENCODING", msg, location=where, char_offset=m.start())
    elif isinstance(value, list):
        if len(value) > LIMITS["max_array_elements"]:
            raise too_large("array_elements", LIMITS["max_array_elements"], len(value), where)
        for i, v in enumerate(value):
            scan_limits(v, f"{where}[{i}]", depth + 1)
    elif isinstance(value, dict):
        for k, v in value.items():
            scan_limits(k, where, depth)
            scan_limits(v, f"{where}.{k}", depth + 1)


# --------------------------------------------------------------------------------------------------
# Field selection and cursor pagination (features/field-selection, features/pagination)
# --------------------------------------------------------------------------------------------------
def field_paths(type_name: str, prefix: str = "") -> list:
    out = []
    for f in TYPES[type_name]["fields"]:
        out.append(prefix + f["name"])
        inner = f.get("items", {}).get("type") if f["type"] == "array" else f["type"]
        if is_object(inner):
            out += field_paths(inner, f"{prefix}{f['name']}.")
    return out


def check_fields(fields: Any, resource: str) -> None:
    if isinstance(fields, str):
        if fields not in PRESETS:
            raise invalid(
                "fields", {}, fields, "a preset (" + ", ".join(PRESETS) + ") or a list of field paths", "enum"
            )
        return
    known = field_paths(resource)
    if not fields or (bad := [f for f in fields if f not in known]):
        msg = f"Parameter 'fields' names no or unknown field(s) of {resource}. Valid: {', '.join(known)}"
        raise OpError(
            "VALIDATION_INVALID_TYPE",
            msg,
            param_name="fields",
            expected_type="preset or field paths",
            actual_type="array",
            invalid_fields=fields and bad,
            valid_fields=known,
        )


def _pick(src: Any, parts: list) -> Any:
    """The part of src under a dotted path, keeping its structure ({} when absent; arrays map over items)."""
    if isinstance(src, list):
        return [_pick(x, parts) for x in src]
    if not isinstance(src, dict) or parts[0] not in src:
        return {}
    if len(parts) == 1:
        return {parts[0]: copy.deepcopy(src[parts[0]])}
    inner = _pick(src[parts[0]], parts[1:])
    return {parts[0]: inner} if inner != {} else {}


def _merge(dst: Any, val: Any) -> Any:
    if isinstance(dst, dict) and isinstance(val, dict):
        for k, v in val.items():
            dst[k] = _merge(dst[k], v) if k in dst else v
        return dst
    if isinstance(dst, list) and isinstance(val, list):
        return [_merge(a, b) for a, b in zip(dst, val, strict=False)]
    return val


def project(record: dict, fields: Any, resource: str) -> dict:
    if fields == "full":
        return copy.deepcopy(record)
    out: dict = {}
    for p in PRESET_FIELDS[resource][fields] if isinstance(fields, str) else fields:
        _merge(out, _pick(record, p.split(".")))
    return out


def _cursor(tag: str, key: list) -> str:
    return base64.urlsafe_b64encode(json.dumps([tag, key], separators=(",", ":")).encode()).decode().rstrip("=")


def paginate(rows: list, keys: list, tag: str, v: Params, desc: bool = False) -> tuple:
    """Cursor pagination; rows are in listing order and keys[i] is rows[i]'s unique sort key."""
    sent = [k for k in ("first", "after", "last", "before") if k in v and k not in v.defaulted]
    bad = (
        ("first" in sent and "last" in sent and "'first' and 'last' cannot be combined")
        or ("after" in sent and "first" not in sent and "'after' needs 'first'")
        or ("before" in sent and "last" not in sent and "'before' needs 'last'")
        or ("first" in sent and "before" in sent and "'first' goes with 'after', not 'before'")
        or ("last" in sent and "after" in sent and "'last' goes with 'before', not 'after'")
    )
    if bad:
        raise OpError(
            "VALIDATION_INVALID_TYPE",
            f"{bad}. Page forward with first/after, backward with last/before",
            param_name="pagination",
            expected_type="first[/after] or last[/before]",
            actual_type="conflicting parameters",
            provided=sent,
        )

    def position(param: str) -> tuple:  # (index of the row with the cursor's key or where it would be, key)
        try:
            tag_, key = json.loads(base64.urlsafe_b64decode(v[param] + "=" * (-len(v[param]) % 4)))
            if tag_ != tag:
                raise ValueError
            return next((i for i, k in enumerate(keys) if not (k > key if desc else k < key)), len(keys)), key
        except (ValueError, TypeError, UnicodeError):
            msg = f"Parameter '{param}' is not a cursor of this listing and sort; use a pageInfo cursor"
            raise OpError("VALIDATION_INVALID_TYPE", msg, param_name=param, expected_type="cursor") from None

    start, end = 0, len(rows)
    if "after" in sent:
        i, key = position("after")
        start = i + 1 if i < len(keys) and keys[i] == key else i
    if "before" in sent:
        end = position("before")[0]
    if "last" in sent:
        start = max(start, end - min(v["last"], PAGE_MAX))
    else:
        end = min(end, start + min(v.get("first", PAGE_DEFAULT), PAGE_MAX))
    info = {"hasNextPage": end < len(rows), "hasPreviousPage": start > 0, "totalCount": len(rows)}
    if end > start:
        info |= {"startCursor": _cursor(tag, keys[start]), "endCursor": _cursor(tag, keys[end - 1])}
    return rows[start:end], info


# --------------------------------------------------------------------------------------------------
# Data and handlers.  Records are kept across sessions (core 2.3.4), in memory for the process' life.
# --------------------------------------------------------------------------------------------------
def now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# fmt: off
SEEDED = {"created_at": "2026-01-05T08:00:00Z", "updated_at": "2026-01-05T08:00:00Z"}
SUPPLIERS: dict = {
    "SUP-001": {"supplier_code": "SUP-001", "name": "Green Valley Farms", "email": "orders@greenvalley.example",
                "website": "https://greenvalley.example", "registered_at": "2024-03-01T09:00:00Z", "rating": 4,
                "contacts": [{"name": "Dana Reyes", "email": "dana@greenvalley.example", "role": "sales"}],
                "active": True, **SEEDED},
}
ITEMS: dict = {
    "ABC-1234": {"sku": "ABC-1234", "name": "Basmati rice", "category": "dry_goods", "quantity": 2.5, "unit": "kg",
                 "reorder_level": 1, "location": {"shelf": "A", "bin": 3, "room": {"name": "pantry"}},
                 "best_before": "2027-05-31", "batch_uuid": "1b4e28ba-2fa1-11d2-883f-0016d3cca427",
                 "supplier_code": "SUP-001", **SEEDED},
    "XYZ-0042": {"sku": "XYZ-0042", "name": "Olive oil", "category": "oils", "quantity": 0.5, "unit": "l",
                 "reorder_level": 1, "location": {"shelf": "B", "bin": 12}, "best_before": "2026-11-30", **SEEDED},
}
RECIPES: dict = {
    "rice-pilaf": {"recipe_slug": "rice-pilaf", "title": "Rice pilaf", "servings": 4, "prep_minutes": 35,
                   "lines": [{"sku": "ABC-1234", "quantity": 0.3, "unit": "kg"},
                             {"sku": "XYZ-0042", "quantity": 30, "unit": "ml"}], **SEEDED},
}
# fmt: on
EXECUTIONS: dict = {}
STORES = {"Item": ITEMS, "Supplier": SUPPLIERS, "Recipe": RECIPES, "RestockExecution": EXECUTIONS}
KEYS = {"Item": "sku", "Supplier": "supplier_code", "Recipe": "recipe_slug", "RestockExecution": "execution_id"}


def lookup(resource: str, key: str, param: str) -> dict:
    if key not in STORES[resource]:
        raise not_found(resource, key, param)
    return STORES[resource][key]


def create(resource: str, v: Params) -> dict:
    key = v[KEYS[resource]]
    if key in STORES[resource]:
        msg = f"{resource} '{key}' already exists; choose another {KEYS[resource]} or update the existing one"
        raise OpError(
            "CONFLICT_ALREADY_EXISTS", msg, resource_type=resource.lower(), resource_id=key, param_name=KEYS[resource]
        )
    if resource == "Item" and "supplier_code" in v:
        lookup("Supplier", v["supplier_code"], "supplier_code")
    for i, line in enumerate(v.get("lines", []) if resource == "Recipe" else []):
        lookup("Item", line["sku"], f"lines[{i}].sku")
    STORES[resource][key] = {**copy.deepcopy(v), "created_at": now(), "updated_at": now()}
    return copy.deepcopy(STORES[resource][key])


def deep_merge(target: dict, patch: dict) -> dict:  # core 4.5.1
    for k, val in patch.items():
        if val is None:
            target.pop(k, None)
        elif isinstance(val, dict) and isinstance(target.get(k), dict):
            deep_merge(target[k], val)
        else:
            target[k] = copy.deepcopy(val)
    return target


def update_item(v: Params) -> dict:
    rec = lookup("Item", v["sku"], "sku")
    merged = deep_merge({k: x for k, x in copy.deepcopy(rec).items() if k not in ("sku", *SEEDED)}, v["input"])
    # the merged record must still be a valid item (a room newly given needs its name, for instance)
    body = check_object(ITEM_PARAMS[1:], merged, "input", "Item")
    if "supplier_code" in body:
        lookup("Supplier", body["supplier_code"], "input.supplier_code")
    ITEMS[v["sku"]] = {"sku": v["sku"], **body, "created_at": rec["created_at"], "updated_at": now()}
    return copy.deepcopy(ITEMS[v["sku"]])


def delete(resource: str, v: Params) -> dict:
    key = KEYS[resource]
    lookup(resource, v[key], key)
    del STORES[resource][v[key]]
    out = {key: v[key], "deleted": True}
    if resource == "Supplier":  # items keep no dangling supplier reference
        out["items_unlinked"] = sorted(s for s, it in ITEMS.items() if it.get("supplier_code") == v[key])
        for sku in out["items_unlinked"]:
            ITEMS[sku].pop("supplier_code")
            ITEMS[sku]["updated_at"] = now()
    return out


def getter(resource: str) -> Any:
    key = KEYS[resource]

    def get(v: Params) -> dict:
        wanted = v[key].lower() if key == "execution_id" else v[key]  # UUIDs compare case-insensitively
        return project(lookup(resource, wanted, key), v["fields"], resource)

    return get


ITEM_FILTERS = {  # ItemFilter field -> test(item, wanted)
    "category": lambda it, x: it["category"] == x,
    "supplier_code": lambda it, x: it.get("supplier_code") == x,
    "name_contains": lambda it, x: x.lower() in it["name"].lower(),
    "low_stock": lambda it, x: (it["quantity"] <= it["reorder_level"]) == x,
    "expires_before": lambda it, x: it.get("best_before", "9999-12-31") < x,
    "room": lambda it, x: it["location"].get("room", {}).get("name") == x,
}


def list_items(v: Params) -> dict:
    rows = [it for it in ITEMS.values() if all(ITEM_FILTERS[k](it, x) for k, x in v.get("filter", {}).items())]
    sort = v.get("sort") or {"field": "sku", "order": "asc"}
    field, order = sort["field"], sort["order"]

    def sort_key(r: dict) -> list:  # unique (sku breaks ties), missing values first
        return [[0, ""] if r.get(field) is None else [1, r[field]], r["sku"]]

    rows.sort(key=sort_key, reverse=order == "desc")
    page, info = paginate(rows, [sort_key(r) for r in rows], f"items:{field}:{order}", v, order == "desc")
    return {"items": [project(r, v["fields"], "Item") for r in page], "pageInfo": info}


def execute_restock(v: Params) -> dict:
    started = now()
    skus = v.get("skus")
    targets = [lookup("Item", s, f"skus[{i}]") for i, s in enumerate(skus)] if skus else list(ITEMS.values())
    lines = []
    for it in targets:
        if it["reorder_level"] > 0 and it["quantity"] <= it["reorder_level"]:
            added = it["reorder_level"] * 2 - it["quantity"]
            after = it["quantity"] if v["dry_run"] else it["quantity"] + added
            line = {"sku": it["sku"], "name": it["name"], "quantity_before": it["quantity"]}
            lines.append(line | {"quantity_after": after, "added": added})
            if not v["dry_run"]:
                it["quantity"], it["updated_at"] = after, now()
    run = {"execution_id": str(uuid.uuid4()), "status": "completed", "dry_run": v["dry_run"], "started_at": started}
    run |= {"finished_at": now(), "items_checked": len(targets), "lines": lines}
    if v.get("reason"):
        run["reason"] = v["reason"]
    EXECUTIONS[run["execution_id"]] = run
    return copy.deepcopy(run)


# --------------------------------------------------------------------------------------------------
# Operation registry (operations 5; introspection 3.2-3.4)
# --------------------------------------------------------------------------------------------------
OPS: dict[str, dict] = {}


# fmt: off
def op(name: str, category: str, description: str, parameters: list, returns: str, examples: list, handler: Any,
       resource: str | None = None, **extra: Any) -> None:
    """Register an operation; `resource` names the record type of READ operations with field selection."""
    OPS[name] = {"name": name, "category": category, "description": description, "parameters": parameters,
                 "returns": returns, "examples": examples, "handler": handler, "resource": resource, "extra": extra}


def ex(description: str, operation: str, **params: Any) -> dict:
    return {"description": description, "request": {"operation": operation, "params": params}}


def fields_param(resource: str, default: str) -> dict:
    text = f"A preset ({', '.join(PRESETS)}) or a list of {resource} field paths (dotted for nested fields)."
    return P("fields", "string | string[]", False, f"{text} Default {default}; see type FieldSelection.",
             default=default)


KEY_PARAMS = {
    "sku": P("sku", "string", True, "Item key, e.g. ABC-1234.", **SKU),
    "supplier_code": P("supplier_code", "string", True, "Supplier key, e.g. SUP-001.", **SUPPLIER_CODE),
    "recipe_slug": P("recipe_slug", "string", True, "Recipe key, e.g. rice-pilaf.", **SLUG),
    "execution_id": P("execution_id", "string", True, "Identifier returned by execute_restock.", format="uuid"),
}
PAGING = [
    P("first", "integer", False, f"Page size from the start; over {PAGE_MAX} is clamped.", default=20, minimum=1),
    P("after", "string", False, "endCursor of the previous page; needs first."),
    P("last", "integer", False, f"Page size from the end; above {PAGE_MAX} is clamped; excludes first.", minimum=1),
    P("before", "string", False, "startCursor of the following page; needs last."),
]
NEW_ITEM = {"sku": "ABC-1234", "name": "Basmati rice", "category": "dry_goods", "quantity": 2.5, "unit": "kg",
            "location": {"shelf": "A", "bin": 3, "room": {"name": "pantry"}}, "best_before": "2027-05-31"}
NEW_SUPPLIER = {"supplier_code": "SUP-001", "name": "Green Valley Farms", "email": "orders@greenvalley.example",
                "website": "https://greenvalley.example", "registered_at": "2024-03-01T09:00:00Z",
                "contacts": [{"name": "Dana Reyes", "email": "dana@greenvalley.example", "role": "sales"}]}
SEED_NOTE = "(the key exists in the seed data: pick a fresh one)"

op("introspect", "READ", "Discover operations and types: query 'operations' or 'types', with a name for details "
   "(null when the name is unknown).",
   [P("query", "string", True, "What to list or describe.", enum=["operations", "types"]),
    P("name", "string", False, "Operation or type name for details.", minLength=1, maxLength=100)],
   "IntrospectionResult", [ex("List operations", "introspect", query="operations"),
                           ex("Describe create_item", "introspect", query="operations", name="create_item"),
                           ex("Describe the Location type", "introspect", query="types", name="Location")],
   None)
op("get_item", "READ", "Get one item by its sku.", [KEY_PARAMS["sku"], fields_param("Item", "full")], "Item",
   [ex("Get an item", "get_item", sku="ABC-1234"),
    ex("Only name and shelf", "get_item", sku="ABC-1234", fields=["name", "location.shelf"])],
   getter("Item"), "Item")
op("list_items", "READ", "List items, with filter (ItemFilter), sort (ItemSort, default sku ascending), field "
   "selection (default standard) and cursor pagination.",
   [P("filter", "ItemFilter", False, "Conditions; unknown keys are refused."),
    P("sort", "ItemSort", False, "Sort order; default sku ascending."), fields_param("Item", "standard"), *PAGING],
   "ItemConnection", [ex("Low-stock items, minimal fields", "list_items", filter={"low_stock": True},
                         fields="minimal", first=10),
                      ex("Dry goods by best-before date", "list_items", filter={"category": "dry_goods"},
                         sort={"field": "best_before", "order": "asc"})],
   list_items, "Item", supports_pagination=True,
   pagination={"style": "cursor", "default_page_size": PAGE_DEFAULT, "max_page_size": PAGE_MAX,
               "supports_total_count": True})
op("create_item", "CREATE", "Add an item. Its sku must be new (else CONFLICT_ALREADY_EXISTS); a supplier_code "
   "must name an existing supplier.", ITEM_PARAMS, "Item",
   [ex(f"Add rice {SEED_NOTE}", "create_item", **NEW_ITEM)], lambda v: create("Item", v))
op("update_item", "UPDATE", "Change an item: sku selects it; `input` (ItemUpdateInput) holds the changes. Objects "
   "merge key by key, arrays are replaced, null removes an optional field, absent fields stay.",
   [KEY_PARAMS["sku"], P("input", "ItemUpdateInput", True, "Fields to change.")], "Item",
   [ex("Move to bin 7, set quantity", "update_item", sku="ABC-1234", input={"quantity": 4, "location": {"bin": 7}}),
    ex("Remove the best-before date", "update_item", sku="ABC-1234", input={"best_before": None})],
   update_item)
op("delete_item", "DELETE", "Delete an item for good; recipes that use it keep their lines.", [KEY_PARAMS["sku"]],
   "ItemDeleteResult", [ex("Delete an item", "delete_item", sku="XYZ-0042")], lambda v: delete("Item", v))
op("get_supplier", "READ", "Get one supplier by supplier_code.",
   [KEY_PARAMS["supplier_code"], fields_param("Supplier", "full")], "Supplier",
   [ex("Get a supplier", "get_supplier", supplier_code="SUP-001")], getter("Supplier"), "Supplier")
op("create_supplier", "CREATE", "Register a supplier. Its supplier_code must be new (else CONFLICT_ALREADY_EXISTS).",
   SUPPLIER_PARAMS, "Supplier", [ex(f"Register a supplier {SEED_NOTE}", "create_supplier", **NEW_SUPPLIER)],
   lambda v: create("Supplier", v))
op("delete_supplier", "DELETE", "Delete a supplier for good; items that named it lose their supplier_code.",
   [KEY_PARAMS["supplier_code"]], "SupplierDeleteResult",
   [ex("Delete a supplier", "delete_supplier", supplier_code="SUP-001")], lambda v: delete("Supplier", v))
op("get_recipe", "READ", "Get one recipe by recipe_slug.", [KEY_PARAMS["recipe_slug"], fields_param("Recipe", "full")],
   "Recipe", [ex("Get a recipe", "get_recipe", recipe_slug="rice-pilaf")], getter("Recipe"), "Recipe")
op("create_recipe", "CREATE", "Add a recipe whose lines name existing items by sku (an unknown sku gives "
   "NOT_FOUND_RESOURCE); its recipe_slug must be new.", RECIPE_PARAMS, "Recipe",
   [ex(f"Add a recipe {SEED_NOTE}", "create_recipe", recipe_slug="rice-pilaf", title="Rice pilaf", servings=4,
       lines=[{"sku": "ABC-1234", "quantity": 0.3, "unit": "kg"}])], lambda v: create("Recipe", v))
op("delete_recipe", "DELETE", "Delete a recipe for good.", [KEY_PARAMS["recipe_slug"]], "RecipeDeleteResult",
   [ex("Delete a recipe", "delete_recipe", recipe_slug="rice-pilaf")], lambda v: delete("Recipe", v))
op("execute_restock", "EXECUTE", "Run a restock: items at or below their reorder_level are topped up to twice that "
   "level. dry_run (default true) only reports; dry_run false changes quantities. Each call is a new execution "
   "(non-idempotent) and returns its state; get_restock_execution reads it again.",
   [P("dry_run", "boolean", False, "true: report only; false: apply the top-ups.", default=True),
    P("skus", "array", False, "Only these items (each must exist); default all.", items={"type": "string", **SKU}),
    P("reason", "string", False, "Why the restock runs; kept with the execution.", maxLength=200)],
   "RestockExecution", [ex("Preview a restock", "execute_restock"),
                        ex("Apply for one item", "execute_restock", dry_run=False, skus=["XYZ-0042"], reason="shop")],
   execute_restock, lifecycle={"states": ["running", "completed", "failed"], "supports_cancel": False,
                               "supports_retry": False, "progress_reporting": False})
op("get_restock_execution", "READ", "Get the state of a restock execution by execution_id.",
   [KEY_PARAMS["execution_id"], fields_param("RestockExecution", "full")], "RestockExecution",
   [ex("Read an execution", "get_restock_execution", execution_id="9b2f4a6e-0c1d-4e5f-8a7b-3c2d1e0f9a8b")],
   getter("RestockExecution"), "RestockExecution")
# fmt: on
TYPES["FieldSelection"]["selectable"] = {r: [f["name"] for f in TYPES[r]["fields"]] for r in PRESET_FIELDS}


# --------------------------------------------------------------------------------------------------
# Engine: routing, modes, batches, introspection (core 3-7; endpoint-modes; operations 6-7)
# --------------------------------------------------------------------------------------------------
# fmt: off
PROTOCOL = {  # introspection 4.1.1; core 4.7.5, 4.7.6, 8.6.1, 9.3
    "version": SPEC_VERSION, "conformance": "level-2", "max_batch_size": MAX_BATCH, "limits": LIMITS,
    "capabilities": {"batch": True, "field_selection": True, "pagination": True, "warnings": False,
                     "aggregations": False, "computed_fields": False, "relationship_queries": False,
                     "confirmation": False, "dangerous_operations": False, "execution_safety_loop": "disabled"},
    "concurrency": "serialized", "supports_etag": False,
    "null_semantics": "In UPDATE `input` objects null removes an optional field; elsewhere null for an optional "
                      "parameter is the same as leaving it out.",
    "dates": "Date-only values are calendar dates without time zone; timestamps are UTC (Z).",
}
FAMILY_TEXT = {  # tool descriptions (mcp-integration 2.1), in our own words
    "create": ("Pantry CREATE operations: add items, suppliers and recipes.", "They only add records: nothing "
               "stored is overwritten or removed, and each new record needs a key that is not in use yet."),
    "read": ("Pantry READ operations: look records up (safe to repeat).", "They change nothing on the server."),
    "update": ("Pantry UPDATE operations: change an existing record.", "Give the record's key and an `input` "
               "object with the changes; the stored values are overwritten."),
    "delete": ("Pantry DELETE operations: remove records for good.", "A deleted record cannot be brought back; "
               "call them deliberately."),
    "execute": ("Pantry EXECUTE operations: restock runs.", "Every call starts a new run and may change stock "
                "quantities (it is not idempotent); execute_restock only reports unless dry_run is false."),
}
# fmt: on


def failure(e: OpError, session_id: str | None) -> dict:
    out = {"success": False, "error": {"code": e.code, "message": e.message, "details": e.details}}
    return out | ({"_meta": {"session_id": session_id}} if session_id else {})


class Engine:
    def __init__(self, mode: str, prefix: str):
        self.mode, self.prefix, self.log_path = mode, prefix, os.environ.get("PANTRY_LOG")
        self.families = {}  # tool name -> endpoint family ("" for the unified endpoint)
        if mode in ("semantic", "all"):
            self.families |= {f"{prefix}mcp_aql_{c.lower()}": c.lower() for c in CATEGORIES}
        if mode in ("single", "all"):
            self.families[f"{prefix}mcp_aql"] = ""

    def tool_for(self, name: str) -> str:
        family = OPS[name]["category"].lower()
        return f"{self.prefix}mcp_aql" if self.mode == "single" else f"{self.prefix}mcp_aql_{family}"

    # --- introspection (introspection 3-5) ---
    def protocol(self, session_id: str | None) -> dict:
        out = PROTOCOL | {"mode": self.mode, "tools": list(self.families)}
        out |= {"profile": "crude"} if self.mode != "single" else {}
        return out | ({"session_id": session_id} if session_id else {})

    def op_info(self, o: dict) -> dict:
        category = o["category"]
        return {
            "name": o["name"],
            "semantic_category": category,
            "endpoint": category.lower(),
            "description": o["description"],
        }

    def op_details(self, o: dict) -> dict:
        returns = {k: TYPES[o["returns"]][k] for k in ("name", "kind", "description")}
        out = self.op_info(o) | {"mcpTool": self.tool_for(o["name"]), "permissions": PERMISSIONS[o["category"]]}
        out |= {"parameters": o["parameters"], "returns": returns, "examples": o["examples"], **o["extra"]}
        if o["resource"]:
            default = next(p["default"] for p in o["parameters"] if p["name"] == "fields")
            out["field_selection"] = {"presets": list(PRESETS), "default": default, "type": "FieldSelection"}
        return copy.deepcopy(out)

    def introspect(self, v: Params, session_id: str | None) -> dict:
        name, listing = v.get("name"), v["query"] == "operations"
        if listing and name is None:
            return {"_protocol": self.protocol(session_id), "operations": [self.op_info(o) for o in OPS.values()]}
        if listing:
            return {"operation": self.op_details(OPS[name]) if name in OPS else None}
        if name is None:
            return {"types": [{k: t[k] for k in ("name", "kind", "description")} for t in TYPES.values()]}
        return {"type": copy.deepcopy(TYPES.get(name))}

    def tool_description(self, tool: str) -> str:  # mcp-integration 2.1
        family = self.families[tool]
        if not family:
            lines = [
                f"- {c.title()}: " + ", ".join(n for n, o in OPS.items() if o["category"] == c) for c in CATEGORIES
            ]
            return (
                "MCP-AQL pantry adapter (kitchen items, suppliers, recipes): one tool for every operation.\n\nThe "
                "server hands each operation to its handler by the operation's semantic category.\n\nOperations "
                "by category:\n" + "\n".join(lines) + "\n\nBatch: { operations: [ { operation, params }, ... ] }"
                '\n\nFirst call:\n{ operation: "introspect", params: { query: "operations" } }\n\nIntrospection '
                "lists every operation and describes its parameters and types."
            )
        names = [n for n, o in OPS.items() if o["category"].lower() == family]
        head, body = FAMILY_TEXT[family]
        return (
            f"{head}\n\nSupported operations: {', '.join(names)}\n\n{body}\n\nQuick start example:\n"
            f"{json.dumps(OPS[names[0]]['examples'][0]['request'])}\n\nBatch: {{ operations: [ {{ operation, "
            f"params }}, ... ] }} (operations of this endpoint)\n\nParameters of an operation (introspect is "
            f'a READ operation: call it on {self.prefix}mcp_aql_read):\n{{ operation: "introspect", params: '
            f'{{ query: "operations", name: "{names[-1]}" }} }}'
        )

    # --- dispatch (core 3.2, 4, 6.2; operations 5.4, 6.3) ---
    def run_one(self, tool: str, request: Any, session_id: str | None) -> dict:
        try:
            if not isinstance(request, dict):
                raise invalid("request", {"type": "OperationInput"}, request)
            name = request.get("operation")
            if name is None:
                raise missing("operation", P("operation", "string", True, "operation name; list them with introspect"))
            if not isinstance(name, str):
                raise invalid("operation", {"type": "string"}, name)
            if name not in OPS:
                msg = f"Unknown operation: '{name[:100]}'. List operations with introspect (query 'operations')"
                raise OpError("NOT_FOUND_OPERATION", msg, operation=name[:100], available=list(OPS))
            o, family = OPS[name], self.families[tool]
            if family and o["category"].lower() != family:
                right = self.tool_for(name)
                raise OpError(
                    "VALIDATION_ENDPOINT_MISMATCH",
                    f"Operation '{name}' must be called via {right}, not {tool}",
                    operation=name,
                    expected_endpoint=o["category"],
                    actual_endpoint=family.upper(),
                    expected_tool=right,
                    actual_tool=tool,
                )
            params = request.get("params")
            if params is not None and not isinstance(params, dict):
                raise invalid("params", {"type": "object"}, params)
            top = {k: x for k, x in request.items() if k not in ("operation", "params")}
            v = check_object(o["parameters"], top | (params or {}), "", operation=name)
            if o["resource"]:
                check_fields(v["fields"], o["resource"])
            return {
                "success": True,
                "data": self.introspect(v, session_id) if o["handler"] is None else o["handler"](v),
            }
        except OpError as e:
            return failure(e, session_id)
        except Exception:  # never leak internals (introspection 8.1.3)
            return failure(OpError("INTERNAL_ERROR", "Internal error: 'the operation failed unexpectedly'"), session_id)

    def call(self, tool: str, arguments: dict, session_id: str | None) -> dict:
        self.log(tool, arguments, session_id)
        try:
            if (size := len(json.dumps(arguments))) > LIMITS["max_request_size"]:
                raise too_large("request_size", LIMITS["max_request_size"], size)
            scan_limits(arguments)
            if "operation" in arguments or "operations" not in arguments:
                return self.run_one(tool, arguments, session_id)
            return self.batch(tool, arguments, session_id)
        except OpError as e:
            return failure(e, session_id)

    def batch(self, tool: str, arguments: dict, session_id: str | None) -> dict:  # operations 7
        ops = arguments["operations"]
        check_object([P("operations", "array", True, "The requests.")], arguments, "", operation="batch")
        if not ops or len(ops) > MAX_BATCH:
            raise too_large("array_elements", MAX_BATCH, len(ops)) if ops else missing("operations[0]", BATCH_ITEM)
        results = []
        for i, req in enumerate(ops):
            res = self.run_one(tool, req, session_id)
            res.pop("_meta", None)
            name = req.get("operation") if isinstance(req, dict) else None
            results.append({"index": i, "operation": name, "result": res})
        ok = sum(r["result"]["success"] for r in results)
        summary = {"total": len(results), "succeeded": ok, "failed": len(results) - ok}
        return {"success": True, "data": None, "results": results, "summary": summary}

    def log(self, tool: str, arguments: dict, session_id: str | None) -> None:
        if not self.log_path:
            return
        entry = {"tool": tool, "operation": arguments.get("operation"), "params": arguments.get("params")}
        if top := {k: x for k, x in arguments.items() if k not in ("operation", "params")}:
            entry["top_level"] = top  # batches ("operations") and top-level parameters
        if session_id:
            entry["session_id"] = session_id
        try:
            with open(self.log_path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry, ensure_ascii=False) + "\n")
        except OSError:
            pass


# --------------------------------------------------------------------------------------------------
# MCP wiring (mcp-integration 2-4) and the command line
# --------------------------------------------------------------------------------------------------
BASE_SCHEMA = {  # mcp-integration 3.1, extended (3.2) with the batch form of operations 7.1
    "type": "object",
    "properties": {
        "operation": {"type": "string", "description": "Name of the MCP-AQL operation to run"},
        "params": {"type": "object", "description": "Parameters of the operation", "additionalProperties": True},
        "operations": {
            "type": "array",
            "description": "Batch, sent instead of operation/params: [{operation, params}, ...]",
            "items": {"type": "object"},
        },
    },
    "required": ["operation"],
}
RECOVERABLE = ("VALIDATION_", "NOT_FOUND_", "CONFLICT_", "PERMISSION_", "RATE_LIMIT_", "CONFIRMATION_", "TOKEN_")
OperationArg = Annotated[Any, WithJsonSchema(BASE_SCHEMA["properties"]["operation"])]
ParamsArg = Annotated[Any, WithJsonSchema(BASE_SCHEMA["properties"]["params"])]
BatchArg = Annotated[Any, WithJsonSchema(BASE_SCHEMA["properties"]["operations"])]


def to_result(response: dict) -> CallToolResult:
    """The union as JSON text; isError only for unrecoverable failures (mcp-integration 4.1)."""
    text = json.dumps(response, ensure_ascii=False)
    if len(text) > LIMITS["max_response_size"]:  # select fewer fields or a smaller page
        response = failure(too_large("response_size", LIMITS["max_response_size"], len(text)), None)
        text = json.dumps(response)
    bad = response["success"] is False and not response["error"]["code"].startswith(RECOVERABLE)
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=bad)


def build_server(engine: Engine) -> MCPServer:
    hint = 'Start with { operation: "introspect", params: { query: "operations" } } on the read (or unified) tool.'
    server = MCPServer("pantry", version="1.0.0", instructions=f"MCP-AQL pantry adapter. {hint}", log_level="WARNING")

    def register(tool: str, annotations: ToolAnnotations) -> None:
        @server.tool(name=tool, description=engine.tool_description(tool), annotations=annotations)
        async def endpoint(
            ctx: Context, operation: OperationArg = None, params: ParamsArg = None, operations: BatchArg = None
        ) -> CallToolResult:
            arguments = dict((ctx.request_context.params or {}).get("arguments") or {})  # raw, top-level included
            return to_result(engine.call(tool, arguments, (ctx.headers or {}).get("mcp-session-id")))

    for tool, family in engine.families.items():
        perm = PERMISSIONS[family.upper()] if family else {"readOnly": False, "destructive": True}
        register(
            tool,
            ToolAnnotations(
                read_only_hint=perm["readOnly"],
                destructive_hint=perm["destructive"],
                idempotent_hint=family == "read",
                open_world_hint=False,
            ),
        )
        # publish the specified base schema (required: operation); the SDK does not enforce it, so a
        # batch (operations without operation) still reaches the engine
        server._tool_manager.get_tool(tool).parameters = copy.deepcopy(BASE_SCHEMA)
    return server


async def serve(port: int, engine: Engine, stop_requested: list) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    app = build_server(engine).streamable_http_app(host="127.0.0.1")
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2, lifespan="on"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        server.should_exit = server.should_exit or bool(stop_requested)  # a signal before uvicorn took over
        await asyncio.sleep(0.02)
    if server.started:
        print(f"PANTRY_URL=http://127.0.0.1:{sock.getsockname()[1]}/mcp", flush=True)
    await task


def main() -> None:
    ap = argparse.ArgumentParser(description="MCP-AQL pantry test server (streamable HTTP on 127.0.0.1)")
    ap.add_argument("--port", type=int, default=0, help="port to listen on; 0 (default) picks a free one")
    env_mode = os.environ.get("MCP_AQL_ENDPOINT_MODE", "semantic").lower().replace("crude", "semantic")
    modes = ["semantic", "single", "all"]
    ap.add_argument("--mode", choices=modes, default=env_mode if env_mode in modes else "semantic")
    args = ap.parse_args()
    prefix = os.environ.get("MCP_AQL_TOOL_PREFIX", "")
    if prefix and not re.fullmatch(r"[a-z0-9_]*_", prefix):
        ap.error("MCP_AQL_TOOL_PREFIX may hold lowercase letters, digits and underscores and must end with '_'")
    # uvicorn handles SIGTERM/SIGINT while it serves, then re-raises the signal once it has shut down;
    # with these handlers the re-raise is only recorded, so SIGTERM ends with exit status 0
    stop_requested: list = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, _frame: stop_requested.append(signum))
    asyncio.run(serve(args.port, Engine(args.mode, prefix), stop_requested))


if __name__ == "__main__":
    main()
