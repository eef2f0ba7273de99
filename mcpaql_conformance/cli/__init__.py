"""The command line: the group, how errors become exit codes, and the commands, one module per
command group (`judge`: test, verify-fixtures, report, badge, validate, schema; `live`: capture,
check; `agent`; `shapes`: schemas, diff; `spec`: rules). Options several commands share are in `options`.

No check logic lives here. Heavy modules are imported inside the commands so that
``mcpaql-conformance version`` starts fast.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from mcpaql_conformance import SPEC_VERSION, __version__
from mcpaql_conformance.cli.agent import agent
from mcpaql_conformance.cli.judge import badge, report, schema_command, test, validate_command, verify_fixtures
from mcpaql_conformance.cli.live import capture, check
from mcpaql_conformance.cli.output import EXIT_CONFIG, silence_stdout
from mcpaql_conformance.cli.registry import check_many_command, registry_command
from mcpaql_conformance.cli.shapes import diff_command, schemas_command
from mcpaql_conformance.cli.spec import rules_command
from mcpaql_conformance.errors import EXIT_INTERNAL, ConfigError, InternalError


class ConformanceGroup(click.Group):
    """A group whose usage errors exit 3 (click's own 2 would read as "warned")."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        from mcpaql_conformance.cli import logs

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
        except InternalError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)  # 70
        except click.Abort:
            click.echo("aborted", err=True)
            sys.exit(130)
        except BrokenPipeError:  # the reader went away (`... | head -1`): nothing more to say
            silence_stdout()
            sys.exit(EXIT_PIPE_CLOSED)
        except (SystemExit, KeyboardInterrupt):
            raise
        except BaseException as exc:  # a bug of ours, or a library's panic: one line, exit 70, never a traceback
            if os.environ.get("MCPAQL_CONFORMANCE_DEBUG"):
                raise
            from mcpaql_conformance.sanitize import plain

            click.echo(
                f"error: internal error ({type(exc).__name__}): {plain(str(exc), max_len=500)}; please report it "
                "(set MCPAQL_CONFORMANCE_DEBUG=1 for the traceback)",
                err=True,
            )
            sys.exit(EXIT_INTERNAL)
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
     70  internal error: a fault of ours, never of the input (please report it)
    """


for command in (
    test, verify_fixtures, report, validate_command, schemas_command, diff_command, schema_command, badge,
    capture, agent, check, rules_command, registry_command, check_many_command,
):  # fmt: skip
    cli.add_command(command)


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
