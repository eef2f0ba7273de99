"""verify-fixtures: each bundle's verdict against its declared expected_exit_code."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.evidence.bundle import bundle_files
from mcpaql_conformance.files.jsonio import load_json_file
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.model import EXIT_CONFIG_ERROR, Report
from mcpaql_conformance.verdict.runner import judge_safely


@dataclass(frozen=True)
class FixtureOutcome:
    path: Path
    expected: int | None
    got: int
    report: Report | None = None
    error: str | None = None

    @property
    def matches(self) -> bool:
        return self.expected is not None and self.expected == self.got

    def line(self) -> str:
        expected = "(not declared)" if self.expected is None else str(self.expected)
        status = "PASS" if self.matches else "FAIL"
        return f"{status} {plain(str(self.path))} -> expected {expected}, got {self.got}"


def _declared_exit_code(data: object) -> int | None:
    """``expected_exit_code`` as an int (JSON ``0.0`` is ``0``), or None when not declared."""
    value = data.get("expected_exit_code") if isinstance(data, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if float(value).is_integer() else None


def verify_one(path: Path, tier: str = "both") -> FixtureOutcome:
    try:
        data = load_json_file(path, "bundle")
    except ConfigError as exc:
        return FixtureOutcome(path, None, EXIT_CONFIG_ERROR, error=str(exc))
    expected = _declared_exit_code(data)
    report, error = judge_safely(data, plain(str(path)), None, tier)
    if report is None:
        return FixtureOutcome(path, expected, EXIT_CONFIG_ERROR, error=error)
    return FixtureOutcome(path, expected, report.exit_code, report=report)


def verify(paths: Iterable[Path], tier: str = "both", jobs: int = 1) -> list[FixtureOutcome]:
    """Every bundle's outcome, in path order (judged in ``jobs`` processes)."""
    from mcpaql_conformance.verdict.parallel import run_all

    return run_all(verify_one, bundle_files(paths, "fixture path"), tier, jobs=jobs, label="verifying bundles")
