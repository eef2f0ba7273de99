"""Read a saved JSON report (ours or the reference runner's) back into a Report, and a saved
suite report back into a SuiteReport."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.files.jsonio import load_json_file
from mcpaql_conformance.files.kinds import REPORT, SUITE_REPORT, is_suite_report_shaped, refuse_other_kinds
from mcpaql_conformance.files.schemas import report_schema
from mcpaql_conformance.files.values import json_type
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.model import (
    EXIT_CONFIG_ERROR,
    EXIT_MUST_FAILED,
    LEVEL2_FEATURES,
    CategoryResult,
    Report,
    Result,
    TestResult,
    conformance_level,
    exit_code_for,
)
from mcpaql_conformance.verdict.suite import Member, Suite, SuiteReport


def load_report(path: Path) -> Report:
    return report_from_data(load_json_file(path, "report"), plain(str(path)))


def load_any_report(path: Path) -> Report | SuiteReport:
    """A saved report of one bundle, or of a suite (``test`` on a suite, a folder or several
    bundles): what `report` and `badge` take."""
    data = load_json_file(path, "report")
    source = plain(str(path))
    if is_suite_report_shaped(data):
        return suite_report_from_data(data, source)
    return report_from_data(data, source)


def suite_report_from_data(data: Any, source: str = "<suite report>") -> SuiteReport:
    """A saved suite report; each member's report is read like a report (its verdict and exit
    code recomputed from its tests), a member without one stays invalid (exit 3)."""
    refuse_other_kinds(data, source, SUITE_REPORT)
    if not is_suite_report_shaped(data):
        raise ConfigError(f"{source}: expected a suite report (suite, exitCode, members)")
    members = []
    for index, entry in enumerate(data["members"]):
        path = Path(str(entry["bundle"]))
        if entry.get("report") is None:
            error = plain(str(entry.get("error") or "not judged"))
            members.append(Member(path, EXIT_CONFIG_ERROR, error=error))
            continue
        report = report_from_data(entry["report"], f"{source}: $.members[{index}].report")
        members.append(Member(path, report.exit_code, report=report))
    level, tier = data.get("level"), data.get("tier")
    suite = Suite(
        name=plain(str(data.get("suite") or source)),
        description=plain(str(data.get("description") or "")),
        members=tuple(member.path for member in members),
        level=level if type(level) is int and level in (1, 2) else 1,
        tier=tier if tier in ("1", "2", "both") else "both",
        source=source,
    )
    return SuiteReport(suite, tuple(members))


def report_from_data(data: Any, source: str = "<report>") -> Report:
    """Validate the report shape; verdicts, counts, exit code and conformance level are
    recomputed from the tests, so a hand-edited or inconsistent report cannot claim more."""
    refuse_other_kinds(data, source, REPORT)
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: $: expected a JSON object (a conformance report), got {json_type(data)}")
    reason = report_schema().shape_error(data)
    if reason is not None:
        raise ConfigError(f"{source}: {reason} (not a conformance report)")
    categories = tuple(
        CategoryResult(c["name"], c["required"], tuple(_test(t) for t in c["tests"])) for c in data["categories"]
    )
    requested = data.get("requestedLevel")
    if requested is not None and type(requested) is not int:  # 2.0 or true are not levels
        raise ConfigError(f"{source}: $.requestedLevel: expected the level 1 or 2, got {plain(repr(requested))}")
    filtered = data.get("categoryFilter") is not None
    level = None if filtered or requested is None else conformance_level(requested, categories)
    stale = (data.get("baseline") or {}).get("stale") or []
    exit_code = EXIT_MUST_FAILED if stale else exit_code_for(categories)
    if not filtered and not _judged_every_must_category(categories, requested):
        # A report that lacks a MUST category (or all of them) has shown no conformance.
        level, exit_code = (0 if requested is not None else None), EXIT_MUST_FAILED
    return Report(
        implementation=data.get("implementation"),
        version=data.get("version"),
        spec_version=data.get("specVersion"),
        evidence_spec_version=data.get("evidenceSpecVersion"),
        requested_level=requested,
        conformance_level=level,
        categories=categories,
        exit_code=exit_code,
        tier=data.get("tier"),
        category_filter=data.get("categoryFilter"),
        tool=data.get("tool"),
        tool_version=data.get("toolVersion"),
        notes=tuple(data.get("captureNotes") or ()),
        readings=tuple(data.get("captureReadings") or ()),
        changes=tuple(data.get("changes") or ()),
        baseline=(data.get("baseline") or {}).get("file"),
        stale=tuple((data.get("baseline") or {}).get("stale") or ()),
        unneeded=tuple((data.get("baseline") or {}).get("unneeded") or ()),
        captured_at=data.get("capturedAt") if isinstance(data.get("capturedAt"), str) else None,
        server=data.get("server") if isinstance(data.get("server"), str) else None,
        evidence=_evidence(data.get("evidence")),
        provenance=data.get("provenance"),
        agent_summary=(data.get("agentRuns") or {}).get("summary"),
        agent_incomplete=_text_or_none((data.get("agentRuns") or {}).get("incomplete")),
        agent_metrics=_agent_metrics((data.get("agentRuns") or {}).get("metrics")),
        agent_models=_lines((data.get("agentRuns") or {}).get("models")),
    )


def _lines(value: Any) -> tuple[str, ...]:
    return tuple(plain(item, max_len=500) for item in value if isinstance(item, str)) if isinstance(value, list) else ()


def _cited(rules: Any, count: int) -> tuple[str, ...]:
    """A saved report's rule per finding, when it has one for each (else none)."""
    if not isinstance(rules, list) or len(rules) != count:
        return ()
    return tuple(rule if isinstance(rule, str) else "" for rule in rules)


