"""Command-line interface: parse options, call the library, map errors to exit codes.

No check logic lives here. Heavy modules are imported inside the commands so
that ``mcpaql-conformance version`` starts fast.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from mcpaql_conformance import SPEC_VERSION, __version__
from mcpaql_conformance.agent.presets import PRESETS, preset_help
from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.render import FORMATS

EXIT_CONFIG = 3
FORMAT_CHOICE = click.Choice(list(FORMATS), case_sensitive=False)
BADGE_CHOICE = click.Choice(["svg", "json", "markdown"], case_sensitive=False)
TIER_CHOICE = click.Choice(["1", "2", "both"], case_sensitive=False)
LEVEL_CHOICE = click.Choice(["1", "2"])


class ConformanceGroup(click.Group):
    """A group whose usage errors exit 3 (click's own 2 would read as "warned")."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        from mcpaql_conformance import logs

        logs.install()  # the libraries' log lines, warnings and stray tracebacks: one sanitised line each
        try:
            result = super().main(*args, **kwargs)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"error: {_usage_line(exc)}", err=True)
            sys.exit(EXIT_CONFIG)
        except ConfigError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)  # 3; 128 + N for a capture stopped by signal N
        except click.Abort:
            click.echo("aborted", err=True)
            sys.exit(130)
        except BrokenPipeError:  # the reader went away (`... | head -1`): nothing more to say
            _silence_stdout()
            sys.exit(EXIT_PIPE_CLOSED)
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:  # a bug of ours, or a library's panic: one line, exit 3, never a traceback
            if os.environ.get("MCPAQL_CONFORMANCE_DEBUG"):
                raise
            from mcpaql_conformance.sanitize import plain

            click.echo(
                f"error: internal error ({type(exc).__name__}): {plain(str(exc), max_len=500)}; please report it "
                "(set MCPAQL_CONFORMANCE_DEBUG=1 for the traceback)",
                err=True,
            )
            sys.exit(EXIT_CONFIG)
        sys.exit(result if isinstance(result, int) else 0)


EXIT_PIPE_CLOSED = 141  # what a shell reports for a command stopped by SIGPIPE


def _usage_line(exc: click.ClickException) -> str:
    """Click's error as one line, with where to look for help (never the multi-line usage)."""
    from mcpaql_conformance.sanitize import plain

    message = plain(exc.format_message(), max_len=500)
    context = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and context is not None:
        return f"{message} (see '{context.command_path} --help')"
    return message


def _silence_stdout() -> None:
    # Python flushes stdout at exit; after a closed pipe that would raise again.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _use_color(output: Path | None) -> bool:
    if output is not None or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


def _refuse_overwriting(outputs: list[tuple[str, Path | None]], inputs: list[tuple[str, Path | None]]) -> None:
    """An output that is one of the command's inputs (links followed) is a configuration
    error before anything is written; so are two outputs that are the same file, and a
    report printed (no -o, or -o -) to a standard output redirected to an input."""
    from mcpaql_conformance.jsonio import refuse_overwriting_inputs

    printed = any(label == "-o" and (path is None or str(path) == "-") for label, path in outputs)
    refuse_overwriting_inputs(outputs, inputs, stdout=printed)


def _emit(text: str, output: Path | None, what: str) -> None:
    from mcpaql_conformance.jsonio import write_atomic

    if output is None or str(output) == "-":
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:  # the reader took what it wanted: the verdict still stands
            _silence_stdout()
    else:
        write_atomic(output, text)
        click.echo(f"wrote {what} to {click.format_filename(output)}", err=True)


@click.group(cls=ConformanceGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", message=f"%(prog)s %(version)s (MCP-AQL spec {SPEC_VERSION})")
def cli() -> None:
    """Judge MCP-AQL evidence bundles against the MCP-AQL conformance specification.

    \b
    Exit codes:
      0  conformant at the requested level
      1  a MUST test failed
      2  only SHOULD tests warned or failed
      3  configuration error (bad path, JSON, bundle, report or option value)
    """


MAX_FINDINGS_OPTION = click.option(
    "--max-findings",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="Text report: findings shown under each test (0: all); the rest are counted.",
)


def judging_options(function: Any) -> Any:
    """The options `test` and `check` share: how to judge, and where the report goes."""
    options = [
        click.option(
            "--level", "-l", type=LEVEL_CHOICE, default="1", show_default=True, help="Conformance level to test."
        ),
        click.option(
            "--tier",
            type=TIER_CHOICE,
            default="both",
            show_default=True,
            help="Semantic evaluation tier: 1 structural only, 2 semantic only, both = the spec's two-tier matrix.",
        ),
        click.option(
            "--format", "-f", "fmt", type=FORMAT_CHOICE, default="text", show_default=True, help="Report format."
        ),
        click.option("--output", "-o", type=click.Path(path_type=Path), help="Write the report to FILE (atomically)."),
        click.option(
            "--category",
            "-c",
            metavar="NAME",
            help="Run one category only (its name, or a unique start of it, in any case).",
        ),
        click.option(
            "--baseline",
            type=click.Path(path_type=Path),
            help="Expected failures (JSON or YAML): listed failures do not fail the run; stale entries do.",
        ),
        MAX_FINDINGS_OPTION,
    ]
    for option in reversed(options):
        function = option(function)
    return function


@cli.command()
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
    max_findings: int,
    jobs: int | None,
) -> int:
    """Run the conformance tests on an evidence BUNDLE (JSON); on every member of a SUITE file
    ({"name", "bundles": [paths or globs], "level", "tier"}); or on several bundles, or the
    *.json bundles of a FOLDER, judged together like a suite."""
    from mcpaql_conformance.jsonio import load_json_file
    from mcpaql_conformance.kinds import BUNDLE, SUITE, refuse_other_kinds
    from mcpaql_conformance.sanitize import plain
    from mcpaql_conformance.suite import is_suite, load_suite, suite_of_paths

    # Bad option values are configuration errors before any file is read.
    judging = _judging(level, tier, fmt, output, category, baseline, max_findings)
    several = len(paths) > 1 or paths[0].is_dir()
    _refuse_overwriting(
        [("-o", output)], [("", path) for path in paths if not path.is_dir()] + [("--baseline", baseline)]
    )
    data = None if several else load_json_file(paths[0], "bundle")
    if not several and not is_suite(data):
        refuse_other_kinds(data, plain(str(paths[0])), BUNDLE, SUITE)
        return _judge(data, plain(str(paths[0])), judging)
    if category is not None or baseline is not None:
        what = "several bundles" if several else "a suite"
        raise ConfigError(f"--category and --baseline apply to one bundle, not to {what}")
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
    _refuse_overwriting([("-o", output)], [("one of the bundles judged", member) for member in suite.members])
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


