"""Secrets never leave the capture: sensitive parameters and environment-provided values."""

from __future__ import annotations

import re
from typing import Any

MASK = "***"
# Secrets shorter than this are masked only as whole words: masking them inside other
# words would corrupt the evidence ("x" inside "index").
MIN_EMBEDDED = 6


class Redactor:
    """Masks sensitive parameter values and every occurrence of secret strings."""

    def __init__(self) -> None:
        self.sensitive: set[tuple[str, str]] = set()
        self.secrets: set[str] = set()

    def add_secret(self, value: str) -> None:
        if value:
            self.secrets.add(value)

    def params(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        masked = {key: MASK if (operation, key) in self.sensitive else value for key, value in params.items()}
        return self.value(masked)  # type: ignore[no-any-return]

    def value(self, value: Any) -> Any:
        """A copy of ``value`` with every secret string masked, at any depth."""
        if not self.secrets:
            return value
        if isinstance(value, str):
            if value in self.secrets:
                return MASK
            for secret in self.secrets:
                if len(secret) >= MIN_EMBEDDED:
                    value = value.replace(secret, MASK)
                elif secret in value:
                    value = re.sub(rf"(?<![A-Za-z0-9_]){re.escape(secret)}(?![A-Za-z0-9_])", MASK, value)
            return value
        if isinstance(value, dict):
            return {self.value(key): self.value(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.value(item) for item in value]
        return value
