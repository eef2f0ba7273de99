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

from mcpaql_conformance.reading import (
    declared_categories,
    declares_destructive,
    declares_read_only,
    name_words,
    tool_categories,
)

DESTRUCTIVE_CATEGORIES = frozenset({"DELETE", "EXECUTE"})
SAFE_CATEGORIES = frozenset({"READ", "CREATE", "UPDATE"})
# Words that make a tool or endpoint family destructive wherever they stand in its name.
DESTRUCTIVE_WORDS = frozenset({"delete", "execute", "exec", "remove", "purge", "destroy", "drop", "wipe", "erase"})
HOW_TO_PROBE = "pass --allow-destructive against a disposable instance to probe it"


def is_destructive(declarations: list[Any], tools: list[str]) -> bool:
    """Whether any declaration of an operation (or any tool it is served by) says destructive;
    an operation of no known category that no declaration calls read-only counts as destructive."""
    categories = declared_categories(*declarations).union(*map(tool_categories, tools))
    if categories & DESTRUCTIVE_CATEGORIES or declares_destructive(*declarations):
        return True
    if any(tool_is_destructive(tool) for tool in tools):
        return True
    return not categories & SAFE_CATEGORIES and not declares_read_only(*declarations)


def tool_is_destructive(name: str) -> bool:
    """A tool or endpoint family whose name says delete or execute (or a synonym), anywhere in it:
    ``mcp_aql_delete``, ``delete``, ``mcp_aql_delete_v2``, ``mcp_aql_execute_job``."""
    return any(word in DESTRUCTIVE_WORDS for word in name_words(name))
