"""Writing an editable plan from what a capture learned (``--write-plan``): apart from the
plan format (plan.py), since it reads the capture's state (live.py, probes.py, cycles.py) and
those read plans."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from mcpaql_conformance.capture.cycles import Inferred
from mcpaql_conformance.capture.probes import value
from mcpaql_conformance.files.jsonio import dumps, write_atomic
from mcpaql_conformance.files.kinds import PLAN_SCHEMA_FILE
from mcpaql_conformance.files.schemas import _HERE as SCHEMAS
from mcpaql_conformance.live.session import Live

JsonObject = dict[str, Any]


def write_plan(path: Path, live: Live, inferred: Inferred) -> None:
    """An editable plan from what the capture learned: every operation's parameters with the
    values capture used (edit them to values your server accepts), the plan's own examples,
    the inferred cycles, and `env` placeholders for sensitive parameters (never their values)."""
    values: JsonObject = {}
    env: dict[str, str] = {}
    for op in live.operations:
        for parameter in op.parameters or [{"name": name} for name in op.discovered]:
            key = f"{op.name}.{parameter['name']}"
            if (op.name, parameter["name"]) in live.redactor.sensitive:
                env[key] = live.plan.env.get(key) or _variable(key)
            else:
                values[key] = value(live, op.name, parameter, op.declarations)
    plan: JsonObject = {"$schema": schema_reference(path), "implementation": live.writer.implementation}
    if plan["$schema"] is None:
        del plan["$schema"]
    plan["values"] = values
    if env:
        plan["env"] = env
    plan["examples"] = list(live.plan.examples)
    plan["create_read"] = [*live.plan.create_read, *_without_sensitive(live, inferred.create_read)]
    plan["update_read"] = [*live.plan.update_read, *_without_sensitive(live, inferred.update_read)]
    plan["constraints"] = list(live.plan.constraints)
    write_atomic(path, dumps(live.redactor.value(plan)))


def schema_reference(path: Path) -> str | None:
    """A written plan's ``$schema``: the path from its folder to the plan schema this tool
    installed, which an editor opens (None where no relative path exists: another drive). A plan
    moved elsewhere or shared points at a copy instead: ``mcpaql-conformance schema plan``."""
    try:
        relative = os.path.relpath(SCHEMAS / PLAN_SCHEMA_FILE, path.resolve().parent)
    except ValueError:
        return None
    return Path(relative).as_posix()


def _variable(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", key).strip("_").upper() or "SECRET"


def _without_sensitive(live: Live, cycles: list[JsonObject]) -> list[JsonObject]:
    """Cycles as written to a plan: sensitive parameters are left out of the steps (the `env`
    section holds their variables)."""
    cleaned = []
    for cycle in cycles:
        copy = dict(cycle)
        for step, spec in cycle.items():
            if isinstance(spec, dict) and "operation" in spec:
                params = {
                    k: v
                    for k, v in spec.get("params", {}).items()
                    if (spec["operation"], k) not in live.redactor.sensitive
                }
                copy[step] = {**spec, "params": params}
        cleaned.append(copy)
    return cleaned
