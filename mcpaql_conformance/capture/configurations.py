"""capture --configurations: the server, started by its command, started again under the
configurations the spec names, its tools listed each time and nothing else sent
(``configuration_tests``): the run's environment again (mcp-integration §2.2.1: tool names stay
the same from one start to the next), none of the MCP_AQL_ variables (endpoint-modes §3.2: the
CRUDE profile by default), each MCP_AQL_ENDPOINT_MODE value (§3.1 and crude §4.3: the mode chosen
at runtime) and MCP_AQL_TOOL_PREFIX set (mcp-integration §6.2-6.3).

Only the variables change: a command that configures the server itself (an option naming the
mode) keeps doing so, which the help says. A start that fails is recorded with why, never the
end of the capture; what the restarts print or deviate in is the first start's to say."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from mcpaql_conformance.evidence.configurations import MAX_TOOLS, STARTS
from mcpaql_conformance.live.connection import CaptureError, connect

if TYPE_CHECKING:
    from mcpaql_conformance.live.connection import Target
    from mcpaql_conformance.live.guard import Guard
    from mcpaql_conformance.live.redact import Redactor
    from mcpaql_conformance.live.session import Evidence


async def probe_configurations(
    server: Target, timeout: float, errlog: Any, guard: Guard, evidence: Evidence, redactor: Redactor
) -> None:
    """Each start of STARTS, one after the other, into ``evidence.configuration_tests``."""
    for name, environment in STARTS:
        target = dataclasses.replace(server, environment=tuple(environment.items()))
        entry: dict[str, Any] = {"configuration": name, "environment": environment}
        try:
            async with connect(target, timeout, errlog, [], guard) as connection:
                tools = await connection.list_tools()
            entry["tools"] = [str(tool["name"]) for tool in tools[:MAX_TOOLS]]
        except CaptureError as exc:
            entry["error"] = str(exc)
        evidence.configuration_tests.append(redactor.value(entry))
