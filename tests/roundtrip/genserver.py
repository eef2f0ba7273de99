"""A generic MCP-AQL adapter over stdio, driven by a JSON description.

    python tests/roundtrip/genserver.py DESCRIPTION.json

The server speaks newline-delimited JSON-RPC 2.0 on stdin/stdout (no SDK: it starts in a few
tens of milliseconds), keeps its records in memory, and does exactly what the description
says, right or wrong: it is the raw material of the round-trip property test
(``strategies.servers()`` draws descriptions; capture probes the server; every other command
must accept what capture wrote). Standard library only. It never crashes on any input (a fault
of its own is answered as a JSON-RPC internal error and logged on stderr) and exits when stdin
closes. Stdout carries JSON-RPC only, unless ``stray_stdout`` asks for a stray line.

MCP methods: ``initialize`` (serverInfo from ``name``/``version``, the client's protocolVersion
echoed, ``capabilities.tools``), ``notifications/initialized`` and any other notification
(ignored), ``ping``, ``tools/list``, ``tools/call``; any other method: JSON-RPC -32601. Each tool
has a description naming ``introspect`` and the input schema ``{type: object, properties:
{operation: {type: string}, params: {type: object}}, required: [operation]}``. A domain answer is
a tool result whose single text content is the JSON MCP-AQL result (unless the refusal style
says otherwise, below).

Description format (a JSON object; every key optional unless marked)
------------------------------------------------------------------------

Server-wide:

- ``name`` (str, default "genserver"), ``version`` (str, default "0.0.0"): serverInfo.
- ``mode``: ``"semantic"`` (the CRUDE tools ``mcp_aql_create/read/update/delete/execute``; each
  operation is served by the tool of its ``endpoint``, which defaults to its category) or
  ``"single"`` (one tool ``mcp_aql``). Default "semantic".
- ``tools`` (semantic mode): the endpoint families exposed, default all five. ``annotations``
  (bool): add MCP readOnlyHint/destructiveHint annotations to the tools.
- ``route_enforcement`` (bool, default true): in semantic mode an operation sent to another
  tool than its own is refused (VALIDATION_ENDPOINT_MISMATCH); false: it runs anyway.
- ``introspect_everywhere`` (bool, default false): ``introspect`` answers on every tool, not only
  the read tool.
- ``top_level_params`` (bool, default true): parameters given beside ``operation`` (core §4.2)
  count when ``params`` lacks them; false: such keys are ignored.
- ``batch`` (bool, default false): ``{operations: [{operation, params}, ...]}`` is run item by
  item (operations §7); false: a request without ``operation`` is refused.
- ``protocol``: the ``_protocol`` value put in the operations list (e.g. ``{version,
  conformance, mode, capabilities: {batch, ...}}``, or anything else); absent or null: none.
- ``validation``: the default validation of every operation: an object of booleans
  ``required``, ``types``, ``enum``, ``bounds`` (minimum/maximum/minLength/maxLength),
  ``pattern``, ``format`` (date, date-time, email, uri/url, uuid; impossible dates refused),
  ``items`` (array elements against ``items``), ``nested`` (the fields of objects of a named type:
  unknown ones and missing required ones refused, each one's value checked), ``input`` (the UPDATE ``input``: must be
  an object, unknown fields refused with VALIDATION_UNKNOWN_FIELD, read-only fields refused,
  identifiers inside it refused); a missing key is true. The strings ``"strict"`` (all true),
  ``"lenient"`` (required and types only) and ``"none"`` (nothing) are shorthands.
- ``unknown_params``: what an undocumented parameter gets: ``"refuse"`` (default; the refusal
  style below), ``"warn"`` (success, with a ``warnings`` entry naming it), ``"ignore"``
  (accepted silently).
- ``refusal``: how every failure is expressed (an operation may override it), an object:

  - ``form``: ``"union"`` (``{success: false, error: {code, message, details?}}``, default),
    ``"string-error"`` (``error`` is a sentence), ``"malformed-error"`` (``error: {reason}``: no
    code, no message), ``"flagless"`` (``{error: {code, message}}``, no ``success``),
    ``"other-json"`` (``{status: "error", problem: "..."}``), ``"text"`` (a plain sentence, not
    JSON), ``"mcp-error"`` (a plain sentence with ``isError: true``), ``"jsonrpc"`` (a JSON-RPC
    error -32602 instead of a tool result; ``data`` holds the error object).
  - ``code``: ``"registry"`` (the spec's codes: VALIDATION_MISSING_PARAM, ..._UNKNOWN_PARAM,
    ..._INVALID_TYPE, ..._INVALID_VALUE, ..._UNKNOWN_FIELD, ..._READ_ONLY_FIELD,
    ..._ENDPOINT_MISMATCH, NOT_FOUND_OPERATION, NOT_FOUND_RESOURCE, CONFLICT_ALREADY_EXISTS,
    CONFIRMATION_REQUIRED, INTERNAL_ERROR; default), ``"unregistered"`` (codes of no registry:
    BAD_PARAM, MISSING_FIELD, NO_SUCH_THING, ...), ``"generic"`` (every failure is ``ERROR``),
    ``"lowercase"`` (registry codes in lower case), ``"numeric"`` (an HTTP status number: 400,
    404, 500).
  - ``message``: ``"named"`` (names the parameter or record, default), ``"vague"`` (names
    nothing: "Invalid request"), ``"stack"`` (named, plus a Python traceback with file paths).
  - ``details`` (default true): include ``details`` (param_name, operation, ...); false: none;
    ``"string"``/``"list"``: the details flattened into a string or a list of strings.
  - ``is_error``: the MCP ``isError`` flag of a failure given as a tool result: ``"never"``
    (default), ``"always"``, or ``"unrecoverable"`` (true unless the code is a VALIDATION_,
    NOT_FOUND_, CONFLICT_, PERMISSION_, RATE_LIMIT_ or CONFIRMATION_ one).

  A string is a shorthand: ``"standard"``, ``"unregistered-code"``, ``"vague-message"``,
  ``"no-details"``, ``"jsonrpc"``, ``"plain-text"`` (form mcp-error), ``"text"``,
  ``"string-error"``, ``"malformed-error"``, ``"flagless"``, ``"other-json"``, ``"stack-trace"``,
  ``"generic"``, ``"lowercase"``.
- ``introspection``: an object:

  - ``mode``: ``"full"`` (default), ``"no-types"`` (the types query is refused), ``"no-details"``
    (a query with ``name`` is refused), ``"list-only"`` (``name`` is ignored: the list again),
    ``"refused"`` (introspect is refused entirely, as an unknown operation).
  - ``list_shape``: ``"standard"`` (``{_protocol?, operations: [{name, semantic_category,
    endpoint, description}]}``, default), ``"no-endpoint"`` (entries lack ``endpoint``),
    ``"category-key"`` (``category`` instead of ``semantic_category``), ``"bare-array"`` (data is
    the list itself), ``"by-name"`` (``operations`` is an object keyed by name), ``"grouped"``
    (``operations`` is an object keyed by endpoint family, each a list).
  - ``unknown_name``: what a query for an unknown operation or type answers: ``"null"``
    (``{operation: null}``/``{type: null}``, default), ``"refuse"`` (NOT_FOUND refusal), ``"empty"``
    (``{}`` as data).
  - ``list_introspect`` (bool, default true): ``introspect`` is among the operations listed
    (with details: its ``query`` and ``name`` parameters).
  - ``protocol_types`` (bool, default false): the spec's protocol types (SemanticCategory,
    OperationResult, ...) are listed with the description's own.
  - ``query_enum`` (bool, default true): false: introspect's own ``query`` parameter is
    documented without an ``enum``, its description being ``query_description`` (default "What
    to list."); ``introspect_examples`` (bool, default true): false: its details show no examples.
- ``types``: named types, a list of ``{name, kind: "object", description?, fields: [ParameterInfo]}``
  or ``{name, kind: "enum", description?, values: [...]}``. A ParameterInfo's ``type`` (or an
  ``items``' type) may name one of them; object fields may nest other named types. A field with
  ``readOnly: true`` is refused in an UPDATE ``input`` (when ``validation.input``).
- ``kinds``: the record kinds, ``{kind: {key, assign, prefix?, fields?}}``: ``key`` is the
  record's key field (``id``, ``<kind>_id``, ``sku``, ``code``, ``slug``...); ``assign`` is
  ``"client"`` (the create call gives the key; a duplicate is refused with a conflict error),
  ``"prefixed"`` (the server makes ``<prefix><n>``, prefix default ``<kind>_``), ``"uuid"``
  (the server makes a UUID-shaped key) or ``"integer"`` (1, 2, 3...).
- ``records``: ``{kind: [record, ...]}``: records present at start (each with its key field).
- ``stray_stdout``: ``{line, at: "start"|"call", after_call: N, repeat: bool}``: print the
  non-JSON ``line`` on stdout once at start (a banner before the first message), or after the
  answer to the Nth tools/call (every call from the Nth on with ``repeat``). ``line`` may hold
  ``{n}``: the call count.
- ``stderr_log`` (bool): log every tools/call on stderr.
- ``protocol_version``: the protocolVersion initialize answers, whatever the client asked for;
  ``capabilities``: the capabilities object it answers, as it is.
- ``tools_page_size`` (int): tools/list answers that many tools a page, with ``nextCursor``.
- ``call_result``: a tools/call result spoilt: ``"no-content"`` (the answer is the result itself),
  ``"empty-content"``, ``"image-content"`` (an image block before the text), ``"content-object"``
  (``content`` is one block, not a list), ``"text-not-string"`` (the text block's ``text`` is the
  JSON answer itself), ``"no-is-error"`` (no ``isError`` key).
- ``notifications``: a list of ``"log"`` (notifications/message), ``"list_changed"``
  (notifications/tools/list_changed), ``"progress"`` (notifications/progress with the request's
  id as token): each is sent before every answer to a tools/call.
- ``server_info``: the ``serverInfo`` object sent as it is (instead of one made of ``name`` and
  ``version``), however wrong.
- ``tool_quirks``: a list of ``"no-description"``, ``"no-schema"`` (tools without an inputSchema),
  ``"loose-schema"`` (``{type: object}`` alone), ``"duplicate"`` (every tool listed twice).
- ``extra_tools``: names of plain MCP tools (not MCP-AQL) listed beside the MCP-AQL ones; a call
  answers the text ``<name>: ok``.
- ``structured_content`` (bool): a tool result whose answer is a JSON object carries it as
  ``structuredContent`` too. ``extra_content`` (bool): a second text block follows the answer.

Each entry of ``operations`` (a list):

- ``name`` (required), ``category`` (required: CREATE, READ, UPDATE, DELETE or EXECUTE; it
  decides the default endpoint and the permissions), ``description``.
- ``endpoint``: the family serving it in semantic mode (default: the category in lower case);
  ``declared_category``/``declared_endpoint``: what introspection says instead (a server that
  misdescribes itself).
- ``parameters``: a list of ParameterInfo (``name``, ``type``, ``required``, ``description``,
  ``default``, ``enum``, ``minimum``, ``maximum``, ``minLength``, ``maxLength``, ``pattern``,
  ``format``, ``items``, ``sensitive``...), shown as they are and enforced per ``validation``.
- ``permissions`` (``{readOnly, destructive}``; default from the category; null: omitted),
  ``returns`` (TypeInfo), ``examples`` (``[{description, request: {operation, params}}]``):
  shown in the details as they are.
- ``action``: what a valid call does: ``"create"`` (store a record of ``kind``: its key given or
  assigned per the kind, every parameter but ``options`` stored), ``"get"`` (the record whose
  key is the ``key_param`` value), ``"list"`` (the records; parameters naming record fields
  filter, ``limit`` cuts), ``"update"`` (the record: ``input`` deep-merged per core §4.5.1, null
  removes; without an ``input`` parameter the other parameters are merged flat), ``"delete"``
  (removes it), ``"execute"`` (harmless: an execution record; checks the key when given),
  ``"echo"`` (answers the parameters), ``"fail"`` (always an internal error). Default by
  category: create, get (list when no key parameter), update, delete, execute.
- ``kind``: the record kind it works on; ``key_param``: the parameter carrying the key (default
  the kind's key); ``references``: ``{param: kind}``: parameters naming existing records of
  another kind (unknown: NOT_FOUND_RESOURCE).
- ``options``: parameter names that are not record fields (switches, modes): never stored.
- ``safety``: ``{param, proceed: [values], otherwise: "refuse"|"preview", absent?: "proceed"}``:
  the call changes state only when ``params[param]`` is one of ``proceed`` (or, with ``absent:
  "proceed"``, when it is not given); otherwise it is refused with CONFIRMATION_REQUIRED
  (``refuse``) or answers a preview and changes nothing (``preview``).
- ``apply_defaults`` (bool, default true): a create stores the documented ``default`` of each
  parameter not given.
- ``list_shape`` (list action): ``"items"`` (``{items, total}``, default), ``"array"`` (data is
  the list), ``"keyed"`` (``{<kind>s: [...]}``).
- ``success_form``: ``"union"`` (default), ``"prose"`` (data is a sentence), ``"bare"`` (the data
  itself, with no success flag), ``"warned"`` (the union plus a ``warnings`` entry), ``"flagged"``
  (the union, in a tool result flagged ``isError: true``), ``"warned-string"`` (``warnings`` is a
  sentence, not a list).
- ``validation``, ``unknown_params``, ``refusal``: overrides of the server-wide settings.
- ``detail``: what ``introspect {query: operations, name}`` answers for it: ``"full"``
  (default), ``"null"`` (``{operation: null}``), ``"refused"``, ``"bare"`` (no ``parameters``
  key), ``"names-only"`` (``parameters`` is a list of names), ``"alien"`` (the detail names the
  operation in another case). ``lifecycle`` (any JSON): shown in the details as it is.
- ``twin``: a category: the operation is listed a second time with that category.
- ``listed`` (bool, default true): false hides it from the list (it still runs).
- ``delay`` (seconds, at most 600): the server sleeps that long before answering a call of it
  (one message at a time: every later message waits too), as a slow or hung backend does.
"""

