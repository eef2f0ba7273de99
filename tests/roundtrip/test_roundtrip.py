"""Whatever the tool writes, the tool reads (issue 34): generated MCP-AQL servers, of every
shape real servers come in, right and wrong, are captured at every permission level and every
reader of ours must accept what capture wrote (walk.py says how).

Every CI run draws ``MCPAQL_ROUNDTRIP_EXAMPLES`` servers (default 6: about half a minute) and
replays every fixed example in examples/ (servers a failure once shrank to, and hand-picked
ones). A nightly run draws more, e.g.:

    MCPAQL_ROUNDTRIP_EXAMPLES=300 pytest tests/roundtrip -p no:randomly

A failure prints the shrunk description: save it as examples/found-<what>.json, so that it is
replayed by every run from then on.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from mcpaql_conformance.files import schemas
from tests.roundtrip.strategies import describe, servers
from tests.roundtrip.walk import walk

EXAMPLES = Path(__file__).with_name("examples")
DRAWN = int(os.environ.get("MCPAQL_ROUNDTRIP_EXAMPLES", "6"))


def check(description: dict[str, Any], folder: Path) -> None:
    problems = walk(description, folder)
    assert problems == [], (
        f"{describe(description)}: our own formats disagree:\n  " + "\n  ".join(problems)
        + "\nsave the description as tests/roundtrip/examples/found-<what>.json:\n" + json.dumps(description)
    )  # fmt: skip


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.json")), ids=lambda path: path.stem)
def test_every_reader_reads_what_capture_wrote_of_a_fixed_example(example: Path, tmp_path: Path) -> None:
    check(json.loads(example.read_text(encoding="utf-8")), tmp_path)


@settings(
    max_examples=DRAWN,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(description=servers())
def test_every_reader_reads_what_capture_wrote_of_a_generated_server(
    description: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    check(description, tmp_path_factory.mktemp("server"))


def test_the_walk_fails_on_a_word_our_schema_was_never_told(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The mistake of issue 34 reintroduced: the bundle schema without the value source capture
    writes for a safety switch. The walk must fail, saying where and what."""
    document = json.loads(json.dumps(schemas.schema_document("bundle")))
    words = document["$defs"]["ValueSource"]["enum"]
    words.remove("safe value")
    monkeypatch.setattr(schemas, "bundle_schema", lambda: schemas.CompiledSchema(document))
    monkeypatch.setattr("mcpaql_conformance.evidence.bundle.bundle_schema", lambda: schemas.CompiledSchema(document))
    problems = walk(json.loads((EXAMPLES / "safety-switches.json").read_text()), tmp_path, ("destructive",))
    assert problems, "a schema gap went unnoticed"
    assert problems[0].startswith("destructive: capture exited 70: error: internal error: capture wrote a bundle that")
    assert '(not "safe value")' in problems[0] and "the bundle is kept at" in problems[0]


def test_check_on_a_bundle_of_its_own_that_test_refuses_exits_70_and_keeps_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Exit 3 says the user's input is wrong; a bundle `check` captured itself and cannot read is
    ours to own: exit 70, the path and the value, and the bundle kept out of the scratch folder."""
    import re
    import sys

    from tests.roundtrip.walk import GENSERVER, run

    document = json.loads(json.dumps(schemas.schema_document("bundle")))
    document["$defs"]["ValueSource"]["enum"].remove("safe value")
    monkeypatch.setattr("mcpaql_conformance.evidence.bundle.bundle_schema", lambda: schemas.CompiledSchema(document))
    server = EXAMPLES / "safety-switches.json"
    records = tmp_path / "records"
    ran = run("check", "--allow-destructive", "--capture-dir", records, "--", sys.executable, GENSERVER, server)
    assert ran.code == 70, ran.stderr
    line = ran.stderr.strip().splitlines()[-1]
    assert line.startswith("error: internal error: capture wrote a bundle that `test` refuses ($.")
    assert '(not "safe value")' in line and line.endswith("please report it")
    kept = re.search(r"the bundle is kept at (\S+) \(records and the server's stderr: (\S+)\)", line)
    assert kept is not None and "mcpaql-check-kept-" in kept.group(1)
    assert json.loads(Path(kept.group(1)).read_text())["provenance"]["captured"] is True
    assert Path(kept.group(2)).is_dir() and Path(kept.group(2)).is_relative_to(records)
