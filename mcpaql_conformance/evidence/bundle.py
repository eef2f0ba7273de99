"""Read bytes -> orjson -> our bundle schema -> a Bundle. All input errors are raised here."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.files.jsonio import load_json_file
from mcpaql_conformance.files.kinds import BUNDLE, refuse_other_kinds
from mcpaql_conformance.files.schemas import bundle_schema
from mcpaql_conformance.files.values import json_type
from mcpaql_conformance.sanitize import plain

JsonObject = dict[str, Any]
PARAMETER_KINDS = ("missing_required", "unknown_parameter", "optional_defaults", "optional_omitted")


@dataclass(frozen=True)
class Bundle:
    """An evidence bundle whose shape has been validated; accessors give typed defaults."""

    data: JsonObject
    source: str = "<bundle>"

    def _section(self, key: str) -> JsonObject:
        value = self.data.get(key)
        return value if isinstance(value, dict) else {}

    def _list(self, container: JsonObject, key: str) -> list[JsonObject]:
        value = container.get(key)
        return value if isinstance(value, list) else []

    @property
    def implementation(self) -> str | None:
        return self.data.get("implementation")

    @property
    def version(self) -> str | None:
        return self.data.get("version")

    @property
    def spec_version(self) -> str | None:
        return self.data.get("spec_version")

    @property
    def expected_level(self) -> int | None:
        return self.data.get("expected_level")

    @property
    def expected_exit_code(self) -> int | None:
        return self.data.get("expected_exit_code")

    @property
    def endpoint_modes(self) -> list[str] | None:
        return self.data.get("endpoint_modes")

    @property
    def capabilities(self) -> JsonObject:
        return self._section("capabilities")

    @property
    def introspection(self) -> JsonObject:
        return self._section("introspection")

    @property
    def operations_list(self) -> JsonObject | None:
        return self.introspection.get("operations_list")

    @property
    def types_list(self) -> JsonObject | None:
        return self.introspection.get("types_list")

    @property
    def operation_details(self) -> list[JsonObject]:
        return self._list(self.introspection, "operation_details")

    @property
    def detail_queries(self) -> list[JsonObject]:
        """Detail queries that gave no usable detail (capture's evidence of a deviation)."""
        return self._list(self.introspection, "detail_queries")

    @property
    def query_attempts(self) -> list[JsonObject]:
        """Introspect calls that failed before capture found a reading that worked."""
        return self._list(self.introspection, "query_attempts")

    @property
    def mcp_tools(self) -> list[JsonObject] | None:
        """The server's tools as tools/list gave them (captured bundles only)."""
        tools = self.data.get("mcp_tools")
        return tools if isinstance(tools, list) else None

    @property
    def capture_readings(self) -> list[str]:
        readings = self.data.get("capture_readings")
        return readings if isinstance(readings, list) else []

    @property
    def accepted_parameters(self) -> dict[str, list[str]] | None:
        return self.data.get("accepted_parameters")

    def parameter_cases(self, kind: str) -> list[JsonObject]:
        """One of ``PARAMETER_KINDS``: ``missing_required``, ``unknown_parameter``,
        ``optional_defaults`` or ``optional_omitted``."""
        return self._list(self._section("parameter_tests"), kind)

    def cases(self, key: str) -> list[JsonObject]:
        """A top-level list of cases, e.g. ``error_tests`` or ``semantic_tests``."""
        return self._list(self.data, key)

    @property
    def batch_example(self) -> JsonObject | None:
        return self.data.get("batch_example")

    @cached_property
    def response_groups(self) -> list[tuple[str, list[JsonObject]]]:
        """Every recorded operation result, grouped by section: (path template, responses).

        A template with ``{}`` takes the response's index (see ``response_path``);
        grouping avoids one tuple per response in bundles of hundreds of thousands.
        """
        return [(template, responses) for template, responses, _ in self._groups]

    def group_cases(self, template: str) -> list[JsonObject] | None:
        """The cases whose responses a ``response_groups`` entry holds, in the same order
        (each names its operation and, from capture, the request it sent); None for an answer
        that is no case (the introspection lists, the batch example)."""
        return self._cases_by_template.get(template)

    @cached_property
    def _cases_by_template(self) -> dict[str, list[JsonObject]]:
        return {template: cases for template, _, cases in self._groups if cases is not None}

    @cached_property
    def _groups(self) -> list[tuple[str, list[JsonObject], list[JsonObject] | None]]:
        groups: list[tuple[str, list[JsonObject], list[JsonObject] | None]] = []
        intro = self.introspection
        for key in ("operations_list", "types_list"):
            if isinstance(intro.get(key), dict):
                groups.append((f"$.introspection.{key}", [intro[key]], None))
        for key in ("query_attempts", "detail_queries", "unknown_name_queries", "type_queries"):
            cases = self._list(intro, key)
            groups.append((f"$.introspection.{key}[{{}}].response", [case["response"] for case in cases], cases))
        for kind in PARAMETER_KINDS:
            cases = self.parameter_cases(kind)
            groups.append((f"$.parameter_tests.{kind}[{{}}].response", [case["response"] for case in cases], cases))
        for key, field in (
            ("error_tests", "response"),
            ("routing_tests", "response"),
            ("valid_requests", "response"),
            ("round_trip_tests", "read_response"),
            ("update_preservation_tests", "read_response"),
            ("update_input_tests", "response"),
            ("request_tests", "response"),
            ("pagination_tests", "response"),
            ("filter_tests", "response"),
            ("field_tests", "response"),
            ("aggregate_tests", "response"),
            ("relationship_tests", "response"),
            ("search_tests", "response"),
            ("sort_tests", "response"),
            ("constraint_tests", "response"),
            ("execution_tests", "response"),
        ):
            cases = self.cases(key)
            groups.append((f"$.{key}[{{}}].{field}", [case[field] for case in cases], cases))
        if isinstance(self.batch_example, dict):
            groups.append(("$.batch_example", [self.batch_example], None))
        return [group for group in groups if group[1]]

    @cached_property
    def responses(self) -> list[JsonObject]:
        """Every recorded operation result, flat (same order as ``response_groups``)."""
        return [response for _, group in self.response_groups for response in group]

    def located_responses(self) -> Iterator[tuple[str, JsonObject]]:
        """Every recorded operation result with its JSON path (renders one path each: slow path)."""
        for template, group in self.response_groups:
            for index, response in enumerate(group):
                yield response_path(template, index), response


def response_path(template: str, index: int) -> str:
    """The JSON path of the ``index``-th response of a ``response_groups`` entry."""
    return template.format(index) if "{}" in template else template


def load_bundle(path: Path) -> Bundle:
    """Load and shape-check a bundle file; any problem raises one ConfigError line."""
    source = plain(str(path))
    return bundle_from_data(load_json_file(path, "bundle"), source)


def bundle_files(paths: Iterable[Path], what: str = "bundle") -> list[Path]:
    """Expand folders to their ``*.json`` files (sorted); a missing path is a ConfigError
    (``what`` not found). A FIFO or device is kept: reading it refuses it, naming it."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            members = sorted(p for p in path.glob("*.json") if p.is_file())
            if not members:
                raise ConfigError(f"{plain(str(path))}: no bundles (*.json) in this folder")
            found += members
        elif path.exists():
            found.append(path)
        else:
            raise ConfigError(f"{what} not found: {plain(str(path))}")
    return list(dict.fromkeys(found))


def bundle_from_data(data: Any, source: str = "<bundle>") -> Bundle:
    """Shape-check already-parsed JSON as a bundle."""
    refuse_other_kinds(data, source, BUNDLE)
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: $: expected a JSON object (the evidence bundle), got {json_type(data)}")
    reason = bundle_schema().shape_error(data)
    if reason is not None:
        raise ConfigError(f"{source}: {reason}")
    return Bundle(data=data, source=source)


def refusal(data: Any) -> str | None:
    """Why `test` would refuse this bundle (the JSON path and what is wrong there), or None: what
    a writer of ours asks of a bundle it wrote before it calls it done."""
    try:
        bundle_from_data(data, "")
    except ConfigError as exc:
        return str(exc).removeprefix(": ")
    return None


def incomplete_invocation(runs: Any) -> JsonObject | None:
    """The latest ``agent_runs`` entry when it did not finish (``incomplete: true``), else None:
    what `test` marks, `validate` warns about and `agent --resume` continues."""
    latest = runs[-1] if isinstance(runs, list) and runs else None
    return latest if isinstance(latest, dict) and latest.get("incomplete") is True else None
