"""Probe a connected MCP-AQL server the way the conformance tests describe, keeping every exchange."""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from typing import Any

from mcpaql_conformance.capture.connection import Answer, CaptureError, Connection
from mcpaql_conformance.capture.plan import Plan, substitute
from mcpaql_conformance.capture.records import Exchange, RecordWriter
from mcpaql_conformance.capture.redact import Redactor
from mcpaql_conformance.capture.values import matches_type, synthesise
from mcpaql_conformance.checks.base import CRUDE_ENDPOINTS as CRUDE
from mcpaql_conformance.values import MISSING

JsonObject = dict[str, Any]
UNKNOWN_PROBE = "zz_conformance_probe"
SENSITIVE_PROBE = "conformance-probe-secret-value"
# Parameters adapters commonly accept without documenting them (Introspection Completeness).
CROSS_CUTTING = ("fields", "limit", "offset", "cursor", "sort", "filter", "query", "include_deleted", "priority")


@dataclass
class Evidence:
    """The bundle sections as they are filled in."""

    operations_list: Any = None
    types_list: Any = None
    details: list[JsonObject] = field(default_factory=list)
    accepted: dict[str, list[str]] = field(default_factory=dict)
    missing_required: list[JsonObject] = field(default_factory=list)
    unknown_parameter: list[JsonObject] = field(default_factory=list)
    optional_defaults: list[JsonObject] = field(default_factory=list)
    error_tests: list[JsonObject] = field(default_factory=list)
    routing_tests: list[JsonObject] = field(default_factory=list)
    valid_requests: list[JsonObject] = field(default_factory=list)
    round_trip_tests: list[JsonObject] = field(default_factory=list)
    update_preservation_tests: list[JsonObject] = field(default_factory=list)
    constraint_tests: list[JsonObject] = field(default_factory=list)
    batch_example: Any = None
    notes: list[JsonObject] = field(default_factory=list)


