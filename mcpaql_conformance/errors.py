"""The exception types that end a command with an exit code of their own: ConfigError (3: the
user's input or options are wrong) and InternalError (70: a fault of ours)."""

EXIT_CONFIG = 3  # the user's input or options are wrong
EXIT_INTERNAL = 70  # sysexits' EX_SOFTWARE: never 3, which tells a user their input is wrong


class ConfigError(Exception):
    """Bad path, bad JSON, invalid bundle or report, bad option value: exit 3."""

    exit_code = EXIT_CONFIG


class InternalError(Exception):
    """A fault of ours, not of the input: a file we wrote that we cannot read back, a bug: exit 70.
    The message says what and where, and what was kept."""

    exit_code = EXIT_INTERNAL