from __future__ import annotations

import contextlib
import copy
import datetime as dt
import json
import re
import sys
import time
import traceback
from typing import Any

JsonObject = dict[str, Any]
CATEGORIES = ("CREATE", "READ", "UPDATE", "DELETE", "EXECUTE")
FAMILIES = ("create", "read", "update", "delete", "execute")
PERMISSIONS = {
    "CREATE": {"readOnly": False, "destructive": False},
    "READ": {"readOnly": True, "destructive": False},
    "UPDATE": {"readOnly": False, "destructive": True},
    "DELETE": {"readOnly": False, "destructive": True},
    "EXECUTE": {"readOnly": False, "destructive": True},
}
DEFAULT_ACTIONS = {"CREATE": "create", "READ": "get", "UPDATE": "update", "DELETE": "delete", "EXECUTE": "execute"}
CHECKS = ("required", "types", "enum", "bounds", "pattern", "format", "items", "nested", "input")
VALIDATION_PRESETS = {
    "strict": dict.fromkeys(CHECKS, True),
    "lenient": {**dict.fromkeys(CHECKS, False), "required": True, "types": True},
    "none": dict.fromkeys(CHECKS, False),
}
REFUSAL_DEFAULT = {"form": "union", "code": "registry", "message": "named", "details": True, "is_error": "never"}
REFUSAL_PRESETS = {
    "standard": {},
    "unregistered-code": {"code": "unregistered"},
    "vague-message": {"message": "vague"},
    "no-details": {"details": False},
    "jsonrpc": {"form": "jsonrpc"},
    "plain-text": {"form": "mcp-error"},
    "text": {"form": "text"},
    "string-error": {"form": "string-error"},
    "malformed-error": {"form": "malformed-error"},
    "flagless": {"form": "flagless"},
    "other-json": {"form": "other-json"},
    "stack-trace": {"message": "stack"},
    "generic": {"code": "generic"},
    "lowercase": {"code": "lowercase"},
}
# Each failure's reason -> (registry code, a code of no registry).
CODES = {
    "missing": ("VALIDATION_MISSING_PARAM", "MISSING_FIELD"),
    "unknown": ("VALIDATION_UNKNOWN_PARAM", "BAD_PARAM"),
    "type": ("VALIDATION_INVALID_TYPE", "WRONG_TYPE"),
    "value": ("VALIDATION_INVALID_VALUE", "INVALID_ARGUMENT"),
    "unknown_field": ("VALIDATION_UNKNOWN_FIELD", "BAD_FIELD"),
    "read_only": ("VALIDATION_READ_ONLY_FIELD", "FIELD_LOCKED"),
    "endpoint": ("VALIDATION_ENDPOINT_MISMATCH", "WRONG_TOOL"),
    "operation": ("NOT_FOUND_OPERATION", "NO_SUCH_OPERATION"),
    "not_found": ("NOT_FOUND_RESOURCE", "NO_SUCH_THING"),
    "conflict": ("CONFLICT_ALREADY_EXISTS", "DUPLICATE"),
    "confirm": ("CONFIRMATION_REQUIRED", "NEEDS_CONFIRM"),
    "internal": ("INTERNAL_ERROR", "CRASHED"),
}
RECOVERABLE = ("VALIDATION_", "NOT_FOUND_", "CONFLICT_", "PERMISSION_", "RATE_LIMIT_", "CONFIRMATION_")
TYPE_ALIASES = {
    "str": "string",
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "dict": "object",
    "list": "array",
    "double": "number",
    "long": "integer",
}
FORMATS = {
    "email": re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+"),
    "uri": re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+"),
    "url": re.compile(r"https?://\S+"),
    "uuid": re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),
}
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})")
STACK = (
    "\nTraceback (most recent call last):\n"
    '  File "/srv/adapter/handlers.py", line 214, in dispatch\n'
    "    return HANDLERS[op](**params)\n"
    '  File "/srv/adapter/validate.py", line 88, in check_params\n'
    "    raise ValidationError(name)\n"
    "adapter.errors.ValidationError: {what}"
)
PROTOCOL_TYPES = [
    {
        "name": "SemanticCategory",
        "kind": "enum",
        "description": "The five semantic categories.",
        "values": list(CATEGORIES),
    },
    {
        "name": "OperationResult",
        "kind": "union",
        "description": "What every operation answers.",
        "members": ["OperationSuccess", "OperationFailure"],
    },
    {
        "name": "OperationSuccess",
        "kind": "object",
        "description": "A successful result.",
        "fields": [
            {"name": "success", "type": "boolean", "required": True},
            {"name": "data", "type": "object", "required": True},
        ],
    },
    {
        "name": "OperationFailure",
        "kind": "object",
        "description": "A failed result.",
        "fields": [
            {"name": "success", "type": "boolean", "required": True},
            {"name": "error", "type": "object", "required": True},
        ],
    },
]
MAX_DEPTH = 8  # nesting of named types followed when validating


