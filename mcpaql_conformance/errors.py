"""The one exception type that means "configuration error" (exit code 3)."""


class ConfigError(Exception):
    """Bad path, bad JSON, invalid bundle or report, bad option value: exit 3."""

    exit_code = 3
