"""The commands that judge saved evidence: `test`, `verify-fixtures`, `report`, `badge`, `validate`
and `schema`."""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from mcpaql_conformance.cli.options import (
    BADGE_CHOICE,
    FORMAT_CHOICE,
    MAX_FINDINGS_OPTION,
    TIER_CHOICE,
    judging_options,
)
from mcpaql_conformance.cli.output import (
    append_step_summary,
    emit,
    refuse_overwriting,
    render_options,
    use_color,
)
from mcpaql_conformance.errors import EXIT_CONFIG, ConfigError


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="BUNDLE|SUITE|FOLDER...")
@judging_options
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Several bundles: parallel processes (default: cores).")
@click.pass_context
def test(
    ctx: click.Context,
    paths: tuple[Path, ...],
    level: str,
    tier: str,
    fmt: str,
    output: Path | None,
    category: str | None,
    baseline: Path | None,
    write_baseline: Path | None,
    max_findings: int,
    jobs: int | None,
) -> int:
    """Run the conformance tests on an evidence BUNDLE (JSON); on every member of a SUITE file
    ({"name", "bundles": [paths or globs], "level", "tier"}); or on several bundles, or the
    *.json bundles of a FOLDER, judged together like a suite."""
    from mcpaql_conformance.files.jsonio import load_json_file
    from mcpaql_conformance.files.kinds import BUNDLE, SUITE, is_suite, refuse_other_kinds
    from mcpaql_conformance.sanitize import plain

    # Bad option values are configuration errors before any file is read.
    judging = judging_settings(level, tier, fmt, output, category, baseline, max_findings, write_baseline)
    several = len(paths) > 1 or paths[0].is_dir()
    refuse_overwriting(
        [("-o", output), ("--write-baseline", write_baseline)],
        [("", path) for path in paths if not path.is_dir()] + [("--baseline", baseline)],
    )
    data = None if several else load_json_file(paths[0], "bundle")
    if not several and not is_suite(data):
        refuse_other_kinds(data, plain(str(paths[0])), BUNDLE, SUITE)
        return judge_bundle(data, plain(str(paths[0])), judging)
    from mcpaql_conformance.verdict.suite import load_suite, suite_of_paths

    if category is not None or baseline is not None or write_baseline is not None:
        what = "several bundles" if several else "a suite"
        raise ConfigError(f"--category, --baseline and --write-baseline apply to one bundle, not to {what}")
    if several:
        suite = suite_of_paths(paths, int(level), tier.lower())
    else:
        explicit = {
            name: ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE for name in ("level", "tier")
        }
        suite = load_suite(data, paths[0])  # type: ignore[arg-type]
        suite = dataclasses.replace(
            suite,
            level=int(level) if explicit["level"] else suite.level,
            tier=tier.lower() if explicit["tier"] else suite.tier,
        )
    refuse_overwriting([("-o", output)], [("one of the bundles judged", member) for member in suite.members])
    return _test_suite(suite, fmt.lower(), output, jobs, judging.options)


@dataclass(frozen=True)
class Judging:
    """How to judge a bundle and where the report goes (the options `test` and `check` share)."""

    level: int
    tier: str
    fmt: str
    output: Path | None
    category: str | None
    baseline: Path | None
    entries: Any
    options: Any  # RenderOptions: the text report's width and findings shown
    write_baseline: Path | None = None


def judging_settings(
    level: str,
    tier: str,
    fmt: str,
    output: Path | None,
    category: str | None,
    baseline: Path | None,
    max_findings: int = 10,
    write_baseline: Path | None = None,
) -> Judging:
    """The judging options, checked before any file is read or server started."""
    from mcpaql_conformance.verdict.runner import select_category

    if category is not None:
        select_category(int(level), category)
    entries = None
    if baseline is not None:
        from mcpaql_conformance.verdict.baseline import load_baseline

        entries = load_baseline(baseline)
    options = render_options(output, max_findings)
    return Judging(int(level), tier.lower(), fmt.lower(), output, category, baseline, entries, options, write_baseline)


