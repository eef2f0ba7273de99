"""Hypothesis strategies of MCP-AQL server descriptions for ``genserver.py``.

``servers()`` draws one description (a plain, JSON-serialisable dict; its format is documented
in ``genserver.py``): one to three record kinds (a child kind referring to a parent one
sometimes), small named types (enums, objects nesting objects, arrays of named items), two to
eight operations across every category, parameters with consistent constraints (minimum <=
maximum, minLength <= maxLength, a pattern from a small catalogue whose values keep those
lengths, formats, enums, defaults), safety switches and modes, examples, seeded records, and the
server's manners: endpoint mode, route enforcement, validation strictness, refusal style,
unknown-parameter policy, introspection degradation, a stray stdout line. The servers need not
be conformant: they cover what real servers do, right and wrong. Names are snake_case mostly,
with the occasional camelCase or hyphenated one.

``servers(odd=1.0)``: ``odd`` scales the chances of the rarer ways a server goes wrong (names no
file system likes, ParameterInfo of the wrong shape, spoilt MCP results, odd serverInfo, tools
without a schema, deep or long records...): 0 never, 3 three times as often.

``describe(description)`` is a one-line summary, for test ids and failure messages.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

JsonObject = dict[str, Any]
Draw = Callable[..., Any]

# --- catalogues ----------------------------------------------------------------------------------

_UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ"


@dataclass(frozen=True)
class Pattern:
    """A realistic pattern, the lengths of the strings it matches (max None: unbounded), and the
    nth string that matches it (distinct for distinct n in 0..9999, no longer than 16)."""

    regex: str
    min_len: int
    max_len: int | None
    make: Callable[[int], str]


PATTERNS = (
    Pattern(r"^[A-Z]{3}-[0-9]{4}$", 8, 8, lambda n: f"{_UPPER[n % 24]}{_UPPER[n // 24 % 24]}K-{n:04d}"),
    Pattern(r"^[a-z0-9_]+$", 1, None, lambda n: f"item_{n}"),
    Pattern(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", 10, 10, lambda n: f"{2000 + n % 30}-{1 + n % 12:02d}-{1 + n % 28:02d}"),
    Pattern(r"^[a-z0-9]+(?:-[a-z0-9]+)*$", 1, None, lambda n: f"post-{n}"),
    Pattern(r"^#[0-9a-f]{6}$", 7, 7, lambda n: f"#{n * 2654435761 % 16**6:06x}"),
    Pattern(r"^[A-Z]{2}[0-9]{2}$", 4, 4, lambda n: f"{_UPPER[n % 24]}{_UPPER[n // 24 % 24]}{n % 100:02d}"),
    Pattern(r"^\+?[0-9]{7,15}$", 7, 16, lambda n: f"+4930{n:07d}"),
    Pattern(r"^v[0-9]+\.[0-9]+\.[0-9]+$", 6, None, lambda n: f"v1.{n}.0"),
    Pattern(r"^[A-Z][a-z]+$", 2, None, lambda n: "Name" + "".join("abcdefghij"[int(c)] for c in str(n))),
    Pattern(r"^[A-Z]{2}-[0-9]{4}$", 7, 7, lambda n: f"{_UPPER[n % 24]}{_UPPER[n // 24 % 24]}-{n:04d}"),
)
SKU, SLUG, CODE = PATTERNS[0], PATTERNS[3], PATTERNS[5]
FORMAT_SAMPLES = {
    "date": ("2026-01-31", "2025-12-01", "2024-02-29"),
    "date-time": ("2026-01-31T12:00:00Z", "2025-06-01T08:30:00+02:00"),
    "email": ("ann@example.org", "bo.lee@example.com"),
    "uri": ("https://example.org/a", "https://example.com/docs/1"),
    "uuid": ("3f2b8c1e-0d4a-4c6e-9b1a-2e5f7a9c0d11", "00000000-0000-4000-8000-000000000042"),
}
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "caf\u00e9", "na\u00efve \u2603")

# Record kinds: a natural key (its name and pattern) when the kind has one.
KINDS: dict[str, tuple[str, Pattern] | None] = {
    "order": None,
    "customer": None,
    "invoice": None,
    "note": None,
    "shipment": None,
    "product": ("sku", SKU),
    "ticket": ("code", CODE),
    "article": ("slug", SLUG),
    "project": ("slug", SLUG),
    "coupon": ("code", CODE),
}
CHILD_KINDS = ("comment", "line", "task", "attachment")
VERBS = {
    "create": ("create", "add", "register"),
    "get": ("get", "fetch", "find"),
    "list": ("list", "search"),
    "update": ("update", "edit"),
    "delete": ("delete", "remove"),
    "execute": ("export", "recalculate", "publish", "sync", "archive"),
}
REFUSAL_FORMS = ("union", "string-error", "malformed-error", "flagless", "other-json", "text", "mcp-error", "jsonrpc")
CHECKS = ("required", "types", "enum", "bounds", "pattern", "format", "items", "nested", "input")


def title(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def plural(name: str) -> str:
    return name + "s"


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def param(name: str, kind: str, required: bool = False, description: str = "", **extra: Any) -> JsonObject:
    """A ParameterInfo; None-valued constraints are left out."""
    entry: JsonObject = {"name": name, "type": kind, "required": required}
    if description:
        entry["description"] = description
    entry.update({k: v for k, v in extra.items() if v is not None})
    return entry


# --- values ----------------------------------------------------------------------------------------


def pattern_of(info: JsonObject) -> Pattern | None:
    return next((p for p in PATTERNS if p.regex == info.get("pattern")), None)


def valid_value(
    draw: Draw, info: JsonObject, types: dict[str, JsonObject], n: int | None = None, depth: int = 0
) -> Any:
    """A value the parameter's declaration accepts (``n``: which of a pattern's values)."""
    number = draw(st.integers(0, 9999)) if n is None else n
    if isinstance(info.get("enum"), list) and info["enum"]:
        return draw(st.sampled_from(info["enum"]))
    kind = info.get("type")
    named = types.get(kind) if isinstance(kind, str) else None
    if named is not None:
        if named["kind"] == "enum":
            return draw(st.sampled_from(named["values"]))
        if depth > 3:
            return {}
        found = {}
        for f in named["fields"]:
            if f.get("readOnly"):
                continue
            if f.get("required") or draw(st.booleans()):
                found[f["name"]] = valid_value(draw, f, types, None, depth + 1)
        return found
    if kind == "integer":
        low, high = info.get("minimum", 0), info.get("maximum", 1000)
        return draw(st.integers(int(low), int(high)))
    if kind == "number":
        low, high = info.get("minimum", 0), info.get("maximum", 1000)
        return float(draw(st.integers(int(low) * 2, int(high) * 2))) / 2
    if kind == "boolean":
        return draw(st.booleans())
    if kind == "array":
        items = info.get("items") if isinstance(info.get("items"), dict) else {"type": "string"}
        return [valid_value(draw, items, types, None, depth + 1) for _ in range(draw(st.integers(1, 2)))]
    if kind == "object":
        return {"note": draw(st.sampled_from(WORDS))}
    pattern = pattern_of(info)
    if pattern is not None:
        return pattern.make(number)
    if isinstance(info.get("format"), str) and info["format"] in FORMAT_SAMPLES:
        return draw(st.sampled_from(FORMAT_SAMPLES[info["format"]]))
    low, high = info.get("minLength", 0), info.get("maxLength", 40)
    text = f"{draw(st.sampled_from(WORDS))} {number}"
    while len(text) < low:
        text += "x"
    return text[:high]


def invalid_value(draw: Draw, info: JsonObject) -> Any:
    """A value the declaration refuses (a wrong type, or a constraint broken)."""
    if isinstance(info.get("enum"), list):
        return "not-a-listed-value"
    if info.get("type") in ("integer", "number") and "maximum" in info:
        return info["maximum"] + 1
    if info.get("format") == "date":
        return "2026-02-30"
    if info.get("pattern"):
        return "does not match!"
    return draw(st.sampled_from([12345, ["a", "list"], {"an": "object"}])) if info.get("type") == "string" else "text"


# --- building a server -----------------------------------------------------------------------------


@dataclass
class Kind:
    name: str
    key: str  # the record's key field
    assign: str  # client | prefixed | uuid | integer
    key_info: JsonObject  # the ParameterInfo of the key (as a parameter of its own kind's operations)
    fields: list[JsonObject] = field(default_factory=list)  # ParameterInfo of the record's other fields
    parent: Kind | None = None
    ref_param: str | None = None  # the parameter naming the parent's record
    prefix: str = ""


@dataclass
class Builder:
    draw: Draw
    types: dict[str, JsonObject] = field(default_factory=dict)
    serial: int = 0
    odd: float = 1.0  # how often declarations go wrong, as a factor of the usual chances

    def next(self) -> int:
        self.serial += 1
        return self.serial

    def sometimes(self, chance: float) -> bool:
        """True with about that chance (shrinks to False: the plainer server)."""
        # integers(0, 99) come out about uniform (wider ranges do not: hypothesis favours small ones)
        percent = max(1, round(chance * 100)) if chance > 0 else 0
        return bool(self.draw(st.integers(0, 99)) >= 100 - percent)

    def rarely(self, chance: float) -> bool:
        """``sometimes`` for what goes wrong: the chance scaled by ``odd``."""
        return self.sometimes(min(1.0, chance * self.odd))

    def name(self, snake: str) -> str:
        """A snake_case name, now and then spelled as badly as real servers do."""
        if not self.rarely(0.06):
            return snake
        bad = [camel(snake), snake.replace("_", "-"), title(snake)]
        if self.rarely(0.3):  # names no file system or terminal likes
            bad += [
                snake.replace("_", "."),
                snake.replace("_", "/"),
                snake.replace("_", " "),
                f"\u00fc{snake}",
                snake * 12,
                f"{snake}\u202e",
                f"..{snake}",
            ]
        return self.draw(st.sampled_from(bad))

    # --- types -------------------------------------------------------------------------------------
    def enum_type(self, type_name: str, values: list[str], description: str) -> str:
        self.types.setdefault(
            type_name, {"name": type_name, "kind": "enum", "description": description, "values": values}
        )
        return type_name

    def object_type(self, type_name: str, fields: list[JsonObject], description: str) -> str:
        self.types.setdefault(
            type_name, {"name": type_name, "kind": "object", "description": description, "fields": fields}
        )
        return type_name

    def address_type(self) -> str:
        postcode = self.string_field("postcode", PATTERNS[9], True, "Postcode, e.g. 'AB-1234'.")
        fields = [
            param("street", "string", True, "Street and number.", minLength=1, maxLength=80),
            param("city", "string", self.sometimes(0.5), "City.", maxLength=60),
            postcode,
        ]
        if self.sometimes(0.4):  # nested deeper: a geo point in the address
            geo = self.object_type(
                "GeoPoint",
                [
                    param("lat", "number", True, "Latitude.", minimum=-90, maximum=90),
                    param("lon", "number", True, "Longitude.", minimum=-180, maximum=180),
                ],
                "A point on Earth.",
            )
            fields.append(param("geo", geo, False, "Where it is."))
        return self.object_type("Address", fields, "A postal address.")

    def line_item_type(self) -> str:
        fields = [
            self.string_field("sku", SKU, True, "Product SKU."),
            param("quantity", "integer", True, "How many.", minimum=1, maximum=99),
        ]
        return self.object_type("LineItem", fields, "One line of a list of goods.")

    # --- fields ------------------------------------------------------------------------------------
    def string_field(self, name: str, pattern: Pattern | None, required: bool, description: str) -> JsonObject:
        """A string with consistent length bounds, and a pattern whose values keep them."""
        draw = self.draw
        low = high = None
        if pattern is not None:
            if self.sometimes(0.5):
                low = draw(st.integers(1, pattern.min_len))
            if self.sometimes(0.5):
                high = (
                    pattern.max_len + draw(st.integers(0, 20))
                    if pattern.max_len
                    else draw(st.sampled_from([16, 32, 64]))
                )
            if self.sometimes(0.4):
                description = f"{description} e.g. '{pattern.make(draw(st.integers(0, 99)))}'"
            return param(name, "string", required, description, minLength=low, maxLength=high, pattern=pattern.regex)
        if self.sometimes(0.6):
            low = draw(st.integers(0, 3))
        if self.sometimes(0.7):
            high = draw(st.sampled_from([12, 40, 80, 200]))
        return param(name, "string", required, description, minLength=low, maxLength=high)

    def kind_field(self, kind: str) -> JsonObject:
        """One field of a record (its ParameterInfo, required or not)."""
        draw = self.draw
        required = self.sometimes(0.5)
        choice = draw(
            st.sampled_from(
                [
                    "title",
                    "status",
                    "priority",
                    "quantity",
                    "price",
                    "email",
                    "due_date",
                    "starts_at",
                    "website",
                    "external_ref",
                    "reference",
                    "tags",
                    "address",
                    "lines",
                    "is_public",
                    "color",
                    "notes",
                ]
            )
        )
        if choice == "title":
            return self.string_field("title", None, required, f"The {kind}'s title.")
        if choice == "status":
            values = draw(
                st.sampled_from(
                    [["draft", "active", "archived"], ["open", "closed"], ["pending", "paid", "shipped", "cancelled"]]
                )
            )
            if self.sometimes(0.4):
                return param(
                    "status",
                    self.enum_type(f"{title(kind)}Status", values, f"States of a {kind}."),
                    required,
                    f"The {kind}'s status.",
                )
            if self.sometimes(0.3):  # the values said in the description only
                return param("status", "string", required, f"Status. One of: {', '.join(values)}.")
            default = values[0] if not required and self.sometimes(0.5) else None
            return param("status", "string", required, "Status.", enum=values, default=default)
        if choice in ("priority", "quantity"):
            low = draw(st.sampled_from([0, 1, 10]))
            high = low + draw(st.sampled_from([0, 4, 99, 9999]))
            default = draw(st.integers(low, high)) if not required and self.sometimes(0.5) else None
            if required and self.rarely(0.1):  # required, and a default all the same
                default = low
            return param(choice, "integer", required, f"The {choice}.", minimum=low, maximum=high, default=default)
        if choice == "price":
            high = draw(st.sampled_from([None, 100, 100000]))
            return param("price", "number", required, "Price in euros.", minimum=0, maximum=high)
        formats = {
            "email": "email",
            "due_date": "date",
            "starts_at": "date-time",
            "website": "uri",
            "external_ref": "uuid",
        }
        if choice in formats:
            text = {"date": "Due date, YYYY-MM-DD.", "date-time": "Start, ISO 8601 date-time."}.get(formats[choice], "")
            return param(choice, "string", required, text or f"The {choice}.", format=formats[choice])
        if choice == "reference":
            return self.string_field("reference", draw(st.sampled_from(PATTERNS)), required, "An outside reference.")
        if choice == "tags":
            item = self.string_field("tag", None, True, "One tag.")
            return param("tags", "array", required, "Tags.", items=item, maxItems=draw(st.sampled_from([None, 10])))
        if choice == "address":
            return param("address", self.address_type(), required, "Postal address.")
        if choice == "lines":
            return param(
                "lines", "array", required, "Lines.", items=param("line", self.line_item_type(), True, "A line.")
            )
        if choice == "is_public":
            return param("is_public", "boolean", False, "Whether anyone may see it.", default=False)
        if choice == "color":
            colors = self.enum_type("Color", ["red", "green", "blue"], "A colour.")
            return param("color", colors, required, "Colour.", default="red" if not required else None)
        return param("notes", "string", required, "Free text notes.", maxLength=500)

    def make_kind(self, name: str, parent: Kind | None = None) -> Kind:
        draw = self.draw
        natural = KINDS.get(name)
        if natural is not None and self.sometimes(0.6):
            key, pattern = natural
            kind = Kind(name, key, "client", self.string_field(key, pattern, True, f"The {name}'s {key}."))
        else:
            key = draw(st.sampled_from(["id", f"{name}_id"]))
            assign = draw(st.sampled_from(["prefixed", "prefixed", "uuid", "integer", "client"]))
            prefix = draw(st.sampled_from([f"{name[:3]}_", f"{name}-", "x"])) if assign == "prefixed" else ""
            if assign == "integer":
                info = param(key, "integer", True, f"The {name}'s id.", minimum=1)
            elif assign == "uuid":
                info = param(key, "string", True, f"The {name}'s id (a UUID).", format="uuid")
            elif assign == "prefixed":
                pattern = f"^{prefix}[0-9]+$" if self.sometimes(0.5) else None
                example = f" e.g. '{prefix}1'" if self.sometimes(0.5) else ""
                info = param(key, "string", True, f"The {name}'s id{example}.", pattern=pattern, minLength=1)
            else:
                info = self.string_field(key, PATTERNS[1], True, f"The {name}'s id.")
            kind = Kind(name, key, assign, info, prefix=prefix)
        names = set()
        for _ in range(draw(st.integers(1, 3))):
            f = self.kind_field(name)
            if f["name"] not in names and f["name"] != kind.key:
                names.add(f["name"])
                kind.fields.append(f)
        if parent is not None:
            kind.parent = parent
            kind.ref_param = f"{parent.name}_id" if parent.key in ("id", f"{parent.name}_id") else parent.key
            if kind.ref_param == kind.key:
                kind.ref_param = f"{parent.name}_{parent.key}"
        return kind

    def key_param(self, kind: Kind) -> JsonObject:
        """The parameter naming a record of ``kind`` (``id`` sometimes becomes ``<kind>_id``)."""
        info = dict(kind.key_info)
        if kind.key == "id" and self.sometimes(0.5):
            info["name"] = f"{kind.name}_id"
        return info

    def ref_param(self, kind: Kind) -> JsonObject:
        assert kind.parent is not None and kind.ref_param is not None
        info = dict(kind.parent.key_info)
        return {
            **info,
            "name": kind.ref_param,
            "required": True,
            "description": f"The {kind.parent.name} it belongs to.",
        }

    def key_value(self, kind: Kind, n: int) -> Any:
        if kind.assign == "integer":
            return n
        if kind.assign == "uuid":
            return f"00000000-0000-4000-8000-{n:012d}"
        if kind.assign == "prefixed":
            return f"{kind.prefix}{n}"
        pattern = pattern_of(kind.key_info) or PATTERNS[1]
        return pattern.make(n)

    # --- operations --------------------------------------------------------------------------------
    def switch(self, category: str) -> tuple[list[JsonObject], JsonObject | None]:
        """A safety switch or mode for an UPDATE, DELETE or EXECUTE operation: (parameters, safety)."""
        draw = self.draw
        if category not in ("UPDATE", "DELETE", "EXECUTE") or not self.sometimes(0.55):
            return [], None
        choice = draw(st.sampled_from(["force", "confirm", "dry_run", "action", "method", "mode", "mode"]))
        required = self.sometimes(0.25)
        if choice == "force":
            return [param("force", "boolean", required, "Skip the checks.", default=None if required else False)], None
        if choice == "confirm":
            info = param(
                "confirm",
                "boolean",
                required,
                "Must be true to proceed.",
                default=None if required or self.sometimes(0.5) else False,
            )
            return [info], {"param": "confirm", "proceed": [True], "otherwise": "refuse"}
        if choice == "dry_run":
            default = None if required else draw(st.sampled_from([None, True, False]))
            info = param("dry_run", "boolean", required, "Only show what would change.", default=default)
            return [info], {
                "param": "dry_run",
                "proceed": [False],
                "otherwise": "preview",
                "absent": "proceed" if default is not True else "hold",
            }
        values = {"action": ["preview", "apply"], "method": ["GET", "POST"]}.get(choice) or draw(
            st.sampled_from([["preview", "apply"], ["check", "fix"], ["pull", "push"], ["plan", "apply"]])
        )
        default = values[0] if not required and self.sometimes(0.5) else None
        info = param(choice, "string", required, f"What to do: {' or '.join(values)}.", enum=values, default=default)
        if self.sometimes(0.2):  # the values in the description alone
            info.pop("enum")
        return [info], {"param": choice, "proceed": [values[1]], "otherwise": "preview"}

    def operation(self, action: str, kind: Kind | None) -> JsonObject:
        """One operation of ``action`` on ``kind`` (None: an operation of no kind)."""
        draw = self.draw
        category = {
            "create": "CREATE",
            "get": "READ",
            "list": "READ",
            "update": "UPDATE",
            "delete": "DELETE",
            "execute": "EXECUTE",
            "search": "READ",
            "fail": "READ",
        }[action]
        kname = kind.name if kind else "index"
        verb = draw(st.sampled_from(VERBS.get(action, (action,))))
        noun = plural(kname) if action in ("list", "search") or (action == "execute" and verb == "export") else kname
        if action == "fail":
            verb, noun = "get", f"{kname}_stats"
        op: JsonObject = {
            "name": self.name(f"{verb}_{noun}"),
            "category": category,
            "description": f"{verb.capitalize()} {noun.replace('_', ' ')}.",
        }
        if action not in ("search", "fail"):
            op["action"] = action
        else:
            op["action"] = "echo" if action == "search" else "fail"
        params: list[JsonObject] = []
        if kind is not None:
            op["kind"] = kind.name
        if action == "create" and kind is not None:
            if kind.parent is not None:
                params.append(self.ref_param(kind))
                op["references"] = {kind.ref_param: kind.parent.name}
            if kind.assign == "client":
                params.append(dict(kind.key_info))
            params += [dict(f) for f in kind.fields]
        elif action in ("get", "update", "delete") and kind is not None:
            key = self.key_param(kind)
            params.append(key)
            op["key_param"] = key["name"]
            if action == "update" and self.sometimes(0.85):
                params.append(self.update_input(kind, op))
            elif action == "update":  # a flat update: the fields beside the key, no `input`
                params += [{k: v for k, v in f.items() if k != "default"} | {"required": False} for f in kind.fields]
        elif action == "list" and kind is not None:
            if kind.parent is not None:
                params.append({**self.ref_param(kind), "required": self.sometimes(0.5)})
                op["references"] = {kind.ref_param: kind.parent.name}
            for f in kind.fields:
                if f["type"] in ("string", "integer", "boolean") and "items" not in f and self.sometimes(0.4):
                    params.append({**f, "required": False})
            if self.sometimes(0.5):
                params.append(
                    param("limit", "integer", False, "How many to return.", default=20, minimum=1, maximum=100)
                )
            op["list_shape"] = draw(st.sampled_from(["items", "items", "array", "keyed"]))
        elif action == "execute":
            if kind is not None and self.sometimes(0.7):
                key = {**self.key_param(kind), "required": self.sometimes(0.8)}
                params.append(key)
                op["key_param"] = key["name"]
            if self.sometimes(0.4):
                params.append(param("scope", "string", False, "What to cover.", enum=["all", "recent"], default="all"))
        elif action == "search":
            params.append(param("query", "string", True, "Words to look for.", minLength=1, maxLength=100))
        switches, safety = self.switch(category)
        params += switches
        if switches:
            op["options"] = [s["name"] for s in switches]
        if safety is not None:
            op["safety"] = safety
        if self.sometimes(0.05) and params:  # a parameter named as no client guesses
            victim = draw(st.sampled_from(params))
            keep = (op.get("key_param"), "input", *(op.get("options") or []), *(op.get("references") or {}))
            if victim["name"] not in keep:
                victim["name"] = camel(victim["name"]) if "_" in victim["name"] else victim["name"].capitalize()
        op["parameters"] = params
        if kind is not None and self.sometimes(0.8):
            op["returns"] = {
                "name": title(kind.name),
                "kind": "object",
                "description": f"The {kind.name}" + ("s." if action == "list" else "."),
            }
        return op

    def update_input(self, kind: Kind, op: JsonObject) -> JsonObject:
        """UPDATE's ``input`` (core §4.5): a named type (fields optional, a read-only one sometimes)
        or a plain object; a flat update (no ``input``) is made by the caller's draw instead."""
        fields = [{**f, "required": False} for f in kind.fields]
        for f in fields:
            f.pop("default", None)
        if self.sometimes(0.3):
            fields.append(
                param("created_at", "string", False, "When it was made (read-only).", format="date-time", readOnly=True)
            )
        if self.sometimes(0.6):
            type_name = self.object_type(
                f"{title(kind.name)}Input", fields, f"What an update of a {kind.name} changes."
            )
            return param("input", type_name, self.sometimes(0.9), "The fields to change.")
        return param("input", "object", self.sometimes(0.9), "The fields to change (deep-merged; null removes).")

    def example(self, op: JsonObject, kind: Kind | None, records: dict[str, list[JsonObject]]) -> JsonObject:
        """A request using the operation: valid values (an existing record's key), or now and then
        a broken one."""
        draw = self.draw
        params: JsonObject = {}
        for info in op["parameters"]:
            if not info.get("required") and not self.sometimes(0.5):
                continue
            name = info["name"]
            if name == op.get("key_param") and kind is not None and records.get(kind.name):
                params[name] = draw(st.sampled_from(records[kind.name]))[kind.key]
            elif name in (op.get("references") or {}) and records.get(op["references"][name]):
                parent = next(k for k in self.kinds if k.name == op["references"][name])
                params[name] = draw(st.sampled_from(records[parent.name]))[parent.key]
            elif name == "input" and kind is not None and kind.fields:
                f = draw(st.sampled_from(kind.fields))
                params["input"] = {f["name"]: valid_value(draw, f, self.types)}
            else:
                params[name] = valid_value(draw, info, self.types, self.next() + 500)
        if self.sometimes(0.1):
            if op["parameters"] and self.sometimes(0.5):
                info = draw(st.sampled_from(op["parameters"]))
                params[info["name"]] = invalid_value(draw, info)
            else:
                params["legacy_flag"] = True
        request: JsonObject = {"operation": op["name"], "params": params}
        return (
            {"description": f"Call {op['name']}", "request": request} if self.sometimes(0.7) else {"request": request}
        )

    kinds: list[Kind] = field(default_factory=list)


