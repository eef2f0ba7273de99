"""What calling an operation may do, read from everything the server says of it.

An operation needs the strictest level (``levels.py``) that any reading of any declaration,
name or description gives it: the categories its declarations name (contested categories count
at the stricter; none at all needs ``--allow-destructive``, and the tool an operation happens to
be served by never stands in for one), its permissions, hints, danger level, side effects and
HTTP method in any of the spellings servers use, a danger, state-changing or additive word in
any of its names or said in its description (``words.py``), a safety switch among its
parameters. A lenient reading can only add restrictions, never lift one. ``guard.py`` applies
this to every call.
"""

from __future__ import annotations

import re
from itertools import islice
from typing import Any

from mcpaql_conformance.evidence.reading import CATEGORY_KEYS, declared_names, name_words
from mcpaql_conformance.files.vocabulary import SEMANTIC_CATEGORIES as CRUDE_CATEGORIES
from mcpaql_conformance.live.levels import CATEGORY_LEVELS, READ_ONLY, Need, Permission, strictest
from mcpaql_conformance.live.words import (
    MAX_DESCRIPTION,
    description_need,
    harmful,
    name_need,
    unprefixed_words,
)
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain

RESERVED_READS = frozenset({"introspect"})  # the spec's reserved READ (§7.2, §8.5.4): every server has it
# The operation name of capture's unknown-operation probe: listed by no server, sent only to a READ
# endpoint (where a server routes READ operations alone), so it is read-only there.
UNKNOWN_OPERATION = "mcpaql_conformance_no_such_operation"
STRICT_CATEGORIES = frozenset(CRUDE_CATEGORIES) - {"READ"}
_TOOL_KEYS = ("mcpTool", "mcp_tool", "mcptool", "tool", "toolName", "tool_name")
MAX_KEYS = 200  # fields of one declaration looked at for a stray category


def operation_need(
    declarations: list[Any], tools: list[str], names: tuple[str, ...] = (), parameters: list[Any] | None = None
) -> Need:
    """The level calling an operation needs: the strictest reading of every declaration, every
    name it goes by (``names``, and every name a declaration gives it), the tools it is served
    by (they add restrictions, never a category), its descriptions and its parameters;
    destructive when no declaration names a category."""
    entries = [entry for entry in declarations if isinstance(entry, dict)]
    needs = [_category_need(entries, tools)]
    needs += [_declared_need(entry) for entry in entries]
    needs += [name_need(name) for name in (*tools, *names, *declared_names(*entries))]
    needs += [description_need(text) for entry in entries for text in _descriptions(entry)]
    needs += [_parameter_need(parameter) for parameter in (parameters or [])[:1000]]
    return strictest(needs)


def _category_need(entries: list[dict[str, Any]], tools: list[str]) -> Need:
    """Every category the declarations name, where they name it (the category keys, the
    endpoint, the tool they name) or anywhere else as a stricter word (``"type": "DELETE"``);
    the operation's tools add theirs. No category declared: destructive."""
    declared: dict[str, str] = {}
    for entry in entries:
        for key in (*CATEGORY_KEYS, "endpoint"):
            category = _category_word(entry.get(key))
            if category is not None:
                declared.setdefault(category, f"declared {category}")
        for key in _TOOL_KEYS:
            for category in tool_categories(entry.get(key)):
                declared.setdefault(category, f"declared on {plain(entry[key], max_len=80)}")
        for key, value in islice(entry.items(), MAX_KEYS):
            for category in _stray_categories(value):
                declared.setdefault(category, f"declared {category} (as {plain(key, max_len=40)})")
    if not declared:
        return Need(Permission.DESTRUCTIVE, "no semantic category is declared")
    found = dict(declared)
    for tool in tools:
        for category in tool_categories(tool):
            found.setdefault(category, f"served by {plain(tool, max_len=80)}")
    need = strictest([Need(CATEGORY_LEVELS[category], reason) for category, reason in found.items()])
    if len(found) > 1 and need:
        return Need(need.level, f"{need.reason} (its declarations name {', '.join(sorted(found))})")
    return need