def judge_bundle(data: Any, source: str, judging: Judging, server: str | None = None) -> int:
    """Judge one bundle, emit the report (and the step summary); the verdict's exit code.
    ``server``: the command or URL `check` captured it from (the report names it)."""
    from mcpaql_conformance.evidence.bundle import bundle_from_data
    from mcpaql_conformance.report import renderer
    from mcpaql_conformance.sanitize import plain
    from mcpaql_conformance.verdict.runner import evaluate

    report = evaluate(bundle_from_data(data, source), judging.level, judging.tier, judging.category)
    if server is not None:
        import dataclasses

        report = dataclasses.replace(report, server=plain(server, max_len=500))
    if judging.entries is not None:
        from mcpaql_conformance.verdict.baseline import apply_baseline

        report = apply_baseline(report, judging.entries, plain(str(judging.baseline)))
    if judging.write_baseline is not None:
        from mcpaql_conformance.files.jsonio import dumps, write_atomic
        from mcpaql_conformance.verdict.baseline import baseline_of

        written = baseline_of(report)
        write_atomic(judging.write_baseline, dumps(written))
        shown = click.format_filename(judging.write_baseline)
        click.echo(f"wrote a baseline of {len(written['entries'])} failing test(s) to {shown}", err=True)
    text = renderer(judging.fmt)(report, use_color(judging.output), judging.options)
    emit(text, judging.output, f"{judging.fmt} report")
    append_step_summary(lambda: renderer("markdown")(report, False))
    return report.exit_code


def _test_suite(suite: Any, fmt: str, output: Path | None, jobs: int | None, options: Any) -> int:
    from mcpaql_conformance.report.suite import render_suite, require_suite_format
    from mcpaql_conformance.verdict.parallel import default_jobs
    from mcpaql_conformance.verdict.suite import run_suite

    require_suite_format(fmt)
    result = run_suite(suite, jobs or default_jobs())
    emit(render_suite(result, fmt, use_color(output), options), output, f"{fmt} suite report")
    append_step_summary(lambda: render_suite(result, "markdown"))
    return result.exit_code


@click.command("verify-fixtures")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--tier", type=TIER_CHOICE, default="both", show_default=True, help="Semantic evaluation tier.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Parallel processes (default: the number of cores).")
def verify_fixtures(paths: tuple[Path, ...], tier: str, jobs: int | None) -> int:
    """Check bundles against their declared expected_exit_code.

    PATHS are bundle files or folders of *.json bundles (default: fixtures/).
    Each bundle is tested at its expected_level (default 1). Exit 1 on any mismatch.
    """
    from mcpaql_conformance.report.text import render_text
    from mcpaql_conformance.sanitize import plain
    from mcpaql_conformance.verdict.parallel import default_jobs
    from mcpaql_conformance.verdict.verify import verify

    matched = mismatched = 0
    for outcome in verify(paths or (Path("fixtures"),), tier.lower(), jobs or default_jobs()):
        click.echo(outcome.line())
        if outcome.matches:
            matched += 1
            continue
        mismatched += 1
        if outcome.error:
            click.echo(f"    {plain(outcome.error)}")
        if outcome.report is not None:
            click.echo(render_text(outcome.report).rstrip("\n"))
        click.echo("")
    click.echo(f"{matched + mismatched} bundle(s): {matched} matched, {mismatched} mismatched")
    return 1 if mismatched else 0


@click.command()
@click.argument("results", type=click.Path(path_type=Path))
@click.option("--format", "-f", "fmt", type=FORMAT_CHOICE, default="text", show_default=True, help="Output format.")
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write to FILE (atomically).")
@MAX_FINDINGS_OPTION
def report(results: Path, fmt: str, output: Path | None, max_findings: int) -> int:
    """Re-render a saved JSON report (ours, the reference runner's, or a suite report). The exit
    code is the report's own, recomputed from its tests (0 conformant, 1 a MUST failed, 2 only SHOULD
    warnings; 3 when the file is no report)."""
    from mcpaql_conformance.report import renderer
    from mcpaql_conformance.report.saved import load_any_report
    from mcpaql_conformance.report.suite import render_suite
    from mcpaql_conformance.verdict.suite import SuiteReport

    refuse_overwriting([("-o", output)], [("", results)])
    loaded = load_any_report(results)
    options = render_options(output, max_findings)
    if isinstance(loaded, SuiteReport):
        text = render_suite(loaded, fmt.lower(), use_color(output), options)
        emit(text, output, f"{fmt.lower()} suite report")
        return loaded.exit_code
    text = renderer(fmt.lower())(loaded, use_color(output), options)
    emit(text, output, f"{fmt.lower()} report")
    return loaded.exit_code


