"""The starts of capture --configurations (``configuration_tests``), one table for capture and
the checks: which configuration each is, and the variables it changes (capture/configurations.py);
and the endpoint modes a tool list shows, one reading for discovery and the checks."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.reading import SINGLE
from mcpaql_conformance.files.vocabulary import AGAIN, PREFIXED, UNCONFIGURED, ConfigurationName
from mcpaql_conformance.files.vocabulary import SEMANTIC_CATEGORIES as CRUDE_CATEGORIES

MODE = "MCP_AQL_ENDPOINT_MODE"  # endpoint-modes §3.1 (semantic|single|all), crude §4.3 (crude|single)
PROFILE = "MCP_AQL_ENDPOINT_PROFILE"  # endpoint-modes §3.1
PREFIX = "MCP_AQL_TOOL_PREFIX"  # mcp-integration §6.2
VARIABLES = (MODE, PROFILE, PREFIX)
TOOL_PREFIX = "zzconf_"  # lowercase, ending in an underscore, short (mcp-integration §6.4)
MAX_TOOLS = 200  # names kept of one start's tools/list (MAX_TOOL_PAGES bounds the pages)

Environment = dict[str, str | None]  # None: the variable removed
_NONE: Environment = dict.fromkeys(VARIABLES)

STARTS: tuple[tuple[ConfigurationName, Environment], ...] = (
    (AGAIN, {}),
    (UNCONFIGURED, _NONE),
    ("mode-semantic", {**_NONE, MODE: "semantic"}),
    ("mode-single", {**_NONE, MODE: "single"}),
    ("mode-all", {**_NONE, MODE: "all"}),
    ("mode-crude", {**_NONE, MODE: "crude"}),
    (PREFIXED, {**_NONE, PREFIX: TOOL_PREFIX}),
)


def planned() -> list[dict[str, Any]]:
    """What a dry run says the option would do: each start's configuration and environment."""
    return [{"configuration": name, "environment": environment} for name, environment in STARTS]


CRUDE_TOOL_FAMILIES = frozenset(category.lower() for category in CRUDE_CATEGORIES)


def modes_of(families: list[str]) -> list[str]:
    """The endpoint modes tools of these families show (a bundle's ``endpoint_modes``): ``crude``
    for any CRUDE family, ``single`` for the unified tool, each custom family by its name."""
    crude = any(family in CRUDE_TOOL_FAMILIES for family in families)
    custom = sorted({family for family in families if family not in CRUDE_TOOL_FAMILIES and family != SINGLE})
    return (["crude"] if crude else []) + (["single"] if SINGLE in families else []) + custom
