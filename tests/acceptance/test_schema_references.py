"""Every `$schema` the repository ships resolves to a schema file of the repository, the one the
file is checked against; written plans point at the installed schema; old addresses still load;
`schema --help` says how to wire an editor."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from mcpaql_conformance.agent.scenario import load_scenario
from mcpaql_conformance.agent.tasks import load_tasks
from mcpaql_conformance.capture.plan_writer import schema_reference
from mcpaql_conformance.files.configio import check_document, load_config_file
from mcpaql_conformance.files.kinds import LEGACY_PLAN_SCHEMA, PLAN, kind_of
from mcpaql_conformance.live.plan import load_plan
from tests.acceptance.conftest import ROOT, run_cli

SCHEMAS = ROOT / "mcpaql_conformance" / "files" / "schemas"
SKIPPED_DIRS = {".git", ".venv", "out", "node_modules", "__pycache__", "mcpaql_conformance.egg-info", "schemas"}
MODELINE = re.compile(r"^# yaml-language-server: \$schema=(\S+)$", re.MULTILINE)
OLD = "https://mcpaql-conformance.dev/schemas/{}.schema.json"


def shipped_documents() -> list[Path]:
    """The repository's JSON and YAML files that name a schema (not the schemas themselves, nor what
    tools write)."""
    found = []
    for path in sorted(ROOT.rglob("*")):
        if SKIPPED_DIRS & set(path.relative_to(ROOT).parts) or path.suffix not in (".json", ".yaml", ".yml"):
            continue
        if path.is_file() and "$schema" in path.read_text(encoding="utf-8", errors="replace"):
            found.append(path)
    return found


def schema_of(path: Path) -> tuple[Any, str | None]:
    data = load_config_file(path, "file")
    return data, data.get("$schema") if isinstance(data, dict) else None


def test_every_shipped_schema_reference_is_a_schema_file_the_document_matches(monkeypatch):
    monkeypatch.setenv("DEMO_NOTES_PASSPHRASE", "change-me")
    loaders = {"plan": load_plan, "tasks": load_tasks, "scenario": load_scenario}
    referenced = {}
    for path in shipped_documents():
        data, reference = schema_of(path)
        if reference is None:
            continue
        assert "://" not in reference, f"{path}: $schema {reference} is an address, not a file of the repository"
        target = (path.parent / reference).resolve()
        assert target.is_file(), f"{path}: $schema {reference} does not resolve"
        assert target.parent == SCHEMAS, f"{path}: $schema {reference} is not one of our schemas"
        kind = target.name.removesuffix(".schema.json")
        check_document(data, kind, str(path))  # the loaders' own strict check, against that schema
        loaders[kind](path)
        referenced[path.relative_to(ROOT).as_posix()] = kind
        if path.suffix in (".yaml", ".yml"):
            assert MODELINE.findall(path.read_text(encoding="utf-8")) == [reference], path
    assert referenced == {
        "evidence/plans/demo-notes.json": "plan",
        "evidence/tasks/demo-notes.yaml": "tasks",
        "scenarios/demo-notes.yaml": "scenario",
        "scenarios/demo-rate-limit.yaml": "scenario",
    }


def test_no_schema_points_at_an_address_that_serves_nothing():
    for path in [*shipped_documents(), *SCHEMAS.glob("*.json")]:
        assert "mcpaql-conformance.dev" not in path.read_text(encoding="utf-8"), path
    for path in SCHEMAS.glob("*.schema.json"):
        assert json.loads(path.read_text(encoding="utf-8"))["$id"] == f"urn:mcpaql-conformance:schema:{path.name[:-12]}"


def test_a_written_plan_points_at_the_installed_schema(tmp_path):
    for plan in (tmp_path / "plan.json", tmp_path / "deeper" / "still" / "plan.json"):
        reference = schema_reference(plan)
        assert reference is not None and "\\" not in reference
        assert (plan.parent / reference).resolve() == (SCHEMAS / "plan.schema.json").resolve()
        assert kind_of({"$schema": reference, "implementation": "x"}) == PLAN


@pytest.mark.parametrize("reference", [LEGACY_PLAN_SCHEMA, "plan.schema.json", "..\\schemas\\plan.schema.json"])
def test_a_plan_is_known_by_any_reference_to_the_plan_schema(reference):
    assert kind_of({"$schema": reference, "implementation": "x"}) == PLAN
    assert kind_of({"$schema": "https://example.com/other.schema.json", "implementation": "x"}) is None


@pytest.mark.parametrize("reference", ["old", "https://example.com/anything.json", "./nowhere.json"])
def test_the_loaders_accept_any_schema_value(tmp_path, reference):
    for kind in ("plan", "scenario", "tasks"):
        reference = OLD.format(kind) if reference == "old" else reference
        shipped = {
            "plan": ROOT / "evidence" / "plans" / "demo-notes.json",
            "scenario": ROOT / "scenarios" / "demo-notes.yaml",
            "tasks": ROOT / "evidence" / "tasks" / "demo-notes.yaml",
        }[kind]
        data = load_config_file(shipped, kind)
        data["$schema"] = reference
        data.get("env", {}).clear()
        path = tmp_path / f"{kind}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        {"plan": load_plan, "tasks": load_tasks, "scenario": load_scenario}[kind](path)


def test_the_schema_command_says_how_to_wire_an_editor():
    result = run_cli("schema", "--help")
    assert result.returncode == 0, result.stderr
    help_text = result.stdout
    for expected in (
        "mcpaql-conformance schema plan > plan.schema.json",
        '"$schema": "plan.schema.json"',
        "# yaml-language-server: $schema=plan.schema.json",
        '"json.schemas": [{"fileMatch": ["*.plan.json"], "url": "./plan.schema.json"}]',
        '"yaml.schemas": {"./plan.schema.json": "*.plan.yaml"}',
        "--write-plan",
    ):
        assert expected in help_text
