"""Every exchange as a file (FlowMCP-style capture folders) and the run's metrics."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from mcpaql_conformance.jsonio import write_atomic

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str) -> str:
    """A file-system-safe name (server-provided names are untrusted)."""
    return _UNSAFE.sub("_", text).strip("._")[:80] or "unnamed"


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


@dataclass
class RecordWriter:
    """Writes ``DIR/{timestamp}/{implementation}/{operation}-{n}.json`` and ``metrics.json``."""

    root: Path | None
    timestamp: str
    implementation: str = "server"
    exchanges: list[Exchange] = field(default_factory=list)
    _per_operation: Counter[str] = field(default_factory=Counter)

    @property
    def folder(self) -> Path | None:
        if self.root is None:
            return None
        return self.root / safe_name(self.timestamp) / safe_name(self.implementation)

    def add(self, exchange: Exchange) -> None:
        self.exchanges.append(exchange)
        folder = self.folder
        if folder is None:
            return
        self._per_operation[exchange.operation] += 1
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{safe_name(exchange.operation)}-{self._per_operation[exchange.operation]}.json"
        write_atomic(folder / name, orjson.dumps(exchange.record(), option=orjson.OPT_INDENT_2).decode() + "\n")

    def metrics(self) -> dict[str, Any]:
        times = sorted(e.milliseconds for e in self.exchanges)
        outcomes = Counter(e.outcome for e in self.exchanges)
        refused = sum(1 for e in self.exchanges if isinstance(e.response, dict) and e.response.get("success") is False)
        return {
            "calls": len(self.exchanges),
            "by_probe": dict(Counter(e.probe for e in self.exchanges)),
            "by_operation": dict(Counter(e.operation for e in self.exchanges)),
            "errors": refused + outcomes["error"],  # MCP-AQL error answers and MCP-level errors
            "error_answers": refused,
            "mcp_errors": outcomes["error"],
            "timeouts": outcomes["timeout"],
            "latency_ms": {
                "p50": _percentile(times, 0.50),
                "p95": _percentile(times, 0.95),
                "max": round(times[-1], 2) if times else None,
            },
        }

    def write_metrics(self) -> None:
        folder = self.folder
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            write_atomic(folder / "metrics.json", orjson.dumps(self.metrics(), option=orjson.OPT_INDENT_2).decode())


def _percentile(sorted_values: list[float], fraction: float) -> float | None:
    if not sorted_values:
        return None
    index = min(len(sorted_values) - 1, max(0, round(fraction * (len(sorted_values) - 1))))
    return round(sorted_values[index], 2)
