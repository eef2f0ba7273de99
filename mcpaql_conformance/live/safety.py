"""What calling an operation may do, read from everything the server says of it.

Three permission levels, after the core spec's category table (v1.0.0-draft §6.1): READ is
read-only; CREATE is additive (not read-only, not destructive); UPDATE, DELETE and EXECUTE are
destructive. A run is read-only unless the user says ``--allow-writes`` (additive calls too) or
``--allow-destructive`` (everything). An operation needs the strictest level that any reading
of any declaration, name or description gives it: its categories (every one any field of any
declaration or its tool names: contested categories count at the stricter), its permissions and
danger level, a danger, state-changing or additive word in any of its names or at the head of a
sentence of its description, a safety switch among its parameters. An operation of no known
category needs ``--allow-destructive``. A lenient reading can only add restrictions, never lift
one. ``guard.py`` applies this to every call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from mcpaql_conformance.evidence.reading import (
    CATEGORY_KEYS,
    CRUDE_CATEGORIES,
    declared_names,
    name_words,
    tool_categories,
)
from mcpaql_conformance.sanitize import plain


class Permission(IntEnum):
    """What a run may call: the default reads only."""

    READ_ONLY = 0
    WRITES = 1
    DESTRUCTIVE = 2

    @property
    def flag(self) -> str:
        """The option that allows this level ("" for read-only)."""
        return ("", "--allow-writes", "--allow-destructive")[self]

    @property
    def label(self) -> str:
        """The run's level as the reports name it."""
        return ("read-only", "writes", "destructive")[self]

    @property
    def run(self) -> str:
        """A run at this level, in a sentence."""
        return f"a run with {self.flag}" if self else "a read-only run"

    @property
    def how(self) -> str:
        """How to allow it, in a sentence's end."""
        if self is Permission.DESTRUCTIVE:
            return "pass --allow-destructive, against a disposable instance only"
        return f"pass {self.flag}" if self else ""


def permission_of(allow_writes: bool, allow_destructive: bool) -> Permission:
    """The level the options ask for (``--allow-destructive`` implies ``--allow-writes``)."""
    if allow_destructive:
        return Permission.DESTRUCTIVE
    return Permission.WRITES if allow_writes else Permission.READ_ONLY


@dataclass(frozen=True)
class Need:
    """The level a call or operation needs, and the reading that set it."""

    level: Permission
    reason: str = ""

    def __bool__(self) -> bool:
        return self.level > Permission.READ_ONLY


READ_ONLY = Need(Permission.READ_ONLY)
RESERVED_READS = frozenset({"introspect"})  # the spec's reserved READ (§7.2, §8.5.4): every server has it
CATEGORY_LEVELS = {
    "READ": Permission.READ_ONLY,
    "CREATE": Permission.WRITES,
    "UPDATE": Permission.DESTRUCTIVE,
    "DELETE": Permission.DESTRUCTIVE,
    "EXECUTE": Permission.DESTRUCTIVE,
}
HOW_TO_PROBE = Permission.DESTRUCTIVE.how  # kept for the older notes' wording


def strictest(needs: list[Need]) -> Need:
    """The need of the highest level (the first such reading gives the reason)."""
    found = READ_ONLY
    for need in needs:
        if need.level > found.level:
            found = need
    return found


# --- words -------------------------------------------------------------------------------------

