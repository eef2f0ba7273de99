"""verify-fixtures: expanding paths and judging each bundle against its expected exit code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from bundle_builders import conformant_bundle

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.evidence.bundle import bundle_files as bundle_paths
from mcpaql_conformance.verdict.verify import FixtureOutcome, verify, verify_one


def write(path: Path, data: Any) -> Path:
    path.write_bytes(orjson.dumps(data))
    return path


# bundle_paths


def test_a_folder_expands_to_its_json_files_sorted(tmp_path: Path) -> None:
    for name in ["b.json", "a.json", "c.json"]:
        write(tmp_path / name, {})
    (tmp_path / "notes.txt").write_text("not a bundle")
    (tmp_path / "sub.json").mkdir()
    assert [p.name for p in bundle_paths([tmp_path])] == ["a.json", "b.json", "c.json"]


def test_folders_are_not_searched_recursively(tmp_path: Path) -> None:
    write(tmp_path / "a.json", {})
    (tmp_path / "nested").mkdir()
    write(tmp_path / "nested" / "b.json", {})
    assert bundle_paths([tmp_path]) == [tmp_path / "a.json"]


def test_files_are_kept_in_the_order_given(tmp_path: Path) -> None:
    second = write(tmp_path / "z.json", {})
    first = write(tmp_path / "a.json", {})
    assert bundle_paths([second, first]) == [second, first]


def test_files_and_folders_combine(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    folder.mkdir()
    write(folder / "x.json", {})
    single = write(tmp_path / "single.json", {})
    assert bundle_paths([single, folder]) == [single, folder / "x.json"]


def test_a_missing_path_is_a_config_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(ConfigError) as caught:
        bundle_paths([missing], "fixture path")
    assert str(caught.value) == f"fixture path not found: {missing}"


def test_an_empty_folder_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        bundle_paths([tmp_path])
    assert str(caught.value) == f"{tmp_path}: no bundles (*.json) in this folder"


# verify_one


def test_a_bundle_meeting_its_expected_exit_code_matches(tmp_path: Path) -> None:
    path = write(tmp_path / "good.json", conformant_bundle())
    outcome = verify_one(path)
    assert outcome.matches
    assert (outcome.expected, outcome.got, outcome.error) == (0, 0, None)
    assert outcome.report is not None
    assert outcome.report.requested_level == 2
    assert outcome.line() == f"PASS {path} -> expected 0, got 0"


def test_a_bundle_missing_its_expected_exit_code_does_not_match(tmp_path: Path) -> None:
    data = conformant_bundle()
    data["expected_exit_code"] = 1
    path = write(tmp_path / "wrong.json", data)
    outcome = verify_one(path)
    assert not outcome.matches
    assert outcome.line() == f"FAIL {path} -> expected 1, got 0"


def test_the_expected_level_is_requested(tmp_path: Path) -> None:
    data = conformant_bundle()
    del data["constraint_tests"]
    data["expected_exit_code"] = 2
    outcome = verify_one(write(tmp_path / "l2.json", data))
    assert outcome.got == 2
    assert outcome.matches


def test_level_1_is_requested_when_no_level_is_declared(tmp_path: Path) -> None:
    data = conformant_bundle()
    del data["expected_level"]
    del data["constraint_tests"]
    outcome = verify_one(write(tmp_path / "l1.json", data))
    assert outcome.report is not None
    assert outcome.report.requested_level == 1
    assert outcome.got == 0


def test_a_bundle_without_an_expected_exit_code_never_matches(tmp_path: Path) -> None:
    data = conformant_bundle()
    del data["expected_exit_code"]
    path = write(tmp_path / "undeclared.json", data)
    outcome = verify_one(path)
    assert outcome.expected is None
    assert not outcome.matches
    assert outcome.line() == f"FAIL {path} -> expected (not declared), got 0"


def test_invalid_json_gets_3_and_cannot_match(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_bytes(b'{"expected_exit_code": 3,')
    outcome = verify_one(path)
    assert (outcome.expected, outcome.got) == (None, 3)
    assert not outcome.matches
    assert outcome.error is not None
    assert outcome.error.startswith(f"{path}:1:")
    assert outcome.line() == f"FAIL {path} -> expected (not declared), got 3"


def test_an_invalid_shape_that_expects_3_got_3_and_matches(tmp_path: Path) -> None:
    path = write(tmp_path / "config.json", {"expected_exit_code": 3, "introspection": []})
    outcome = verify_one(path)
    assert (outcome.expected, outcome.got) == (3, 3)
    assert outcome.matches
    assert outcome.report is None
    assert outcome.error == f"{path}: $.introspection: expected an object, got array"
    assert outcome.line() == f"PASS {path} -> expected 3, got 3"


def test_an_invalid_shape_that_expects_a_verdict_got_3_and_fails(tmp_path: Path) -> None:
    path = write(tmp_path / "config.json", {"expected_exit_code": 0, "error_tests": [{"response": {}}]})
    outcome = verify_one(path)
    assert (outcome.expected, outcome.got) == (0, 3)
    assert not outcome.matches
    assert outcome.error is not None
    assert "$.error_tests[0]: missing required property 'name'" in outcome.error


def test_a_non_object_bundle_got_3_without_an_expectation(tmp_path: Path) -> None:
    outcome = verify_one(write(tmp_path / "list.json", [{"expected_exit_code": 3}]))
    assert (outcome.expected, outcome.got) == (None, 3)
    assert not outcome.matches


def test_a_boolean_expected_exit_code_is_not_a_declaration(tmp_path: Path) -> None:
    outcome = verify_one(write(tmp_path / "bool.json", {"expected_exit_code": True}))
    assert outcome.expected is None
    assert outcome.got == 3


def test_an_expected_exit_code_written_as_a_float_is_a_declaration(tmp_path: Path) -> None:
    path = tmp_path / "float.json"
    path.write_bytes(orjson.dumps(conformant_bundle()).replace(b'"expected_exit_code":0', b'"expected_exit_code":0.0'))
    outcome = verify_one(path)
    assert outcome.expected == 0
    assert outcome.matches


def test_a_missing_file_got_3(tmp_path: Path) -> None:
    outcome = verify_one(tmp_path / "absent.json")
    assert outcome.got == 3
    assert outcome.error is not None
    assert outcome.error.startswith("bundle not found: ")


def test_the_tier_is_passed_to_the_evaluation(tmp_path: Path) -> None:
    data = conformant_bundle()
    data["semantic_tests"][0]["semantic"]["expected_operations"] = ["create_widget"]
    data["expected_exit_code"] = 0
    path = write(tmp_path / "tiers.json", data)
    assert verify_one(path, tier="both").got == 2
    assert verify_one(path, tier="1").got == 0


def test_the_outcome_line_has_no_control_characters(tmp_path: Path) -> None:
    outcome = FixtureOutcome(tmp_path / "evil\x1b[31m\n.json", 0, 0)
    line = outcome.line()
    assert "\x1b" not in line
    assert "\n" not in line
    assert line.startswith("PASS ")


# verify


def test_verify_judges_every_bundle_of_a_folder_in_order(tmp_path: Path) -> None:
    write(tmp_path / "a-good.json", conformant_bundle())
    write(tmp_path / "b-config.json", {"expected_exit_code": 3, "error_tests": {}})
    (tmp_path / "c-broken.json").write_bytes(b"{")
    outcomes = list(verify([tmp_path]))
    assert [(o.path.name, o.got, o.matches) for o in outcomes] == [
        ("a-good.json", 0, True),
        ("b-config.json", 3, True),
        ("c-broken.json", 3, False),
    ]


def test_verify_of_a_missing_path_raises_before_judging(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="fixture path not found"):
        list(verify([tmp_path / "missing"]))