def _category_word(value: Any) -> str | None:
    """A CRUDE category in any case or spacing (``"delete "``), if that is what ``value`` is."""
    if isinstance(value, str) and value.strip().upper() in CRUDE_CATEGORIES:
        return value.strip().upper()
    return None


def _stray_categories(value: Any) -> list[str]:
    """The stricter categories a field of another name holds (``"crud": "DELETE"``,
    ``"categories": ["UPDATE"]``): they add restrictions; a stray READ declares nothing."""
    values = value[:20] if isinstance(value, list) else [value]
    return [c for c in map(_category_word, values) if c is not None and c in STRICT_CATEGORIES]


def tool_categories(tool: Any) -> set[str]:
    """Every CRUDE category a tool name says, a prefix run into it too (``mcp_aql_delete_v2``,
    ``MCPAQLUPDATE``)."""
    return {word.upper() for word in unprefixed_words(tool) if word.upper() in CRUDE_CATEGORIES}


_READ_ONLY_KEYS = ("readOnly", "read_only", "readonly", "readOnlyHint", "read_only_hint", "is_read_only")
_DESTRUCTIVE_KEYS = ("destructive", "destructiveHint", "destructive_hint", "is_destructive", "dangerous")
_DANGER_KEYS = ("danger_level", "dangerLevel", "danger", "risk", "risk_level", "riskLevel", "safety_level")
_EFFECT_KEYS = ("sideEffects", "side_effects", "has_side_effects", "mutates", "mutating", "modifies", "writes")
_METHOD_KEYS = ("method", "http_method", "httpMethod", "verb")
_SAFE_DANGER = frozenset({"safe", "none", "read", "readonly", "read-only", "0"})
_ADDITIVE_DANGER = frozenset({"reversible", "low", "1"})
_METHODS = {"GET": Permission.READ_ONLY, "HEAD": Permission.READ_ONLY, "OPTIONS": Permission.READ_ONLY}
_METHODS |= {"POST": Permission.WRITES}
_DESCRIPTION_KEYS = ("description", "summary", "desc", "help", "doc", "docs", "notes")


def _declared_need(entry: dict[str, Any]) -> Need:
    """What a declaration's permissions, hints (MCP's ``annotations`` too), danger level, side
    effects and HTTP method say: ``readOnly`` anything but true (writes), ``destructive``
    anything but false or null (destructive), a danger level above ``safe`` (``reversible``:
    writes; any other: destructive), side effects (destructive), POST (writes) or another
    method than GET (destructive); permissions given as words are read as names."""
    needs = []
    permissions = entry.get("permissions")
    sources = [entry, *(source for source in (permissions, entry.get("annotations")) if isinstance(source, dict))]
    for source in sources:
        needs += _flag_needs(source)
    if isinstance(permissions, str | list):  # ["read", "write"], "read-write"
        words = permissions[:20] if isinstance(permissions, list) else [permissions]
        needs += [Need(n.level, f"declared permissions {plain(repr(permissions), max_len=60)}") for n in
                  map(name_need, words) if n]  # fmt: skip
    return strictest(needs)


def _flag_needs(source: dict[str, Any]) -> list[Need]:
    needs = []
    for key in _READ_ONLY_KEYS:
        if key in source and source[key] is not True:
            needs.append(Need(Permission.WRITES, f"declared {key}: {_shown(source[key])}"))
    for key in (*_DESTRUCTIVE_KEYS, *_EFFECT_KEYS):
        if key in source and source[key] not in (False, None, 0, "", [], {}, "false", "none", "no"):
            needs.append(Need(Permission.DESTRUCTIVE, f"declared {key}: {_shown(source[key])}"))
    for key in _DANGER_KEYS:
        danger = source.get(key)
        danger = danger.get("level") if isinstance(danger, dict) else danger
        if isinstance(danger, str | int) and not isinstance(danger, bool):
            level = str(danger).strip().lower()
            if level not in _SAFE_DANGER:
                strength = Permission.WRITES if level in _ADDITIVE_DANGER else Permission.DESTRUCTIVE
                needs.append(Need(strength, f"declared {key} {plain(str(danger), max_len=40)!r}"))
    for key in _METHOD_KEYS:
        method = source.get(key)
        if isinstance(method, str) and method.strip():
            said = _METHODS.get(method.strip().upper(), Permission.DESTRUCTIVE)
            if said:
                needs.append(Need(said, f"declared {key} {plain(method, max_len=20)!r}"))
    return needs