# Danger words. A stem is found anywhere inside a word, so run-together names say it too
# (``softdelete``, ``bulkremove``, ``mcpaqlpurge``); a short verb at the start or end of a
# word, or as the whole word (``runjob``, ``autorun``, ``killall``); a few only as a whole word,
# since too many ordinary words end or start with them (``model``, ``platform``).
DANGER_STEMS = (
    "delete", "deletion", "remove", "removal", "purge", "destroy", "destruct", "execute", "erase", "wipe", "truncate",
    "unlink", "obliterate", "shred", "nuke", "terminate", "uninstall", "deprovision", "overwrite", "revoke",
)  # fmt: skip
DANGER_VERBS = ("exec", "run", "drop")  # word start or end: execjob, rerun, tabledrop
DANGER_PREFIXES = ("kill", "clear", "reset", "flush", "rmdir")  # word start only: killall (not skill)
DANGER_WORDS = frozenset({"del", "rm", "eval", "spawn", "shell", "sudo"})
# Ordinary words that begin with a short verb but do nothing: never a reason on their own.
HARMLESS = frozenset(
    {"runtime", "runtimes", "running", "runner", "runners", "runway", "dropdown", "dropdowns", "droplet",
     "droplets", "execution", "executions", "executor", "executors", "clearance"}
)  # fmt: skip
# Name prefixes that run into the first word of a name (``mcpaqlrun``): read past them.
_NAME_PREFIXES = ("mcpaql", "mcp", "aql")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Verbs that change state (what UPDATE and EXECUTE do, or an effect outside the server) and
# verbs that add (what CREATE does). Those that are seldom nouns count wherever they stand in
# a name; those that are often nouns (``get_block``, ``list_post``) only where a name's verb
# stands: its first word, the word after a namespace (``github_merge_pr``), the last word of a
# name that does not start with a verb (``portfolio_sync``), a word after ``or``/``and``.
STATE_VERBS = _words(
    "update modify rename replace upsert mutate unpublish submit send approve reject accept decline dismiss"
    " enable disable toggle activate deactivate unarchive unblock unlock unassign assign subscribe unsubscribe"
    " unfollow unstar unpin unmute mute kick restart reboot migrate configure reconfigure increment decrement"
    " revert undo redo promote demote provision rotate renew authorize deauthorize buy sell refund cancel abort"
    " pause save put apply"
)
STATE_NOUN_VERBS = _words(
    "set change edit patch move push write post share email invite block ban lock mark flag star pin like follow"
    " vote comment reply transfer charge order book reserve schedule trigger start stop close reopen launch"
    " dispatch release commit import export archive restore grant deny request ask prompt confirm verify login"
    " logout signup signin upgrade downgrade rollback shutdown transition tag label store sync publish merge"
    " deploy install notify pay react retry resume"
)
ADDITIVE_VERBS = _words("create add insert append generate compose make attach enqueue bookmark clone duplicate fork")
ADDITIVE_NOUN_VERBS = _words("new register upload copy draft record log")
READ_VERBS = _words(
    "get list search find read fetch query lookup describe show view count browse retrieve introspect inspect"
    " explain check validate preview download discover resolve diff compare summarize summarise stat status"
)
_JOINS = frozenset({"or", "and"})


def danger_word(name: Any) -> str | None:
    """The word that makes a tool, endpoint family or operation name destructive, if any, found
    in every case style (``mcp_aql_delete``, ``mcpAqlDelete``, ``mcp-aql.softDelete``,
    ``MCP_AQL_SOFTDELETE``) and at any length, in linear time."""
    for word in name_words(name):
        if _dangerous(word):
            return word
        for prefix in _NAME_PREFIXES:
            if word.startswith(prefix) and len(word) > len(prefix) and _dangerous(word[len(prefix) :]):
                return word
    return None


def _dangerous(word: str) -> bool:
    if word in HARMLESS:
        return False
    if word in DANGER_WORDS or any(stem in word for stem in DANGER_STEMS):
        return True
    if any(word.startswith(verb) or word.endswith(verb) for verb in DANGER_VERBS):
        return True
    return any(word.startswith(prefix) for prefix in DANGER_PREFIXES)


def name_is_destructive(name: Any) -> bool:
    """Whether a name says destructive (see ``danger_word``)."""
    return danger_word(name) is not None


def name_need(name: Any) -> Need:
    """What a name says calling it may do: a danger or state-changing word (destructive), an
    additive word (writes), or nothing (read-only as far as the name goes)."""
    word = danger_word(name)
    if word is not None:
        return Need(Permission.DESTRUCTIVE, f"its name {plain(name, max_len=80)} says {word!r}")
    words = [w for w in name_words(name) if w not in _NAME_PREFIXES]
    slots = _verb_slots(words)
    for level, anywhere, at_verb in (
        (Permission.DESTRUCTIVE, STATE_VERBS, STATE_NOUN_VERBS),
        (Permission.WRITES, ADDITIVE_VERBS, ADDITIVE_NOUN_VERBS),
    ):
        said = next((w for i, w in enumerate(words) if w in anywhere or (i in slots and w in at_verb)), None)
        if said is not None:
            return Need(level, f"its name {plain(name, max_len=80)} says {said!r}")
    return READ_ONLY