def _judging(
    level: str,
    tier: str,
    fmt: str,
    output: Path | None,
    category: str | None,
    baseline: Path | None,
    max_findings: int = 10,
) -> Judging:
    """The judging options, checked before any file is read or server started."""
    from mcpaql_conformance.runner import select_category

    if category is not None:
        select_category(int(level), category)
    entries = None
    if baseline is not None:
        from mcpaql_conformance.baseline import load_baseline

        entries = load_baseline(baseline)
    options = _render_options(output, max_findings)
    return Judging(int(level), tier.lower(), fmt.lower(), output, category, baseline, entries, options)


def _render_options(output: Path | None, max_findings: int) -> Any:
    """How the text report is laid out: wrapped at the terminal's width when it goes to a
    terminal (or to $COLUMNS when that is set), not wrapped in a file or a pipe."""
    import shutil

    from mcpaql_conformance.render.common import RenderOptions

    width = None
    if output is None or str(output) == "-":
        columns = os.environ.get("COLUMNS", "")
        if columns.isascii() and columns.isdigit() and int(columns) > 0:
            width = int(columns)
        elif sys.stdout.isatty():
            width = shutil.get_terminal_size().columns
    return RenderOptions(width=width, max_findings=max_findings)


def _judge(data: Any, source: str, judging: Judging) -> int:
    """Judge one bundle, emit the report (and the step summary); the verdict's exit code."""
    from mcpaql_conformance.bundle import bundle_from_data
    from mcpaql_conformance.render import renderer
    from mcpaql_conformance.runner import evaluate
    from mcpaql_conformance.sanitize import plain

    report = evaluate(bundle_from_data(data, source), judging.level, judging.tier, judging.category)
    if judging.entries is not None:
        from mcpaql_conformance.baseline import apply_baseline

        report = apply_baseline(report, judging.entries, plain(str(judging.baseline)))
    text = renderer(judging.fmt)(report, _use_color(judging.output), judging.options)
    _emit(text, judging.output, f"{judging.fmt} report")
    _append_step_summary(lambda: renderer("markdown")(report, False))
    return report.exit_code


def _test_suite(suite: Any, fmt: str, output: Path | None, jobs: int | None, options: Any) -> int:
    from mcpaql_conformance.parallel import default_jobs
    from mcpaql_conformance.render.suite import render_suite, require_suite_format
    from mcpaql_conformance.suite import run_suite

    require_suite_format(fmt)
    result = run_suite(suite, jobs or default_jobs())
    _emit(render_suite(result, fmt, _use_color(output), options), output, f"{fmt} suite report")
    _append_step_summary(lambda: render_suite(result, "markdown"))
    return result.exit_code


def _append_step_summary(markdown: Any) -> None:
    """On GitHub Actions, add the markdown report to the job summary as well. The verdict is
    already out, so a summary that cannot be written is a warning, not a new exit code."""
    from mcpaql_conformance.jsonio import input_named
    from mcpaql_conformance.sanitize import plain

    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if not summary:
        return
    overwritten = input_named(Path(summary))
    if overwritten is not None:  # appending would corrupt evidence
        click.echo(f"warning: GITHUB_STEP_SUMMARY={plain(summary)} is {overwritten}: not appended to", err=True)
        return
    try:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(markdown() + "\n")
    except OSError as exc:
        click.echo(f"warning: GITHUB_STEP_SUMMARY={summary}: cannot append the report: {exc.strerror}", err=True)


