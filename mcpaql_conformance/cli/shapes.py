"""The commands about answer shapes: `schemas` (output schemas inferred from evidence) and `diff`
(what changed for a client between two captures)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from mcpaql_conformance.cli.output import (
    emit,
    refuse_overwriting,
)


@click.command("schemas")
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
    from mcpaql_conformance.evidence.samples import load_sources
    from mcpaql_conformance.files.jsonio import dumps, make_folder, write_atomic
    from mcpaql_conformance.sanitize import plain
    from mcpaql_conformance.shapes.outputs import operation_schemas, schema_file_names, type_catalogue, unanswered

    inputs: list[tuple[str, Path | None]] = [("", path) for path in sources]
    if output is None or str(output) == "-":
        refuse_overwriting([("-o", output)], inputs)
    elif fmt.lower() == "mcpaql-types":  # json-schema: once the file names are known
        refuse_overwriting([("-o", output / "types.json")], inputs)
    source = load_sources(list(sources))
    kind = fmt.lower()
    document: Any = operation_schemas(source) if kind == "json-schema" else {"types": type_catalogue(source)}
    missing = unanswered(source)
    if not source.samples:  # a valid bundle with nothing to infer from: an empty result, said so
        click.echo(
            f"{source.label}: no successful answer of any operation, so nothing to infer (capture with a plan's"
            " examples, or keep the capture folder: --capture-dir)",
            err=True,
        )
    elif missing:
        shown = ", ".join(plain(name) for name in missing[:10]) + (" ..." if len(missing) > 10 else "")
        click.echo(f"no successful answer recorded, so no schema, for {len(missing)} operation(s): {shown}", err=True)
    if output is None or str(output) == "-":
        emit(dumps(document), None, kind)
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
    refuse_overwriting([("-o", path) for path in files.values()], inputs)
    make_folder(output, f"-o {plain(str(output))}")
    for operation, schema in document.items():
        write_atomic(files[operation], dumps(schema), durable=False)
    click.echo(f"wrote {len(files)} schema(s) to {click.format_filename(output)}", err=True)
    return 0


@click.command("diff")
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
    folders): operations, parameters, response shapes and, for bundles, test verdicts and
    each model's agent pass rates.

    \b
      mcpaql-conformance diff evidence/demo-notes.json out/demo-notes.json
      mcpaql-conformance diff old.json new.json -f markdown -o out/drift.md --fail-on any

    Exit 1 when a breaking change is found (one that narrows what a client may send or widens
    what it may receive: a removed operation, parameter or field, a newly required parameter,
    a parameter's type or enum narrowed, an answer's type widened; a verdict that got worse, a
    test added with a WARN or FAIL or no longer run; a model's agent pass rate of a task lower
    beyond both 95% intervals; docs/drift.md's table lists every rule;
    --fail-on any: any change), else 0; 3 for a bad path or file.
    """
    from mcpaql_conformance.evidence.samples import load_sources
    from mcpaql_conformance.files.jsonio import dumps
    from mcpaql_conformance.shapes import drift

    refuse_overwriting([("-o", output)], [("", old), ("", new)])
    before, after = load_sources([old]), load_sources([new])
    verdicts, rates = _diff_verdicts(before, after, int(level))
    changes = drift.compare(before, after, verdicts, rates)
    kind = fmt.lower()
    if kind == "json":
        text = dumps(drift.as_json(changes, before.label, after.label))
    elif kind == "markdown":
        text = drift.render_markdown(changes, before.label, after.label)
    else:
        text = drift.render_text(changes, before.label, after.label)
    emit(text, output, f"{kind} drift report")
    return drift.exit_code(changes, fail_on.lower())


def _diff_verdicts(before: Any, after: Any, level: int) -> tuple[Any, Any]:
    """Each test's result on both sides, and each model's pass rates of each task, when each side
    is one bundle (else None, None)."""
    from mcpaql_conformance.verdict.runner import evaluate

    if len(before.bundles) != 1 or len(after.bundles) != 1:
        return None, None
    sides, rates = [], []
    for bundle in (before.bundles[0], after.bundles[0]):
        report = evaluate(bundle, level)
        sides.append(
            {test.id: test.result.value for category in report.categories for test in category.tests if test.id}
        )
        rates.append(_pass_rates(report.agent_metrics))
    return (sides[0], sides[1]), (rates[0], rates[1])


def _pass_rates(rows: Any) -> dict[tuple[str, str, str], tuple[int, int]]:
    """(model, task, tier) -> (passed, runs) of the discoverability table's task rows."""
    found: dict[tuple[str, str, str], tuple[int, int]] = {}
    for row in rows:
        if row.every_task:
            continue
        if row.passed is not None and row.runs:
            found[(row.model, row.task, "Tier 1")] = (row.passed, row.runs)
        if row.judged:
            found[(row.model, row.task, "Tier 2")] = (row.judged_passed, row.judged)
    return found