class Prober:
    """Drives one connection through every probe; never sends a complete parameter set to a
    destructive operation unless ``allow_destructive``."""

    def __init__(
        self, connection: Connection, plan: Plan, writer: RecordWriter, redactor: Redactor, allow_destructive: bool
    ) -> None:
        self.conn = connection
        self.plan = plan
        self.writer = writer
        self.redactor = redactor
        self.allow_destructive = allow_destructive
        self.evidence = Evidence()
        self.modes: list[str] = []
        self.introspect_tool = ""

    # --- plumbing ----------------------------------------------------------------

    def note(self, operation: str | None, probe: str, reason: str) -> None:
        self.evidence.notes.append({"operation": operation, "probe": probe, "reason": reason})

    async def send(self, tool: str, arguments: JsonObject, operation: str, probe: str, description: str) -> Any:
        """One call, recorded (redacted); returns the redacted response. A timeout is recorded
        before it ends the capture."""
        params = arguments.get("params", arguments)
        if isinstance(params, dict):  # a server may echo a sensitive value: mask it wherever it shows
            for key, value in params.items():
                if (operation, key) in self.redactor.sensitive and isinstance(value, str):
                    self.redactor.add_secret(value)
        started = time.perf_counter()
        try:
            answer = await self.conn.call(tool, arguments)
        except CaptureError as exc:
            answer = Answer({"_timeout": str(exc)}, "timeout", (time.perf_counter() - started) * 1000)
            self.record(tool, params, operation, probe, description, answer)
            raise
        return self.record(tool, params, operation, probe, description, answer)

    def record(self, tool: str, params: Any, operation: str, probe: str, description: str, answer: Answer) -> Any:
        """Add one exchange (redacted) to the records; returns the redacted response."""
        params = self.redactor.params(operation, params) if isinstance(params, dict) else params
        response = self.redactor.value(answer.response)
        self.writer.add(
            Exchange(
                index=len(self.writer.exchanges),
                operation=operation,
                tool=tool,
                probe=probe,
                description=description,
                params=params,
                response=response,
                milliseconds=answer.milliseconds,
                timestamp=dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
                outcome=answer.outcome,
            )
        )
        return response

    async def op(self, detail: JsonObject, params: JsonObject, probe: str, description: str, tool: str = "") -> Any:
        name = detail["name"]
        return await self.send(
            tool or self.tool_for(detail), {"operation": name, "params": params}, name, probe, description
        )

    # --- discovery ---------------------------------------------------------------

    def detect_modes(self, tools: list[str]) -> None:
        crude = [t for t in tools if t in {f"mcp_aql_{e}" for e in CRUDE}]
        custom = sorted(t.removeprefix("mcp_aql_") for t in tools if t.startswith("mcp_aql_") and t not in crude)
        self.modes = (["crude"] if crude else []) + (["single"] if "mcp_aql" in tools else []) + custom
        if not self.modes:
            from mcpaql_conformance.capture.connection import CaptureError

            listed = ", ".join(tools[:10]) or "none"
            raise CaptureError(f"the server exposes no MCP-AQL tool (mcp_aql or mcp_aql_*); its tools: {listed}")

    async def introspect(self) -> list[str]:
        from mcpaql_conformance.capture.connection import CaptureError

        candidates: list[str] = [t for t in ("mcp_aql_read", "mcp_aql") if t in self.conn.tools]
        candidates += [t for t in self.conn.tools if t.startswith("mcp_aql_") and t not in candidates]
        for tool in candidates:
            answer = await self.send(
                tool, _introspect_args("operations"), "introspect", "introspection", "list operations"
            )
            names = _operation_names(answer)
            if names is not None:
                self.introspect_tool = tool
                self.evidence.operations_list = answer
                break
        else:
            raise CaptureError("the server has no working introspect {query: operations} on " + ", ".join(candidates))
        self.evidence.types_list = await self.send(
            self.introspect_tool, _introspect_args("types"), "introspect", "introspection", "list types"
        )
        for name in names:
            answer = await self.send(
                self.introspect_tool,
                _introspect_args("operations", name),
                "introspect",
                "introspection",
                f"describe {name}",
            )
            detail = answer.get("data", {}).get("operation") if isinstance(answer.get("data"), dict) else None
            if isinstance(detail, dict) and isinstance(detail.get("name"), str):
                self.evidence.details.append(detail)
                self.redactor.sensitive |= {
                    (detail["name"], p["name"]) for p in _params(detail) if p.get("sensitive") is True
                }
            else:
                self.note(name, "introspection", "introspect {query: operations, name} gave no operation detail")
        return names

    def tool_for(self, detail: JsonObject) -> str:
        endpoint = str(detail.get("endpoint", "")).lower()
        if "crude" in self.modes and endpoint in CRUDE:
            return f"mcp_aql_{endpoint}"
        if detail.get("mcpTool") in self.conn.tools:
            return str(detail["mcpTool"])
        if "mcp_aql" in self.conn.tools:
            return "mcp_aql"
        return f"mcp_aql_{endpoint}" if f"mcp_aql_{endpoint}" in self.conn.tools else self.introspect_tool

    # --- per-operation probes ------------------------------------------------------

    def destructive(self, detail: JsonObject) -> bool:
        """Fail safe: destructive unless the operation is clearly a READ, CREATE or UPDATE that
        does not say destructive, on an endpoint that is not delete or execute."""
        permissions: JsonObject = detail["permissions"] if isinstance(detail.get("permissions"), dict) else {}
        category = str(detail.get("semantic_category", "")).upper()
        endpoint = str(detail.get("endpoint", "")).lower()
        if permissions.get("destructive") is True or category in ("DELETE", "EXECUTE"):
            return True
        if endpoint in ("delete", "execute") or self.tool_for(detail) in ("mcp_aql_delete", "mcp_aql_execute"):
            return True
        return category not in ("READ", "CREATE", "UPDATE") and permissions.get("readOnly") is not True

    def value(self, detail: JsonObject, parameter: JsonObject) -> Any:
        planned = self.plan.value_for(detail["name"], parameter["name"])
        if planned is not MISSING:
            return planned
        if parameter.get("sensitive") is True:
            return SENSITIVE_PROBE  # distinctive, so that masking it cannot hit other text
        return synthesise(parameter)

    def required_params(self, detail: JsonObject) -> JsonObject:
        return {p["name"]: self.value(detail, p) for p in _required(detail)}

    def safe(self, detail: JsonObject, params: JsonObject, probe: str) -> JsonObject | None:
        """``params`` if they may be sent; for a destructive operation without permission,
        the set minus one required parameter (so nothing can run), or None."""
        if self.allow_destructive or not self.destructive(detail):
            return params
        required = [p["name"] for p in _required(detail) if p["name"] in params]
        if not required:
            self.note(
                detail["name"],
                probe,
                "destructive operation with no required parameter to withhold; pass --allow-destructive to probe it",
            )
            return None
        return {k: v for k, v in params.items() if k != required[0]}

    async def probe_operation(self, detail: JsonObject) -> None:
        name = detail["name"]
        base = self.required_params(detail)
        for parameter in _required(detail):
            params = {k: v for k, v in base.items() if k != parameter["name"]}
            response = await self.op(detail, params, "missing_required", f"omit required {parameter['name']}")
            case = {"operation": name, "parameter": parameter["name"], "response": response}
            self.evidence.missing_required.append(case)
            self.evidence.error_tests.append(
                {
                    "name": f"missing-{name}-{parameter['name']}",
                    "must_mention": [parameter["name"]],
                    "response": response,
                }
            )
        await self.probe_unknown(detail, base)
        await self.probe_accepted(detail)
        await self.probe_defaults(detail, base)
        await self.probe_routing(detail, base)

    async def probe_unknown(self, detail: JsonObject, base: JsonObject) -> None:
        params = self.safe(detail, {**base, UNKNOWN_PROBE: "probe"}, "unknown_parameter")
        if params is None:
            return
        response = await self.op(detail, params, "unknown_parameter", f"add unknown {UNKNOWN_PROBE}")
        case = {"operation": detail["name"], "parameter": UNKNOWN_PROBE, "response": response}
        self.evidence.unknown_parameter.append(case)
        self.evidence.error_tests.append(
            {"name": f"unknown-{detail['name']}", "must_mention": [UNKNOWN_PROBE], "response": response}
        )

    async def probe_accepted(self, detail: JsonObject) -> None:
        """Documented parameters, then common undocumented ones, one request each set."""
        name = detail["name"]
        documented = {p["name"]: self.value(detail, p) for p in _params(detail)}
        accepted: list[str] = []
        params = self.safe(detail, dict(documented), "accepted_parameters")
        if params is not None:
            response = await self.op(detail, params, "accepted_parameters", "every documented parameter")
            accepted += [p for p in params if not _rejects_as_unknown(response, p)]
            # A parameter withheld for safety is a required one: the missing-parameter probe
            # shows the server knows it.
            accepted += [p for p in documented if p not in params]
        if self.destructive(detail) and not self.allow_destructive:
            self.note(name, "accepted_parameters", "undocumented parameters not probed: a destructive operation "
                      "only gets incomplete requests (pass --allow-destructive)")
        else:
            for extra in (p for p in CROSS_CUTTING if p not in documented):
                extra_params = {**self.required_params(detail), extra: _cross_value(extra)}
                response = await self.op(detail, extra_params, "accepted_parameters", f"undocumented {extra}")
                if _accepted(response, extra):
                    accepted.append(extra)
        self.evidence.accepted[name] = list(dict.fromkeys(accepted))

    async def probe_defaults(self, detail: JsonObject, base: JsonObject) -> None:
        for parameter in (p for p in _params(detail) if "default" in p and p.get("required") is not True):
            if self.destructive(detail) and not self.allow_destructive:
                self.note(
                    detail["name"],
                    "optional_defaults",
                    f"destructive operation: default of {parameter['name']} not observed (pass --allow-destructive)",
                )
                continue
            response = await self.op(detail, dict(base), "optional_defaults", f"omit optional {parameter['name']}")
            path = _find_value(response, parameter["name"], parameter["default"])
            if path is None:
                self.note(
                    detail["name"],
                    "optional_defaults",
                    f"the answer shows no '{parameter['name']}' field to observe its default in",
                )
                continue
            self.evidence.optional_defaults.append(
                {
                    "operation": detail["name"],
                    "parameter": parameter["name"],
                    "expected_value_path": path,
                    "expected_value": parameter["default"],
                    "response": response,
                }
            )

    async def probe_routing(self, detail: JsonObject, base: JsonObject) -> None:
        if "crude" not in self.modes:
            return
        right = self.tool_for(detail)
        wrong = next(
            (f"mcp_aql_{e}" for e in CRUDE if f"mcp_aql_{e}" in self.conn.tools and f"mcp_aql_{e}" != right), None
        )
        if wrong is None:
            return
        params = self.safe(detail, dict(base), "routing")
        if params is None:
            return
        response = await self.op(detail, params, "routing", f"send to the wrong endpoint {wrong}", tool=wrong)
        self.evidence.routing_tests.append({"operation": detail["name"], "tool": wrong, "response": response})

    # --- plan-driven probes ----------------------------------------------------------

    async def run_examples(self, details: dict[str, JsonObject]) -> None:
        for example in self.plan.examples:
            detail = details.get(example["operation"])
            params = example.get("params", {})
            problem = _invalid_example(detail, params)
            if problem is None and detail is not None and self.destructive(detail) and not self.allow_destructive:
                problem = "destructive operation (pass --allow-destructive)"
            if problem is not None or detail is None:
                self.note(example["operation"], "example", f"not sent: {problem}")
                continue
            description = str(example.get("_description", "plan example"))
            response = await self.op(detail, params, "example", description)
            self.evidence.valid_requests.append(
                {
                    "operation": detail["name"],
                    "_description": description,
                    "params": self.redactor.params(detail["name"], params),
                    "response": response,
                }
            )

    async def run_cycles(self, details: dict[str, JsonObject]) -> None:
        for cycle in self.plan.create_read:
            steps = await self._steps(details, cycle, ("create", "read"))
            if steps is not None:
                read = steps[-1]
                fields = cycle.get("expected_fields") or {
                    f"data.{k}": v for k, v in self.echoed(cycle["create"]).items()
                }
                self.evidence.round_trip_tests.append(
                    {
                        "name": cycle["name"],
                        "operation": cycle["create"]["operation"],
                        "expected_fields": self.redactor.value(fields),
                        "read_response": read,
                    }
                )
        for cycle in self.plan.update_read:
            steps = await self._steps(details, cycle, ("create", "update", "read"))
            if steps is not None:
                changed = set(cycle["update"].get("params", {}).get("input", {}))
                kept = cycle.get("expected_fields") or {
                    f"data.{k}": v for k, v in self.echoed(cycle["create"]).items() if k not in changed
                }
                self.evidence.update_preservation_tests.append(
                    {
                        "name": cycle["name"],
                        "operation": cycle["update"]["operation"],
                        "preserved_fields": self.redactor.value(kept),
                        "read_response": steps[-1],
                    }
                )
        for cycle in self.plan.constraints:
            steps = await self._steps(details, cycle, ("create", "attempt"))
            if steps is not None:
                self.evidence.constraint_tests.append(
                    {"name": cycle["name"], "documented": cycle.get("documented") is True, "response": steps[-1]}
                )

    def echoed(self, step: JsonObject) -> JsonObject:
        """A step's parameters a read is expected to give back: not the sensitive ones."""
        operation = step["operation"]
        return {k: v for k, v in step.get("params", {}).items() if (operation, k) not in self.redactor.sensitive}

    async def _steps(
        self, details: dict[str, JsonObject], cycle: JsonObject, names: tuple[str, ...]
    ) -> list[Any] | None:
        names = ("setup", *names) if "setup" in cycle else names
        for step in names:
            detail = details.get(cycle[step]["operation"])
            if detail is None:
                self.note(cycle[step]["operation"], cycle["name"], "operation not in introspection: cycle skipped")
                return None
            if self.destructive(detail) and not self.allow_destructive:
                self.note(detail["name"], cycle["name"], "destructive step: cycle skipped (pass --allow-destructive)")
                return None
        answers: dict[str, Any] = {}
        for step in names:
            detail = details[cycle[step]["operation"]]
            params = substitute(cycle[step].get("params", {}), answers)
            answers[step] = await self.op(detail, params, cycle["name"], f"{cycle['name']}: {step}")
        return list(answers.values())

    async def probe_batch(self) -> None:
        if "mcp_aql" not in self.conn.tools:
            return
        batch = {"operations": [_introspect_args("operations"), _introspect_args("types")]}
        self.evidence.batch_example = await self.send(
            "mcp_aql", batch, "batch", "batch", "introspect twice in one batch"
        )

    # --- the whole run ------------------------------------------------------------------

    async def run(self) -> None:
        self.detect_modes(await self.conn.list_tools())
        await self.introspect()
        details = {d["name"]: d for d in self.evidence.details}
        for detail in self.evidence.details:
            await self.probe_operation(detail)
        await self.run_examples(details)
        await self.run_cycles(details)
        await self.probe_batch()