def _verb_slots(words: list[str]) -> set[int]:
    """Where a name's verb may stand (see STATE_VERBS)."""
    if not words:
        return set()
    slots = {0}
    known = READ_VERBS | STATE_VERBS | STATE_NOUN_VERBS | ADDITIVE_VERBS | ADDITIVE_NOUN_VERBS
    if words[0] not in known:
        slots |= {1, len(words) - 1}
    slots |= {i + 1 for i, word in enumerate(words) if word in _JOINS}
    return slots


# --- descriptions ------------------------------------------------------------------------------

MAX_DESCRIPTION = 2000  # characters of a description read (a hostile one may be megabytes)
_SENTENCE = re.compile(r"[^.!?;:\n]+")
_DESCRIPTION_WORD = re.compile(r"[A-Za-z]+")
# Words that may come before a sentence's verb: "This operation updates ...", "Use it to sync ...".
_LEADING = _words(
    "this the it its operation tool endpoint will also then first to we you can may be used use simply just"
    " please that which"
)
_IRREVERSIBLE = re.compile(r"cannot be undone|can't be undone|irreversib|permanently", re.IGNORECASE)


def description_need(description: Any) -> Need:
    """What a description says an operation does: the verb that leads each sentence ("Deletes",
    "Syncs the portfolio", "This operation updates"), and words of no return ("permanently",
    "cannot be undone"); read in linear time over its first MAX_DESCRIPTION characters."""
    if not isinstance(description, str):
        return READ_ONLY
    text = description[:MAX_DESCRIPTION]
    irreversible = _IRREVERSIBLE.search(text)
    if irreversible is not None:
        return Need(Permission.DESTRUCTIVE, f"its description says {irreversible.group(0).lower()!r}")
    needs = []
    for sentence in _SENTENCE.findall(text):
        verb = _leading_verb(sentence)
        if verb is None:
            continue
        need = name_need(verb)
        if need:
            needs.append(Need(need.level, f"its description says {verb!r}"))
    return strictest(needs)


def _leading_verb(sentence: str) -> str | None:
    """The verb a sentence starts with, in its base form; None when it starts with another word
    (a participle, "Deleted notes are kept", describes what is read, not what is done)."""
    for count, match in enumerate(_DESCRIPTION_WORD.finditer(sentence)):
        word = match.group(0).lower()
        if word not in _LEADING:
            return None if word.endswith(("ed", "ing")) else _base_form(word)
        if count >= 5:
            break
    return None


def _base_form(word: str) -> str:
    """``updates`` update, ``syncs`` sync, ``copies`` copy, ``pushes`` push."""
    for suffix, replacement in (("ies", "y"), ("sses", "ss"), ("shes", "sh"), ("ches", "ch"), ("xes", "x")):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            return word[: -len(suffix)] + replacement
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


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
_DRY_RUN_TEXT = re.compile(r"\bdry[- ]?run\b|\bpreview only\b|\bsimulat|\bwithout (?:making|applying) (?:any )?changes")
# Values of a direction or mode parameter that do no harm, best first.
HARMLESS_VALUES = (
    "dry-run", "dry_run", "dryrun", "preview", "check", "validate", "simulate", "plan", "read", "read-only",
    "readonly", "pull", "fetch", "download", "get", "list", "status", "diff", "test", "none", "off",
)  # fmt: skip


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
    if described and parameter.get("type") in ("boolean", None):
        return SAFE_ON
    if joined in off or any(word in off for word in words) or joined.startswith(_OFF_PREFIXES):
        return SAFE_OFF
    return None


def harmless_value(parameter: Any) -> Any:
    """The value of a direction or mode parameter its ``enum`` documents as harmless (``pull``,
    ``check``, ``dry-run``), if any."""
    enum = parameter.get("enum") if isinstance(parameter, dict) else None
    if not isinstance(enum, list):
        return None
    texts = {value.strip().lower(): value for value in enum[:100] if isinstance(value, str)}
    return next((texts[value] for value in HARMLESS_VALUES if value in texts), None)