# --- server-wide manners -------------------------------------------------------------------------


def validations() -> st.SearchStrategy[Any]:
    """A validation setting: a preset, or an object of checks (some off)."""
    partial = st.fixed_dictionaries({}, optional={check: st.booleans() for check in CHECKS})
    return st.one_of(st.sampled_from(["strict", "strict", "strict", "lenient", "none"]), partial)


def refusals() -> st.SearchStrategy[Any]:
    """A refusal style: a preset name, or an object."""
    style = st.fixed_dictionaries(
        {},
        optional={
            "form": st.sampled_from(REFUSAL_FORMS),
            "code": st.sampled_from(["registry", "registry", "unregistered", "generic", "lowercase", "numeric"]),
            "message": st.sampled_from(["named", "named", "vague", "stack"]),
            "details": st.sampled_from([True, False, True, False, "string", "list"]),
            "is_error": st.sampled_from(["never", "always", "unrecoverable"]),
        },
    )
    presets = st.sampled_from(
        [
            "standard",
            "standard",
            "unregistered-code",
            "vague-message",
            "no-details",
            "jsonrpc",
            "plain-text",
            "text",
            "stack-trace",
            "string-error",
        ]
    )
    return st.one_of(presets, style)


def introspections() -> st.SearchStrategy[JsonObject]:
    return st.fixed_dictionaries(
        {"mode": st.sampled_from(["full"] * 6 + ["no-types", "no-details", "list-only", "refused"])},
        optional={
            "list_shape": st.sampled_from(
                ["standard"] * 5 + ["no-endpoint", "category-key", "bare-array", "by-name", "grouped"]
            ),
            "unknown_name": st.sampled_from(["null", "null", "refuse", "empty"]),
            "list_introspect": st.booleans(),
            "protocol_types": st.booleans(),
            "query_enum": st.sampled_from([True, False]),
            "introspect_examples": st.sampled_from([True, False]),
            "query_description": st.sampled_from(
                ["What to list.", "Either 'operations' or 'types'.", "The query: operations | types"]
            ),
        },
    )


