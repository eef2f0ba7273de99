"""Refusals that say nothing about the request: the same refusal, not about parameters, for every
probe of an operation whatever the probe asked (an upstream without credentials, a service that
is down, a quota used up). Such answers are not judged one by one; the tests that read them give
one grouped finding with the count, quoting the server once.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mcpaql_conformance.evidence.answers import Answer, classify
from mcpaql_conformance.evidence.bundle import Bundle
from mcpaql_conformance.sanitize import plain

MIN_PROBES = 2  # probes (asking different things) that must all get the same refusal, across operations


def refusal_key(answer: Answer) -> tuple[str, str] | None:
    """What identifies a refusal (its code and message), None for anything else."""
    return (answer.code or "", answer.message) if answer.refused else None


@dataclass
class Blanket:
    """The operations whose every probe got one refusal not about the request, by refusal."""

    operations: dict[str, tuple[str, str]] = field(default_factory=dict)  # operation -> refusal key
    described: dict[tuple[str, str], str] = field(default_factory=dict)  # refusal key -> as the server said it

    @classmethod
    def of(cls, bundle: Bundle) -> Blanket:
        """Read from the parameter probes (missing and unknown parameters ask different things): an
        operation all of whose probes got one refusal not about parameters, where that refusal
        answered at least ``MIN_PROBES`` probes in all."""
        keys: dict[str, set[tuple[str, str] | None]] = defaultdict(set)
        counts: dict[str, int] = defaultdict(int)
        found = cls()
        for kind in ("missing_required", "unknown_parameter"):
            for case in bundle.parameter_cases(kind):
                operation = case.get("operation")
                if not isinstance(operation, str):
                    continue
                answer = classify(case.get("response"))
                key = refusal_key(answer) if answer.unrelated else None
                keys[operation].add(key)
                counts[operation] += 1
                if key is not None:
                    found.described.setdefault(key, answer.describe())
        uniform = {op: only for op, seen in keys.items() if len(seen) == 1 and (only := next(iter(seen))) is not None}
        probes: dict[tuple[str, str], int] = defaultdict(int)  # probes answered by each uniform refusal
        for operation, key in uniform.items():
            probes[key] += counts[operation]
        found.operations = {op: key for op, key in uniform.items() if probes[key] >= MIN_PROBES}
        found.described = {key: text for key, text in found.described.items() if key in found.operations.values()}
        return found

    def covers(self, operation: Any, response: Any) -> tuple[str, str] | None:
        """The blanket refusal this answer of ``operation`` is (None when it is judged as it is);
        ``operation`` None: any operation's."""
        key = refusal_key(classify(response))
        if key is None or key not in self.described:
            return None
        if operation is None or self.operations.get(operation) == key:
            return key
        return None

    def findings(self, grouped: dict[tuple[str, str], list[str]], what: str) -> list[str]:
        """One finding per blanket refusal: how many ``what`` (labels) it answered, quoting it once."""
        lines = []
        for key, labels in grouped.items():
            operations = sorted({label.split(".", 1)[0] for label in labels})
            shown = ", ".join(plain(name, max_len=60) for name in operations[:5])
            more = f" (+{len(operations) - 5} more)" if len(operations) > 5 else ""
            lines.append(
                f"{len(labels)} {what} of {shown}{more}: not judged: every probe of "
                f"{'this operation' if len(operations) == 1 else 'these operations'} was refused the same way, "
                f"whatever it asked ({self.described[key]}): the server could not serve the requests (an upstream "
                "without credentials or down?), so they show nothing about the request; capture again once it can"
            )
        return lines


def by_refusal(items: Iterable[tuple[tuple[str, str] | None, str]]) -> dict[tuple[str, str], list[str]]:
    """Labels by the blanket refusal that answered them (items whose key is None left out)."""
    grouped: dict[tuple[str, str], list[str]] = defaultdict(list)
    for key, label in items:
        if key is not None:
            grouped[key].append(label)
    return dict(grouped)