class Refusal(Exception):
    """A failure of a call: its reason (a key of CODES), message, and details."""

    def __init__(self, reason: str, message: str, vague: str = "Invalid request", **details: Any) -> None:
        super().__init__(message)
        self.reason, self.message, self.vague, self.details = reason, message, vague, details


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def deep_merge(target: JsonObject, changes: JsonObject) -> None:
    """core §4.5.1: nested objects merge, arrays and scalars replace, null removes."""
    for key, value in changes.items():
        if value is None:
            target.pop(key, None)
        elif isinstance(value, dict) and isinstance(target.get(key), dict):
            deep_merge(target[key], value)
        else:
            target[key] = copy.deepcopy(value)


class Server:
    """The adapter a description describes."""

    def __init__(self, description: JsonObject) -> None:
        self.d = description if isinstance(description, dict) else {}
        d = self.d
        self.mode = d.get("mode") if d.get("mode") in ("semantic", "single") else "semantic"
        self.types = {
            t["name"]: t for t in d.get("types") or [] if isinstance(t, dict) and isinstance(t.get("name"), str)
        }
        self.kinds = {k: v for k, v in (d.get("kinds") or {}).items() if isinstance(v, dict)}
        self.operations = [
            op for op in d.get("operations") or [] if isinstance(op, dict) and isinstance(op.get("name"), str)
        ]
        self.by_name = {op["name"]: op for op in self.operations}
        self.records: dict[str, dict[str, JsonObject]] = {kind: {} for kind in self.kinds}
        self.counters: dict[str, int] = {kind: 0 for kind in self.kinds}
        for kind, rows in (d.get("records") or {}).items():
            store = self.records.setdefault(kind, {})
            self.counters.setdefault(kind, 0)
            for row in rows if isinstance(rows, list) else []:
                if isinstance(row, dict):
                    key = row.get(self.key_field(kind))
                    store[str(key)] = copy.deepcopy(row)
                    self.counters[kind] += 1
        self.executions = 0
        intro = d.get("introspection") if isinstance(d.get("introspection"), dict) else {}
        self.intro = {
            "mode": "full",
            "list_shape": "standard",
            "unknown_name": "null",
            "list_introspect": True,
            "protocol_types": False,
            **intro,
        }
        if self.mode == "semantic":
            families = d.get("tools") if isinstance(d.get("tools"), list) else list(FAMILIES)
            self.tool_names = {f"mcp_aql_{family}": family for family in families if family in FAMILIES}
        else:
            self.tool_names = {"mcp_aql": None}

    # --- settings --------------------------------------------------------------------------
    def key_field(self, kind: Any) -> str:
        spec = self.kinds.get(kind) or {}
        return spec.get("key") if isinstance(spec.get("key"), str) else "id"

    def validation(self, op: JsonObject | None) -> dict[str, bool]:
        setting = (op or {}).get("validation", self.d.get("validation", "strict"))
        if isinstance(setting, str):
            return VALIDATION_PRESETS.get(setting, VALIDATION_PRESETS["strict"])
        if isinstance(setting, dict):
            return {check: setting.get(check, True) is not False for check in CHECKS}
        return VALIDATION_PRESETS["strict"]

    def refusal(self, op: JsonObject | None) -> JsonObject:
        setting = (op or {}).get("refusal", self.d.get("refusal", "standard"))
        if isinstance(setting, str):
            return {**REFUSAL_DEFAULT, **REFUSAL_PRESETS.get(setting, {})}
        return {**REFUSAL_DEFAULT, **(setting if isinstance(setting, dict) else {})}

    def unknown_policy(self, op: JsonObject | None) -> str:
        return str((op or {}).get("unknown_params", self.d.get("unknown_params", "refuse")))

    @staticmethod
    def category(op: JsonObject) -> str:
        category = str(op.get("category", "READ")).upper()
        return category if category in CATEGORIES else "READ"

    def family(self, op: JsonObject) -> str:
        endpoint = op.get("endpoint")
        return endpoint if isinstance(endpoint, str) else self.category(op).lower()

    def tool_of(self, op: JsonObject) -> str:
        return "mcp_aql" if self.mode == "single" else f"mcp_aql_{self.family(op)}"

    # --- answers ---------------------------------------------------------------------------
    def failure(self, refusal: Refusal, op: JsonObject | None) -> tuple[Any, bool, JsonObject | None]:
        """(answer: JSON or text, isError, JSON-RPC error or None) for a refusal, per the style."""
        style = self.refusal(op)
        registry, other = CODES.get(refusal.reason, CODES["internal"])
        code: Any = {"unregistered": other, "generic": "ERROR", "lowercase": registry.lower()}.get(
            style["code"], registry
        )
        if style["code"] == "numeric":  # an HTTP status where a code belongs
            code = 404 if refusal.reason in ("not_found", "operation") else 500 if refusal.reason == "internal" else 400
        message = refusal.message
        if style["message"] == "vague":
            message = refusal.vague
        elif style["message"] == "stack":
            message = message + STACK.format(what=refusal.message)
        error: JsonObject = {"code": code, "message": message}
        if style["details"] == "string":
            error["details"] = "; ".join(f"{k}={v}" for k, v in refusal.details.items())
        elif style["details"] == "list":
            error["details"] = [f"{k}: {v}" for k, v in refusal.details.items()]
        elif style["details"] is not False and refusal.details:
            error["details"] = refusal.details
        flag = {"always": True, "never": False}.get(style["is_error"], not registry.startswith(RECOVERABLE))
        form = style["form"]
        if form == "jsonrpc":
            return None, True, {"code": -32602, "message": message, "data": error}
        if form == "string-error":
            return {"success": False, "error": message}, flag, None
        if form == "malformed-error":
            return {"success": False, "error": {"reason": message}}, flag, None
        if form == "flagless":
            return {"error": error}, flag, None
        if form == "other-json":
            return {"status": "error", "problem": message}, flag, None
        if form == "text":
            return f"Error: {message}", False, None
        if form == "mcp-error":
            return f"Error: {message}", True, None
        return {"success": False, "error": error}, flag, None

    @staticmethod
    def success(data: Any, op: JsonObject | None, warnings: list[JsonObject] | None = None) -> Any:
        form = (op or {}).get("success_form", "union")
        if form == "bare":
            return data if isinstance(data, dict) else {"result": data}
        if form == "prose":
            return {"success": True, "data": f"Done: {op.get('name') if op else 'ok'} completed."}
        answer: JsonObject = {"success": True, "data": data}
        if form == "warned":
            warnings = [*(warnings or []), {"code": "DEPRECATED_OPERATION", "message": "This operation is deprecated."}]
        if form == "warned-string":
            answer["warnings"] = "This operation is deprecated."
            return answer
        if warnings:
            answer["warnings"] = warnings
        return answer

    # --- tools/call ------------------------------------------------------------------------
    def call(self, tool: str, arguments: Any) -> tuple[Any, bool, JsonObject | None]:
        """One tools/call: (answer, isError, JSON-RPC error or None)."""
        if tool in (self.d.get("extra_tools") or []) and tool not in self.tool_names:
            return f"{tool}: ok", False, None
        if tool not in self.tool_names:
            return None, True, {"code": -32602, "message": f"Unknown tool: {tool[:100]}"}
        if not isinstance(arguments, dict):
            return self.failure(Refusal("type", "The arguments must be an object.", param_name="arguments"), None)
        if "operation" not in arguments and self.d.get("batch") and "operations" in arguments:
            return self.batch(tool, arguments), False, None
        operation = arguments.get("operation")
        if not isinstance(operation, str):
            refusal = Refusal("missing", "Missing required parameter 'operation'", param_name="operation")
            return self.failure(refusal, None)
        params = arguments.get("params", {})
        if params is None:
            params = {}
        if not isinstance(params, dict):
            refusal = Refusal(
                "type",
                f"Parameter 'params' expected 'object', got '{json_type(params)}'",
                param_name="params",
                expected_type="object",
                actual_type=json_type(params),
            )
            return self.failure(refusal, self.by_name.get(operation))
        if self.d.get("top_level_params", True) is not False:
            extra = {k: v for k, v in arguments.items() if k not in ("operation", "params") and not k.startswith("_")}
            params = {**extra, **params}
        return self.run(tool, operation, params)

    def run(self, tool: str, operation: str, params: JsonObject) -> tuple[Any, bool, JsonObject | None]:
        op = self.by_name.get(operation)
        try:
            if operation == "introspect" and op is None:
                return self.introspect(tool, params), False, None
            if op is None:
                raise Refusal(
                    "operation",
                    f"Unknown operation: '{operation[:100]}'",
                    "Unknown operation",
                    operation=operation[:100],
                    available=[o["name"] for o in self.operations][:50],
                )
            family = self.tool_names.get(tool)
            if self.mode == "semantic" and family != self.family(op) and self.d.get("route_enforcement", True):
                raise Refusal(
                    "endpoint",
                    f"Operation '{operation}' must use the {self.tool_of(op)} tool, not {tool}",
                    "Wrong endpoint",
                    operation=operation,
                    expected_endpoint=self.family(op).upper(),
                    actual_endpoint=str(family).upper(),
                )
            delay = op.get("delay")
            if is_number(delay) and 0 < delay <= 600:  # a slow backend: every later message waits too
                time.sleep(delay)
            warnings = self.validate(op, params)
            data = self.act(op, params)
            return self.success(data, op, warnings), op.get("success_form") == "flagged", None
        except Refusal as refusal:
            return self.failure(refusal, op)

    def batch(self, tool: str, arguments: JsonObject) -> JsonObject:
        items = arguments.get("operations")
        if not isinstance(items, list) or not items:
            return {
                "success": False,
                "error": {
                    "code": "VALIDATION_INVALID_TYPE",
                    "message": "Parameter 'operations' expected a non-empty array",
                    "details": {"param_name": "operations"},
                },
            }
        results = []
        for index, item in enumerate(items[:50]):
            item = item if isinstance(item, dict) else {}
            params = item.get("params") if isinstance(item.get("params"), dict) else {}
            answer, _, rpc = self.run(tool, str(item.get("operation")), params)
            if rpc is not None:
                answer = {"success": False, "error": rpc.get("data") or {"code": "ERROR", "message": rpc["message"]}}
            if not isinstance(answer, dict):
                answer = {"success": False, "error": {"code": "ERROR", "message": str(answer)}}
            results.append({"index": index, "operation": item.get("operation"), "result": answer})
        failed = sum(1 for r in results if r["result"].get("success") is not True)
        return {
            "success": True,
            "data": None,
            "results": results,
            "summary": {"total": len(results), "succeeded": len(results) - failed, "failed": failed},
        }

    # --- validation ------------------------------------------------------------------------
    def validate(self, op: JsonObject, params: JsonObject) -> list[JsonObject]:
        """Refuse what the operation's validation refuses; the warnings of a success."""
        checks = self.validation(op)
        declared = [p for p in op.get("parameters") or [] if isinstance(p, dict) and isinstance(p.get("name"), str)]
        names = [p["name"] for p in declared]
        unknown = [k for k in params if k not in names and not k.startswith("_")]
        warnings: list[JsonObject] = []
        if unknown:
            policy = self.unknown_policy(op)
            if policy == "refuse":
                listed = ", ".join(unknown)
                raise Refusal(
                    "unknown",
                    f"Unknown parameter(s) for operation '{op['name']}': {listed}",
                    operation=op["name"],
                    unknown_params=unknown,
                    valid_params=names,
                )
            if policy == "warn":
                warnings = [
                    {
                        "code": "UNKNOWN_PARAMETER",
                        "message": f"Unknown parameter '{name}' was ignored",
                        "details": {"param_name": name},
                    }
                    for name in unknown
                ]
        for info in declared:
            name = info["name"]
            if name not in params:
                if checks["required"] and info.get("required") is True:
                    raise Refusal(
                        "missing", f"Missing required parameter '{name}'", param_name=name, operation=op["name"]
                    )
                continue
            self.check_value(params[name], info, name, checks, 0)
        if checks["input"] and self.category(op) == "UPDATE" and "input" in names and "input" in params:
            self.check_input(op, params["input"], declared)
        return warnings

    def check_input(self, op: JsonObject, value: Any, declared: list[JsonObject]) -> None:
        """core §4.5.3: input an object, no identifier in it, no unknown or read-only field."""
        if not isinstance(value, dict):
            raise Refusal(
                "type",
                f"Parameter 'input' expected 'object', got '{json_type(value)}'",
                param_name="input",
                expected_type="object",
                actual_type=json_type(value),
            )
        identifiers = [p["name"] for p in declared if p["name"] != "input" and p.get("required") is True]
        key = op.get("key_param") or (self.key_field(op.get("kind")) if op.get("kind") else None)
        for name in dict.fromkeys([*identifiers, *([key] if key else [])]):
            if name in value:
                raise Refusal(
                    "unknown_field",
                    f"Identifier '{name}' must not appear inside 'input'",
                    param_name="input",
                    field=name,
                )
        info = next((p for p in declared if p["name"] == "input"), {})
        fields = self.fields_of(info.get("type"))
        if fields is None:
            return
        known = {f["name"]: f for f in fields if isinstance(f, dict) and isinstance(f.get("name"), str)}
        for name in value:
            if name not in known:
                raise Refusal(
                    "unknown_field",
                    f"Unknown field '{name}' in 'input' for operation '{op['name']}'",
                    param_name="input",
                    field=name,
                    valid_fields=list(known),
                )
            if known[name].get("readOnly") is True:
                raise Refusal(
                    "read_only", f"Field '{name}' is read-only and cannot be modified", param_name="input", field=name
                )

    def fields_of(self, type_name: Any) -> list[JsonObject] | None:
        named = self.types.get(type_name) if isinstance(type_name, str) else None
        if named is None or named.get("kind") != "object" or not isinstance(named.get("fields"), list):
            return None
        return named["fields"]

    def check_value(self, value: Any, info: JsonObject, path: str, checks: dict[str, bool], depth: int) -> None:
        """One value against its ParameterInfo (and its named type), per the checks."""
        if depth > MAX_DEPTH or not isinstance(info, dict):
            return
        declared = info.get("type")
        kind = TYPE_ALIASES.get(str(declared).lower(), str(declared).lower()) if isinstance(declared, str) else None
        named = self.types.get(declared) if isinstance(declared, str) else None

        def wrong(expected: str) -> Refusal:
            return Refusal(
                "type",
                f"Parameter '{path}' expected '{expected}', got '{json_type(value)}'",
                param_name=path,
                expected_type=expected,
                actual_type=json_type(value),
            )

        if value is None:  # null: accepted for optional values (a removal in an update)
            if checks["types"] and info.get("required") is True:
                raise wrong(str(declared))
            return
        if named is not None:
            if named.get("kind") == "enum":
                if checks["types"] and (not isinstance(value, str | int) or isinstance(value, bool)):
                    raise wrong("string")
                values = named.get("values") if isinstance(named.get("values"), list) else []
                if checks["enum"] and values and value not in values:
                    raise Refusal(
                        "value",
                        f"Parameter '{path}' must be one of: {', '.join(map(str, values))}",
                        param_name=path,
                        allowed=values,
                        value=value,
                    )
            elif named.get("kind") == "object":
                if checks["types"] and not isinstance(value, dict):
                    raise wrong(str(declared))
                if checks["nested"] and isinstance(value, dict):
                    self.check_object(value, named.get("fields") or [], path, checks, depth + 1)
            return
        if checks["types"] and kind is not None:
            fits = {
                "string": isinstance(value, str),
                "integer": (isinstance(value, int) and not isinstance(value, bool))
                or (isinstance(value, float) and value.is_integer()),
                "number": is_number(value),
                "boolean": isinstance(value, bool),
                "array": isinstance(value, list),
                "object": isinstance(value, dict),
            }.get(kind, True)
            if not fits:
                raise wrong(kind)
        enum = info.get("enum")
        if checks["enum"] and isinstance(enum, list) and enum and value not in enum:
            raise Refusal(
                "value",
                f"Parameter '{path}' must be one of: {', '.join(map(str, enum))}",
                param_name=path,
                allowed=enum,
                value=value,
            )
        if checks["bounds"]:
            self.check_bounds(value, info, path)
        if isinstance(value, str) and checks["pattern"] and isinstance(info.get("pattern"), str):
            try:
                matched = re.search(info["pattern"], value) is not None
            except re.error:
                matched = True
            if not matched:
                raise Refusal(
                    "value",
                    f"Parameter '{path}' does not match pattern {info['pattern']}",
                    param_name=path,
                    pattern=info["pattern"],
                    value=value,
                )
        if isinstance(value, str) and checks["format"] and not format_ok(info.get("format"), value):
            raise Refusal(
                "value",
                f"Parameter '{path}' is not a valid {info['format']}: '{value[:80]}'",
                param_name=path,
                format=info["format"],
                value=value[:80],
            )
        if isinstance(value, list) and checks["items"] and isinstance(info.get("items"), dict):
            for index, item in enumerate(value[:1000]):
                self.check_value(item, {**info["items"], "required": True}, f"{path}[{index}]", checks, depth + 1)
        if isinstance(value, dict) and checks["nested"] and isinstance(info.get("fields"), list):
            self.check_object(value, info["fields"], path, checks, depth + 1)

    @staticmethod
    def check_bounds(value: Any, info: JsonObject, path: str) -> None:
        if is_number(value):
            low, high, size, what = info.get("minimum"), info.get("maximum"), value, "value"
        elif isinstance(value, str):
            low, high, size, what = info.get("minLength"), info.get("maxLength"), len(value), "length"
        else:
            return
        if is_number(low) and size < low:
            raise Refusal(
                "value", f"Parameter '{path}' {what} must be at least {low}", param_name=path, minimum=low, actual=size
            )
        if is_number(high) and size > high:
            raise Refusal(
                "value", f"Parameter '{path}' {what} must be at most {high}", param_name=path, maximum=high, actual=size
            )

    def check_object(
        self, value: JsonObject, fields: list[Any], path: str, checks: dict[str, bool], depth: int
    ) -> None:
        known = {f["name"]: f for f in fields if isinstance(f, dict) and isinstance(f.get("name"), str)}
        for name in value:
            if name not in known:
                raise Refusal("unknown_field", f"Unknown field '{name}' in '{path}'", param_name=path, field=name)
        for name, info in known.items():
            if name in value:
                self.check_value(value[name], info, f"{path}.{name}", checks, depth)
            elif checks["required"] and info.get("required") is True and info.get("readOnly") is not True:
                raise Refusal("missing", f"Missing required field '{path}.{name}'", param_name=f"{path}.{name}")

    # --- actions ---------------------------------------------------------------------------
    def act(self, op: JsonObject, params: JsonObject) -> Any:
        category = self.category(op)
        kind = op.get("kind")
        key_param = op.get("key_param") or (self.key_field(kind) if kind is not None else None)
        action = op.get("action") or DEFAULT_ACTIONS[category]
        if action == "get" and (
            key_param is None
            or not any(p.get("name") == key_param for p in op.get("parameters") or [] if isinstance(p, dict))
        ):
            action = "list"
        for name, other in (op.get("references") or {}).items():
            if name in params and str(params[name]) not in self.records.get(other, {}):
                raise Refusal(
                    "not_found",
                    f"Resource '{other}' not found: '{str(params[name])[:80]}'",
                    "Not found",
                    resource_type=other,
                    resource_id=params[name],
                )
        preview = self.gate(op, params)
        if action == "fail":
            raise Refusal("internal", f"Internal error: the {op['name']} backend failed", "Internal error")
        if action == "echo":
            return {"operation": op["name"], "received": params}
        if action == "list":
            return self.list_records(op, kind, params)
        if action == "execute":
            if kind is not None and key_param in params:
                self.find(kind, params[key_param])
            self.executions += 0 if preview else 1
            status = "previewed" if preview else "completed"
            return {"execution_id": f"exec_{self.executions}", "status": status, "operation": op["name"]}
        if kind is None:
            return {"operation": op["name"], "ok": True}
        if action == "create":
            return self.create(op, kind, params, preview)
        record = self.find(kind, params.get(key_param))
        if action == "get":
            return copy.deepcopy(record)
        if action == "update":
            changed = copy.deepcopy(record)
            if "input" in params and isinstance(params["input"], dict):
                deep_merge(changed, params["input"])
            else:
                options = set(op.get("options") or []) | {key_param}
                deep_merge(changed, {k: v for k, v in params.items() if k not in options and k != "input"})
            changed[self.key_field(kind)] = record.get(self.key_field(kind))
            if preview:
                return {"preview": True, "would_be": changed}
            record.clear()
            record.update(changed)
            return copy.deepcopy(record)
        if action == "delete":
            key = record.get(self.key_field(kind))
            if preview:
                return {"preview": True, "would_delete": key}
            self.records[kind].pop(str(params.get(key_param)), None)
            return {"deleted": True, self.key_field(kind): key}
        return {"operation": op["name"], "ok": True}

    def gate(self, op: JsonObject, params: JsonObject) -> bool:
        """The safety switch: True for a preview (no change); a refusal when confirmation lacks."""
        safety = op.get("safety")
        if not isinstance(safety, dict) or not isinstance(safety.get("param"), str):
            return False
        proceed = safety.get("proceed") if isinstance(safety.get("proceed"), list) else [True]
        if safety["param"] in params and params[safety["param"]] in proceed:
            return False
        if safety["param"] not in params and safety.get("absent") == "proceed":
            return False
        if safety.get("otherwise") == "refuse":
            raise Refusal(
                "confirm",
                f"Operation '{op['name']}' requires confirmation: set '{safety['param']}' to "
                f"{json.dumps(proceed[0]) if proceed else 'true'}",
                "Confirmation required",
                operation=op["name"],
                param_name=safety["param"],
                danger_level="destructive",
            )
        return True

    def find(self, kind: str, key: Any) -> JsonObject:
        record = self.records.get(kind, {}).get(str(key))
        if record is None:
            raise Refusal(
                "not_found",
                f"Resource '{kind}' not found: '{str(key)[:80]}'",
                "Not found",
                resource_type=kind,
                resource_id=key if isinstance(key, str | int) else str(key)[:80],
            )
        return record

    def create(self, op: JsonObject, kind: str, params: JsonObject, preview: bool) -> Any:
        spec = self.kinds.get(kind) or {}
        key_field = self.key_field(kind)
        key_param = op.get("key_param") or key_field
        options = set(op.get("options") or [])
        record = {k: copy.deepcopy(v) for k, v in params.items() if k not in options and not k.startswith("_")}
        if op.get("apply_defaults", True) is not False:  # documented defaults are what the record gets
            for info in op.get("parameters") or []:
                name = info.get("name") if isinstance(info, dict) else None
                if isinstance(name, str) and "default" in info and name not in record and name not in options:
                    record[name] = copy.deepcopy(info["default"])
        assign = spec.get("assign", "prefixed")
        store = self.records.setdefault(kind, {})
        if assign == "client" and key_param in params:
            key = params[key_param]
            if str(key) in store:
                raise Refusal(
                    "conflict",
                    f"Resource '{kind}' already exists: '{str(key)[:80]}'",
                    "Already exists",
                    resource_type=kind,
                    resource_id=key if isinstance(key, str | int) else str(key)[:80],
                )
        else:
            number = self.counters.get(kind, 0) + 1
            key = self.make_key(kind, number)
            while str(key) in store:  # a seeded record may hold the next number
                number += 1
                key = self.make_key(kind, number)
        record.pop(key_param, None)
        record = {key_field: key, **record}
        if preview:
            return {"preview": True, "would_create": record}
        self.counters[kind] = self.counters.get(kind, 0) + 1
        store[str(key)] = record
        return copy.deepcopy(record)

    def make_key(self, kind: str, number: int) -> Any:
        spec = self.kinds.get(kind) or {}
        assign = spec.get("assign", "prefixed")
        if assign == "integer":
            return number
        if assign == "uuid":
            return f"00000000-0000-4000-8000-{number:012d}"
        return f"{spec.get('prefix', kind + '_')}{number}"

    def list_records(self, op: JsonObject, kind: Any, params: JsonObject) -> Any:
        rows = list(self.records.get(kind, {}).values()) if kind is not None else []
        options = set(op.get("options") or [])
        for name, wanted in params.items():
            if name in options or name in ("limit", "offset", "fields", "cursor", "sort", "query"):
                continue
            if isinstance(wanted, str | int | float | bool):
                rows = [r for r in rows if name not in r or r.get(name) == wanted]
        limit = params.get("limit")
        if is_number(limit) and limit >= 0:
            rows = rows[: int(limit)]
        rows = copy.deepcopy(rows)
        shape = op.get("list_shape", "items")
        if shape == "array":
            return rows
        if shape == "keyed":
            return {f"{kind}s": rows}
        return {"items": rows, "total": len(rows)}

    # --- introspection ---------------------------------------------------------------------
    def introspect(self, tool: str, params: JsonObject) -> Any:
        """introspect, per the introspection settings (answers the JSON or raises a Refusal)."""
        intro = self.intro
        elsewhere = self.mode == "semantic" and self.tool_names.get(tool) != "read"
        if elsewhere and not self.d.get("introspect_everywhere") and self.d.get("route_enforcement", True):
            raise Refusal(
                "endpoint",
                f"Operation 'introspect' must use the mcp_aql_read tool, not {tool}",
                "Wrong endpoint",
                operation="introspect",
                expected_endpoint="READ",
            )
        if intro["mode"] == "refused":
            raise Refusal("operation", "Unknown operation: 'introspect'", "Unknown operation", operation="introspect")
        checks = self.validation(None)
        allowed = ("query", "name")
        unknown = [k for k in params if k not in allowed and not k.startswith("_")]
        if unknown and self.unknown_policy(None) == "refuse":
            raise Refusal(
                "unknown",
                f"Unknown parameter(s) for operation 'introspect': {', '.join(unknown)}",
                operation="introspect",
                unknown_params=unknown,
                valid_params=list(allowed),
            )
        query = params.get("query")
        if query is None:
            if checks["required"]:
                raise Refusal(
                    "missing", "Missing required parameter 'query'", param_name="query", operation="introspect"
                )
            query = "operations"
        if query not in ("operations", "types"):
            raise Refusal(
                "value",
                f"Parameter 'query' must be 'operations' or 'types', got '{str(query)[:40]}'",
                param_name="query",
                allowed=["operations", "types"],
            )
        name = params.get("name")
        if name is not None and intro["mode"] == "no-details":
            raise Refusal("value", "Details are not available: call introspect without 'name'", param_name="name")
        if name is not None and intro["mode"] == "list-only":
            name = None
        if query == "types":
            if intro["mode"] == "no-types":
                raise Refusal("value", "Query 'types' is not supported", param_name="query", allowed=["operations"])
            return {"success": True, "data": self.type_answer(name)}
        if name is None:
            return {"success": True, "data": self.operations_list()}
        return self.detail_answer(name)

    def all_types(self) -> list[JsonObject]:
        extra = PROTOCOL_TYPES if self.intro.get("protocol_types") else []
        return [*self.types.values(), *[t for t in extra if t["name"] not in self.types]]

    def type_answer(self, name: Any) -> Any:
        types = self.all_types()
        if name is None:
            return {"types": [{k: t[k] for k in ("name", "kind", "description") if k in t} for t in types]}
        found = next((t for t in types if t.get("name") == name), None)
        if found is None:
            return self.unknown_name("type", name)
        return {"type": found}

    def unknown_name(self, what: str, name: Any) -> Any:
        how = self.intro.get("unknown_name", "null")
        if how == "refuse":
            reason = "operation" if what == "operation" else "not_found"
            raise Refusal(reason, f"Unknown {what}: '{str(name)[:80]}'", "Not found", name=str(name)[:80])
        if how == "empty":
            return {}
        return {what: None}

    def summary(self, op: JsonObject) -> JsonObject:
        entry = {
            "name": op["name"],
            "semantic_category": op.get("declared_category", self.category(op)),
            "endpoint": op.get("declared_endpoint", self.family(op) if self.mode == "semantic" else "single"),
            "description": op.get("description", ""),
        }
        shape = self.intro.get("list_shape", "standard")
        if shape == "no-endpoint":
            entry.pop("endpoint")
        elif shape == "category-key":
            entry["category"] = entry.pop("semantic_category")
        return entry

    def introspect_op(self) -> JsonObject:
        op = self._introspect_op()
        if self.intro.get("query_enum", True) is False:  # `query` documented by its description alone
            query = op["parameters"][0]
            query.pop("enum")
            query["description"] = self.intro.get("query_description", "What to list.")
        if self.intro.get("introspect_examples", True) is False:
            op.pop("examples")
        return op

    def _introspect_op(self) -> JsonObject:
        return {
            "name": "introspect",
            "category": "READ",
            "description": "Discover available operations and types.",
            "parameters": [
                {
                    "name": "query",
                    "type": "string",
                    "required": True,
                    "enum": ["operations", "types"],
                    "description": "What to list: 'operations' or 'types'.",
                },
                {
                    "name": "name",
                    "type": "string",
                    "required": False,
                    "description": "An operation or type name, for its details.",
                },
            ],
            "returns": {"name": "IntrospectionResult", "kind": "object"},
            "examples": [
                {
                    "description": "List operations",
                    "request": {"operation": "introspect", "params": {"query": "operations"}},
                }
            ],
        }

    def listed_ops(self) -> list[JsonObject]:
        ops = [op for op in self.operations if op.get("listed", True) is not False]
        if self.intro.get("list_introspect", True) and "introspect" not in self.by_name:
            ops.append(self.introspect_op())
        return ops

    def operations_list(self) -> Any:
        entries = [self.summary(op) for op in self.listed_ops()]
        entries += [
            {**self.summary(op), "semantic_category": op["twin"]}
            for op in self.listed_ops()
            if isinstance(op.get("twin"), str)
        ]  # listed twice, the second time otherwise
        shape = self.intro.get("list_shape", "standard")
        if shape == "bare-array":
            return entries
        if shape == "by-name":
            listing: Any = {e["name"]: {k: v for k, v in e.items() if k != "name"} for e in entries}
        elif shape == "grouped":
            listing = {}
            for e in entries:
                listing.setdefault(str(e.get("endpoint", "read")), []).append(e)
        else:
            listing = entries
        data: JsonObject = {}
        if self.d.get("protocol") is not None:
            data["_protocol"] = self.d["protocol"]
        data["operations"] = listing
        return data

    def detail_answer(self, name: Any) -> JsonObject:
        op = self.by_name.get(name) if isinstance(name, str) else None
        if op is None and name == "introspect" and self.intro.get("list_introspect", True):
            op = self.introspect_op()
        if op is None:
            return {"success": True, "data": self.unknown_name("operation", name)}
        how = op.get("detail", "full")
        if how == "null":
            return {"success": True, "data": {"operation": None}}
        if how == "refused":
            raise Refusal("value", f"No details for operation '{op['name']}'", "No details", operation=op["name"])
        detail: JsonObject = {**self.summary(op), "mcpTool": self.tool_of(op)}
        if how == "alien":  # the detail of another operation (by case)
            detail["name"] = op["name"].upper() if op["name"] != op["name"].upper() else op["name"].lower()
        if "endpoint" not in detail and self.mode == "semantic":
            detail["endpoint"] = self.family(op)
        if "category" in detail:  # the list's odd key is the list's: details use the spec's
            detail["semantic_category"] = detail.pop("category")
        permissions = op.get("permissions", PERMISSIONS[self.category(op)])
        if permissions is not None:
            detail["permissions"] = permissions
        parameters = op.get("parameters") or []
        if how == "names-only":
            detail["parameters"] = [p.get("name") for p in parameters if isinstance(p, dict)]
        elif how != "bare":
            detail["parameters"] = parameters
        for key in ("returns", "examples", "lifecycle"):
            if key in op:
                detail[key] = op[key]
        return {"success": True, "data": {"operation": detail}}

    # --- tools/list ------------------------------------------------------------------------
    def tools(self) -> list[JsonObject]:
        schema = {
            "type": "object",
            "properties": {
                "operation": {"type": "string", "description": "Operation name"},
                "params": {"type": "object", "description": "Operation parameters"},
            },
            "required": ["operation"],
        }
        found = []
        for tool, family in self.tool_names.items():
            if family is None:
                ops = self.listed_ops()
                text = (
                    f"{self.d.get('name', 'genserver')}: every MCP-AQL operation through one tool. Operations: "
                    f"{', '.join(o['name'] for o in ops)}. Start with "
                    '{ "operation": "introspect", "params": { "query": "operations" } }.'
                )
            else:
                ops = [o for o in self.listed_ops() if self.family(o) == family]
                text = (
                    f"{family.upper()} operations: {', '.join(o['name'] for o in ops) or 'none'}. Discover every "
                    'operation with { "operation": "introspect", "params": { "query": "operations" } } on '
                    "mcp_aql_read."
                )
            entry: JsonObject = {"name": tool, "description": text, "inputSchema": schema}
            quirks = self.d.get("tool_quirks") or []
            if "no-description" in quirks:
                entry.pop("description")
            if "no-schema" in quirks:
                entry.pop("inputSchema")
            if "loose-schema" in quirks:
                entry["inputSchema"] = {"type": "object"}
            if self.d.get("annotations"):
                permissions = PERMISSIONS[family.upper()] if family else {"readOnly": False, "destructive": True}
                entry["annotations"] = {
                    "readOnlyHint": permissions["readOnly"],
                    "destructiveHint": permissions["destructive"],
                }
            found.append(entry)
            if "duplicate" in (self.d.get("tool_quirks") or []):
                found.append(dict(entry))
        for name in self.d.get("extra_tools") or []:
            if isinstance(name, str):
                found.append(
                    {
                        "name": name,
                        "description": f"A plain MCP tool ({name}), not MCP-AQL.",
                        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
                    }
                )
        return found