def _introspect_args(query: str, name: str | None = None) -> JsonObject:
    params: JsonObject = {"query": query}
    if name is not None:
        params["name"] = name
    return {"operation": "introspect", "params": params}


def _operation_names(answer: Any) -> list[str] | None:
    data = answer.get("data") if isinstance(answer, dict) and answer.get("success") is True else None
    operations = data.get("operations") if isinstance(data, dict) else None
    if not isinstance(operations, list):
        return None
    return [entry["name"] for entry in operations if isinstance(entry, dict) and isinstance(entry.get("name"), str)]


def _params(detail: JsonObject) -> list[JsonObject]:
    parameters = detail.get("parameters")
    if not isinstance(parameters, list):
        return []
    return [p for p in parameters if isinstance(p, dict) and isinstance(p.get("name"), str)]


def _required(detail: JsonObject) -> list[JsonObject]:
    return [p for p in _params(detail) if p.get("required") is True]


def _error_text(response: Any) -> str:
    error = response.get("error") if isinstance(response, dict) else None
    return str(error) if error is not None else ""


def _rejects_as_unknown(response: Any, parameter: str) -> bool:
    """The answer refuses ``parameter`` as unknown (code mentions UNKNOWN and the text names it)."""
    if not isinstance(response, dict) or response.get("success") is not False:
        return False
    text = _error_text(response)
    return "UNKNOWN" in text.upper() and parameter in text