@click.command("validate")
@click.argument("bundles", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="BUNDLE|FOLDER...")
@click.option("--format", "-f", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--strict", is_flag=True, help="Exit 2 when there are warnings (and no errors).")
def validate_command(bundles: tuple[Path, ...], fmt: str, strict: bool) -> int:
    """Check evidence bundles (a folder: its *.json files) without running the tests: coded
    diagnostics with fix hints, for every file, good and bad.

    Exit 1 on any error diagnostic, 2 with --strict on warnings only, else 0; 3 when a file
    cannot be read or parsed, or is no bundle (MQA000; every other file is still checked).
    """
    from mcpaql_conformance.evidence.bundle import bundle_files
    from mcpaql_conformance.evidence.validate import ERROR, UNREADABLE, WARNING, validate_file

    results = {path: validate_file(path) for path in bundle_files(bundles)}
    found = [d for diagnostics in results.values() for d in diagnostics]
    if fmt == "json":
        _validate_json(results)
    else:
        _validate_text(results)
    if any(d.code == UNREADABLE for d in found):
        return EXIT_CONFIG
    if any(d.severity == ERROR for d in found):
        return 1
    return 2 if strict and any(d.severity == WARNING for d in found) else 0


def _validate_json(results: dict[Path, list[Any]]) -> None:
    from mcpaql_conformance.report.json import dumps

    payload = [
        {"file": str(path)} | {key: getattr(d, key) for key in ("code", "severity", "path", "message", "hint")}
        for path, diagnostics in results.items()
        for d in diagnostics
    ]
    sys.stdout.write(dumps(payload))  # invisible controls written as escapes, as in reports


def _validate_text(results: dict[Path, list[Any]]) -> None:
    from mcpaql_conformance.evidence.validate import ERROR, WARNING
    from mcpaql_conformance.sanitize import plain

    for path, diagnostics in results.items():
        click.echo(f"{plain(str(path))}: {len(diagnostics)} diagnostic(s)")
        for diagnostic in diagnostics:
            click.echo(f"  {plain(diagnostic.line(), max_len=4000)}")
    found = [d for diagnostics in results.values() for d in diagnostics]
    counts = {s: sum(1 for d in found if d.severity == s) for s in (ERROR, WARNING, "info")}
    click.echo(
        f"{counts[ERROR]} error(s), {counts[WARNING]} warning(s), {counts['info']} info in {len(results)} bundle(s)"
    )


SCHEMA_KINDS = ("bundle", "plan", "tasks", "scenario", "prices", "baseline", "report", "registry")


@click.command("schema")
@click.argument("kind", type=click.Choice(SCHEMA_KINDS, case_sensitive=False), default="bundle")
@click.option("--plan", "plan", is_flag=True, help="Same as `schema plan` (kept for old scripts).")
def schema_command(kind: str, plan: bool) -> None:
    """Print a JSON Schema (draft 2020-12) for editors and validators: the evidence bundle
    (default), a capture plan, agent tasks, a scenario, model prices, a baseline, a JSON report
    or a registry.

    \b
      mcpaql-conformance schema > bundle.schema.json
      mcpaql-conformance schema plan > plan.schema.json

    Wire your editor to the copy (a path is relative to the file that names it):

    \b
      a JSON file:  "$schema": "plan.schema.json"
      a YAML file:  # yaml-language-server: $schema=plan.schema.json
      VS Code, by file name (.vscode/settings.json):
        "json.schemas": [{"fileMatch": ["*.plan.json"], "url": "./plan.schema.json"}],
        "yaml.schemas": {"./plan.schema.json": "*.plan.yaml"}

    Plans written by `capture --write-plan` point at the installed schema already, and the
    shipped examples at the schemas of the repository. Any "$schema" value is accepted (the
    web addresses older files carry too). Plans, tasks, scenarios, prices and baselines may be
    written in YAML too; the schema is the same.
    """
    from mcpaql_conformance.files.schemas import _HERE

    name = "plan" if plan else kind.lower()
    sys.stdout.write((_HERE / f"{name}.schema.json").read_text(encoding="utf-8"))


@click.command()
@click.argument("results", type=click.Path(path_type=Path))
@click.option("--format", "-f", "fmt", type=BADGE_CHOICE, default="svg", show_default=True, help="Badge format.")
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write to FILE (atomically).")
def badge(results: Path, fmt: str, output: Path | None) -> int:
    """Make a conformance badge from a saved JSON report (or suite report): an SVG drawn locally,
    a shields.io endpoint JSON, or a markdown image line."""
    from mcpaql_conformance.files.jsonio import dumps
    from mcpaql_conformance.report.badge import badge_status, badge_svg, endpoint_json, suite_badge_status
    from mcpaql_conformance.report.saved import load_any_report
    from mcpaql_conformance.verdict.suite import SuiteReport

    refuse_overwriting([("-o", output)], [("", results)])
    loaded = load_any_report(results)
    status = suite_badge_status(loaded) if isinstance(loaded, SuiteReport) else badge_status(loaded)
    kind = fmt.lower()
    if kind == "svg":
        text = badge_svg(status)
    elif kind == "json":
        text = dumps(endpoint_json(status), indent=False)
    else:
        text = f"![{status.label}: {status.message}]({status.shields_url()})\n"
    emit(text, output, f"{kind} badge")
    return 0
