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


def server_target(command: tuple[str, ...], url: str | None, timeout: float) -> Any:
    from mcpaql_conformance.live.connection import Target

    if bool(url) == bool(command):
        raise click.UsageError("give either --url URL or a server command after --, not both or neither")
    if not timeout > 0 or timeout == float("inf"):
        raise click.UsageError(f"--timeout must be a positive number of seconds, not {timeout:g}")
    return Target(command=command, url=url)