@cli.command("verify-fixtures")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--tier", type=TIER_CHOICE, default="both", show_default=True, help="Semantic evaluation tier.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Parallel processes (default: the number of cores).")
def verify_fixtures(paths: tuple[Path, ...], tier: str, jobs: int | None) -> int:
    """Check bundles against their declared expected_exit_code.

    PATHS are bundle files or folders of *.json bundles (default: fixtures/).
    Each bundle is tested at its expected_level (default 1). Exit 1 on any mismatch.
    """
    from mcpaql_conformance.parallel import default_jobs
    from mcpaql_conformance.render.text import render_text
    from mcpaql_conformance.sanitize import plain
    from mcpaql_conformance.verify import verify

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


@cli.command()
@click.argument("results", type=click.Path(path_type=Path))
@click.option("--format", "-f", "fmt", type=FORMAT_CHOICE, default="text", show_default=True, help="Output format.")
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write to FILE (atomically).")
@MAX_FINDINGS_OPTION
def report(results: Path, fmt: str, output: Path | None, max_findings: int) -> int:
    """Re-render a saved JSON report (ours, the reference runner's, or a suite report). The exit
    code is the report's own, recomputed from its tests (0 conformant, 1 a MUST failed, 2 only SHOULD
    warnings; 3 when the file is no report)."""
    from mcpaql_conformance.render import renderer
    from mcpaql_conformance.render.suite import render_suite
    from mcpaql_conformance.reportio import load_any_report
    from mcpaql_conformance.suite import SuiteReport

    _refuse_overwriting([("-o", output)], [("", results)])
    loaded = load_any_report(results)
    options = _render_options(output, max_findings)
    if isinstance(loaded, SuiteReport):
        text = render_suite(loaded, fmt.lower(), _use_color(output), options)
        _emit(text, output, f"{fmt.lower()} suite report")
        return loaded.exit_code
    text = renderer(fmt.lower())(loaded, _use_color(output), options)
    _emit(text, output, f"{fmt.lower()} report")
    return loaded.exit_code


@cli.command("validate")
@click.argument("bundles", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="BUNDLE|FOLDER...")
@click.option("--format", "-f", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--strict", is_flag=True, help="Exit 2 when there are warnings (and no errors).")
def validate_command(bundles: tuple[Path, ...], fmt: str, strict: bool) -> int:
    """Check evidence bundles (a folder: its *.json files) without running the tests: coded
    diagnostics with fix hints, for every file, good and bad.

    Exit 1 on any error diagnostic, 2 with --strict on warnings only, else 0; 3 when a file
    cannot be read or parsed, or is no bundle (MQA000; every other file is still checked).
    """
    from mcpaql_conformance.bundle import bundle_files
    from mcpaql_conformance.validate import ERROR, UNREADABLE, WARNING, validate_file

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
    from mcpaql_conformance.render.json import dumps

    payload = [
        {"file": str(path)} | {key: getattr(d, key) for key in ("code", "severity", "path", "message", "hint")}
        for path, diagnostics in results.items()
        for d in diagnostics
    ]
    sys.stdout.write(dumps(payload))  # invisible controls written as escapes, as in reports


def _validate_text(results: dict[Path, list[Any]]) -> None:
    from mcpaql_conformance.sanitize import plain
    from mcpaql_conformance.validate import ERROR, WARNING

    for path, diagnostics in results.items():
        click.echo(f"{plain(str(path))}: {len(diagnostics)} diagnostic(s)")
        for diagnostic in diagnostics:
            click.echo(f"  {plain(diagnostic.line(), max_len=4000)}")
    found = [d for diagnostics in results.values() for d in diagnostics]
    counts = {s: sum(1 for d in found if d.severity == s) for s in (ERROR, WARNING, "info")}
    click.echo(
        f"{counts[ERROR]} error(s), {counts[WARNING]} warning(s), {counts['info']} info in {len(results)} bundle(s)"
    )


@cli.command("schemas")
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "-f",
    "fmt",
    type=click.Choice(["json-schema", "mcpaql-types"], case_sensitive=False),
    default="json-schema",
    show_default=True,
    help="JSON Schema per operation, or MCP-AQL TypeDetails for introspection.",
)
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write into this folder (created if missing).")
def schemas_command(sources: tuple[Path, ...], fmt: str, output: Path | None) -> int:
    """Infer the output schema of every operation from what the server answered: bundles and
    capture folders (--capture-dir), merged. A field is required only when every answer has it;
    formats (date-time, uri, email, uuid) only when every value matches; descriptions come from
    the type the operation declares returning.

    \b
      mcpaql-conformance schemas evidence/demo-notes.json
      mcpaql-conformance schemas out/capture --format mcpaql-types -o out/types

    Without -o: one JSON document on stdout. With -o DIR: DIR/OPERATION.schema.json per
    operation (json-schema) or DIR/types.json (mcpaql-types).
    """
    from mcpaql_conformance.jsonio import dumps, make_folder, write_atomic
    from mcpaql_conformance.outputs import operation_schemas, schema_file_names, type_catalogue, unanswered
    from mcpaql_conformance.samples import load_sources
    from mcpaql_conformance.sanitize import plain

    inputs: list[tuple[str, Path | None]] = [("", path) for path in sources]
    if output is None or str(output) == "-":
        _refuse_overwriting([("-o", output)], inputs)
    elif fmt.lower() == "mcpaql-types":  # json-schema: once the file names are known
        _refuse_overwriting([("-o", output / "types.json")], inputs)
    source = load_sources(list(sources))
    if not source.samples:
        raise ConfigError(
            f"{source.label}: no successful answer of any operation to infer from (capture with a plan's"
            " examples, or keep the capture folder: --capture-dir)"
        )
    kind = fmt.lower()
    document: Any = operation_schemas(source) if kind == "json-schema" else {"types": type_catalogue(source)}
    missing = unanswered(source)
    if missing:
        shown = ", ".join(plain(name) for name in missing[:10]) + (" ..." if len(missing) > 10 else "")
        click.echo(f"no successful answer recorded, so no schema, for {len(missing)} operation(s): {shown}", err=True)
    if output is None or str(output) == "-":
        _emit(dumps(document), None, kind)
        return 0
    if kind == "mcpaql-types":
        make_folder(output, f"-o {plain(str(output))}")
        write_atomic(output / "types.json", dumps(document))
        click.echo(
            f"wrote {len(document['types'])} type(s) to {click.format_filename(output / 'types.json')}", err=True
        )
        return 0
    # One file per operation, never two alike (also where case does not count), and none of
    # them an input: all checked before the first is written.
    files = {operation: output / name for operation, name in schema_file_names(list(document)).items()}
    _refuse_overwriting([("-o", path) for path in files.values()], inputs)
    make_folder(output, f"-o {plain(str(output))}")
    for operation, schema in document.items():
        write_atomic(files[operation], dumps(schema), durable=False)
    click.echo(f"wrote {len(files)} schema(s) to {click.format_filename(output)}", err=True)
    return 0


