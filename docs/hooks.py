"""MkDocs hook: the reference pages' generated parts, made at build time from the code itself, in
place of their markers: ``<!-- commands -->`` (the click command tree: the lazy group's every
command, each option with its help and default), ``<!-- exit-codes -->`` (as ``--help`` says
them), ``<!-- schemas -->`` (every schema ``schema NAME`` prints, with its ``$id``) and
``<!-- model-keys -->`` (the model key variables kept from a server), ``<!-- coverage -->`` and
``<!-- readings -->`` (how much of each document of the spec is judged, and the readings taken,
from the requirement registry, as `rules` says them), ``<!-- contributing -->`` (the repository's
CONTRIBUTING.md, its links to files outside the site kept as their text). The example reports of
``reports/`` (made from two fixtures by ``reports/generate.py``, which the suite keeps fresh) are
files of the site too, under ``examples/``, so that a page links and shows them. Nothing is
written twice: an option or a schema added to the code appears in the site at the next build."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "reports"
_LINK = re.compile(r"\[([^\]]+)\]\((?![a-z][a-z0-9+.-]*:|#)[^)]*\)")

MARKER = "<!-- commands -->"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    for marker, make in GENERATED.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown


def on_files(files: Any, config: Any) -> Any:
    """The example reports (HTML, JSON, JUnit, markdown, badge) as files of the site, at
    ``examples/NAME``."""
    from mkdocs.structure.files import File

    for example in sorted(EXAMPLES.iterdir()):
        if example.name.startswith(("level1-", "level2-")) and example.suffix != ".md":  # no page of ours
            files.append(File.generated(config, f"examples/{example.name}", abs_src_path=str(example)))
    return files


def _contributing() -> str:
    """CONTRIBUTING.md as a page: a link to a file of the repository (none of the site) is its text."""
    return _LINK.sub(r"\1", (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))


def _commands() -> str:
    from mcpaql_conformance.cli.group import cli

    return reference(cli, "mcpaql-conformance")


def _exit_codes() -> str:
    """The exit codes as the group's ``--help`` gives them (its ``Exit codes:`` block)."""
    from mcpaql_conformance.cli.group import cli

    said = (cli.help or "").split("Exit codes:", 1)[1]
    rows = [line.strip().split(None, 1) for line in said.strip().splitlines() if line.strip()]
    return "| Exit code | Means |\n|---|---|\n" + "\n".join(f"| {code} | {_cell(text)} |" for code, text in rows)


def _schemas() -> str:
    """Every schema ``schema NAME`` prints: its name, ``$id``, title and description."""
    from mcpaql_conformance.cli.judge import SCHEMA_KINDS
    from mcpaql_conformance.files.schemas import schema_document

    rows = []
    for kind in SCHEMA_KINDS:
        document = schema_document(kind)
        said = _cell(str(document.get("title", "")) + ": " + str(document.get("description", "")))
        rows.append(f"| `mcpaql-conformance schema {kind}` | `{document['$id']}` | {said} |")
    return "| Printed by | `$id` | What it describes |\n|---|---|---|\n" + "\n".join(rows)


def _model_keys() -> str:
    from mcpaql_conformance.secrecy import MODEL_KEY_VARIABLES

    return ", ".join(f"`{name}`" for name in MODEL_KEY_VARIABLES)


def _coverage() -> str:
    from mcpaql_conformance.report.rules import coverage, coverage_table
    from mcpaql_conformance.verdict.rules import RULES

    return coverage_table(coverage(RULES))


def _readings() -> str:
    from mcpaql_conformance.report.rules import readings_list
    from mcpaql_conformance.verdict.rules import RULES

    return readings_list(RULES)


GENERATED = {
    MARKER: _commands,
    "<!-- exit-codes -->": _exit_codes,
    "<!-- schemas -->": _schemas,
    "<!-- model-keys -->": _model_keys,
    "<!-- coverage -->": _coverage,
    "<!-- readings -->": _readings,
    "<!-- contributing -->": _contributing,
}


def reference(group: click.Group, prog: str) -> str:
    """Every command of ``group``, in the order ``--help`` lists them."""
    context = click.Context(group, info_name=prog)
    parts = [_command(group, prog, context)]
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        if command is not None and not command.hidden:
            parts.append(_command(command, f"{prog} {name}", click.Context(command, info_name=name, parent=context)))
    return "\n\n".join(parts)


def _command(command: click.Command, path: str, context: click.Context) -> str:
    heading = "## `" + path + "`"
    usage = " ".join(command.collect_usage_pieces(context))
    lines = [heading, "", _text(command.help or ""), "", "```text", f"{path} {usage}".rstrip(), "```"]
    rows = [_row(param) for param in command.get_params(context) if isinstance(param, click.Option)]
    arguments = [param for param in command.params if isinstance(param, click.Argument)]
    if arguments:
        lines += ["", "Arguments: " + ", ".join(f"`{param.human_readable_name}`" for param in arguments) + "."]
    if rows:
        lines += ["", "| Option | What it does | Default |", "|---|---|---|", *rows]
    return "\n".join(lines)


def _row(option: click.Option) -> str:
    names = ", ".join(f"`{name}`" for name in [*option.opts, *option.secondary_opts])
    metavar = "" if option.is_flag else f" `{option.make_metavar(click.Context(click.Command('x')))}`"
    default = option.default  # click's "no default" is a sentinel of its own, said as nothing
    unset = default is None or type(default).__name__ == "Sentinel" or callable(default) or default in ((), [])
    shown = "" if unset or option.is_flag else f"`{default}`"
    return f"| {names}{metavar} | {_cell(option.help or '')} | {shown} |"


def _text(help_text: str) -> str:
    """A command's help as markdown: its paragraphs, the ``\\b`` blocks as text blocks."""
    blocks: list[str] = []
    for paragraph in help_text.split("\n\n"):
        if paragraph.lstrip().startswith("\b"):
            body = paragraph.lstrip()[1:].strip("\n")
            blocks.append("```text\n" + body + "\n```")
        else:
            blocks.append(" ".join(paragraph.split()))
    return "\n\n".join(blocks)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")
