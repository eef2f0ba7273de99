"""Run many bundles in parallel processes, results in input order, a progress bar on a terminal."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def default_jobs() -> int:
    return os.cpu_count() or 1


def run_all(function: Callable[..., R], items: Sequence[T], *args: Any, jobs: int, label: str) -> list[R]:
    """``[function(item, *args) for item in items]``, spread over ``jobs`` processes."""
    results: list[R] = []
    with _progress(len(items), label) as advance:
        for result in _results(function, items, args, jobs):
            results.append(result)
            advance()
    return results


def _results(function: Callable[..., R], items: Sequence[T], args: tuple[Any, ...], jobs: int) -> Iterator[R]:
    if jobs <= 1 or len(items) <= 1:
        yield from (function(item, *args) for item in items)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork: workers start at once with everything already imported (Linux; spawn elsewhere).
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    columns = [[argument] * len(items) for argument in args]  # the same extra arguments for every item
    chunk = max(1, len(items) // (jobs * 8))
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(method)) as pool:
        yield from pool.map(function, items, *columns, chunksize=chunk)


class _progress:
    """A rich progress bar on stderr when it is a terminal; nothing otherwise."""

    def __init__(self, total: int, label: str) -> None:
        self.total = total
        self.label = label
        self.bar: Any = None

    def __enter__(self) -> Callable[[], None]:
        if sys.stderr.isatty() and not os.environ.get("CI") and self.total > 1:
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(console=Console(stderr=True), transient=True)
            self.bar.start()
            task = self.bar.add_task(self.label, total=self.total)
            return lambda: self.bar.advance(task)
        return lambda: None

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
