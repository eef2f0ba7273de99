"""MkDocs hook: the command reference, generated at build time from the click command tree (the
lazy group's every command, each option with its help and default), in place of the marker
``<!-- commands -->`` of reference/commands.md. Nothing is written twice: an option added to the
code appears in the site at the next build."""

from __future__ import annotations

from typing import Any

import click

MARKER = "<!-- commands -->"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if MARKER not in markdown:
        return markdown
    from mcpaql_conformance.cli.group import cli

    return markdown.replace(MARKER, reference(cli, "mcpaql-conformance"))


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