def protocols(mode: str, batch: bool) -> st.SearchStrategy[Any]:
    capabilities = st.fixed_dictionaries(
        {},
        optional={
            "batch": st.sampled_from([batch, batch, not batch]),
            "field_selection": st.just(False),
            "warnings": st.booleans(),
        },
    )
    full = st.fixed_dictionaries(
        {"version": st.sampled_from(["1.0.0-draft", "1.0.0-draft", "1.0.0-alpha.1", "0.9"])},
        optional={
            "conformance": st.sampled_from(["level-1", "level-2"]),
            "mode": st.sampled_from([mode, mode, "all"]),
            "capabilities": capabilities,
        },
    )
    return st.one_of(st.none(), full, full, st.just({"mode": mode}))


def stray_lines() -> st.SearchStrategy[Any]:
    at_start = st.fixed_dictionaries(
        {
            "at": st.just("start"),
            "line": st.sampled_from(["genserver starting on stdio", "Server ready.", "[info] listening"]),
        }
    )
    at_call = st.fixed_dictionaries(
        {
            "at": st.just("call"),
            "after_call": st.integers(1, 30),
            "line": st.sampled_from(["created item {n}", "DEBUG handled call {n}", "ok"]),
        },
        optional={"repeat": st.booleans()},
    )
    return st.one_of(st.none(), st.none(), st.none(), st.none(), st.none(), st.none(), at_start, at_call)