# --- operations and tools ----------------------------------------------------------------------


def operation_need(
    declarations: list[Any], tools: list[str], names: tuple[str, ...] = (), parameters: list[Any] | None = None
) -> Need:
    """The level calling an operation needs: the strictest reading of every declaration, every
    name it goes by (``names``, and every name a declaration gives it), the tools it is served
    by, its descriptions and its parameters; destructive when no category is known."""
    needs = [_category_need(declarations, tools)]
    needs += [_declared_need(entry) for entry in declarations if isinstance(entry, dict)]
    needs += [name_need(name) for name in (*tools, *names, *declared_names(*declarations))]
    needs += [description_need(entry.get("description")) for entry in declarations if isinstance(entry, dict)]
    needs += [_parameter_need(parameter) for parameter in (parameters or [])[:1000]]
    return strictest(needs)


def _category_need(declarations: list[Any], tools: list[str]) -> Need:
    found: dict[str, str] = {}
    for entry in declarations:
        if not isinstance(entry, dict):
            continue
        for key in (*CATEGORY_KEYS, "endpoint"):
            value = entry.get(key)
            if isinstance(value, str) and value.strip().upper() in CRUDE_CATEGORIES:
                found.setdefault(value.strip().upper(), f"declared {value.strip().upper()}")
        for category in tool_categories(entry.get("mcpTool")):
            found.setdefault(category, f"declared on {plain(entry['mcpTool'], max_len=80)}")
    for tool in tools:
        for category in tool_categories(tool):
            found.setdefault(category, f"served by {plain(tool, max_len=80)}")
    if not found:
        return Need(Permission.DESTRUCTIVE, "no semantic category is declared")
    needs = [Need(CATEGORY_LEVELS[category], reason) for category, reason in found.items()]
    need = strictest(needs)
    if len(found) > 1 and need:
        return Need(need.level, f"{need.reason} (its declarations name {', '.join(sorted(found))})")
    return need


_DESTRUCTIVE_KEYS = ("destructive", "destructiveHint", "is_destructive", "dangerous")
_SAFE_DANGER = frozenset({"safe", "none", "read", "readonly", "read-only", "0"})
_ADDITIVE_DANGER = frozenset({"reversible", "low", "1"})


def _declared_need(entry: dict[str, Any]) -> Need:
    """What a declaration's permissions and danger level say: ``readOnly`` anything but true
    (writes), ``destructive`` anything but false or null (destructive), a danger level above
    ``safe`` (``reversible``: writes; any other: destructive)."""
    permissions = entry.get("permissions")
    needs = []
    for source in (entry, permissions if isinstance(permissions, dict) else {}):
        if "readOnly" in source and source["readOnly"] is not True:
            needs.append(Need(Permission.WRITES, f"declared readOnly: {_shown(source['readOnly'])}"))
        for key in _DESTRUCTIVE_KEYS:
            if key in source and source[key] is not False and source[key] is not None:
                needs.append(Need(Permission.DESTRUCTIVE, f"declared {key}: {_shown(source[key])}"))
    danger = entry.get("danger_level", entry.get("danger"))
    if isinstance(danger, dict):
        danger = danger.get("level")
    if isinstance(danger, str | int) and not isinstance(danger, bool):
        level = str(danger).strip().lower()
        if level not in _SAFE_DANGER:
            strength = Permission.WRITES if level in _ADDITIVE_DANGER else Permission.DESTRUCTIVE
            needs.append(Need(strength, f"declared danger level {plain(str(danger), max_len=40)!r}"))
    return strictest(needs)


def _parameter_need(parameter: Any) -> Need:
    """A safety switch among an operation's parameters (``dry_run``, ``force``, ``confirm``) says
    the operation does something worth switching off."""
    if _switch(parameter, _ON_STRONG, _OFF_STRONG) is None:
        return READ_ONLY
    return Need(Permission.DESTRUCTIVE, f"it takes a {plain(parameter['name'], max_len=60)!r} parameter")


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
