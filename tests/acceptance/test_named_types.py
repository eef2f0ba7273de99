"""Named types are types, values keep format, pattern and bounds together, keys of new records
are new, and identifiers are what the server documents (issue 34). The pantry of
tests/acceptance/pantry_server.py was written from the spec text alone over streamable HTTP
with the SDK's decorator API: `input: ItemUpdateInput`, `location: Location`, arrays of
`Ingredient` and `SupplierContact`, a `date` with a digits pattern, `email`, `uri`, `date-time`
and `uuid` formats, records keyed by `sku` and `supplier_code` (never `*_id`), unique keys, and
seed records whose keys are the examples its details show. It gets Level 2 without a plan."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.conftest import run_cli

pytestmark = pytest.mark.xdist_group("pantry")  # one worker starts the servers and runs the checks
PANTRY = Path(__file__).with_name("pantry_server.py")
# Unavoidable without a model: semantic evaluation (constraints: capture's own read-only field).
UNAVOIDABLE = {"L2.semantic.evidence"}


def start(mode: str, log: Path) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [sys.executable, str(PANTRY), "--port", "0", "--mode", mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PANTRY_LOG": str(log)},
    )
    assert server.stdout is not None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        if line.startswith("PANTRY_URL="):
            return server, line.strip().removeprefix("PANTRY_URL=")
        if not line and server.poll() is not None:
            break
    server.kill()
    raise AssertionError("the pantry server did not start")


@pytest.fixture(scope="module")
def pantry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder where both configurations of the pantry run (semantic and single mode)."""
    folder = tmp_path_factory.mktemp("pantry")
    servers = [start(mode, folder / f"{mode}.jsonl") for mode in ("semantic", "single")]
    (folder / "urls.json").write_text(json.dumps([url for _, url in servers]))
    yield folder
    for server, _ in servers:
        server.terminate()
        server.wait(10)


@cache
def checked(folder: Path, *flags: str) -> tuple[dict[str, Any], int, Path]:
    """(the JSON report, the exit code, the records folder) of one check of both configurations."""
    semantic, single = json.loads((folder / "urls.json").read_text())
    records = folder / ("records" + "".join(flags).replace("-", "_"))
    args = ["check", "--level", "2", *flags, "-f", "json", "--capture-dir", str(records)]
    result = run_cli(*args, "--url", semantic, "--also-url", single)
    assert result.returncode in (0, 1, 2), result.stderr
    return json.loads(result.stdout), result.returncode, records