# --- the strategy ----------------------------------------------------------------------------------


def record_type(b: Builder, kind: Kind) -> None:
    """The object type of a kind's records: its key (read-only when the server assigns it), its
    fields, and the reference to its parent."""
    key = {**kind.key_info, "name": kind.key, "required": True}
    if kind.assign != "client":
        key["readOnly"] = True
    fields = [key]
    if kind.parent is not None and kind.ref_param is not None:
        fields.append({**kind.parent.key_info, "name": kind.ref_param, "required": True})
    fields += [dict(f) for f in kind.fields]
    b.object_type(title(kind.name), fields, f"A {kind.name}.")


def oddities(b: Builder, op: JsonObject) -> None:
    """What real servers get wrong in their declarations now and then (shown as they are; the
    server's own validation copes)."""
    draw = b.draw
    params = op["parameters"]
    if params and b.rarely(0.05):  # no `required` key
        draw(st.sampled_from(params)).pop("required", None)
    if params and b.rarely(0.05):  # a type spelled otherwise
        info = draw(st.sampled_from(params))
        spelled = {
            "string": ["String", "str", ["string", "null"], "string | null"],
            "integer": ["int", "Integer"],
            "boolean": ["bool"],
            "number": ["float", "double"],
        }.get(info.get("type"))
        if spelled:
            info["type"] = draw(st.sampled_from(spelled))
    if b.rarely(0.04):
        op["description"] = draw(st.sampled_from(["", "Caf\u00e9 \u2014 \"quoted\" and 'single' \u2603", "x" * 300]))
    if b.rarely(0.04) and "examples" in op:  # an example as a string
        request = op["examples"][0]["request"]
        op["examples"] = [f'{{ operation: "{op["name"]}", params: {json.dumps(request.get("params", {}))} }}']
    if b.rarely(0.04) and "returns" in op:
        op["returns"] = draw(
            st.sampled_from([op["returns"]["name"], {"type": "array", "items": op["returns"]["name"]}])
        )
    if b.rarely(0.03):  # details carrying more than the spec lists
        op["lifecycle"] = {"states": ["pending", "running", "completed"], "supports_cancel": False}
    if params and b.rarely(0.03):  # a parameter named like the protocol's own fields, or not as a name
        info = draw(st.sampled_from(params))
        if info["name"] not in (
            op.get("key_param"),
            "input",
            *(op.get("options") or []),
            *(op.get("references") or {}),
        ):
            info["name"] = draw(
                st.sampled_from(
                    [
                        "operation",
                        "params",
                        "_meta",
                        "Weird Name",
                        "na\u00efve",
                        "x" * 200,
                        "address.city",
                        "tags[0]",
                        "$ref",
                        "a/b",
                        "",
                    ]
                )
            )
    if b.rarely(0.03):
        op["twin"] = draw(st.sampled_from(["READ", "DELETE", "EXECUTE"]))
    if b.rarely(0.02):
        op["detail"] = "alien"
    if b.rarely(0.02):
        op["success_form"] = "warned-string"
    if params and b.rarely(0.04):  # a ParameterInfo of the wrong shape
        info = draw(st.sampled_from(params))
        if info["name"] not in (
            op.get("key_param"),
            "input",
            *(op.get("options") or []),
            *(op.get("references") or {}),
        ):
            how = draw(st.sampled_from(["required-text", "bound-text", "enum-text", "no-name", "no-type"]))
            if how == "required-text":
                info["required"] = "true" if info.get("required") else "no"
            elif how == "bound-text":
                info["minimum" if info.get("type") in ("integer", "number") else "minLength"] = "1"
            elif how == "enum-text" and isinstance(info.get("enum"), list):
                info["enum"] = "|".join(map(str, info["enum"]))
            elif how == "no-name":
                info.pop("name")
            elif how == "no-type":
                info.pop("type", None)
    if b.rarely(0.02):
        op["description"] = None


