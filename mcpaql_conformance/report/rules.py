"""The requirement registry as `rules` shows it: every rule, and how much of the spec our tests
judge, per document and keyword (text, JSON or markdown)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mcpaql_conformance.files.jsonio import dumps
from mcpaql_conformance.report.escape import markdown
from mcpaql_conformance.verdict.rules.model import ABSOLUTE, ADVISED, DOCUMENTS, SERVER, Rule

GROUPS = ("MUST", "SHOULD", "MAY")  # absolute, advised and permissive keywords


def group_of(rule: Rule) -> str:
    """MUST for MUST, MUST NOT, SHALL, REQUIRED...; SHOULD for SHOULD, RECOMMENDED...; else MAY."""
    if rule.keyword in ABSOLUTE:
        return "MUST"
    return "SHOULD" if rule.keyword in ADVISED else "MAY"


@dataclass
class Coverage:
    """How many rules of a document a server is bound by, and how many of those are judged."""

    document: str
    counts: dict[str, list[int]]  # group -> [judged, server rules]; and "all" -> [rules, server rules]

    def cell(self, group: str) -> str:
        judged, total = self.counts[group]
        return f"{judged}/{total}" if total else "-"


def coverage(rules: Iterable[Rule]) -> list[Coverage]:
    """Per document (in the registry's order), then the total: judged/server rules per group."""
    found: dict[str, Coverage] = {}
    total = Coverage("total", {group: [0, 0] for group in (*GROUPS, "all")})
    for rule in rules:
        row = found.setdefault(rule.document.key, Coverage(rule.document.key, {g: [0, 0] for g in (*GROUPS, "all")}))
        for target in (row, total):
            target.counts["all"][0] += 1
            if rule.subject == SERVER:
                target.counts["all"][1] += 1
                target.counts[group_of(rule)][1] += 1
                target.counts[group_of(rule)][0] += rule.judged
    return [*found.values(), total]


def selected(rules: Iterable[Rule], judged: bool | None) -> list[Rule]:
    """The rules `rules --judged` (True) or `--not-judged` (False) asks for; all for None."""
    return [rule for rule in rules if judged is None or rule.judged == judged]


def rule_dict(rule: Rule) -> dict[str, Any]:
    strength = rule.strength
    return {
        "id": rule.id,
        "keyword": rule.keyword,
        "strength": strength.value if strength is not None else None,
        "document": rule.document.path,
        "section": rule.section,
        "anchor": rule.anchor,
        "summary": rule.summary,
        "subject": rule.subject,
        "tests": list(rule.tests),
        "judged": rule.judged,
        "proof": _proof_dict(rule),
        "notJudged": rule.why_not_judged or None,
        "reading": rule.reading or None,
        "anchoredBy": rule.anchored_by or None,
    }


def _proof_dict(rule: Rule) -> dict[str, str] | None:
    proof = rule.proof
    if proof is None:
        return None
    return {"breaks": proof.breaks, **({"via": proof.via} if proof.via else {})}


def render_rules(rules: list[Rule], fmt: str, everything: list[Rule]) -> str:
    """``rules`` (those selected) in ``fmt``; the coverage is always of ``everything``."""
    rows = coverage(everything)
    if fmt == "json":
        table = [{"document": row.document, **{g: row.counts[g] for g in (*GROUPS, "all")}} for row in rows]
        return dumps({"rules": [rule_dict(rule) for rule in rules], "coverage": table})
    if fmt == "markdown":
        return _markdown(rules, rows)
    return _text(rules, rows)


def coverage_table(rows: list[Coverage]) -> str:
    """The markdown table of judged/server rules per document and keyword (the docs site's requirements page)."""
    lines = [
        "| Document | MUST judged | SHOULD judged | MAY judged | Rules (server) |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        name = f"`{DOCUMENTS[row.document].path}`" if row.document in DOCUMENTS else "**Total**"
        cells = " | ".join(row.cell(group) for group in GROUPS)
        lines.append(f"| {name} | {cells} | {row.counts['all'][0]} ({row.counts['all'][1]}) |")
    return "\n".join(lines) + "\n"


def _why(rule: Rule) -> str:
    """``judged by T (proven: a server that ... fails it)``, or ``not judged: why``."""
    proof = rule.proof
    if proof is None:
        return f"not judged: {rule.why_not_judged}"
    via = f", as {proof.via} is" if proof.via else ""
    return f"judged by {', '.join(rule.tests)} (proven: a server that {proof.breaks} is caught{via})"


def _text(rules: list[Rule], rows: list[Coverage]) -> str:
    lines = []
    for rule in rules:
        strength = rule.strength.value if rule.strength is not None else "never fails"
        lines.append(f"{rule.id}  {rule.keyword} ({strength})  {rule.document.path} §{rule.section}")
        lines.append(f"    {rule.summary}")
        lines.append(f"    {_why(rule)}")
        if rule.reading:
            lines.append(f"    reading: {rule.reading}")
    lines.append("")
    lines.append(f"{len(rules)} rule(s) shown. Coverage (judged/server rules):")
    for row in rows:
        cells = ", ".join(f"{group} {row.cell(group)}" for group in GROUPS)
        lines.append(f"  {row.document}: {cells}; {row.counts['all'][0]} rules ({row.counts['all'][1]} about servers)")
    return "\n".join(lines) + "\n"


def _markdown(rules: list[Rule], rows: list[Coverage]) -> str:
    lines = ["# MCP-AQL requirement registry", "", "## Coverage", "", coverage_table(rows), "## Rules", ""]
    lines += ["| Rule | Keyword | Where | Summary | Judged |", "|---|---|---|---|---|"]
    for rule in rules:
        where = f"{rule.document.path} §{rule.section}"
        cells = (rule.id, rule.keyword, where, rule.summary, _why(rule))
        lines.append("| " + " | ".join(markdown(cell) for cell in cells) + " |")
    return "\n".join(lines) + "\n"


_RESTATEMENT = ("Restates", "Agrees", "In line")


def contradictions(rules: Iterable[Rule]) -> list[Rule]:
    """The rules whose reading settles a contradiction of the spec (not a mere restatement)."""
    return [rule for rule in rules if rule.reading and not rule.reading.startswith(_RESTATEMENT)]


def readings_list(rules: Iterable[Rule]) -> str:
    """The markdown list of the readings we take where the spec contradicts itself (the docs site's
    requirements page)."""
    return "".join(
        f"- `{rule.id}` ({rule.keyword}, {rule.document.path} §{rule.section}): {markdown(rule.reading)}\n"
        for rule in contradictions(rules)
    )
