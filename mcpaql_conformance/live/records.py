"""Every exchange as a file (FlowMCP-style capture folders) and the run's metrics."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpaql_conformance.evidence.answers import classify
from mcpaql_conformance.files.jsonio import dumps, write_atomic
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.sanitize import plain

_UNSAFE = lazy(r"[^A-Za-z0-9._-]+")


def _unchanged(value: Any) -> Any:
    return value


def safe_name(text: str) -> str:
    """A file-system-safe name (server-provided names are untrusted; escape sequences are
    dropped first, so that what is left is the name a terminal would have shown)."""
    return _UNSAFE.sub("_", plain(text)).strip("._")[:80] or "unnamed"


@dataclass
class Exchange:
    """One tool call and its answer (already redacted)."""

    index: int
    operation: str
    tool: str
    probe: str
    description: str
    params: dict[str, Any]
    response: Any
    milliseconds: float
    timestamp: str
    outcome: str  # "answered", "error" (MCP-level) or "timeout"

    def record(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "operation": self.operation,
            "tool": self.tool,
            "probe": self.probe,
            "_description": self.description,
            "params": self.params,
            "response_time_ms": round(self.milliseconds, 2),
            "timestamp": self.timestamp,
            "outcome": self.outcome,
            "response": self.response,
        }


SortKey = tuple[int, ...]


@dataclass
class RecordWriter:
    """Writes ``DIR/{timestamp}/{implementation}/{operation}-{n}.json`` and ``metrics.json``.

    Concurrent probes finish in any order; each exchange carries the sort key of its place in
    the capture's plan, and ``flush`` numbers and writes the records in that order, so that
    two captures of the same server give the same record names."""

    root: Path | None
    timestamp: str
    implementation: str = "server"
    # Masks secrets once more as records are written: a secret learned late (a sensitive
    # value sent after an earlier answer echoed it) is masked in every record and file name.
    redact: Callable[[Any], Any] = _unchanged
    exchanges: list[Exchange] = field(default_factory=list)
    _keys: list[SortKey] = field(default_factory=list)

    @property
    def folder(self) -> Path | None:
        if self.root is None:
            return None
        return self.root / safe_name(self.timestamp) / safe_name(self.redact(self.implementation))

    def add(self, exchange: Exchange, key: SortKey) -> None:
        self.exchanges.append(exchange)
        self._keys.append(key)

    def ordered(self) -> list[Exchange]:
        """The exchanges in plan order, indexed from 0."""
        order = sorted(range(len(self.exchanges)), key=lambda i: (self._keys[i], i))
        exchanges = [self.exchanges[i] for i in order]
        for index, exchange in enumerate(exchanges):
            exchange.index = index
        return exchanges

    def flush(self) -> None:
        """Write every record and the metrics (all already redacted)."""
        folder = self.folder
        exchanges = self.ordered()
        if folder is None:
            return
        folder.mkdir(parents=True, exist_ok=True)
        # Counted by file name, not by operation: names that collide once made safe ("a/b",
        # "a_b", "..", "") still get a file each.
        per_name: Counter[str] = Counter()
        for exchange in exchanges:
            base = safe_name(self.redact(exchange.operation))
            per_name[base] += 1
            name = f"{base}-{per_name[base]}.json"
            record = dumps(self.redact(exchange.record()))
            write_atomic(folder / name, record, durable=False)
        metrics = dumps(self.redact(self.metrics()))
        write_atomic(folder / "metrics.json", metrics)

    def flush_log(self, server_log: str) -> None:
        """Write the server's stderr (redacted) beside the records."""
        folder = self.folder
        if folder is not None and server_log:
            folder.mkdir(parents=True, exist_ok=True)
            write_atomic(folder / "server-stderr.log", self.redact(server_log), durable=False)

    def metrics(self) -> dict[str, Any]:
        times = sorted(e.milliseconds for e in self.exchanges)
        outcomes = Counter(e.outcome for e in self.exchanges)
        refused = sum(1 for e in self.exchanges if classify(e.response).refused and e.outcome == "answered")
        return {
            "calls": len(self.exchanges),
            "by_probe": dict(Counter(e.probe for e in self.exchanges)),
            "by_operation": dict(Counter(e.operation for e in self.exchanges)),
            "errors": refused + outcomes["error"],  # refusals in the tool result and JSON-RPC errors
            "error_answers": refused,
            "mcp_errors": outcomes["error"],
            "timeouts": outcomes["timeout"],
            "latency_ms": {
                "p50": _percentile(times, 0.50),
                "p95": _percentile(times, 0.95),
                "max": round(times[-1], 2) if times else None,
            },
        }


def _percentile(sorted_values: list[float], fraction: float) -> float | None:
    if not sorted_values:
        return None
    index = min(len(sorted_values) - 1, max(0, round(fraction * (len(sorted_values) - 1))))
    return round(sorted_values[index], 2)