def _accepted(response: Any, parameter: str) -> bool:
    """An undocumented parameter counts as accepted when the call went through, or failed for a
    reason that shows the parameters were taken (not for an unknown or a missing parameter)."""
    if not isinstance(response, dict) or "success" not in response:
        return False  # not an MCP-AQL answer: nothing can be concluded
    if response.get("success") is True:
        return True
    return not _rejects_as_unknown(response, parameter) and "MISSING" not in _error_text(response).upper()


def _cross_value(name: str) -> Any:
    return {"fields": ["name"], "limit": 1, "offset": 0, "sort": {}, "filter": {}, "include_deleted": False}.get(
        name, "probe"
    )


def _find_value(response: Any, key: str, expected: Any, path: str = "", depth: int = 0) -> str | None:
    """The dotted path of a field named ``key`` holding ``expected``, searched breadth-first."""
    if depth > 8:
        return None
    if isinstance(response, dict):
        for name, value in response.items():
            if name == key and value == expected and type(value) is type(expected):
                return f"{path}{name}"
        for name, value in response.items():
            found = _find_value(value, key, expected, f"{path}{name}.", depth + 1)
            if found is not None:
                return found
    return None


def _invalid_example(detail: JsonObject | None, params: JsonObject) -> str | None:
    if detail is None:
        return "operation not in introspection"
    documented = {p["name"]: p for p in _params(detail)}
    for key, value in params.items():
        if key not in documented:
            return f"parameter {key!r} is not documented"
        if not matches_type(value, documented[key]):
            return f"parameter {key!r} does not match its introspected type {documented[key].get('type')!r}"
    missing = [p for p, info in documented.items() if info.get("required") is True and p not in params]
    return f"required parameter(s) missing: {', '.join(missing)}" if missing else None
