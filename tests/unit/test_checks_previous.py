"""References kept from one version to the next (verdict/checks/previous.py, operations §4.4.2):
an earlier capture's shared parameters and $ref paths, per operation, are still documented, or an
alias names them; a mention is no alias; an operation gone is not judged; no earlier capture, no
finding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bundle_builders import conformant_bundle, run

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.evidence.previous import previous_version, references
from mcpaql_conformance.verdict.checks.introspection import operation_details
from mcpaql_conformance.verdict.model import Result

RULE = "operations:4.4.2:preserve-refs"


def listing(*parameters: dict[str, Any]) -> dict[str, Any]:
    return {"name": "list_widgets", "semantic_category": "READ", "description": "List widgets.",
            "parameters": list(parameters), "returns": {"name": "WidgetPage", "kind": "object"}}  # fmt: skip


def param(name: str, description: str = "A page control.", **extra: Any) -> dict[str, Any]:
    return {"name": name, "type": "string", "required": False, "description": description, **extra}


def test_references_are_shared_parameter_names_and_ref_paths() -> None:
    details = [listing(param("sort"), param("order"), param("color"), {"name": "filter", "$ref": "#/shared/filter"}),
               {"name": "get_widget", "parameters": [param("widget_id")]}, "not an object"]  # fmt: skip
    assert references(details) == {"list_widgets": ["sort", "order", "filter", "#/shared/filter"], "get_widget": []}


def judged(earlier: list[str], *now: dict[str, Any]) -> Any:
    """get_widget documenting ``now`` beside its own parameters, after a version documenting ``earlier``."""
    data = conformant_bundle()
    detail = next(d for d in data["introspection"]["operation_details"] if d["name"] == "get_widget")
    detail["parameters"] = [*detail["parameters"], *now]
    data["previous_version"] = {"bundle": "v1.json", "implementation": "widgets", "version": "1.0",
                                "references": {"get_widget": earlier, "gone_operation": ["sort"]}}  # fmt: skip
    return run(operation_details, data)


def cited(outcome: Any) -> list[tuple[str, str]]:
    return [(str(f), getattr(f, "rule", "")) for f in outcome.findings if getattr(f, "rule", "") == RULE]


def test_a_reference_kept_or_aliased_passes() -> None:
    assert cited(judged(["sort", "order"], param("sort"), param("order"))) == []
    aliased = param("sort", "Sort {field, order}. `order` is still accepted as an alias of sort.direction.")
    assert cited(judged(["sort", "order"], aliased)) == []
    assert cited(judged(["sort", "order"], param("sort", aliases=["order"]))) == []


def test_a_reference_dropped_with_no_alias_warns_even_where_mentioned() -> None:
    mentioned = param("first", "Items from the start; not with `last` or `before`.")
    outcome = judged(["first", "last", "before"], mentioned)
    assert outcome.result is Result.WARN  # a SHOULD
    assert cited(outcome) == [
        ("get_widget: `last`, `before`, documented by the previous version (widgets 1.0, v1.json), no longer "
         "documented, and no alias names them", RULE)
    ]  # fmt: skip


def test_the_earlier_bundle_is_read_as_untrusted_input(tmp_path: Path) -> None:
    broken = tmp_path / "old.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"old\.json"):
        previous_version(broken)
    data = conformant_bundle()
    good = tmp_path / "v1.json"
    good.write_text(json.dumps(data), encoding="utf-8")
    kept = previous_version(good)
    assert kept["bundle"] == "v1.json" and kept["references"]["get_widget"] == ["fields"]
    assert set(kept["references"]) == {"introspect", "create_widget", "get_widget", "update_widget", "delete_widget"}
