"""Where what a command says goes: the report to standard output or a file (atomically), colour, the
text layout, the GitHub step summary, and the refusal to overwrite an input."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click


def silence_stdout() -> None:
    # Python flushes stdout at exit; after a closed pipe that would raise again.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def use_color(output: Path | None) -> bool:
    if output is not None or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


def refuse_overwriting(outputs: list[tuple[str, Path | None]], inputs: list[tuple[str, Path | None]]) -> None:
    """An output that is one of the command's inputs (links followed) is a configuration
    error before anything is written; so are two outputs that are the same file, and a
    report printed (no -o, or -o -) to a standard output redirected to an input."""
    from mcpaql_conformance.files.jsonio import refuse_overwriting_inputs

    printed = any(label == "-o" and (path is None or str(path) == "-") for label, path in outputs)
    refuse_overwriting_inputs(outputs, inputs, stdout=printed)


def emit(text: str, output: Path | None, what: str) -> None:
    from mcpaql_conformance.files.jsonio import write_atomic

    if output is None or str(output) == "-":
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:  # the reader took what it wanted: the verdict still stands
            silence_stdout()
    else:
        write_atomic(output, text)
        click.echo(f"wrote {what} to {click.format_filename(output)}", err=True)


def render_options(output: Path | None, max_findings: int) -> Any:
    """How the text report is laid out: wrapped at the terminal's width when it goes to a
    terminal (or to $COLUMNS when that is set), not wrapped in a file or a pipe."""
    import shutil

    from mcpaql_conformance.report.common import RenderOptions

    width = None
    if output is None or str(output) == "-":
        columns = os.environ.get("COLUMNS", "")
        if columns.isascii() and columns.isdigit() and int(columns) > 0:
            width = int(columns)
        elif sys.stdout.isatty():
            width = shutil.get_terminal_size().columns
    return RenderOptions(width=width, max_findings=max_findings)


def append_step_summary(markdown: Any) -> None:
    """On GitHub Actions, add the markdown report to the job summary as well. The verdict is
    already out, so a summary that cannot be written is a warning, not a new exit code."""
    from mcpaql_conformance.files.jsonio import input_named
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