def _evidence(value: Any) -> tuple[str, ...] | None:
    """What a saved run had to judge by, when it says (a list of labels), else None."""
    if not isinstance(value, list):
        return None
    return tuple(plain(item, max_len=80) for item in value if isinstance(item, str))


def _text_or_none(value: Any) -> str | None:
    return plain(value, max_len=500) if isinstance(value, str) else None


def _agent_metrics(rows: Any) -> tuple[Any, ...]:
    from mcpaql_conformance.verdict.metrics import AgentMetrics

    def number(value: Any) -> float | None:
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None

    return tuple(
        AgentMetrics(
            task=plain(str(row.get("task", ""))),
            runs=int(row.get("runs") or 0) if isinstance(row.get("runs"), int) else 0,
            first_call_success=number(row.get("firstCallSuccess")),
            turns=number(row.get("turns")),
            tokens=number(row.get("tokens")),
            recovery=number(row.get("recovery")),
            seconds=number(row.get("seconds")),
            passed=_count(row.get("tier1"), "passed"),
            judged=_count(row.get("tier2"), "runs") or 0,
            judged_passed=_count(row.get("tier2"), "passed") or 0,
            input_tokens=_whole(row.get("inputTokens")),
            output_tokens=_whole(row.get("outputTokens")),
            judge_tokens=_whole(row.get("judgeTokens")),
            model=plain(str(row.get("model") or "")),
            target=row["target"] if isinstance(row.get("target"), bool) else None,
            min_pass_rate=number(row.get("minPassRate")),
            turns_to_success=number(row.get("turnsToSuccess")),
            calls_to_success=number(row.get("callsToSuccess")),
            introspections=number(row.get("introspections")),
            invalid_calls=_whole(row.get("invalidCalls")),
            invalid_kinds=_kinds(row.get("invalidKinds")),
            invalid_recovered=number(row.get("invalidRecovered")),
            cost=number(row.get("cost")),
            currency=plain(row["currency"], max_len=12) if isinstance(row.get("currency"), str) else None,
            wall_seconds=number(row.get("wallSeconds")),
            # a report from before the flag marks that row by its name alone
            every_task=row.get("everyTask") is True or ("everyTask" not in row and row.get("task") == "all"),
        )
        for row in rows or []
        if isinstance(row, dict)
    )


def _kinds(value: Any) -> tuple[tuple[str, int], ...]:
    """Invalid calls by kind, as a saved report counts them (only the kinds we count)."""
    from mcpaql_conformance.verdict.metrics import INVALID_KINDS

    counts = value if isinstance(value, dict) else {}
    return tuple((kind, count) for kind in INVALID_KINDS if (count := _whole(counts.get(kind))) is not None)


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _count(rate: Any, key: str) -> int | None:
    """A count of a report's pass rate (``{"passed", "runs", ...}``), None when it has none."""
    return _whole(rate.get(key)) if isinstance(rate, dict) else None


def _judged_every_must_category(categories: tuple[CategoryResult, ...], requested: Any) -> bool:
    """Whether the report holds every category its level requires (the Level 2 Features one
    too, for Level 2)."""
    from mcpaql_conformance.verdict.checks import CATEGORIES

    names = {category.name for category in categories}
    needed = [c.name for c in CATEGORIES if c.required or (requested == 2 and c.name == LEVEL2_FEATURES)]
    return all(name in names for name in needed)


def _test(entry: dict[str, Any]) -> TestResult:
    return TestResult(
        id=entry.get("id", ""),
        name=entry["name"],
        result=Result(entry["result"]),
        detail=entry.get("detail") or "",
        spec_ref=entry.get("specRef", ""),
        findings=tuple(entry.get("findings") or ()),
        cited=_cited(entry.get("findingRules"), len(entry.get("findings") or ())),
        tier=entry.get("tier"),
        baselined=entry.get("baselined"),
        lead=entry.get("lead") or "",
    )
