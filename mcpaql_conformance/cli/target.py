"""The live server a command talks to, prepared before it starts: a command or a URL, and the
secrets kept from it."""

from __future__ import annotations

from typing import Any

import click


def keep_secrets(url: str | None, pass_env: tuple[str, ...]) -> None:
    """Before any server starts: what the URL carries as credentials is a secret, and the model
    key variables the user hands on (``--pass-env``) go to the server after all."""
    from mcpaql_conformance import secrecy

    secrecy.register_url(url)
    secrecy.pass_through(pass_env)


def check_command(command: tuple[str, ...], url: str | None) -> None:
    """One of a command and a URL; a command that opens with an option is an option of ours we
    do not have (the commands take unknown options as the server's command), said as such."""
    if command and command[0].startswith("-") and command[0] != "-":
        raise click.UsageError(
            f"no such option: {command[0]} (the server command goes after --, and starts with a program)"
        )
    if bool(url) == bool(command):
        raise click.UsageError("give either --url URL or a server command after --, not both or neither")


def server_target(command: tuple[str, ...], url: str | None, timeout: float) -> Any:
    from mcpaql_conformance.live.connection import Target

    check_command(command, url)
    if not timeout > 0 or timeout == float("inf"):
        raise click.UsageError(f"--timeout must be a positive number of seconds, not {timeout:g}")
    return Target(command=command, url=url)
