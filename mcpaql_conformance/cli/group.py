"""The command group: how errors become exit codes, and the commands, each imported when it runs
(``COMMANDS``: its module and the click command in it)."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from mcpaql_conformance import VERSION_LINE, __version__
from mcpaql_conformance.errors import EXIT_CONFIG, EXIT_INTERNAL, ConfigError, InternalError

# Every command but `version`: its module and the name of the click command in it, imported
# when the command runs (or when --help lists them all).
COMMANDS = {
    "agent": ("agent", "agent"),
    "badge": ("judge", "badge"),
    "capture": ("live", "capture"),
    "check": ("live", "check"),
    "check-many": ("registry", "check_many_command"),
    "diff": ("shapes", "diff_command"),
    "registry": ("registry", "registry_command"),
    "report": ("judge", "report"),
    "rules": ("spec", "rules_command"),
    "schema": ("judge", "schema_command"),
    "schemas": ("shapes", "schemas_command"),
    "test": ("judge", "test"),
    "validate": ("judge", "validate_command"),
    "verify-fixtures": ("judge", "verify_fixtures"),
}


# The commands that run libraries that log (the MCP SDK, HTTP clients, the model SDKs).
TALKING = frozenset({"agent", "capture", "check", "check-many"})


class ConformanceGroup(click.Group):
    """A group whose usage errors exit 3 (click's own 2 would read as "warned"), whose commands
    are imported when they run (``COMMANDS``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *COMMANDS])

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return super().get_command(ctx, name)
        import importlib

        from mcpaql_conformance.cli.logs import install

        # before a command's libraries: their log lines, warnings, stray tracebacks sanitised
        install(libraries=name in TALKING)
        module, attribute = COMMANDS[name]
        command: click.Command = getattr(importlib.import_module(f"mcpaql_conformance.cli.{module}"), attribute)
        return command

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        new_run()
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
            from mcpaql_conformance.cli.output import silence_stdout

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


def new_run() -> None:
    """What one run of a command keeps (the secrets it masks, the variables it withholds from a
    server, the inputs it must not replace, the library lines it has shown) starts empty, as in
    a process of its own: in this process the command line may run many times (click's runner,
    the pytest plugin). Only modules already loaded have any."""
    for name, reset in (
        ("mcpaql_conformance.secrecy", ("forget", "reset_environment")),
        ("mcpaql_conformance.files.jsonio", ("forget_inputs",)),
        ("mcpaql_conformance.cli.logs", ("new_run",)),
    ):
        module = sys.modules.get(name)
        for function in reset if module is not None else ():
            getattr(module, function)()


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
@click.version_option(__version__, "--version", "-V", message=VERSION_LINE)
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


@cli.command()
def version() -> None:
    """Print the tool version and the MCP-AQL spec version it implements."""
    click.echo(VERSION_LINE)