@cli.command("diff")
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@click.option(
    "--format", "-f", "fmt", type=click.Choice(["text", "json", "markdown"], case_sensitive=False), default="text",
    show_default=True, help="Report format (markdown: for a pull-request comment).",
)  # fmt: skip
@click.option(
    "--fail-on",
    type=click.Choice(["none", "breaking", "any"], case_sensitive=False),
    default="breaking",
    show_default=True,
    help="Which changes make the exit code 1.",
)
@click.option(
    "--level",
    "-l",
    type=click.Choice(["1", "2"]),
    default="1",
    show_default=True,
    help="Level the verdicts are judged at.",
)
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write the report to FILE (atomically).")
def diff_command(old: Path, new: Path, fmt: str, fail_on: str, level: str, output: Path | None) -> int:
    """What changed for a client between two captures of one server (bundles or capture
    folders): operations, parameters, response shapes and, for bundles, test verdicts.

    \b
      mcpaql-conformance diff evidence/demo-notes.json out/demo-notes.json
      mcpaql-conformance diff old.json new.json -f markdown -o out/drift.md --fail-on any

    Exit 1 when a breaking change is found (a removed operation, parameter or field, a type
    change, a newly required parameter, a verdict that got worse; --fail-on any: any change),
    else 0; 3 for a bad path or file.
    """
    from mcpaql_conformance import drift
    from mcpaql_conformance.jsonio import dumps
    from mcpaql_conformance.samples import load_sources

    _refuse_overwriting([("-o", output)], [("", old), ("", new)])
    before, after = load_sources([old]), load_sources([new])
    verdicts = _diff_verdicts(before, after, int(level))
    changes = drift.compare(before, after, verdicts)
    kind = fmt.lower()
    if kind == "json":
        text = dumps(drift.as_json(changes, before.label, after.label))
    elif kind == "markdown":
        text = drift.render_markdown(changes, before.label, after.label)
    else:
        text = drift.render_text(changes, before.label, after.label)
    _emit(text, output, f"{kind} drift report")
    return drift.exit_code(changes, fail_on.lower())


def _diff_verdicts(before: Any, after: Any, level: int) -> tuple[dict[str, str], dict[str, str]] | None:
    """Each test's result on both sides, when each side is one bundle."""
    from mcpaql_conformance.runner import evaluate

    if len(before.bundles) != 1 or len(after.bundles) != 1:
        return None
    sides = []
    for bundle in (before.bundles[0], after.bundles[0]):
        report = evaluate(bundle, level)
        sides.append(
            {test.id: test.result.value for category in report.categories for test in category.tests if test.id}
        )
    return sides[0], sides[1]


SCHEMA_KINDS = ("bundle", "plan", "tasks", "scenario", "baseline", "report")


@cli.command("schema")
@click.argument("kind", type=click.Choice(SCHEMA_KINDS, case_sensitive=False), default="bundle")
@click.option("--plan", "plan", is_flag=True, help="Same as `schema plan` (kept for old scripts).")
def schema_command(kind: str, plan: bool) -> None:
    """Print a JSON Schema (draft 2020-12) for editors and validators: the evidence bundle
    (default), a capture plan, agent tasks, a scenario, a baseline or a JSON report.

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
    web addresses older files carry too). Plans, tasks, scenarios and baselines may be written
    in YAML too; the schema is the same.
    """
    from mcpaql_conformance.schemas import _HERE

    name = "plan" if plan else kind.lower()
    sys.stdout.write((_HERE / f"{name}.schema.json").read_text(encoding="utf-8"))


