"""What the whole suite shares: how many workers ``pytest -n auto`` starts."""

from __future__ import annotations

import os

import pytest


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: a worker per core, and one more. The acceptance tests spend about a third of
    their time waiting for the servers and processes they start (measured: 1.6 of 2 cores busy
    with a worker per core); the extra worker runs meanwhile (benchmarks are not timed here)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores + 1
