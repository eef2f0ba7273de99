"""The one guard on the one path every request takes (``Connection.call``): capture, `check`,
agent runs (the model's calls included), the pytest plugin and the GitHub Action all reach a
server only through it.

A call needs what its tool's name bars (``safety.tool_need``) and what every operation it names
needs (``safety.operation_need``, learnt from introspection); a tool that is not one of the
server's MCP-AQL tools, an operation introspection does not list, a call that names no
operation are unknown, and need ``--allow-destructive``. ``introspect``, the spec's reserved
READ, is read-only wherever it is listed; so is capture's unknown-operation probe (a name no
server lists) on a READ endpoint. The guard also keeps the log of every call it let
through at a level above read-only and that the server did not refuse: what the run may have
created or changed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mcpaql_conformance.live.levels import Need, Permission, strictest
from mcpaql_conformance.live.safety import RESERVED_READS, UNKNOWN_OPERATION, tool_need, unsafe_switches
from mcpaql_conformance.sanitize import plain

UNKNOWN = Permission.DESTRUCTIVE  # what an operation or tool the guard cannot read needs


class Withheld(Exception):
    """A call the guard refused: it never went out."""

    def __init__(self, need: Need, reason: str) -> None:
        super().__init__(reason)
        self.need = need


def withheld_reason(need: Need, permission: Permission) -> str:
    """``declared CREATE: not called in a read-only run (pass --allow-writes)``."""
    return f"{need.reason}: not called in {permission.run} ({need.level.how})"


def operations_named(arguments: Any) -> list[str]:
    """The operations a tool call names: ``operation``, or each one of a batch's ``operations``."""
    if not isinstance(arguments, dict):
        return []
    names = [arguments["operation"]] if isinstance(arguments.get("operation"), str) else []
    batch = arguments.get("operations")
    if isinstance(batch, list):
        names += [
            item["operation"] for item in batch if isinstance(item, dict) and isinstance(item.get("operation"), str)
        ]
    return names


def unnamed_part(arguments: Any) -> str | None:
    """What part of a call names no operation (None: every part names one). A server that reads
    the operation under another key could still run it, so such a call is unknown, not safe."""
    if not isinstance(arguments, dict):
        return "the call"
    batch = arguments.get("operations")
    if isinstance(batch, list):
        for index, item in enumerate(batch):
            if not isinstance(item, dict) or not isinstance(item.get("operation"), str):
                return f"item {index} of the batch"
        return None if batch or isinstance(arguments.get("operation"), str) else "the empty batch"
    return None if isinstance(arguments.get("operation"), str) else "the call"


def _requests(arguments: dict[str, Any]) -> list[Any]:
    """The parameters of a call: its own and each batch item's."""
    batch = arguments.get("operations")
    items = batch[:10_000] if isinstance(batch, list) else []
    return [arguments.get("params"), *(item.get("params") for item in items if isinstance(item, dict))]


def _switches_need(params: Any) -> Need:
    """A request that sets a safety switch the unsafe way (``force: true``, ``dry_run: false``)
    asks for harm, whatever the operation: it needs --allow-destructive."""
    unsafe = unsafe_switches(params)
    if not unsafe:
        return Need(Permission.READ_ONLY)
    return Need(UNKNOWN, f"the request asks {', '.join(unsafe[:3])}")


@dataclass
class Change:
    """A call that may have created or changed something: let through above read-only, and not
    refused by the server."""

    tool: str
    arguments: dict[str, Any]
    need: Need
    at: str
    response: Any
    cleanup: bool = False  # sent by --cleanup


@dataclass
class Guard:
    """What this run may call, at its permission level; the run's calls that may have changed data."""

    permission: Permission = Permission.READ_ONLY
    dry_run: bool = False  # nothing but introspect goes out
    tools: set[str] | None = None  # the server's MCP-AQL tools, once listed
    read_tools: set[str] = field(default_factory=set)  # those that are READ endpoints
    operations: dict[str, Need] = field(default_factory=dict)  # every listed operation's need
    changes: list[Change] = field(default_factory=list)

    def learn_tools(self, names: Iterable[str], read_tools: Iterable[str] = ()) -> None:
        """The server's MCP-AQL tools, and which of them are READ endpoints."""
        self.tools = set(names)
        self.read_tools = set(read_tools) & self.tools

    def learn(self, operation: str, need: Need) -> None:
        """An operation introspection lists, and what calling it needs (a name listed twice keeps
        the stricter need)."""
        known = self.operations.get(operation)
        self.operations[operation] = need if known is None else strictest([known, need])

    def allows(self, need: Need) -> bool:
        return need.level <= self.permission

    def call_need(self, tool: str, arguments: Any) -> Need:
        """What a call needs: its tool's bar and every operation it names."""
        if self.tools is None or tool not in self.tools:
            return Need(UNKNOWN, f"{plain(tool, max_len=80)} is not an MCP-AQL tool of this server, so what it does"
                        " is unknown")  # fmt: skip
        unnamed = unnamed_part(arguments)
        if unnamed is not None:
            return Need(UNKNOWN, f"{unnamed} names no operation, so what the server would do with it is unknown")
        needs = [tool_need(tool), *map(_switches_need, _requests(arguments))]
        for operation in operations_named(arguments):
            if operation in RESERVED_READS or (operation == UNKNOWN_OPERATION and tool in self.read_tools):
                continue
            need = self.operations.get(operation)
            if need is None:
                shown = plain(operation, max_len=80)
                need = Need(UNKNOWN, f"{shown} is not an operation introspection lists, so what it does is unknown")
            elif need:
                need = Need(need.level, f"{plain(operation, max_len=80)}: {need.reason}")
            needs.append(need)
        return strictest(needs)

    def check(self, tool: str, arguments: Any) -> Need:
        """The call's need, once the run's level allows it; ``Withheld`` otherwise."""
        need = self.call_need(tool, arguments)
        if not self.allows(need):
            raise Withheld(need, withheld_reason(need, self.permission))
        if self.dry_run and (not operations_named(arguments) or set(operations_named(arguments)) - RESERVED_READS):
            raise Withheld(need, "a dry run sends nothing but introspect")
        return need

    def answered(self, tool: str, arguments: dict[str, Any], need: Need, response: Any) -> None:
        """Log a call above read-only that the server did not refuse."""
        from mcpaql_conformance.evidence.answers import classify

        if need and not classify(response).refused:
            at = dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")
            self.changes.append(Change(tool, arguments, need, at, response))