@st.composite
def servers(draw: Draw, odd: float = 1.0) -> JsonObject:
    """One server description (see genserver.py for the format). ``odd`` scales how often its
    declarations and answers go wrong in the rarer ways (0: never; 3: three times as often)."""
    b = Builder(draw, odd=odd)
    mode = draw(st.sampled_from(["semantic", "semantic", "single"]))
    names = draw(st.lists(st.sampled_from(sorted(KINDS)), min_size=1, max_size=2, unique=True))
    kinds = [b.make_kind(name) for name in names]
    if b.sometimes(0.35):
        kinds.append(b.make_kind(draw(st.sampled_from(CHILD_KINDS)), parent=kinds[0]))
    b.kinds = kinds
    if b.rarely(0.05):  # a type that nests itself
        node = [
            param("label", "string", True, "Label."),
            param("children", "array", False, "Sub-nodes.", items=param("child", "Node", True, "A sub-node.")),
        ]
        b.object_type("Node", node, "A tree node.")
        kinds[0].fields.append(param("tree", "Node", False, "A tree of labels."))
    for kind in kinds:
        if not b.sometimes(0.15):
            record_type(b, kind)
    if b.rarely(0.1):
        b.types.setdefault("Money", {"name": "Money", "kind": "scalar", "description": "A decimal amount as a string."})
    # Records present at start: keys numbered from 100 (a server-made key starts at 1).
    records: dict[str, list[JsonObject]] = {}
    for kind in kinds:
        rows = []
        for _ in range(draw(st.integers(0, 2))):
            row: JsonObject = {kind.key: b.key_value(kind, 100 + b.next())}
            if kind.parent is not None and kind.ref_param is not None:
                if not records.get(kind.parent.name):
                    continue
                row[kind.ref_param] = draw(st.sampled_from(records[kind.parent.name]))[kind.parent.key]
            for f in kind.fields:
                if f.get("required") or b.sometimes(0.5):
                    row[f["name"]] = valid_value(draw, f, b.types, b.next() + 200)
            rows.append(row)
        if rows and b.rarely(0.04):  # many records: long lists to read
            template = rows[0]
            rows += [
                {**template, kind.key: b.key_value(kind, 1000 + b.next())} for _ in range(draw(st.integers(20, 60)))
            ]
        if rows and b.rarely(0.04):  # a record holding what readers choke on: deep, long, odd text
            deep: Any = "bottom"
            for level in range(draw(st.integers(20, 60))):
                deep = {"level": level, "inner": [deep]}
            rows[0] = {
                **rows[0],
                "extra": deep,
                "blob": "x" * draw(st.sampled_from([5000, 70000])),
                "odd": "\x1b[31mred\x1b[0m \u202eevil\u202c \u0000 \ud83d\ude00",
            }
        if rows:
            records[kind.name] = rows
    # The operations: a few of every kind's, and some of no kind.
    menu: list[tuple[str, Kind | None]] = []
    for kind in kinds:
        simple = kind.parent is not None
        actions = ["create", "list"] if simple else ["create", "get", "list", "update", "delete", "execute"]
        menu += [(action, kind) for action in actions]
    menu.append(("execute", None))
    if b.sometimes(0.3):
        menu.append(("search", kinds[0]))
    if b.sometimes(0.15):
        menu.append(("fail", kinds[0]))
    size = min(draw(st.integers(2, 8)), len(menu))
    chosen = draw(st.lists(st.integers(0, len(menu) - 1), min_size=size, max_size=size, unique=True))
    operations = []
    seen_names = set()
    for index in sorted(chosen):
        action, kind = menu[index]
        op = b.operation(action, kind)
        if op["name"] in seen_names or op["name"] == "introspect":
            continue
        seen_names.add(op["name"])
        operations.append(op)
    for op in operations:
        kind = next((k for k in kinds if k.name == op.get("kind")), None)
        if b.sometimes(0.6):
            op["examples"] = [b.example(op, kind, records)]
        if b.sometimes(0.1):
            op["permissions"] = draw(
                st.sampled_from(
                    [None, {"readOnly": True, "destructive": False}, {"readOnly": False, "destructive": True}]
                )
            )
        if b.sometimes(0.05):
            op["declared_category"] = draw(st.sampled_from([op["category"].lower(), "READ", "EXECUTE", "QUERY"]))
        if b.sometimes(0.12):
            op["detail"] = draw(st.sampled_from(["null", "refused", "bare", "names-only"]))
        if b.sometimes(0.1):
            op["success_form"] = draw(st.sampled_from(["prose", "bare", "warned", "flagged"]))
        if b.sometimes(0.1):
            op["validation"] = draw(validations())
        if b.sometimes(0.1):
            op["refusal"] = draw(refusals())
        if b.sometimes(0.05):
            op["unknown_params"] = draw(st.sampled_from(["refuse", "warn", "ignore"]))
        if b.sometimes(0.03):
            op["listed"] = False
        if mode == "semantic" and b.sometimes(0.04):
            op["endpoint"] = draw(st.sampled_from(["read", "create", "execute"]))
        if op.get("action") == "create" and b.sometimes(0.1):
            op["apply_defaults"] = False
        if b.rarely(0.03):  # a slow backend (well within any time limit)
            op["delay"] = draw(st.sampled_from([0.02, 0.05, 0.1]))
        oddities(b, op)
    batch = b.sometimes(0.3)
    kind_specs = {k.name: {"key": k.key, "assign": k.assign} for k in kinds}
    for k in kinds:
        if k.prefix:
            kind_specs[k.name]["prefix"] = k.prefix
    description: JsonObject = {
        "name": f"gen-{'-'.join(names)}-{draw(st.integers(0, 999))}",
        "version": draw(st.sampled_from(["1.0.0", "0.3.1", "2026.1"])),
        "mode": mode,
        "batch": batch,
        "validation": draw(validations()),
        "unknown_params": draw(st.sampled_from(["refuse"] * 6 + ["warn", "ignore"])),
        "refusal": draw(refusals()),
        "introspection": draw(introspections()),
        "types": list(b.types.values()),
        "kinds": kind_specs,
        "records": records,
        "operations": operations,
    }
    protocol = draw(protocols(mode, batch))
    if protocol is not None:
        description["protocol"] = protocol
    if mode == "semantic":
        description["route_enforcement"] = not b.sometimes(0.15)
        description["annotations"] = b.sometimes(0.5)
        if b.sometimes(0.1):
            description["introspect_everywhere"] = True
        if b.sometimes(0.15):
            used = {op.get("endpoint", op["category"].lower()) for op in operations} | {"read"}
            description["tools"] = [f for f in ("create", "read", "update", "delete", "execute") if f in used]
    if b.sometimes(0.1):
        description["top_level_params"] = False
    stray = draw(stray_lines())
    if stray is not None:
        description["stray_stdout"] = stray
    if b.sometimes(0.3):
        description["stderr_log"] = True
    if b.sometimes(0.2):
        description["structured_content"] = True
    if b.rarely(0.05):
        description["extra_content"] = True
    if b.rarely(0.04):
        description["server_info"] = draw(
            st.sampled_from(
                [
                    {"name": description["name"], "version": 2},
                    {"name": description["name"]},
                    {"name": "", "version": ""},
                    {"name": ["x"], "version": None},
                ]
            )
        )
    if b.rarely(0.04):
        description["tool_quirks"] = draw(
            st.lists(
                st.sampled_from(["no-description", "no-schema", "loose-schema", "duplicate"]),
                min_size=1,
                max_size=2,
                unique=True,
            )
        )
    if b.rarely(0.04):
        description["protocol_version"] = draw(st.sampled_from(["2024-11-05", "2025-03-26", "1.0"]))
    if b.rarely(0.03):
        description["capabilities"] = draw(st.sampled_from([{}, {"tools": {}, "logging": {}}]))
    if b.rarely(0.05):
        description["tools_page_size"] = draw(st.integers(1, 3))
    if b.rarely(0.04):
        description["call_result"] = draw(
            st.sampled_from(
                ["no-content", "empty-content", "image-content", "content-object", "text-not-string", "no-is-error"]
            )
        )
    if b.rarely(0.05):
        description["notifications"] = draw(
            st.lists(st.sampled_from(["log", "list_changed", "progress"]), min_size=1, max_size=3, unique=True)
        )
    if b.rarely(0.05):
        description["extra_tools"] = draw(st.sampled_from([["get_weather"], ["ping", "mcp_aql_admin"]]))
    if b.rarely(0.05):
        description["protocol"] = draw(
            st.sampled_from(
                [
                    {"version": 1},
                    {"version": "1.0.0-draft", "capabilities": ["batch"]},
                    {"version": "1.0.0-draft", "mode": "crude"},
                    "1.0.0",
                ]
            )
        )
    return json.loads(json.dumps(description))  # plain JSON: no shared objects, no tuples


