"""What a server's answers look like, gathered from evidence: an evidence bundle, or a capture
folder (one record per exchange, as ``capture --capture-dir`` writes them; folders are read
recursively, and a bundle found in a folder counts as a bundle).

A ``Source`` holds, per operation, the data of every successful answer and what introspection
declared (the return type, the parameters, the documented fields). ``schemas`` infers output
schemas from it; ``diff`` compares two of them. Reading is linear in the size of the evidence;
files that are not regular files are skipped in folders and refused when named.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.evidence.bundle import Bundle, JsonObject, bundle_from_data, load_bundle
from mcpaql_conformance.evidence.reading import (
    TYPE_NAME_KEYS,
    Readings,
    data_of,
    name_of,
    read_detail,
    read_type,
    returned_type,
)
from mcpaql_conformance.files.jsonio import load_json_file
from mcpaql_conformance.sanitize import plain

IGNORED = frozenset({"introspect"})  # the spec's own operation: its shape is not the server's


@dataclass
class Source:
    """What one or more bundles or capture folders show about a server."""

    label: str
    samples: dict[str, list[Any]] = field(default_factory=dict)  # operation -> data of successful answers
    details: dict[str, JsonObject] = field(default_factory=dict)  # operation -> OperationDetails
    types: dict[str, JsonObject] = field(default_factory=dict)  # type name -> TypeDetails
    bundles: list[Bundle] = field(default_factory=list)

    def add(self, operation: Any, response: Any) -> None:
        if isinstance(operation, str) and operation not in IGNORED and classify(response).succeeded:
            self.samples.setdefault(operation, []).append(data_of(response)[0])

    @property
    def operations(self) -> list[str]:
        """Every operation the evidence names: described, or answered."""
        return sorted({*self.details, *self.samples} - IGNORED)

    def returns(self, operation: str) -> str | None:
        return returned_type(self.details.get(operation, {}).get("returns"))

    def documented(self, operation: str) -> dict[str, str]:
        """Field descriptions for an operation's data, from the type its `returns` names."""
        declared = self.returns(operation)
        shape = self.types.get(declared.removesuffix("[]")) if declared else None
        fields = shape.get("fields") if isinstance(shape, dict) else None
        prefix = "[]." if declared and declared.endswith("[]") else ""
        found: dict[str, str] = {}
        for entry in fields if isinstance(fields, list) else []:
            name = name_of(entry, ("name", "field", "key"))[0]
            if name is not None and isinstance(entry.get("description"), str):
                found[prefix + name] = entry["description"]
        return found


def load_sources(paths: list[Path], label: str | None = None) -> Source:
    """One Source from bundles and capture folders (a missing path is a ConfigError)."""
    source = Source(label or ", ".join(plain(str(path)) for path in paths))
    for path in paths:
        if path.is_dir():
            _read_folder(source, path)
        elif path.exists():
            _add_bundle(source, load_bundle(path))
        else:
            raise ConfigError(f"not found: {plain(str(path))}")
    return source


def _read_folder(source: Source, folder: Path) -> None:
    files = sorted(p for p in folder.rglob("*.json") if p.is_file())
    if not files:
        raise ConfigError(f"{plain(str(folder))}: no capture records or bundles (*.json) in this folder")
    for path in files:
        data = load_json_file(path, "capture record")
        if isinstance(data, dict) and isinstance(data.get("operation"), str) and "response" in data:
            _add_record(source, data)
        elif isinstance(data, dict) and isinstance(data.get("introspection"), dict):
            _add_bundle(source, bundle_from_data(data, plain(str(path))))
        # anything else in a capture folder (metrics.json, stderr logs) is not evidence of shapes


def _add_record(source: Source, record: JsonObject) -> None:
    response = record["response"]
    if record.get("probe") == "batch":
        return  # a batch's answer is the batch envelope, not an operation's data
    if record["operation"] != "introspect":
        source.add(record["operation"], response)
        return
    data, _ = data_of(response)
    if not isinstance(data, dict):
        return
    detail, kind = data.get("operation"), data.get("type")
    if isinstance(detail, dict) and (name := name_of(detail)[0]) is not None:
        source.details.setdefault(name, read_detail(detail, Readings()))
    if isinstance(kind, dict) and (name := name_of(kind, TYPE_NAME_KEYS)[0]) is not None:
        source.types.setdefault(name, read_type(kind, Readings()))


def _add_bundle(source: Source, bundle: Bundle) -> None:
    source.bundles.append(bundle)
    for detail in bundle.operation_details:
        if isinstance(detail, dict) and isinstance(detail.get("name"), str) and detail["name"]:
            source.details.setdefault(detail["name"], detail)  # the spec's shape, read as is
        elif isinstance(detail, dict) and (name := name_of(detail)[0]) is not None:
            source.details.setdefault(name, read_detail(detail, Readings()))
    for entry in bundle.introspection.get("type_details") or []:
        if isinstance(entry, dict) and (name := name_of(entry, TYPE_NAME_KEYS)[0]) is not None:
            source.types.setdefault(name, read_type(entry, Readings()))
    for operation, _, response in successful_candidates(bundle):
        source.add(operation, response)


def successful_candidates(bundle: Bundle) -> Iterator[tuple[Any, str, Any]]:
    """(operation, JSON path, response) of every answer the bundle ties to an operation: plan
    examples, calls without optional parameters, the batch's results and agent runs' calls sent."""
    for index, case in enumerate(bundle.cases("valid_requests")):
        yield case.get("operation"), f"$.valid_requests[{index}].response", case.get("response")
    for kind in ("optional_defaults", "optional_omitted"):
        for index, case in enumerate(bundle.parameter_cases(kind)):
            yield case.get("operation"), f"$.parameter_tests.{kind}[{index}].response", case.get("response")
    batch = bundle.batch_example
    results = batch.get("results") if isinstance(batch, dict) else None
    for index, item in enumerate(results if isinstance(results, list) else []):
        if isinstance(item, dict):
            yield item.get("operation"), f"$.batch_example.results[{index}].result", item.get("result")
    for index, test in enumerate(bundle.cases("agent_tests")):
        for run_index, run in enumerate(test.get("runs") or []):
            calls = run.get("tool_calls") if isinstance(run, dict) else None
            for call_index, call in enumerate(calls if isinstance(calls, list) else []):
                if isinstance(call, dict) and call.get("outcome") == "sent":
                    path = f"$.agent_tests[{index}].runs[{run_index}].tool_calls[{call_index}].response"
                    yield call.get("operation"), path, call.get("response")
