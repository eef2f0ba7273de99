"""The destructive guard: which operations and tools may receive a call at all.

An operation is destructive if any declaration says so: a list entry, a detail,
another declaration under the same name, its permissions, a category in any case or
spacing, the endpoint tool it sits on. A lenient reading can only add to that, never
take away. Without ``--allow-destructive`` a destructive operation receives no call
at all (an "incomplete" request is no safety: a server that does not check its
parameters, exactly what is being tested, may run it), and no request reaches a
DELETE or EXECUTE endpoint tool, routing probes included.
"""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.reading import (
    declared_categories,
    declared_names,
    declares_destructive,
    declares_read_only,
    name_words,
    tool_categories,
)
from mcpaql_conformance.sanitize import plain

RESERVED_READS = frozenset({"introspect"})  # an operation every server has, read-only by the spec

DESTRUCTIVE_CATEGORIES = frozenset({"DELETE", "EXECUTE"})
SAFE_CATEGORIES = frozenset({"READ", "CREATE", "UPDATE"})
HOW_TO_PROBE = "pass --allow-destructive against a disposable instance to probe it"

# Danger words. A stem is found anywhere inside a word, so run-together names say it too
# (``softdelete``, ``bulkremove``, ``mcpaqlpurge``); a short verb at the start or end of a
# word, or as the whole word (``runjob``, ``autorun``, ``killall``); a few only as a whole word,
# since too many ordinary words end or start with them (``model``, ``platform``).
DANGER_STEMS = (
    "delete", "remove", "purge", "destroy", "execute", "erase", "wipe", "truncate", "unlink", "obliterate",
    "shred", "nuke", "terminate", "uninstall", "deprovision", "overwrite", "revoke",
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


def is_destructive(declarations: list[Any], tools: list[str], names: tuple[str, ...] = ()) -> bool:
    """Whether any declaration of an operation, any of its names (``names``, and every name a
    declaration gives it) or any tool it is served by says destructive; an operation of no known
    category that no declaration calls read-only counts as destructive."""
    categories = declared_categories(*declarations).union(*map(tool_categories, tools))
    if categories & DESTRUCTIVE_CATEGORIES or declares_destructive(*declarations):
        return True
    if any(map(name_is_destructive, (*tools, *names, *declared_names(*declarations)))):
        return True
    return not categories & SAFE_CATEGORIES and not declares_read_only(*declarations)


def tool_is_destructive(name: str) -> bool:
    """A tool or endpoint family whose name says delete or execute (or a synonym), anywhere in it:
    ``mcp_aql_delete``, ``delete``, ``mcp_aql_delete_v2``, ``mcpAqlSoftDelete``, ``mcp_aql_execute_job``."""
    return name_is_destructive(name)


def withheld(tool: str, operation: str, allow_destructive: bool) -> str | None:
    """Why a call must not go out whatever else is known (None: its names allow it): the last line
    of the guard, checked on every call capture and agent runs send."""
    if allow_destructive:
        return None
    if name_is_destructive(tool):
        return f"{plain(tool)} is a destructive endpoint ({HOW_TO_PROBE})"
    if operation not in RESERVED_READS and name_is_destructive(operation):
        return f"{plain(operation)} is a destructive operation ({HOW_TO_PROBE})"
    return None