def by_id(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {test["id"]: test for category in report["categories"] for test in category["tests"]}


def not_passed(report: dict[str, Any]) -> dict[str, str]:
    return {key: test["result"] for key, test in by_id(report).items() if test["result"] not in ("PASS", "SKIP")}


def calls(folder: Path, operation: str) -> list[dict[str, Any]]:
    """Every call of an operation the two servers logged (batch members not among them)."""
    found = []
    for log in folder.glob("*.jsonl"):
        for line in log.read_text().splitlines():
            call = json.loads(line)
            if call.get("operation") == operation and isinstance(call.get("params"), dict):
                found.append(call["params"])
    return found


def records(folder: Path) -> Iterator[dict[str, Any]]:
    for path in folder.rglob("*.json"):
        record = json.loads(path.read_text())
        if isinstance(record, dict) and "response" in record:
            yield record


def test_level_2_without_a_plan(pantry: Path) -> None:
    report, code, _ = checked(pantry, "--allow-destructive")
    assert report["conformanceLevel"] == 2, not_passed(report)
    assert set(not_passed(report)) == UNAVOIDABLE, not_passed(report)
    assert code == 2


def test_an_update_input_of_a_named_object_type_is_an_object(pantry: Path) -> None:
    report, _, _ = checked(pantry, "--allow-destructive")
    details = by_id(report)["L1.introspection.operation-details"]
    assert details["result"] == "PASS" and "not an object" not in json.dumps(report)
    preserved = by_id(report)["L1.roundtrip.update-preservation"]
    assert preserved["result"] == "PASS" and preserved["detail"].startswith("1 update-read cycle(s) read back")


def test_parameters_and_items_of_named_types_are_sent_as_their_objects(pantry: Path) -> None:
    checked(pantry, "--allow-destructive")
    items = [params for params in calls(pantry, "create_item") if "location" in params]
    assert items and all(isinstance(params["location"], dict) for params in items), items
    assert all({"shelf", "bin"} <= set(params["location"]) for params in items), items
    ingredients = [item for params in calls(pantry, "create_item") for item in params.get("ingredients") or []]
    assert ingredients and all(isinstance(item, dict) and {"name", "quantity"} <= set(item) for item in ingredients)
    contacts = [item for params in calls(pantry, "create_supplier") for item in params.get("contacts") or []]
    assert contacts and all(isinstance(item, dict) for item in contacts), contacts


def test_values_keep_their_format_pattern_and_bounds_together(pantry: Path) -> None:
    checked(pantry, "--allow-destructive")
    dates = [params["best_before"] for params in calls(pantry, "create_item") if "best_before" in params]
    assert dates and all(re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", date) for date in dates), dates
    assert all(dt.date.fromisoformat(date) for date in dates)  # a real date, never 6529-59-39
    suppliers = calls(pantry, "create_supplier")
    for params in suppliers:
        if "registered_at" in params:
            dt.datetime.fromisoformat(params["registered_at"].replace("Z", "+00:00"))
        if "email" in params:
            assert re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", params["email"]), params
        if "website" in params:
            assert params["website"].startswith("https://"), params
    uuids = [params["batch_uuid"] for params in calls(pantry, "create_item") if "batch_uuid" in params]
    assert uuids and all(uuid.UUID(value) for value in uuids)
    bins = [params["location"]["bin"] for params in calls(pantry, "create_item") if "location" in params]
    assert all(1 <= bin_ <= 40 for bin_ in bins), bins


def test_keys_of_new_records_are_new_in_the_run(pantry: Path) -> None:
    _, _, folder = checked(pantry, "--allow-destructive")
    conflicts = [
        (record.get("operation"), record.get("_description"))
        for record in records(folder)
        if str(((record.get("response") or {}).get("error") or {}).get("code", "")).startswith("CONFLICT")
    ]
    assert conflicts == []
    skus = [params["sku"] for params in calls(pantry, "create_item") if "sku" in params]
    assert skus and "ABC-1234" not in skus and "XYZ-0042" not in skus  # the seed records' (and the examples')
    assert all(re.fullmatch(r"[A-Z]{3}-[0-9]{4}", sku) for sku in skus)


def test_identifiers_are_what_the_server_documents(pantry: Path) -> None:
    """`sku` and `supplier_code` name records: the update cycle runs on `sku`, a new item refers to
    a supplier the server has, and the changes list names what each call touched."""
    report, _, _ = checked(pantry, "--allow-destructive")
    assert "takes no parameter that names a record" not in json.dumps(report)
    known = {"SUP-001"} | {params.get("supplier_code") for params in calls(pantry, "create_supplier")}
    referred = [params["supplier_code"] for params in calls(pantry, "create_item") if "supplier_code" in params]
    assert referred and set(referred) <= known, referred
    deletes = [line for line in report.get("changes", []) if line.startswith(("delete_item", "delete_supplier"))]
    assert deletes and all("no identifier" not in line for line in deletes), deletes


def test_a_read_only_check_calls_only_read_operations(pantry: Path) -> None:
    before = {log.name: len(log.read_text().splitlines()) for log in pantry.glob("*.jsonl")}
    report, _, _ = checked(pantry)
    written = []
    for log in pantry.glob("*.jsonl"):
        for line in log.read_text().splitlines()[before[log.name] :]:
            call = json.loads(line)
            operation = str(call.get("operation"))
            batch = call.get("operation") is None and "operations" in (call.get("top_level") or {})
            made_up = operation == "mcpaql_conformance_no_such_operation"  # to the READ tool: refused
            if not operation.startswith(("get_", "list_", "introspect")) and not batch and not made_up:
                written.append(operation)
    assert written == []
    assert "FAIL" not in {test["result"] for test in by_id(report).values()}