@cli.command()
@click.argument("results", type=click.Path(path_type=Path))
@click.option("--format", "-f", "fmt", type=BADGE_CHOICE, default="svg", show_default=True, help="Badge format.")
@click.option("--output", "-o", type=click.Path(path_type=Path), help="Write to FILE (atomically).")
def badge(results: Path, fmt: str, output: Path | None) -> int:
    """Make a conformance badge from a saved JSON report (or suite report): an SVG drawn locally,
    a shields.io endpoint JSON, or a markdown image line."""
    from mcpaql_conformance.jsonio import dumps
    from mcpaql_conformance.render.badge import badge_status, badge_svg, endpoint_json, suite_badge_status
    from mcpaql_conformance.reportio import load_any_report
    from mcpaql_conformance.suite import SuiteReport

    _refuse_overwriting([("-o", output)], [("", results)])
    loaded = load_any_report(results)
    status = suite_badge_status(loaded) if isinstance(loaded, SuiteReport) else badge_status(loaded)
    kind = fmt.lower()
    if kind == "svg":
        text = badge_svg(status)
    elif kind == "json":
        text = dumps(endpoint_json(status), indent=False)
    else:
        text = f"![{status.label}: {status.message}]({status.shields_url()})\n"
    _emit(text, output, f"{kind} badge")
    return 0


PASS_ENV_OPTION = click.option(
    "--pass-env",
    "pass_env",
    multiple=True,
    metavar="NAME",
    help="Hand the model key variable NAME to the server all the same (they are kept from it; repeatable).",
)


