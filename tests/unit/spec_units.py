"""The spec's keyword sentences, read from ../shared/spec-docs: every sentence, list item or table
row of a document's prose (code blocks left out) that holds an RFC 2119 keyword, with the
section it stands in. The registry (mcpaql_conformance/verdict/rules) must name each of them.

    python tests/unit/spec_units.py list DOCUMENT   the units of one document (core, features/pagination...)
    python tests/unit/spec_units.py check [DOCUMENT] what the registry misses, or names wrongly
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

SPEC_DOCS = Path(__file__).resolve().parents[3] / "shared" / "spec-docs"
KEYWORD = re.compile(
    r"\b(?:MUST NOT|MUST|SHALL NOT|SHALL|SHOULD NOT|SHOULD|NOT RECOMMENDED|REQUIRED|RECOMMENDED|MAY|OPTIONAL)\b"
)
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_NUMBER = re.compile(r"^(\d+(?:\.\d+)*)\.?\s")
_ITEM = re.compile(r"^(?:[-*+]|\d+\.)\s")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z*`\[(])")


@dataclass(frozen=True)
class Unit:
    document: str
    section: str
    text: str


def section_key(heading: str) -> str:
    """A heading's number ("4.6 Unknown Parameter Handling": 4.6), else its title."""
    found = _NUMBER.match(heading + " ")
    return found.group(1) if found else heading.strip()


def units(document: str, text: str) -> list[Unit]:
    """The keyword sentences of one document, in order."""
    paragraphs: list[tuple[str, str]] = []
    section, current, fenced = "", "", False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = _HEADING.match(line)
        if heading:
            paragraphs.append((section, current))
            section, current = section_key(heading.group(2)), ""
            continue
        if not stripped:
            paragraphs.append((section, current))
            current = ""
        elif stripped.startswith("|") or _ITEM.match(stripped) or stripped.startswith(">"):
            paragraphs.append((section, current))
            current = stripped
        else:
            current = f"{current} {stripped}".strip()
    paragraphs.append((section, current))
    found = []
    for where, paragraph in paragraphs:
        for sentence in _SENTENCE_END.split(paragraph):
            if KEYWORD.search(sentence):
                found.append(Unit(document, where, sentence))
    return found


def normal(text: str) -> str:
    """Text as anchors are matched: no emphasis or code marks, spaces folded, lower case."""
    return " ".join(text.replace("*", "").replace("`", "").split()).lower()


def document_units(document: str) -> list[Unit]:
    from mcpaql_conformance.verdict.rules.model import DOCUMENTS

    return units(document, (SPEC_DOCS / DOCUMENTS[document].path).read_text(encoding="utf-8"))


def problems(document: str) -> list[str]:
    """What the registry misses or names wrongly in one document."""
    from mcpaql_conformance.verdict.rules import RULES

    found = document_units(document)
    rules = [rule for rule in RULES if rule.document.key == document]
    out = []
    covered: set[int] = set()
    for rule in rules:
        matches = [
            index
            for index, unit in enumerate(found)
            if unit.section == rule.section and normal(rule.anchor) in normal(unit.text)
        ]
        if not matches:
            out.append(f"{rule.id}: no keyword sentence of section {rule.section!r} holds {rule.anchor!r}")
        elif len(matches) > 1:
            out.append(f"{rule.id}: {rule.anchor!r} is in {len(matches)} sentences of section {rule.section!r}")
        elif rule.keyword not in found[matches[0]].text:
            out.append(f"{rule.id}: its sentence does not say {rule.keyword}: {found[matches[0]].text[:120]}")
        covered.update(matches)
    for index, unit in enumerate(found):
        if index not in covered:
            out.append(f"not in the registry: [{unit.section}] {unit.text[:200]}")
    return out


def main(argv: list[str]) -> int:
    from mcpaql_conformance.verdict.rules.model import DOCUMENTS

    if len(argv) >= 2 and argv[0] == "list":
        for index, unit in enumerate(document_units(argv[1])):
            print(f"{index:3} [{unit.section}] {unit.text}")
        return 0
    if argv and argv[0] == "check":
        documents = argv[1:] or list(DOCUMENTS)
        total = 0
        for document in documents:
            for problem in problems(document):
                print(f"{document}: {problem}")
                total += 1
        print(f"{total} problem(s)")
        return 1 if total else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    sys.exit(main(sys.argv[1:]))