def _descriptions(entry: dict[str, Any]) -> list[Any]:
    return [entry[key] for key in _DESCRIPTION_KEYS if key in entry]


def _shown(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return "null" if value is None else str(value).lower()
    return plain(repr(value), max_len=40)


def tool_need(tool: Any) -> Need:
    """What a tool's name bars on its own: destructive when it says UPDATE, DELETE or EXECUTE or a
    danger or state-changing word (no request of any kind goes there below --allow-destructive);
    else nothing, for the operation a call names decides what a server runs (a read-only
    operation sent to the CREATE endpoint is refused, as the spec requires, or read)."""
    categories = tool_categories(tool) - {"READ", "CREATE"}
    if categories:
        return Need(Permission.DESTRUCTIVE, f"{plain(tool, max_len=80)} is the {sorted(categories)[0]} endpoint")
    need = name_need(tool)
    if need.level is Permission.DESTRUCTIVE:
        return Need(need.level, f"{plain(tool, max_len=80)} is a destructive endpoint ({need.reason})")
    return READ_ONLY


# --- safety switches ---------------------------------------------------------------------------

SAFE_ON = "on"  # a switch that is safe when true (dry_run, preview, simulate)
SAFE_OFF = "off"  # a switch that is safe when false (force, confirm..., overwrite, cascade)
# Words of a parameter's name (or the name run together) that make it a switch. The strong ones
# also tell that the operation does something worth switching off (``_parameter_need``).
_ON_STRONG = frozenset({"dryrun", "simulate", "simulation", "whatif", "validateonly", "checkonly"})
_ON_WORDS = _ON_STRONG | {"preview"}
_OFF_STRONG = frozenset(
    {"force", "forced", "confirm", "confirmed", "confirmation", "overwrite", "cascade", "permanent", "permanently",
     "destructive", "purge", "wipe", "clobber", "autoconfirm", "skipconfirmation", "harddelete"}
)  # fmt: skip
_OFF_WORDS = _OFF_STRONG | {"recursive", "hard", "prune", "yes", "apply", "commit", "execute", "publish", "push"}
_OFF_PREFIXES = ("delete", "remove", "purge", "confirm", "force", "overwrite", "harddelete")
_DRY_RUN_TEXT = lazy(r"\bdry[- ]?run\b|\bpreview only\b|\bsimulat|\bwithout (?:making|applying) (?:any )?changes")
# Values of a direction or mode parameter that do no harm, best first.
HARMLESS_VALUES = (
    "dry-run", "dry_run", "dryrun", "preview", "check", "validate", "simulate", "plan", "read", "read-only",
    "readonly", "pull", "fetch", "download", "get", "list", "status", "diff", "test", "none", "off",
)  # fmt: skip
_SWITCH_TEXTS = {SAFE_ON: ("true", "yes", "on", "1"), SAFE_OFF: ("false", "no", "off", "0", "none")}


def safety_switch(parameter: Any) -> str | None:
    """Whether a parameter is a safety switch, and which value is safe: SAFE_ON for one that makes
    the call harmless when true (``dry_run``, ``preview``), SAFE_OFF for one that asks for more harm
    when true (``force``, ``confirm_deletions``, ``overwrite``, ``cascade``, ``recursive``); None
    for any other. Read from its name (every case style) and its description."""
    return _switch(parameter, _ON_WORDS, _OFF_WORDS)


def _switch(parameter: Any, on: frozenset[str], off: frozenset[str]) -> str | None:
    if not isinstance(parameter, dict) or not isinstance(parameter.get("name"), str):
        return None
    words = name_words(parameter["name"])
    joined = "".join(words)
    if joined in on or any(word in on for word in words) or "".join(words[:2]) == "dryrun":
        return SAFE_ON
    description = parameter.get("description")
    described = isinstance(description, str) and _DRY_RUN_TEXT.search(description[:MAX_DESCRIPTION].lower())
    if described and _type_words(parameter) <= {"boolean", "bool", "null"}:
        return SAFE_ON
    if joined in off or any(word in off for word in words) or joined.startswith(_OFF_PREFIXES):
        return SAFE_OFF
    return None


def _type_words(parameter: dict[str, Any]) -> set[str]:
    """The declared type's words: ``"boolean"``, ``["boolean", "null"]``, ``"boolean | null"``."""
    kind = parameter.get("type")
    kinds = kind[:10] if isinstance(kind, list) else [kind] if kind is not None else []
    return {word for k in kinds if isinstance(k, str) for word in re.findall(r"[a-z]+", k.lower()[:100])}


def safe_value(parameter: Any, documented: list[Any]) -> tuple[bool, Any]:
    """(True, the value a safety switch is sent with) in the parameter's own type: a boolean
    (declared boolean, or of no declared type), a documented text ("true"/"false", "yes"/"no"),
    else that text as the type allows it (a string, a 1/0 for a number); (False, None) for a
    parameter that is no switch."""
    switch = safety_switch(parameter)
    if switch is None:
        return False, None
    types = _type_words(parameter)
    texts = {str(v).strip().lower(): v for v in documented[:100] if isinstance(v, str | int)}
    texts = {text: value for text, value in texts.items() if not isinstance(value, bool)}
    said = next((texts[text] for text in _SWITCH_TEXTS[switch] if text in texts), None)
    if said is not None:
        return True, said
    if not types or types & {"boolean", "bool"}:
        return True, switch == SAFE_ON
    if types & {"integer", "number", "int", "float"}:
        return True, 1 if switch == SAFE_ON else 0
    return True, "true" if switch == SAFE_ON else "false"


def harmless_value(documented: list[Any], mode: bool) -> Any:
    """The harmless value (``pull``, ``check``, ``dry-run``) among a parameter's documented values,
    when it is a direction or mode (``mode``) or its values include one that asks for something
    done (``push``, ``apply``): that one is never sent while a harmless one is documented."""
    texts = {value.strip().lower(): value for value in documented[:100] if isinstance(value, str)}
    found = next((texts[value] for value in HARMLESS_VALUES if value in texts), None)
    if found is None or not (mode or any(harmful(value) for value in texts)):
        return None
    return found


def _parameter_need(parameter: Any) -> Need:
    """A safety switch among an operation's parameters (``dry_run``, ``force``, ``confirm``) says
    the operation does something worth switching off."""
    if _switch(parameter, _ON_STRONG, _OFF_STRONG) is None:
        return READ_ONLY
    return Need(Permission.DESTRUCTIVE, f"it takes a {plain(parameter['name'], max_len=60)!r} parameter")


def unsafe_switches(params: Any) -> list[str]:
    """The safety switches a request sets the unsafe way (``force: true``, ``dry_run: false``),
    read from the parameter names alone, as ``name: value``."""
    if not isinstance(params, dict):
        return []
    found = []
    for name, value in islice(params.items(), 1000):
        switch = safety_switch({"name": name}) if isinstance(name, str) else None
        if switch is None:
            continue
        on = value is True or (isinstance(value, str | int) and str(value).strip().lower() in _SWITCH_TEXTS[SAFE_ON])
        off = value is False or (isinstance(value, str | int) and str(value).strip().lower() in _SWITCH_TEXTS[SAFE_OFF])
        if (switch == SAFE_ON and off) or (switch == SAFE_OFF and on):
            found.append(f"{plain(name, max_len=40)}: {_shown(value)}")
    return found