# --- a summary -------------------------------------------------------------------------------------


def _short(setting: Any, default: str) -> str:
    if setting is None:
        return default
    if isinstance(setting, str):
        return setting
    if isinstance(setting, dict):
        return "/".join(f"{k}={v}" if isinstance(v, bool) else str(v) for k, v in setting.items()) or default
    return str(setting)


def describe(description: JsonObject) -> str:
    """A one-line summary of a description: name, mode, operations (category initial, and any
    degraded detail), validation, refusal, unknown-parameter policy, introspection, stray line."""
    d = description if isinstance(description, dict) else {}
    ops = []
    for op in d.get("operations") or []:
        if not isinstance(op, dict):
            continue
        mark = str(op.get("category", "?"))[:1]
        extra = [str(op[k]) for k in ("detail", "success_form") if k in op]
        if "safety" in op:
            extra.append(f"safe:{op['safety'].get('param')}")
        ops.append(f"{op.get('name')}:{mark}" + (f"({','.join(extra)})" if extra else ""))
    intro = d.get("introspection") or {}
    stray = d.get("stray_stdout")
    parts = [
        str(d.get("name", "?")),
        str(d.get("mode", "semantic")) + ("" if d.get("route_enforcement", True) else "/no-routing"),
        f"ops=[{' '.join(ops)}]",
        f"validation={_short(d.get('validation'), 'strict')}",
        f"refusal={_short(d.get('refusal'), 'standard')}",
        f"unknown={d.get('unknown_params', 'refuse')}",
        f"intro={_short(intro, 'full')}",
    ]
    if d.get("batch"):
        parts.append("batch")
    if isinstance(stray, dict):
        parts.append(f"stray={stray.get('at', 'call')}@{stray.get('after_call', 0)}")
    return " ".join(parts)
