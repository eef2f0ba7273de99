"""outputs.schema_file_names: one file per operation, never two alike."""

from __future__ import annotations

import re

from mcpaql_conformance.shapes.outputs import schema_file_names


def test_safe_names_keep_their_name() -> None:
    assert schema_file_names(["list_notes", "get-note", "v2.read"]) == {
        "list_notes": "list_notes.schema.json",
        "get-note": "get-note.schema.json",
        "v2.read": "v2.read.schema.json",
    }


def test_names_that_collide_once_made_safe_get_a_file_each() -> None:
    operations = ["x/y", "x_y", "x_y.2", "x y", "x\u200by", "..", "", "unnamed", "x_y-2"]
    names = schema_file_names(operations)
    assert len({name.casefold() for name in names.values()}) == len(operations)
    assert names["x_y"] == "x_y.schema.json" and names["x_y.2"] == "x_y.2.schema.json"
    assert re.fullmatch(r"x_y-[0-9a-f]{10}\.schema\.json", names["x/y"])
    assert all(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*\.schema\.json", name) for name in names.values())


def test_names_differing_only_in_case_get_different_files_on_any_file_system() -> None:
    names = schema_file_names(["Note", "note", "NOTE", "other"])
    assert len({name.casefold() for name in names.values()}) == 4
    assert names["other"] == "other.schema.json"


def test_a_name_is_the_same_whatever_else_is_listed() -> None:
    alone = schema_file_names(["x/y"])["x/y"]
    assert schema_file_names(["a", "x/y", "x_y", "z"])["x/y"] == alone


def test_a_server_naming_an_operation_like_another_ones_digest_still_gets_its_own_file() -> None:
    digest_name = schema_file_names(["x/y"])["x/y"].removesuffix(".schema.json")
    names = schema_file_names(["x/y", digest_name])
    assert names[digest_name] == f"{digest_name}.schema.json"
    assert names["x/y"] == f"{digest_name}-2.schema.json"


def test_long_names_are_cut_to_a_usable_length() -> None:
    names = schema_file_names(["a" * 300, "a" * 301])
    assert len(set(names.values())) == 2
    assert all(len(name) < 120 for name in names.values())
