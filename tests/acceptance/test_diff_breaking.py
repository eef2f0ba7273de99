"""`diff` as a release gate (issue 28): every breaking change is caught and none is invented,
each shown with a pair of small bundles of our own, in both directions. Values are compared as
JSON (``true`` is not ``1``), schemas structurally (items, properties, enums, unions as sets),
every test on either side is compared, and names that read the same are shown apart."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.conftest import ROOT, minimal_conformant_bundle, run_cli

Bundle = dict[str, Any]
Edit = Callable[[Bundle], None]


def answering(data: Any) -> Bundle:
    """The minimal bundle, with get_bookmark answering ``data``."""
    bundle = minimal_conformant_bundle()
    request = {
        "operation": "get_bookmark",
        "params": {"bookmark_id": "b1"},
        "response": {"success": True, "data": data},
    }
    bundle["valid_requests"] = [request]
    return bundle


def parameter(bundle: Bundle, operation: str, name: str) -> Bundle:
    detail = next(d for d in bundle["introspection"]["operation_details"] if d["name"] == operation)
    return next(p for p in detail["parameters"] if p["name"] == name)


def diff(tmp_path: Path, old: Bundle, new: Bundle, *flags: str) -> tuple[int, list[tuple[str, str, str, bool]]]:
    paths = []
    for name, bundle in (("old", old), ("new", new)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(bundle))
        paths.append(str(path))
    result = run_cli("diff", *paths, "-f", "json", *flags)
    assert result.returncode in (0, 1), result.stderr
    changes = json.loads(result.stdout)["changes"]
    return result.returncode, [(c["kind"], c["subject"], c["what"], c["breaking"]) for c in changes]


# --- answers: compared as JSON on the inferred schemas, whatever the samples' equality --------------


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ({"pinned": True}, {"pinned": 1}, [("get_bookmark:data.pinned", "now integer, was boolean", True)]),
        ({"pinned": 1}, {"pinned": True}, [("get_bookmark:data.pinned", "now boolean, was integer", True)]),
        ({"count": 3}, {"count": 3.5}, [("get_bookmark:data.count", "now number, was integer", True)]),
        ({"count": 3.5}, {"count": 3}, [("get_bookmark:data.count", "now integer, was number", False)]),
        ({"count": 3}, {"count": 3.0}, []),  # 3.0 is the integer 3
        (
            {"tags": ["a"]},
            {"tags": ["a", None]},
            [("get_bookmark:data.tags[]", "now null or string, was string", True)],
        ),
        ({"a": 1, "b": "x"}, {"b": "y", "a": 2}, []),  # other values, the same shape
    ],
)
def test_answer_shapes(tmp_path: Path, before: Any, after: Any, expected: list[tuple[str, str, bool]]) -> None:
    code, changes = diff(tmp_path, answering(before), answering(after))
    assert [(subject, what, breaking) for kind, subject, what, breaking in changes if kind == "response"] == expected
    assert code == (1 if any(breaking for *_, breaking in expected) else 0)


# --- parameters: a request schema, compared recursively -----------------------------------------


def retyped(**declared: Any) -> Edit:
    def edit(bundle: Bundle) -> None:
        tags = parameter(bundle, "create_bookmark", "title")
        tags.clear()
        tags.update({"name": "title", "required": False, **declared})

    return edit


PARAMETER_CASES = [
    # enum values as JSON: true and 1 are different values
    ({"type": "boolean", "enum": [True, False]}, {"type": "integer", "enum": [1, 0]}, [
        ("create_bookmark.title", "type changed from boolean to integer", True),
        ("create_bookmark.title", "enum values removed: true, false", True),
        ("create_bookmark.title", "enum values added: 1, 0", False),
    ]),
    ({"type": "string"}, {"type": "string", "enum": ["asc"]}, [
        ("create_bookmark.title", 'enum added: only "asc"', True),
    ]),
    ({"type": "string", "enum": ["asc"]}, {"type": "string"}, [
        ("create_bookmark.title", "enum dropped: any value of the type", False),
    ]),
    # inside items and properties
    ({"type": "array", "items": {"type": "string"}}, {"type": "array", "items": {"type": "integer"}}, [
        ("create_bookmark.title[]", "type changed from string to integer", True),
    ]),
    ({"type": "string[]"}, {"type": "array", "items": {"type": "string", "enum": ["a"]}}, [
        ("create_bookmark.title[]", 'enum added: only "a"', True),
    ]),
    ({"type": "object", "properties": {"x": {"type": "string"}}},
     {"type": "object", "properties": {"x": {"type": "integer"}}}, [
        ("create_bookmark.title.x", "type changed from string to integer", True),
    ]),
    ({"type": "object", "properties": {"x": {"type": "string"}}},
     {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "string"}}, "required": ["y"]}, [
        ("create_bookmark.title.y", "added (required)", True),
    ]),
    ({"type": "object"}, {"type": "object", "additionalProperties": False}, [
        ("create_bookmark.title", "no longer takes properties it does not name (additionalProperties: false)", True),
    ]),
    # unions are sets: another order is no change; a member dropped narrows, one added widens
    ({"type": ["string", "null"]}, {"type": ["null", "string"]}, []),
    ({"type": "string | null"}, {"type": "null | string"}, []),
    ({"type": "string", "nullable": True}, {"type": ["null", "string"]}, []),
    ({"type": "string | null"}, {"type": "string"}, [
        ("create_bookmark.title", "type changed from null | string to string", True),
    ]),
    ({"type": "integer"}, {"type": "number"}, [
        ("create_bookmark.title", "type changed from integer to number", False),
    ]),
    ({"type": "number"}, {"type": "integer"}, [
        ("create_bookmark.title", "type changed from number to integer", True),
    ]),
    ({"type": "string", "maxLength": 80}, {"type": "string", "maxLength": 40}, [
        ("create_bookmark.title", "maxLength changed from 80 to 40", True),
    ]),
    ({"type": "string", "maxLength": 40}, {"type": "string", "maxLength": 80}, [
        ("create_bookmark.title", "maxLength changed from 40 to 80", False),
    ]),
]  # fmt: skip


@pytest.mark.parametrize(("before", "after", "expected"), PARAMETER_CASES)
def test_parameters(tmp_path: Path, before: Bundle, after: Bundle, expected: list[tuple[str, str, bool]]) -> None:
    old, new = minimal_conformant_bundle(), minimal_conformant_bundle()
    retyped(**before)(old)
    retyped(**after)(new)
    code, changes = diff(tmp_path, old, new)
    assert [(subject, what, breaking) for kind, subject, what, breaking in changes if kind == "parameter"] == expected
    assert code == (1 if any(breaking for *_, breaking in changes) else 0)  # a verdict may change too


def test_the_same_bundle_twice_is_no_change(tmp_path: Path) -> None:
    bundle = answering({"pinned": True, "count": 3, "tags": ["a"]})
    code, changes = diff(tmp_path, bundle, copy.deepcopy(bundle), "--fail-on", "any")
    assert (code, changes) == (0, [])


# --- verdicts: every test on either side --------------------------------------------------------

SEMANTIC = ROOT / "fixtures" / "cat-semantic-tier2-fail-contacts.json"


def test_a_new_test_that_fails_and_a_test_no_longer_run_are_breaking(tmp_path: Path) -> None:
    new = json.loads(SEMANTIC.read_text())  # its semantic test "discover how to add a contact" fails
    old = copy.deepcopy(new)
    old["semantic_tests"] = [t for t in old["semantic_tests"] if t["name"] != "Discover how to add a contact"]
    assert run_cli("test", str(SEMANTIC), "-l", "2").returncode == 2
    code, changes = diff(tmp_path, old, new, "--level", "2")
    assert ("verdict", "L2.semantic.discover-how-to-add-a-contact", "added: FAIL", True) in changes
    assert code == 1
    _, backwards = diff(tmp_path, new, old, "--level", "2")
    assert ("verdict", "L2.semantic.discover-how-to-add-a-contact", "no longer run (was FAIL)", True) in backwards


def test_a_test_added_with_a_pass_is_no_breaking_change(tmp_path: Path) -> None:
    new = json.loads(SEMANTIC.read_text())
    old = copy.deepcopy(new)
    old["semantic_tests"] = [t for t in old["semantic_tests"] if t["name"] != "Ask for fewer fields"]
    code, changes = diff(tmp_path, old, new, "--level", "2", "--fail-on", "breaking")
    assert ("verdict", "L2.semantic.ask-for-fewer-fields", "added: PASS", False) in changes
    assert not [c for c in changes if c[3]], changes
    assert code == 0


# --- names that read the same are shown apart ------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "shown"), [("get_bookmark\u200b", "get_bookmark\\u200b"), ("get_b\u043eokmark", "get_b\\u043eokmark")]
)
def test_names_that_differ_by_an_invisible_or_look_alike_character_read_differently(
    tmp_path: Path, name: str, shown: str
) -> None:
    old = minimal_conformant_bundle()
    new = copy.deepcopy(old)
    detail = next(d for d in new["introspection"]["operation_details"] if d["name"] == "get_bookmark")
    detail["name"] = name
    paths = [tmp_path / "old.json", tmp_path / "new.json"]
    for path, bundle in zip(paths, (old, new), strict=True):
        path.write_text(json.dumps(bundle))
    text = run_cli("diff", *map(str, paths)).stdout
    assert "  BREAKING get_bookmark: removed" in text.splitlines()
    assert f"  {shown}: added" in text.splitlines()
    markdown = run_cli("diff", *map(str, paths), "-f", "markdown").stdout
    assert shown.replace("_", "\\_").replace("\\u", "\\\\u") in markdown or shown.replace("_", "\\_") in markdown
    assert name not in text and name not in markdown
