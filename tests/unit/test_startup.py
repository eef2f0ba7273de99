"""A command pays only for what it uses (issue 35): the modules `version` and `test` import are
pinned, so that a new top-level import of a heavy module fails here instead of slowing every run.
Adding a module to a list below is a decision: say in the commit why the command needs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUNDLE = ROOT / "fixtures" / "l1-conformant-notes.json"
# Runs the console entry point with the given arguments, then lists what is imported.
DRIVER = """
import json, sys
sys.argv = ["mcpaql-conformance", *sys.argv[1:]]
from mcpaql_conformance.cli import main
try:
    main()
except SystemExit:
    pass
sys.__stderr__.write(json.dumps(sorted(sys.modules)))
"""
# Standard library modules no judging command needs: each is slow to import, or a sign that
# the live or agent code (sockets, processes, event loops) was pulled in.
HEAVY = (
    "asyncio", "concurrent", "subprocess", "multiprocessing", "http", "ssl", "logging", "statistics", "tomllib",
    "sqlite3", "xml", "html", "tempfile", "zipfile", "tarfile", "difflib", "shlex", "glob", "pydoc", "argparse",
)  # fmt: skip
TEST_MODULES = {
    "mcpaql_conformance", "mcpaql_conformance.agent", "mcpaql_conformance.agent.presets", "mcpaql_conformance.cli",
    "mcpaql_conformance.cli.group", "mcpaql_conformance.cli.judge", "mcpaql_conformance.cli.logs",
    "mcpaql_conformance.cli.options", "mcpaql_conformance.cli.output", "mcpaql_conformance.errors",
    "mcpaql_conformance.evidence", "mcpaql_conformance.evidence.answers", "mcpaql_conformance.evidence.blanket",
    "mcpaql_conformance.evidence.bundle", "mcpaql_conformance.evidence.declared", "mcpaql_conformance.evidence.fields",
    "mcpaql_conformance.evidence.identifiers", "mcpaql_conformance.evidence.index", "mcpaql_conformance.evidence.named",
    "mcpaql_conformance.evidence.reading",
    "mcpaql_conformance.evidence.samples", "mcpaql_conformance.evidence.where", "mcpaql_conformance.files",
    "mcpaql_conformance.files.depth", "mcpaql_conformance.files.jsonio", "mcpaql_conformance.files.kinds",
    "mcpaql_conformance.files.schemas", "mcpaql_conformance.files.values", "mcpaql_conformance.files.vocabulary",
    "mcpaql_conformance.lifetime", "mcpaql_conformance.regex", "mcpaql_conformance.report",
    "mcpaql_conformance.report.badge", "mcpaql_conformance.report.cited", "mcpaql_conformance.report.common",
    "mcpaql_conformance.report.escape", "mcpaql_conformance.report.text", "mcpaql_conformance.sanitize",
    "mcpaql_conformance.secrecy", "mcpaql_conformance.verdict", "mcpaql_conformance.verdict.blame",
    "mcpaql_conformance.verdict.checks", "mcpaql_conformance.verdict.checks.base",
    "mcpaql_conformance.verdict.checks.details",
    "mcpaql_conformance.verdict.checks.constraints", "mcpaql_conformance.verdict.checks.descriptions",
    "mcpaql_conformance.verdict.checks.encoding", "mcpaql_conformance.verdict.checks.grammar",
    "mcpaql_conformance.verdict.checks.warned",
    "mcpaql_conformance.verdict.checks.errors", "mcpaql_conformance.verdict.checks.introspection",
    "mcpaql_conformance.verdict.checks.level2", "mcpaql_conformance.verdict.checks.listing",
    "mcpaql_conformance.verdict.checks.pages", "mcpaql_conformance.verdict.checks.selection",
    "mcpaql_conformance.verdict.checks.aggregates", "mcpaql_conformance.verdict.checks.relations",
    "mcpaql_conformance.verdict.checks.controls", "mcpaql_conformance.verdict.checks.matrix",
    "mcpaql_conformance.verdict.checks.deprecation", "mcpaql_conformance.verdict.checks.searches",
    "mcpaql_conformance.verdict.checks.execution", "mcpaql_conformance.verdict.checks.safety",
    "mcpaql_conformance.evidence.execution", "mcpaql_conformance.verdict.checks.sorting",
    "mcpaql_conformance.evidence.configurations", "mcpaql_conformance.verdict.checks.configurations",
    "mcpaql_conformance.verdict.checks.confirmations", "mcpaql_conformance.verdict.checks.nesting",
    "mcpaql_conformance.verdict.checks.applicability", "mcpaql_conformance.verdict.checks.previous",
    "mcpaql_conformance.evidence.previous",
    "mcpaql_conformance.verdict.checks.sessions",
    "mcpaql_conformance.verdict.checks.parameters", "mcpaql_conformance.verdict.checks.returns",
    "mcpaql_conformance.verdict.checks.requests", "mcpaql_conformance.verdict.checks.roundtrip",
    "mcpaql_conformance.verdict.checks.routing",
    "mcpaql_conformance.verdict.checks.semantic", "mcpaql_conformance.verdict.checks.tools",
    "mcpaql_conformance.verdict.checks.typeinfo", "mcpaql_conformance.verdict.checks.updates",
    "mcpaql_conformance.verdict.metrics", "mcpaql_conformance.verdict.model", "mcpaql_conformance.verdict.runner",
    "mcpaql_conformance.verdict.textmatch",
}  # fmt: skip


def imported(*args: str) -> set[str]:
    """The modules loaded by one run of the command line with ``args``."""
    ran = subprocess.run([sys.executable, "-c", DRIVER, *args], capture_output=True, text=True, check=False, cwd=ROOT)
    return set(json.loads(ran.stderr.strip().splitlines()[-1]))


def ours(modules: set[str]) -> set[str]:
    return {name for name in modules if name.split(".")[0] == "mcpaql_conformance"}


def third_party(modules: set[str]) -> set[str]:
    return {
        top
        for name in modules
        if (top := name.split(".")[0]) not in sys.stdlib_module_names
        and top not in ("mcpaql_conformance", "__main__", "_distutils_hack")
        and not top.startswith("__editable__")
    }


def heavy(modules: set[str]) -> set[str]:
    return {name for name in modules if name.split(".")[0] in HEAVY}


def test_version_imports_no_command_and_no_library() -> None:
    modules = imported("version")
    assert ours(modules) == {"mcpaql_conformance", "mcpaql_conformance.cli", "mcpaql_conformance.lifetime"}
    assert third_party(modules) == set()
    assert heavy(modules) == set()


def test_test_imports_the_judging_modules_only() -> None:
    modules = imported("test", str(BUNDLE))
    assert sorted(ours(modules) - TEST_MODULES) == [], "a new module on `test`'s path"
    assert sorted(TEST_MODULES - ours(modules)) == [], "a module `test` no longer needs: drop it from the list"
    assert third_party(modules) == {"click", "jsonschema_rs", "msgspec", "orjson", "typing_extensions"}
    assert heavy(modules) == set(), "a heavy standard module on `test`'s path"
