"""A second configuration of the same server, captured too (``--also -- COMMAND...`` or
``--also-url URL``): endpoint-modes §3.1 lets a server offer single mode (or its semantic
endpoints) by configuration, and one process shows one configuration. The two captures are one
bundle: the first configuration's evidence, to which the second adds what only it can show:
its endpoint mode and tools, a batch the first could not be sent, the capabilities it
declares, its routing evidence, and its notes (marked as the second configuration's). Its
provenance is kept beside the first's."""

from __future__ import annotations

from typing import Any

JsonObject = dict[str, Any]
ALSO = "the second configuration"
SEPARATOR = ("--also", "--")


def split_command(command: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the server command, the second configuration's command): ``python s.py --also -- python
    s.py --mode single`` is two commands; a command without ``--also --`` is one (and none)."""
    for index in range(len(command) - 1):
        if command[index : index + 2] == SEPARATOR:
            return command[:index], command[index + 2 :]
    return command, ()


def merge(first: JsonObject, second: JsonObject) -> JsonObject:
    """One bundle of two captures of one server (rules in the module docstring)."""
    merged = dict(first)
    modes = [*_list(first.get("endpoint_modes")), *_list(second.get("endpoint_modes"))]
    merged["endpoint_modes"] = sorted({mode for mode in modes if isinstance(mode, str)})
    tools = _list(first.get("mcp_tools"))
    known = {tool.get("name") for tool in tools if isinstance(tool, dict)}
    merged["mcp_tools"] = tools + [
        tool for tool in _list(second.get("mcp_tools")) if isinstance(tool, dict) and tool.get("name") not in known
    ]
    if "batch_example" not in first and "batch_example" in second:
        merged["batch_example"] = second["batch_example"]
    capabilities = {**_dict(second.get("capabilities")), **_dict(first.get("capabilities"))}
    for name, value in _dict(second.get("capabilities")).items():
        if value is True:
            capabilities[name] = True
    merged["capabilities"] = capabilities
    merged["routing_tests"] = _list(first.get("routing_tests")) + _list(second.get("routing_tests"))
    notes = [
        {**n, "reason": f"{ALSO}: {n.get('reason')}"} for n in _list(second.get("capture_notes")) if isinstance(n, dict)
    ]
    merged["capture_notes"] = _list(first.get("capture_notes")) + notes
    provenance = _dict(first.get("provenance"))
    merged["provenance"] = {**provenance, "also": _dict(second.get("provenance"))}
    noise = _noise(_dict(first.get("stdout_noise")), _dict(second.get("stdout_noise")))
    if noise:
        merged["stdout_noise"] = noise
    return merged


def _noise(first: JsonObject, second: JsonObject) -> JsonObject:
    """Both configurations' stdout noise: the counts added, the second's lines marked as its."""
    if not second:
        return first
    lines = [
        {**line, "after": f"{ALSO}: {line.get('after') or 'before its first message'}"}
        for line in _list(second.get("lines"))
        if isinstance(line, dict)
    ]
    merged: JsonObject = {"count": int(first.get("count") or 0) + int(second.get("count") or 0)}
    merged["lines"] = _list(first.get("lines")) + lines
    lost = first.get("lost") or second.get("lost")
    return {**merged, **({"lost": lost} if lost else {})}


def _list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def _dict(value: Any) -> JsonObject:
    return dict(value) if isinstance(value, dict) else {}
