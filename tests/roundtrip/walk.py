"""One walk from a live server through every reader of what our writers wrote (issue 34).

``walk(description, folder)`` serves a generated server (``genserver.py``) over stdio, and at
every permission level: captures it (writing a plan too); then every other command of ours
reads what capture wrote: ``validate --strict`` accepts the bundle, ``test`` judges it (never
exit 3) into a JSON report that our report schema accepts, ``report`` and ``badge`` read that
report, ``diff`` of the bundle against itself finds no change, ``schemas`` infers from it,
``registry`` builds a site whose registry.json our schema accepts, a baseline written from the
report reads back, and the written plan passes our plan schema and ``capture --plan --dry-run``.
It returns what went wrong, one line each (empty: the formats agree).

The commands run in this process (click's runner): the process boundary is not what this is
about, and start-ups would cost most of the time.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from mcpaql_conformance.cli import cli
from mcpaql_conformance.files.schemas import compiled_schema

GENSERVER = Path(__file__).with_name("genserver.py")
LEVELS = {"read-only": (), "writes": ("--allow-writes",), "destructive": ("--allow-destructive",)}
VERDICTS = (0, 1, 2)  # what `test`, `report` and `badge` may exit with; 3 and 70 never, here


@dataclass(frozen=True)
class Ran:
    code: int
    stdout: str
    stderr: str

    def said(self) -> str:
        return (
            (self.stderr.strip() or self.stdout.strip()).splitlines()[-1][:500] if (self.stderr or self.stdout) else ""
        )


def run(*args: str | Path) -> Ran:
    result = CliRunner().invoke(cli, [str(arg) for arg in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Ran(result.exit_code, result.stdout, result.stderr)


def walk(description: dict[str, Any], folder: Path, levels: tuple[str, ...] = tuple(LEVELS)) -> list[str]:
    """What went wrong when every reader read what capture wrote of this server (see the module)."""
    folder.mkdir(parents=True, exist_ok=True)
    server = folder / "server.json"
    server.write_text(json.dumps(description))
    problems: list[str] = []
    for level in levels:
        problems += [f"{level}: {line}" for line in _one_level(server, folder / level, LEVELS[level])]
    return problems


def _one_level(server: Path, folder: Path, flags: tuple[str, ...]) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    bundle, plan, records = folder / "bundle.json", folder / "plan.json", folder / "records"
    command = ("--", sys.executable, str(GENSERVER), str(server))
    captured = run("capture", *flags, "--bundle", bundle, "--write-plan", plan, "--capture-dir", records, *command)
    if captured.code != 0:
        return [f"capture exited {captured.code}: {captured.said()}"]
    problems = _expect(run("validate", "--strict", bundle), (0,), "validate --strict")
    report = folder / "report.json"
    tested = run("test", bundle, "--level", "2", "-f", "json", "-o", report)
    problems += _expect(tested, VERDICTS, "test")
    if tested.code not in VERDICTS:
        return problems
    problems += _schema("report", report)
    problems += _expect(run("report", report), VERDICTS, "report")
    problems += _expect(run("report", report, "-f", "markdown"), VERDICTS, "report -f markdown")
    problems += _expect(run("badge", report, "-o", folder / "badge.json"), VERDICTS, "badge")
    problems += _expect(run("test", bundle, "--level", "1", "-f", "junit"), VERDICTS, "test -f junit")
    problems += _unchanged(bundle)
    problems += _expect(run("schemas", bundle, "-o", folder / "schemas.json"), (0,), "schemas")
    site = folder / "site"
    problems += _expect(run("registry", report, "-o", site), (0,), "registry")
    problems += _schema("registry", site / "registry.json")
    problems += _baseline(bundle, report, folder / "baseline.json")
    problems += _plan(plan, flags, command, folder)
    return problems


def _expect(ran: Ran, codes: tuple[int, ...], what: str) -> list[str]:
    return [] if ran.code in codes else [f"{what} exited {ran.code}: {ran.said()}"]


def _schema(name: str, path: Path) -> list[str]:
    """Our schema ``name`` accepts the file one of our commands wrote."""
    if not path.is_file():
        return [f"{path.name} was not written"]
    document = json.loads(path.read_text(encoding="utf-8"))
    reasons = compiled_schema(name).explain(document)
    return [f"{path.name} does not pass our {name} schema: {'; '.join(reasons)}"] if reasons else []


def _unchanged(bundle: Path) -> list[str]:
    """``diff`` of a bundle against itself: no change at all."""
    ran = run("diff", bundle, bundle, "-f", "json", "--fail-on", "any")
    if ran.code != 0:
        return [f"diff against itself exited {ran.code}: {ran.said()}"]
    changes = json.loads(ran.stdout)
    found = [key for key, value in changes.items() if isinstance(value, list) and value]
    return [f"diff against itself found changes: {', '.join(found)}"] if found else []


def _baseline(bundle: Path, report: Path, path: Path) -> list[str]:
    """The baseline `test --write-baseline` writes passes our baseline schema and reads back:
    `test --baseline` with it exits with a verdict, and no failure is left it does not list."""
    written = run("test", bundle, "--level", "2", "--write-baseline", path, "-f", "json")
    if written.code not in VERDICTS:
        return [f"test --write-baseline exited {written.code}: {written.said()}"]
    problems = _schema("baseline", path)
    ran = run("test", bundle, "--level", "2", "--baseline", path, "-f", "json")
    if ran.code not in VERDICTS:
        return [*problems, f"test --baseline exited {ran.code}: {ran.said()}"]
    left = [t["id"] for c in json.loads(ran.stdout)["categories"] for t in c["tests"] if t.get("result") == "FAIL"
            and not t.get("baselined")]  # fmt: skip
    return problems + ([f"failures the baseline lists still count: {left}"] if left else [])


def _plan(plan: Path, flags: tuple[str, ...], command: tuple[str, ...], folder: Path) -> list[str]:
    """The plan capture wrote passes our plan schema, a capture follows it, and what that capture
    wrote (its values' source: the plan) is read as the first was: `validate --strict`, `test`."""
    if not plan.is_file():
        return []  # nothing to plan: the server listed no operation
    problems = _schema("plan", plan)
    again = folder / "planned.json"
    planned = run("capture", *flags, "--plan", plan, "--bundle", again, "--capture-dir", folder / "planned", *command)
    if planned.code != 0:
        return [*problems, f"capture --plan (the plan it wrote) exited {planned.code}: {planned.said()}"]
    problems += _expect(run("validate", "--strict", again), (0,), "validate --strict (the planned capture)")
    return problems + _expect(run("test", again, "--level", "2"), VERDICTS, "test (the planned capture)")
