"""The command about the spec itself: `rules`, the requirement registry and its coverage."""

from __future__ import annotations

import click


@click.command("rules")
@click.option(
    "--format", "-f", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True
)
@click.option("--judged", "judged", flag_value=True, default=None, help="Only the rules a test judges.")
@click.option("--not-judged", "judged", flag_value=False, help="Only the rules no test judges (each says why).")
def rules_command(fmt: str, judged: bool | None) -> None:
    """List every requirement of the MCP-AQL spec's documents (each sentence with MUST, SHOULD,
    MAY...): its id, keyword, document and section, what it asks in our words, and the tests
    that judge it, or why none does; then how much of each document is judged.

    \b
      mcpaql-conformance rules --not-judged
      mcpaql-conformance rules -f markdown > rules.md
    """
    from mcpaql_conformance.report.rules import render_rules, selected
    from mcpaql_conformance.verdict.rules import RULES

    click.echo(render_rules(selected(RULES, judged), fmt, list(RULES)), nl=False)
