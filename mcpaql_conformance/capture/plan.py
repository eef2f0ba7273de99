"""Capture plans: example requests, round-trip cycles, constraints and plan values.

A plan is JSON::

    {
      "implementation": "my-adapter",                      # optional name override
      "values": {"create_note.title": "Plan title", "note_id": "n1"},   # used instead of synthesised values
      "env": {"api_key": "NOTES_API_KEY"},                 # values read from the environment, redacted
      "examples": [{"operation": "list_notes", "_description": "...", "params": {...}}],
      "create_read": [{"name": "...", "create": {...}, "read": {...}}],
      "update_read": [{"name": "...", "create": {...}, "update": {...}, "read": {...}}],
      "constraints": [{"name": "...", "create": {...}, "attempt": {...}, "documented": true}]
    }

A step is ``{"operation": NAME, "params": {...}}``; a string "${create.data.note_id}"
inside a later step's params is replaced by that path of the named earlier step's
answer. Any cycle may start with a "setup" step (e.g. create what a copy operation
copies) and may give its own "expected_fields"; otherwise the fields expected back
are the create step's parameters (create_read) or those the update did not touch
(update_read).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.jsonio import load_json_file
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.values import MISSING, resolve_path

JsonObject = dict[str, Any]
_REFERENCE = re.compile(r"^\$\{([a-z]+)\.([A-Za-z0-9_.]+)\}$")
_STEP_KEYS = {"create_read": ("create", "read"), "update_read": ("create", "update", "read")}


@dataclass
class Plan:
    implementation: str | None = None
    values: JsonObject = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)  # parameter name -> value from the environment
    examples: list[JsonObject] = field(default_factory=list)
    create_read: list[JsonObject] = field(default_factory=list)
    update_read: list[JsonObject] = field(default_factory=list)
    constraints: list[JsonObject] = field(default_factory=list)

    def value_for(self, operation: str, parameter: str) -> Any:
        for key in (f"{operation}.{parameter}", parameter):
            if key in self.secrets:
                return self.secrets[key]
            if key in self.values:
                return self.values[key]
        return MISSING


def load_plan(path: Path | None) -> Plan:
    """Read and check a plan; every problem is a ConfigError naming its JSON path."""
    if path is None:
        return Plan()
    source = plain(str(path))
    data = load_json_file(path, "plan")
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: $: expected a JSON object (a capture plan)")
    plan = Plan(implementation=_optional_str(data, "implementation", source))
    plan.values = _object(data, "values", source)
    for parameter, variable in _object(data, "env", source).items():
        if not isinstance(variable, str) or variable not in os.environ:
            raise ConfigError(
                f"{source}: $.env.{plain(parameter)}: environment variable {plain(str(variable))} is not set"
            )
        plan.secrets[parameter] = os.environ[variable]
    plan.examples = [_step(item, f"$.examples[{i}]", source) for i, item in enumerate(_list(data, "examples", source))]
    for key, steps in (*_STEP_KEYS.items(), ("constraints", ("create", "attempt"))):
        cycles = []
        for index, cycle in enumerate(_list(data, key, source)):
            where = f"$.{key}[{index}]"
            if not isinstance(cycle, dict) or not isinstance(cycle.get("name"), str):
                raise ConfigError(f"{source}: {where}: expected an object with a string 'name'")
            for step in ("setup", *steps) if "setup" in cycle else steps:
                _step(cycle.get(step), f"{where}.{step}", source)
            if not isinstance(cycle.get("expected_fields", {}), dict):
                raise ConfigError(f"{source}: {where}.expected_fields: expected an object")
            cycles.append(cycle)
        setattr(plan, key, cycles)
    return plan


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


def _step(value: Any, where: str, source: str) -> JsonObject:
    if not isinstance(value, dict) or not isinstance(value.get("operation"), str):
        raise ConfigError(f"{source}: {where}: expected a step {{operation, params}}")
    if not isinstance(value.get("params", {}), dict):
        raise ConfigError(f"{source}: {where}.params: expected an object")
    return value


def _object(data: JsonObject, key: str, source: str) -> JsonObject:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: $.{key}: expected an object")
    return value


def _list(data: JsonObject, key: str, source: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise ConfigError(f"{source}: $.{key}: expected an array")
    return value


def _optional_str(data: JsonObject, key: str, source: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{source}: $.{key}: expected a string")
    return value
