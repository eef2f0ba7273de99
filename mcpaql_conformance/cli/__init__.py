"""The command line: the group (``group``) and the commands, one module per command group
(`judge`: test, verify-fixtures, report, badge, validate, schema; `live`: capture, check; `agent`;
`shapes`: schemas, diff; `spec`: rules; `registry`: registry, check-many). Options several commands
share are in `options`.

No check logic lives here. A command pays only for what it uses: each command's module is
imported when that command runs (a lazy group), heavy modules inside the commands, and
``mcpaql-conformance version`` imports neither click nor any command (``tests/unit/test_startup.py``
pins what `version` and `test` import).
"""

from __future__ import annotations

import sys
from typing import Any

from mcpaql_conformance import VERSION_LINE


def main() -> None:
    """Console-script entry point (ends fast after a large bundle: see ``lifetime``)."""
    from mcpaql_conformance import lifetime

    lifetime.enable_fast_exit()
    if sys.argv[1:] in (["version"], ["--version"], ["-V"]):  # what `version` says needs no command line parser
        print(VERSION_LINE)
        return
    from mcpaql_conformance.cli.group import cli

    try:
        cli(prog_name="mcpaql-conformance")
    except SystemExit as exc:
        lifetime.finish(exc.code)


_GROUP = frozenset({"cli", "COMMANDS", "ConformanceGroup", "EXIT_CONFIG", "EXIT_PIPE_CLOSED"})


def __getattr__(name: str) -> Any:
    """The group's names (``cli``, ``COMMANDS``...), its module imported when first asked for."""
    if name not in _GROUP:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module("mcpaql_conformance.cli.group"), name)