def capture_options(function: Any) -> Any:
    """The options `capture` and `check` share (what to connect to, how to probe)."""
    options = [
        click.option(
            "--plan", type=click.Path(path_type=Path), help="Capture plan (JSON or YAML): values, examples, cycles."
        ),
        click.option(
            "--capture-dir",
            type=click.Path(path_type=Path),
            default=Path("capture"),
            show_default=True,
            help="Folder for one record per exchange, metrics.json and the server's stderr.",
        ),
        click.option("--timeout", type=float, default=20.0, show_default=True, help="Seconds each call may take."),
        click.option(
            "--overall-timeout",
            type=float,
            metavar="SECONDS",
            help="Seconds the whole capture may take, plus the allowance per operation  [default: 30 x --timeout].",
        ),
        click.option(
            "--overall-timeout-per-operation",
            type=float,
            default=0.1,
            show_default=True,
            metavar="SECONDS",
            help="Added to --overall-timeout for every operation the server lists (the work grows with them).",
        ),
        click.option(
            "--concurrency",
            type=click.IntRange(min=1),
            default=4,
            show_default=True,
            help="Probes in flight at once over the one session (1: one at a time); with check --agent, also the"
            " agent runs at once (1 for a local model server that answers one request at a time).",
        ),
        click.option(
            "--allow-destructive",
            is_flag=True,
            help="Call DELETE/EXECUTE/destructive operations too (they may change data: use a disposable instance).",
        ),
        click.option("--write-plan", type=click.Path(path_type=Path), help="Also write an editable plan (JSON)."),
        click.option("--url", help="Streamable-HTTP endpoint of a running server (instead of a command)."),
        PASS_ENV_OPTION,
        click.argument("command", nargs=-1, type=click.UNPROCESSED),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def agent_options(function: Any) -> Any:
    """The options `agent` and `check --agent` share: the model, the judge, tasks and scenarios."""
    options = [
        click.option("--model", metavar="PROVIDER:MODEL", help="The model: openai:NAME or anthropic:NAME."),
        click.option("--base-url", metavar="URL", help="OpenAI-compatible endpoint (Ollama, vLLM, llama.cpp...)."),
        click.option("--api-key-env", metavar="VAR", help="Variable holding the model's key (default: by provider)."),
        click.option("--judge", metavar="PROVIDER:MODEL", help="Tier 2: a model that grades each run's transcript."),
        click.option(
            "--judge-base-url",
            metavar="URL",
            help="The judge's OpenAI-compatible endpoint (default: a judge of the model's provider uses --base-url"
            " and --api-key-env; one of the other provider, its own API).",
        ),
        click.option("--judge-api-key-env", metavar="VAR", help="Variable holding the judge's key."),
        click.option(
            "--allow-insecure-base-url",
            is_flag=True,
            help="Send a key over plain http to a base URL that is not loopback (refused otherwise).",
        ),
        click.option("--tasks", type=click.Path(path_type=Path), help="Your own tasks (JSON or YAML)."),
        click.option(
            "--scenario",
            "scenarios",
            multiple=True,
            type=click.Path(path_type=Path),
            help="A pinned interaction to play instead of a model (JSON or YAML; repeatable).",
        ),
        click.option("--no-builtin", is_flag=True, help="Run only --tasks, not the built-in tasks."),
        click.option("--runs", type=click.IntRange(1, 100), help="Runs per task (default: 3, or the preset's)."),
        click.option(
            "--min-pass-rate",
            type=click.FloatRange(0, 1),
            help="Share of a task's runs that must pass (default: 0.8, or the preset's).",
        ),
        click.option(
            "--preset",
            type=click.Choice(sorted(PRESETS)),
            help=f"Named settings, which the options given override: {preset_help()}.",
        ),
        click.option("--max-turns", type=click.IntRange(1, 100), help="Turns per run (default: 8, or the preset's)."),
        click.option("--model-timeout", type=float, default=120.0, show_default=True, help="Seconds per model reply."),
        click.option(
            "--max-tokens-total",
            type=click.IntRange(min=1),
            metavar="N",
            help="Token budget (model and judge, input and output, as the APIs report them): once reached, no"
            " model request starts, the runs in flight stop at their next turn, and the bundle keeps every"
            " finished run, marked incomplete (exit 0; `agent --resume` runs the rest).",
        ),
        click.option(
            "--transcripts",
            type=click.Path(path_type=Path),
            default=Path("transcripts"),
            show_default=True,
            help="Folder for one JSONL transcript per run.",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def _endpoint(
    spec: str | None, base_url: str | None, key_env: str | None, timeout: float, option: str, insecure: bool = False
) -> Any:
    """The endpoint, prepared before any server starts: its key variable kept from the server, the
    key registered as a secret, and a key refused where it must not go (see Endpoint)."""
    from mcpaql_conformance.agent.providers import Endpoint, ModelSpec

    if spec is None:
        if base_url is not None or key_env is not None:
            raise click.UsageError(f"{option}-base-url and {option}-api-key-env need {option} PROVIDER:MODEL")
        return None
    if not timeout > 0 or timeout == float("inf"):
        raise click.UsageError(f"--model-timeout must be a positive number of seconds, not {timeout:g}")
    endpoint = Endpoint(ModelSpec.parse(spec, option), base_url, key_env, timeout, insecure)
    endpoint.prepare()
    return endpoint


def _agent_options(bundle: Path, target: Any, allow_destructive: bool, timeout: float, settings: dict[str, Any]) -> Any:
    from mcpaql_conformance.agent.preflight import judge_endpoint
    from mcpaql_conformance.agent.presets import builtin_of, max_turns_of, resolved
    from mcpaql_conformance.agent.run import AgentOptions

    insecure = settings["allow_insecure_base_url"]
    model = _endpoint(
        settings["model"], settings["base_url"], settings["api_key_env"], settings["model_timeout"], "--model",
        insecure,
    )  # fmt: skip
    if settings["judge"] is None and (settings["judge_base_url"] or settings["judge_api_key_env"]):
        raise click.UsageError("--judge-base-url and --judge-api-key-env need --judge PROVIDER:MODEL")
    # a judge of the model's provider goes where the model goes, unless told otherwise
    judge_url, judge_key = judge_endpoint(
        settings["model"], settings["base_url"], settings["api_key_env"], settings["judge"],
        settings["judge_base_url"], settings["judge_api_key_env"],
    )  # fmt: skip
    judge = _endpoint(settings["judge"], judge_url, judge_key, settings["model_timeout"], "--judge", insecure)
    runs, min_pass_rate = resolved(settings["preset"], settings["runs"], settings["min_pass_rate"])
    return AgentOptions(
        target=target,
        bundle=bundle,
        model=model,
        judge=judge,
        tasks=settings["tasks"],
        scenarios=tuple(settings["scenarios"]),
        builtin=not settings["no_builtin"],
        runs=runs,
        min_pass_rate=min_pass_rate,
        max_turns=max_turns_of(settings["preset"], settings["max_turns"]),
        builtin_kinds=builtin_of(settings["preset"]),
        transcripts=settings["transcripts"],
        allow_destructive=allow_destructive,
        timeout=timeout,
        max_tokens_total=settings["max_tokens_total"],
    )


def _run_agent(options: Any, *, kept_bundle: bool = True) -> Any:
    from mcpaql_conformance import lifetime
    from mcpaql_conformance.agent.run import run_agent
    from mcpaql_conformance.sanitize import plain

    lifetime.heavy_process()
    result = run_agent(options, lambda line: click.echo(f"agent: {line}", err=True))
    for line in result.said:
        click.echo(f"agent: {line}", err=True)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    for reason in result.skipped:
        click.echo(f"agent: built-in task not applicable: {plain(reason)}", err=True)
    kept = f"; transcripts: {click.format_filename(result.transcripts)}" if result.transcripts else ""
    where = f" in {click.format_filename(options.bundle)}" if kept_bundle else ""
    click.echo(f"agent: {result.runs} run(s) recorded{where}{kept}", err=True)
    if result.incomplete is not None:  # the token budget: the evidence is kept, and said to be incomplete
        click.echo(f"agent: {result.incomplete}", err=True)
    return result


def _capture_options(bundle: Path, command: tuple[str, ...], url: str | None, settings: dict[str, Any]) -> Any:
    from mcpaql_conformance.capture.connection import Target
    from mcpaql_conformance.capture.run import CaptureOptions

    if bool(url) == bool(command):
        raise click.UsageError("give either --url URL or a server command after --, not both or neither")
    _keep_secrets(url, settings["pass_env"])
    return CaptureOptions(
        Target(command=command, url=url),
        bundle,
        settings["plan"],
        settings["capture_dir"],
        settings["timeout"],
        settings["allow_destructive"],
        settings["concurrency"],
        settings["write_plan"],
        settings["overall_timeout"],
        settings["overall_timeout_per_operation"],
    )


def _keep_secrets(url: str | None, pass_env: tuple[str, ...]) -> None:
    """Before any server starts: what the URL carries as credentials is a secret, and the model
    key variables the user hands on (``--pass-env``) go to the server after all."""
    from mcpaql_conformance import secrecy

    secrecy.register_url(url)
    secrecy.pass_through(pass_env)


def _run_capture(options: Any) -> Any:
    from mcpaql_conformance import lifetime
    from mcpaql_conformance.capture.run import capture as run_capture

    lifetime.heavy_process()
    result = run_capture(options)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    click.echo(
        f"captured {result.metrics['calls']} call(s) from {result.source} over {options.target.transport}; "
        f"records: {result.records}; {result.not_sent} probe(s) not sent (listed in capture_notes)",
        err=True,
    )
    if options.write_plan is not None:
        click.echo(f"wrote a plan to {click.format_filename(options.write_plan)}", err=True)
    return result


@cli.command(context_settings={"ignore_unknown_options": True})
@click.option(
    "--bundle",
    "bundle_path",
    type=click.Path(path_type=Path),
    default=Path("captured-bundle.json"),
    show_default=True,
    help="Where to write the evidence bundle (atomically).",
)
@capture_options
def capture(bundle_path: Path, url: str | None, command: tuple[str, ...], **settings: Any) -> int:
    """Probe a live MCP-AQL server and write an evidence bundle for `test`.

    Give either --url URL, or the server command after --:

    \b
      mcpaql-conformance capture --bundle out.json -- python -m mcpaql_conformance.demo_adapter

    Once the MCP handshake is done a bundle is written and the exit code is 0, however the
    server deviates: the verdict is `test`'s (or use `check`).
    """
    _refuse_overwriting(
        [("--bundle", bundle_path), ("--write-plan", settings["write_plan"])], [("--plan", settings["plan"])]
    )
    options = _capture_options(bundle_path, command, url, settings)
    _run_capture(options)
    click.echo(f"bundle: {click.format_filename(bundle_path)}", err=True)
    click.echo(f"next: mcpaql-conformance test {click.format_filename(bundle_path)} --level 1", err=True)
    return 0


@cli.command(context_settings={"ignore_unknown_options": True})
@click.option(
    "--bundle",
    "bundle_path",
    type=click.Path(path_type=Path),
    default=Path("agent-bundle.json"),
    show_default=True,
    help="The bundle to add the agent evidence to (created if missing; atomically).",
)
@agent_options
@click.option(
    "--concurrency",
    type=click.IntRange(1, 64),
    default=4,
    show_default=True,
    help="Runs at once over the one MCP session (hosted APIs take several; a local model server that answers"
    " one request at a time, such as llama.cpp's without parallel slots: 1).",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Continue the incomplete agent runs in --bundle (interrupted, or stopped by --max-tokens-total): the"
    " finished runs are kept, the rest run. Give the same options.",
)
@click.option("--timeout", type=float, default=20.0, show_default=True, help="Seconds each tool call may take.")
@click.option(
    "--allow-destructive",
    is_flag=True,
    help="Let the model call DELETE/EXECUTE/destructive operations (use a disposable instance).",
)
@click.option("--url", help="Streamable-HTTP endpoint of a running server (instead of a command).")
@PASS_ENV_OPTION
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def agent(
    bundle_path: Path,
    concurrency: int,
    resume: bool,
    timeout: float,
    allow_destructive: bool,
    url: str | None,
    command: tuple[str, ...],
    **settings: Any,
) -> int:
    """Let an LLM drive a live MCP-AQL server through its MCP tools, or play pinned scenarios,
    and record the runs as Semantic Evaluation evidence (agent_tests and agent_runs in
    --bundle, one JSONL transcript per run). The verdict is `test --level 2`'s.

    
      mcpaql-conformance agent --scenario scenarios/demo-notes.yaml -- python -m mcpaql_conformance.demo_adapter
      mcpaql-conformance agent --model openai:gpt-4o-mini -- python my_server.py
      mcpaql-conformance agent --model openai:local --base-url http://127.0.0.1:8080/v1 --url URL

    Before the server starts, the model and the judge are each checked with a 1-token request
    (one line says which URL each uses); one that cannot be used stops the agent in seconds.
    The bundle is rewritten after every finished run and marked incomplete until the last: a
    signal (exit 128 + N), the time limit or a model that stops answering (exit 3) leaves every
    finished run in it, and --resume runs only the missing ones. --max-tokens-total stops the
    runs the same way, exit 0 (the evidence is written; `test` says it is incomplete).
    Exit 0 once the evidence is written; 3 when the model or the server cannot be used.
    """
    target = _target(command, url, timeout)
    _keep_secrets(url, settings.pop("pass_env"))
    scenarios = [("--scenario", path) for path in settings["scenarios"]]
    _refuse_overwriting([("--bundle", bundle_path)], [("--tasks", settings["tasks"]), *scenarios])
    options = _agent_options(bundle_path, target, allow_destructive, timeout, settings)
    _run_agent(dataclasses.replace(options, concurrency=concurrency, resume=resume))
    click.echo(f"next: mcpaql-conformance test {click.format_filename(bundle_path)} --level 2", err=True)
    return 0


def _target(command: tuple[str, ...], url: str | None, timeout: float) -> Any:
    from mcpaql_conformance.capture.connection import Target

    if bool(url) == bool(command):
        raise click.UsageError("give either --url URL or a server command after --, not both or neither")
    if not timeout > 0 or timeout == float("inf"):
        raise click.UsageError(f"--timeout must be a positive number of seconds, not {timeout:g}")
    return Target(command=command, url=url)


@cli.command(context_settings={"ignore_unknown_options": True})
@click.option(
    "--bundle",
    "bundle_path",
    type=click.Path(path_type=Path),
    help="Also keep the evidence bundle here (atomically); by default it is not kept.",
)
@click.option("--agent", "with_agent", is_flag=True, help="Also run the agent tasks and scenarios (see `agent`).")
@agent_options
@judging_options
@capture_options
def check(
    bundle_path: Path | None,
    level: str,
    tier: str,
    fmt: str,
    output: Path | None,
    category: str | None,
    baseline: Path | None,
    max_findings: int,
    url: str | None,
    command: tuple[str, ...],
    with_agent: bool,
    **settings: Any,
) -> int:
    """Capture a live MCP-AQL server and judge it in one run: the report of `test`, with its
    exit code (0 conformant, 1 a MUST failed, 2 only SHOULD warnings; 3 when the server
    could not be captured at all or an option is wrong).

    \b
      mcpaql-conformance check --allow-destructive -- python -m mcpaql_conformance.demo_adapter
      mcpaql-conformance check --url http://127.0.0.1:8000/mcp --level 2 -f markdown -o report.md
      mcpaql-conformance check --agent --model openai:gpt-4o-mini --level 2 -- python my_server.py

    With --agent, the agent tasks and scenarios run after the capture (a second session) and
    their evidence joins the bundle before it is judged; the model and the judge are checked
    with a 1-token request each before the capture starts.
    """
    import tempfile

    # bad options: before any server starts
    judging = _judging(level, tier, fmt, output, category, baseline, max_findings)
    agent_settings = {key: settings.pop(key) for key in AGENT_SETTINGS}
    _refuse_overwriting(
        [("-o", output), ("--bundle", bundle_path), ("--write-plan", settings["write_plan"])],
        [("--plan", settings["plan"]), ("--baseline", baseline), ("--tasks", agent_settings["tasks"])]
        + [("--scenario", path) for path in agent_settings["scenarios"]],
    )
    with tempfile.TemporaryDirectory(prefix="mcpaql-check-") as scratch:
        target = bundle_path if bundle_path is not None else Path(scratch) / "bundle.json"
        options = _capture_options(target, command, url, settings)
        agent = None
        if with_agent:
            agent = _agent_options(target, options.target, options.allow_destructive, options.timeout, agent_settings)
            # --concurrency: the probes in flight, and the agent runs at once
            agent = dataclasses.replace(agent, concurrency=options.concurrency, bundle_kept=bundle_path is not None)
            agent = _preflight(agent)  # every model endpoint answers before the server is started
        elif any(agent_settings[key] for key in ("model", "judge", "tasks", "scenarios")):
            raise click.UsageError("--model, --judge, --tasks and --scenario need --agent")
        captured = _run_capture(options)
        bundle = captured.bundle
        if agent is not None:
            bundle = _agent_after_capture(agent, bundle_path, captured.records)
        if bundle_path is not None:
            click.echo(f"bundle: {click.format_filename(bundle_path)}", err=True)
        return _judge(bundle, options.target.describe(), judging)


def _preflight(agent: Any) -> Any:
    """`check --agent`: the endpoints checked before the capture, not again before the runs."""
    from mcpaql_conformance.agent.preflight import check_endpoints

    check_endpoints(agent.model, agent.judge, lambda line: click.echo(f"agent: {line}", err=True))
    return dataclasses.replace(agent, preflight=False)


def _agent_after_capture(agent: Any, bundle_path: Path | None, records: Path | None) -> Any:
    """`check --agent`'s agent phase: stopped by a signal, it says what the capture wrote."""
    from mcpaql_conformance.agent.run import AgentStopped
    from mcpaql_conformance.sanitize import plain

    try:
        return _run_agent(agent, kept_bundle=bundle_path is not None).bundle
    except AgentStopped as exc:
        kept = f"its records and the server's stderr are in {plain(str(records))}; " if records is not None else ""
        if bundle_path is not None and exc.kept_runs is not None:
            wrote = f"the capture's bundle was written to {plain(str(bundle_path))}; {exc.kept_runs}"
        elif bundle_path is not None:
            wrote = f"the capture's bundle was written to {plain(str(bundle_path))}, without the agent evidence"
        else:
            wrote = "the capture's bundle was not kept (give --bundle FILE to keep it)"
        raise exc.saying(f"{wrote}; {kept}no report was made") from None


AGENT_SETTINGS = (
    "model", "base_url", "api_key_env", "judge", "judge_base_url", "judge_api_key_env", "tasks", "scenarios",
    "no_builtin", "runs", "min_pass_rate", "max_turns", "model_timeout", "transcripts", "allow_insecure_base_url",
    "preset", "max_tokens_total",
)  # fmt: skip


@cli.command()
def version() -> None:
    """Print the tool version and the MCP-AQL spec version it implements."""
    click.echo(f"mcpaql-conformance {__version__} (MCP-AQL spec {SPEC_VERSION})")


def main() -> None:
    """Console-script entry point (ends fast after a large bundle: see ``lifetime``)."""
    from mcpaql_conformance import lifetime

    lifetime.enable_fast_exit()
    try:
        cli(prog_name="mcpaql-conformance")
    except SystemExit as exc:
        lifetime.finish(exc.code)
