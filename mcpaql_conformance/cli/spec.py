"""The command about the spec itself: `rules`, the requirement registry and its coverage, or
what a saved report says of each requirement."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from mcpaql_conformance.verdict.rules.model import Rule


@click.command("rules")
@click.option(
    "--format", "-f", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True
)
@click.option("--judged", "judged", flag_value=True, default=None, help="Only the rules a test judges.")
@click.option("--not-judged", "judged", flag_value=False, help="Only the rules no test judges (each says why).")
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A saved JSON report (`test --format json`): each server rule's result in that run "
    "(PASS, FAIL, WARN, SKIP or not judged) and the findings that decided it, per document.",
)
def rules_command(fmt: str, judged: bool | None, report_path: Path | None) -> None:
    """List every requirement of the MCP-AQL spec's documents (each sentence with MUST, SHOULD,
    MAY...): its id, keyword, document and section, what it asks in our words, and the tests
    that judge it, or why none does; then how much of each document is judged.

    With --report, say instead what a saved run found for each requirement about servers. Rules
    no test judges yet are counted there, and listed with --not-judged (JSON lists all).

    \b
      mcpaql-conformance rules --not-judged
      mcpaql-conformance rules -f markdown > rules.md
      mcpaql-conformance rules --report report.json
    """
    from mcpaql_conformance.report.rules import render_rules, selected
    from mcpaql_conformance.verdict.rules import RULES

    if report_path is not None:
        click.echo(_requirements(report_path, fmt, selected(RULES, judged), judged is False), nl=False)
        return
    click.echo(render_rules(selected(RULES, judged), fmt, list(RULES)), nl=False)


def _requirements(path: Path, fmt: str, chosen: list[Rule], everything: bool) -> str:
    """What the saved report at ``path`` says of each server rule in ``chosen``."""
    from mcpaql_conformance.report import requirements as r
    from mcpaql_conformance.report.saved import load_report

    report = load_report(path)
    if fmt == "markdown":
        return r.requirements_markdown(report, chosen, everything)
    results = r.requirement_results(report, chosen)
    if fmt == "json":
        from mcpaql_conformance.files.jsonio import dumps

        return dumps({"counts": r.counts(results), "requirements": [r.requirement_dict(item) for item in results]})
    return r.requirements_text(results, everything)
