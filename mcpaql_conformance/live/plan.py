"""Capture plans: values, example requests, round-trip and constraint cycles.

The format is our JSON Schema ``schemas/plan.schema.json`` (``mcpaql-conformance schema
--plan``; the docs site's "Capture plans" section, docs/live.md, explains it). Plans are validated
strictly: an unknown key, or an operation the server does not list, is a configuration
error with a did-you-mean, because a typo would otherwise silently drop a cycle.
``capture/plan_writer.py`` writes an editable plan from what a capture learned.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.files.configio import check_document, load_config_file
from mcpaql_conformance.files.kinds import PLAN, refuse_other_kinds
from mcpaql_conformance.files.schemas import did_you_mean
from mcpaql_conformance.files.values import MISSING, resolve_path
from mcpaql_conformance.live.levels import Permission
from mcpaql_conformance.live.safety import unsafe_switches
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain

JsonObject = dict[str, Any]
_REFERENCE = lazy(r"^\$\{([a-z]+)\.([A-Za-z0-9_.]+)\}$")
CYCLES = {"create_read": "CreateRead", "update_read": "UpdateRead", "constraints": "Constraint"}


@dataclass
class Plan:
    implementation: str | None = None
    values: JsonObject = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)  # parameter key -> value from the environment
    env: dict[str, str] = field(default_factory=dict)  # parameter key -> variable name
    examples: list[JsonObject] = field(default_factory=list)
    create_read: list[JsonObject] = field(default_factory=list)
    update_read: list[JsonObject] = field(default_factory=list)
    constraints: list[JsonObject] = field(default_factory=list)
    source: str = "<plan>"

    def value_for(self, operation: str, parameter: str) -> Any:
        for key in (f"{operation}.{parameter}", parameter):
            if key in self.secrets:
                return self.secrets[key]
            if key in self.values:
                return self.values[key]
        return MISSING

    def given_elsewhere(self, operation: str, parameter: str) -> Any:
        """A value the plan gives ``parameter`` for another operation (``get_note.note_id`` for
        ``list_comments``' note_id), in plan order; never a secret; MISSING when there is none."""
        for key, value in self.values.items():
            named = key.removesuffix(f".{parameter}") if key.endswith(f".{parameter}") else ""
            if named and named != operation and key not in self.secrets:
                return value
        return MISSING


def load_plan(path: Path | None) -> Plan:
    """Read and check a plan; every problem is a ConfigError naming its JSON path."""
    if path is None:
        return Plan()
    source = plain(str(path))
    data = load_config_file(path, "plan")
    refuse_other_kinds(data, source, PLAN)
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: $: expected a JSON object (a capture plan)")
    check_document(data, "plan", source)
    plan = Plan(implementation=data.get("implementation"), values=dict(data.get("values", {})), source=source)
    for parameter, variable in data.get("env", {}).items():
        if variable not in os.environ:
            raise ConfigError(f"{source}: $.env.{plain(parameter)}: environment variable {plain(variable)} is not set")
        plan.secrets[parameter] = os.environ[variable]
        plan.env[parameter] = variable
    plan.examples = list(data.get("examples", []))
    for key in CYCLES:
        setattr(plan, key, list(data.get(key, [])))
    return plan


def check_plan_operations(plan: Plan, operations: list[str]) -> None:
    """Every operation the plan names must be one the server lists (a ConfigError otherwise). A
    key ``operation.parameter`` names one when any of its dotted prefixes is a listed operation:
    operation names may hold dots (search.customers.limit), and so may parameter names
    (create_article.address.city)."""
    known = set(operations)
    for where, name in _plan_operations(plan, known):
        if name not in known:
            raise ConfigError(
                f"{plan.source}: {where}: the server lists no operation {plain(name)!r}{did_you_mean(name, known)}"
            )


def check_plan_switches(plan: Plan, permission: Permission) -> None:
    """A plan that sets a safety switch the unsafe way (``force: true``, ``dry_run: false``) asks
    for harm: below --allow-destructive that is a ConfigError, before any server is started."""
    if permission is Permission.DESTRUCTIVE:
        return
    values = {key.rsplit(".", 1)[-1]: value for key, value in plan.values.items()}
    requests = [("$.values", values)] + [
        (f"$.examples[{i}].params", e.get("params")) for i, e in enumerate(plan.examples)
    ]
    for key in CYCLES:
        for index, cycle in enumerate(getattr(plan, key)):
            requests += [
                (f"$.{key}[{index}].{step}.params", spec.get("params"))
                for step, spec in cycle.items()
                if isinstance(spec, dict)
            ]
    for where, params in requests:
        unsafe = unsafe_switches(params)
        if unsafe:
            raise ConfigError(
                f"{plan.source}: {where}: {', '.join(unsafe)} sets a safety switch the unsafe way, which asks for"
                f" harm: {Permission.DESTRUCTIVE.how} (or give it its safe value)"
            )


def _plan_operations(plan: Plan, known: set[str]) -> list[tuple[str, str]]:
    """(JSON path, operation) of each operation the plan names; a key ``operation.parameter``
    names the listed operation among its dotted prefixes, else the part before its last dot."""
    found = [(f"$.examples[{i}].operation", e["operation"]) for i, e in enumerate(plan.examples)]
    for key in CYCLES:
        for index, cycle in enumerate(getattr(plan, key)):
            for step, spec in cycle.items():
                if isinstance(spec, dict) and isinstance(spec.get("operation"), str):
                    found.append((f"$.{key}[{index}].{step}.operation", spec["operation"]))
    for section, keys in (("values", plan.values), ("env", plan.env)):
        for key in keys:
            if "." in key:  # operation.parameter
                split = split_key(key, known)
                found.append(
                    (f"$.{section}[{orjson.dumps(key).decode()}]", split[0] if split else key.rpartition(".")[0])
                )
    return found


def split_key(key: str, operations: set[str]) -> tuple[str, str] | None:
    """(operation, parameter) of a plan key whose dotted prefix is one of ``operations`` (the
    longest such), or None."""
    at = key.rfind(".")
    while at > 0:
        if key[:at] in operations:
            return key[:at], key[at + 1 :]
        at = key.rfind(".", 0, at)
    return None


def substitute(params: JsonObject, answers: dict[str, Any]) -> JsonObject:
    """Replace "${step.path}" strings by values from that earlier step's answer."""
    result: JsonObject = {}
    for key, value in params.items():
        match = _REFERENCE.match(value) if isinstance(value, str) else None
        if match:
            found = resolve_path(answers.get(match.group(1)), match.group(2))
            value = None if found is MISSING else found
        elif isinstance(value, dict):
            value = substitute(value, answers)
        result[key] = value
    return result
