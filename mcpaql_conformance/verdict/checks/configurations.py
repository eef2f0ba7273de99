"""The server started again under other configurations (capture --configurations,
``configuration_tests``): tool names that stay the same from one start to the next
(mcp-integration §2.2.1), the standard CRUDE profile with no configuration (endpoint-modes §3.2),
the endpoint mode chosen at runtime by the variable the spec recommends (§3.1), and a tool prefix
taken from MCP_AQL_TOOL_PREFIX (mcp-integration §6.2; §6.3 lists that variable first among the
ways to set it). Each is a SHOULD: a deviation warns in the endpoint-modes test, quoting the
tools the server listed."""

from __future__ import annotations

from typing import Any

from mcpaql_conformance.evidence.configurations import CRUDE_TOOL_FAMILIES, MODE, PREFIX, TOOL_PREFIX, modes_of
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.reading import read_tool
from mcpaql_conformance.files.vocabulary import AGAIN, CONFIGURED_MODE, PREFIXED, UNCONFIGURED
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.checks.base import cite

NAMES_STABLE = "mcp:2.2.1:names-stable"
DEFAULT_CRUDE = "endpoint-modes:3.2:default-crude"
RUNTIME_MODE = "endpoint-modes:3.1:runtime-mode-selection"
TOOL_PREFIX_RULE = "mcp:6.2:tool-prefix"
CONFIGURATION_RULES = (NAMES_STABLE, DEFAULT_CRUDE, RUNTIME_MODE, TOOL_PREFIX_RULE, "mcp:6.3:prefix-config-methods")
SECTION = "configuration_tests"
_MODE_STARTS = "mode-"
SHOWN = 8  # tool names a finding quotes


def configuration_findings(ctx: Context) -> list[str]:
    """Every deviation the restarts show (module docstring), each citing its rule."""
    starts = started(ctx)
    return [*_unstable(ctx, starts), *_not_crude(starts), *_mode_fixed(ctx, starts), *_unprefixed(starts)]


def started(ctx: Context) -> dict[str, list[str]]:
    """The tools each configuration that started listed, by configuration (the first entry of each)."""
    found: dict[str, list[str]] = {}
    for case in ctx.bundle.cases(SECTION):
        name, tools = case.get("configuration"), case.get("tools")
        if isinstance(name, str) and isinstance(tools, list) and name not in found:
            found[name] = [tool for tool in tools if isinstance(tool, str)]
    return found


def configuration_evidence(ctx: Context) -> list[str]:
    """``configuration_tests:NAME`` for each configuration that started; ``configuration_tests:mode``
    where some MCP_AQL_ENDPOINT_MODE start was tried (one that failed shows the variable unread too)."""
    names = [case.get("configuration") for case in ctx.bundle.cases(SECTION)]
    tried = any(isinstance(name, str) and name.startswith(_MODE_STARTS) for name in names)
    return [*(f"{SECTION}:{name}" for name in started(ctx)), *([CONFIGURED_MODE] if tried else [])]


def configured_modes(ctx: Context) -> set[str]:
    """The endpoint modes the restarts' tools show (as a bundle's ``endpoint_modes`` names them)."""
    return {mode for tools in started(ctx).values() for mode in modes_of(_families(tools))}


def _families(tools: list[str]) -> list[str]:
    return [reading.family for reading in map(read_tool, tools) if reading is not None]


def _unstable(ctx: Context, starts: dict[str, list[str]]) -> list[str]:
    again = starts.get(AGAIN)
    first = [tool.get("name") for tool in ctx.bundle.mcp_tools or [] if isinstance(tool, dict)]
    named = [name for name in first if isinstance(name, str)]
    if again is None or not named or set(again) == set(named):
        return []
    gone, new = sorted(set(named) - set(again)), sorted(set(again) - set(named))
    said = "; ".join(part for part in (_quoted("missing", gone), _quoted("new", new)) if part)
    return [
        cite(NAMES_STABLE, f"started again with the same environment, the server named its tools otherwise ({said})")
    ]


def _not_crude(starts: dict[str, list[str]]) -> list[str]:
    tools = starts.get(UNCONFIGURED)
    if tools is None:
        return []
    families = set(_families(tools))
    if families and families <= CRUDE_TOOL_FAMILIES:
        return []
    text = (
        f"started with none of {MODE}, MCP_AQL_ENDPOINT_PROFILE and {PREFIX} set, the server listed "
        f"{_listing(tools)}, not the standard CRUDE profile (mcp_aql_create ... mcp_aql_execute); a command "
        "that sets the mode itself (an option) configures the server all the same: give it without that option"
    )
    return [cite(DEFAULT_CRUDE, text)]


def _mode_fixed(ctx: Context, starts: dict[str, list[str]]) -> list[str]:
    tried = [case for case in ctx.bundle.cases(SECTION) if str(case.get("configuration")).startswith(_MODE_STARTS)]
    if not tried:
        return []
    values = ", ".join(plain(str(case.get("configuration")).removeprefix(_MODE_STARTS)) for case in tried)
    seen = [tools for name, tools in starts.items() if name.startswith(_MODE_STARTS) or name == UNCONFIGURED]
    if not any(name.startswith(_MODE_STARTS) for name in starts):
        errors = [str(case.get("error")) for case in tried if case.get("error")]
        why = f": {plain(errors[0], max_len=200)}" if errors else ""
        text = f"started with {MODE} set to {values}, the server did not start once{why}"
        return [cite(RUNTIME_MODE, text)]
    if len({frozenset(tools) for tools in seen}) > 1:
        return []
    text = (
        f"started with {MODE} set to {values} (and without it), the server listed the same tools each time "
        f"({_listing(seen[0])}): its endpoint mode is not chosen at runtime by the variable endpoint-modes §3.1 "
        "recommends"
    )
    return [cite(RUNTIME_MODE, text)]


def _unprefixed(starts: dict[str, list[str]]) -> list[str]:
    tools = starts.get(PREFIXED)
    if tools is None:
        return []
    aql = [tool for tool in tools if read_tool(tool) is not None]
    bare = [tool for tool in aql if not tool.startswith(TOOL_PREFIX)]
    if not bare:
        return []
    some = "none" if len(bare) == len(aql) else f"{len(aql) - len(bare)} of {len(aql)}"
    text = f"started with {PREFIX}={TOOL_PREFIX}, the server listed {_listing(tools)}: {some} carry the prefix"
    return [cite(TOOL_PREFIX_RULE, text)]


def _listing(tools: list[Any]) -> str:
    shown = ", ".join(plain(str(tool), max_len=60) for tool in tools[:SHOWN])
    more = f", ... ({len(tools)} in all)" if len(tools) > SHOWN else ""
    return f"{shown}{more}" if tools else "no tools"


def _quoted(label: str, names: list[str]) -> str:
    return f"{label}: {_listing(names)}" if names else ""
