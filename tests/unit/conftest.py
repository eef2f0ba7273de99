"""Shared fixtures of the unit tests; builders live in ``bundle_builders``."""

from __future__ import annotations

from typing import Any

import pytest
from bundle_builders import conformant_bundle


@pytest.fixture
def bundle() -> dict[str, Any]:
    """A fresh, fully conformant Level 2 bundle dict to mutate."""
    return conformant_bundle()


@pytest.fixture(autouse=True)
def _no_secrets_across_tests() -> Any:
    """Secrets and withheld variables are process-wide (see secrecy): each test starts without."""
    from mcpaql_conformance import secrecy

    yield
    secrecy.forget()
    secrecy.reset_environment()