def format_ok(name: Any, value: str) -> bool:
    """Whether a string keeps a declared format (an undeclared or unknown format: always)."""
    if not isinstance(name, str):
        return True
    if name == "date":
        if not DATE.fullmatch(value):
            return False
        try:
            dt.date.fromisoformat(value)
        except ValueError:
            return False
        return True
    if name == "date-time":
        if not DATE_TIME.fullmatch(value):
            return False
        try:
            dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return False
        return True
    pattern = FORMATS.get(name)
    return pattern is None or pattern.fullmatch(value) is not None


# --- JSON-RPC over stdio ---------------------------------------------------------------------
class Session:
    def __init__(self, server: Server) -> None:
        self.server = server
        self.calls = 0
        stray = server.d.get("stray_stdout")
        self.stray = stray if isinstance(stray, dict) and isinstance(stray.get("line"), str) else None

    def write(self, message: JsonObject) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    def stray_line(self) -> None:
        stray = self.stray
        if stray is None or stray.get("at", "call") != "call":
            return
        after = stray.get("after_call", 1)
        after = after if isinstance(after, int) else 1
        if self.calls == after or (stray.get("repeat") and self.calls > after):
            sys.stdout.write(stray["line"].replace("{n}", str(self.calls)) + "\n")
            sys.stdout.flush()

    def handle(self, message: Any) -> JsonObject | None:
        if not isinstance(message, dict):
            return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
        method, ident = message.get("method"), message.get("id")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        if "id" not in message:  # a notification (notifications/initialized and the like)
            return None
        if not isinstance(method, str):
            if "result" in message or "error" in message:  # a response to a request we never sent
                return None
            return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32600, "message": "Invalid Request"}}
        d = self.server.d
        if method == "initialize":
            version = d.get("protocol_version", params.get("protocolVersion"))
            result: Any = {
                "protocolVersion": version if isinstance(version, str) else "2025-06-18",
                "capabilities": d.get("capabilities", {"tools": {"listChanged": False}}),
                "serverInfo": d["server_info"]
                if "server_info" in d
                else {"name": str(d.get("name", "genserver")), "version": str(d.get("version", "0.0.0"))},
            }
        elif method == "ping":
            result = {}
        elif method == "tools/list":
            tools = self.server.tools()
            size = d.get("tools_page_size")
            if isinstance(size, int) and size > 0:  # paged: the cursor is the index of the next tool
                cursor = params.get("cursor")
                start = int(cursor) if isinstance(cursor, str) and cursor.isdigit() else 0
                result = {"tools": tools[start : start + size]}
                if start + size < len(tools):
                    result["nextCursor"] = str(start + size)
            else:
                result = {"tools": tools}
        elif method == "tools/call":
            self.calls += 1
            name = params.get("name")
            arguments = params.get("arguments")
            if d.get("stderr_log"):
                print(f"genserver: call {self.calls}: {json.dumps(params)[:500]}", file=sys.stderr, flush=True)
            answer, is_error, rpc_error = self.server.call(name if isinstance(name, str) else "", arguments or {})
            if rpc_error is not None:
                return {"jsonrpc": "2.0", "id": ident, "error": rpc_error}
            text = answer if isinstance(answer, str) else json.dumps(answer)
            result = {"content": [{"type": "text", "text": text}], "isError": bool(is_error)}
            if d.get("structured_content") and isinstance(answer, dict):
                result["structuredContent"] = answer
            if d.get("extra_content"):
                result["content"].append({"type": "text", "text": f"(answered by {d.get('name', 'genserver')})"})
            result = self.quirk(result, answer)
            for kind in d.get("notifications") or []:
                self.notify(kind, ident)
        else:
            return {
                "jsonrpc": "2.0",
                "id": ident,
                "error": {"code": -32601, "message": f"Method not found: {method[:80]}"},
            }
        return {"jsonrpc": "2.0", "id": ident, "result": result}

    def quirk(self, result: JsonObject, answer: Any) -> Any:
        """The tool result as the description's ``call_result`` spoils it."""
        how = self.server.d.get("call_result")
        if how == "no-content":  # the answer as the result itself
            return answer if isinstance(answer, dict) else {"text": answer}
        if how == "empty-content":
            return {**result, "content": []}
        if how == "image-content":
            image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
            return {**result, "content": [image, *result["content"]]}
        if how == "content-object":
            return {**result, "content": result["content"][0]}
        if how == "text-not-string":
            return {**result, "content": [{"type": "text", "text": answer}]}
        if how == "no-is-error":
            return {k: v for k, v in result.items() if k != "isError"}
        return result

    def notify(self, kind: Any, ident: Any) -> None:
        """A notification sent before the answer to a call (MCP allows them at any time)."""
        if kind == "log":
            message = {"method": "notifications/message", "params": {"level": "info", "data": f"call {self.calls}"}}
        elif kind == "list_changed":
            message = {"method": "notifications/tools/list_changed"}
        elif kind == "progress":
            message = {"method": "notifications/progress", "params": {"progressToken": ident, "progress": 1}}
        else:
            return
        self.write({"jsonrpc": "2.0", **message})

    def serve(self) -> None:
        if self.stray is not None and self.stray.get("at") == "start":
            sys.stdout.write(self.stray["line"].replace("{n}", "0") + "\n")
            sys.stdout.flush()
        for raw in sys.stdin.buffer:
            line = raw.decode("utf-8", errors="surrogateescape").strip()
            if not line:
                continue
            ident: Any = None
            try:
                message = json.loads(line)
                ident = message.get("id") if isinstance(message, dict) else None
                is_call = isinstance(message, dict) and message.get("method") == "tools/call" and "id" in message
                if any("\udc80" <= char <= "\udcff" for char in line):  # not UTF-8: no JSON text (core §4.7.1)
                    raise json.JSONDecodeError("the request is not UTF-8", line, 0)
                reply = self.handle(message)
            except json.JSONDecodeError:
                reply, is_call = (
                    {"jsonrpc": "2.0", "id": ident, "error": {"code": -32700, "message": "Parse error"}},
                    False,
                )
            except Exception as exc:  # a fault of ours: answered, logged, never fatal
                traceback.print_exc(file=sys.stderr)
                reply = {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "error": {"code": -32603, "message": f"Internal error: {exc!r}"[:300]},
                }
                is_call = False
            if reply is not None:
                try:
                    self.write(reply)
                except (TypeError, ValueError) as exc:
                    traceback.print_exc(file=sys.stderr)
                    self.write(
                        {
                            "jsonrpc": "2.0",
                            "id": ident if isinstance(ident, str | int) else None,
                            "error": {"code": -32603, "message": f"Internal error: {exc!r}"[:300]},
                        }
                    )
            if is_call:
                self.stray_line()


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: genserver.py DESCRIPTION.json", file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as handle:
            description = json.load(handle)
    except (OSError, ValueError) as exc:
        print(f"genserver: cannot read {argv[1]}: {exc}", file=sys.stderr)
        return 2
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        Session(Server(description)).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
