"""What one normative sentence of the spec asks of a server, where it stands, how strong it is,
and which of our tests judge it (or why none does)."""

from __future__ import annotations

from dataclasses import dataclass

from mcpaql_conformance.verdict.model import Requirement
from mcpaql_conformance.verdict.rules.needs import NEEDS
from mcpaql_conformance.verdict.rules.proofs import PROOFS, Proof

# The keywords of RFC 2119, as a sentence says them.
MUST, MUST_NOT, SHALL, SHALL_NOT, REQUIRED = "MUST", "MUST NOT", "SHALL", "SHALL NOT", "REQUIRED"
SHOULD, SHOULD_NOT, RECOMMENDED, NOT_RECOMMENDED = "SHOULD", "SHOULD NOT", "RECOMMENDED", "NOT RECOMMENDED"
MAY, OPTIONAL = "MAY", "OPTIONAL"
ABSOLUTE = frozenset({MUST, MUST_NOT, SHALL, SHALL_NOT, REQUIRED})
ADVISED = frozenset({SHOULD, SHOULD_NOT, RECOMMENDED, NOT_RECOMMENDED})
ALLOWED = frozenset({MAY, OPTIONAL})
KEYWORDS = ABSOLUTE | ADVISED | ALLOWED

# Whom a sentence is about: only a server's sentences can be judged from what it answered.
SERVER, CLIENT, RUNNER, GENERATOR, DEFINITION = "server", "client", "runner", "generator", "definition"
SUBJECTS = (SERVER, CLIENT, RUNNER, GENERATOR, DEFINITION)


# Why a rule is not judged: the first words of its ``not_judged``, worded alike in every document.
PROBE = "needs a probe capture does not send yet: "
UNSEEN = "not observable from evidence: "
UNRECORDED = "needs evidence no bundle records yet: "
A_MAY = "a MAY: allowed either way"
ABOUT_CLIENT = "about the client"
NOT_A_REQUIREMENT = "a definition, not a requirement"
# A rule a test names but no defect proof shows caught (verdict/rules/proofs.py): not judged yet.
UNPROVEN = "no proof yet that a server breaking it alone is caught by "

# The tests rules name (the ids the checks declare).
OPS_QUERY = "L1.introspection.operations-query"
TYPES_QUERY = "L1.introspection.types-query"
DETAILS = "L1.introspection.operation-details"
COMPLETENESS = "L1.introspection.completeness"
REQUIRED_ENFORCED = "L1.params.required-enforced"
UNKNOWN_EXPLICIT = "L1.params.unknown-explicit"
DEFAULTS = "L1.params.defaults"
SNAKE_CASE = "L1.params.snake-case"
UNION = "L1.errors.discriminated-union"
NO_LEAKAGE = "L1.errors.no-leakage"
ACTIONABLE = "L1.errors.actionable"
CREATE_READ = "L1.roundtrip.create-read"
UPDATE_PRESERVATION = "L1.roundtrip.update-preservation"
ENDPOINT_MODES = "L2.features.endpoint-modes"
FIELD_SELECTION = "L2.features.field-selection"
BATCH = "L2.features.batch"
CONSTRAINTS_ENFORCED = "L2.constraints.enforced"
CONSTRAINTS_DOCUMENTED = "L2.constraints.documented"
SEMANTIC = "L2.semantic"


@dataclass(frozen=True)
class Document:
    key: str  # how a rule id names it: core, conformance, features/pagination
    path: str  # under the spec repository's docs/
    title: str
    normative: bool  # only the core and its schemas are (v1.0.0-draft, "Status of This Document")


DOCUMENTS = {
    document.key: document
    for document in (
        Document("core", "versions/v1.0.0-draft.md", "MCP-AQL Specification v1.0.0-draft", True),
        Document("conformance", "conformance-testing.md", "Conformance Testing", False),
        Document("introspection", "introspection.md", "Introspection", False),
        Document("operations", "operations.md", "Operations Reference", False),
        Document("error-codes", "error-codes.md", "Error Codes", False),
        Document("endpoint-modes", "endpoint-modes.md", "Endpoint Modes", False),
        Document("crude", "crude-pattern.md", "CRUDE Pattern", False),
        Document("mcp", "mcp-integration.md", "MCP Integration", False),
        Document("features/aggregations", "features/aggregations.md", "Aggregations", False),
        Document("features/collection-querying", "features/collection-querying.md", "Collection Querying", False),
        Document("features/computed-fields", "features/computed-fields.md", "Computed Fields", False),
        Document("features/field-selection", "features/field-selection.md", "Field Selection", False),
        Document("features/pagination", "features/pagination.md", "Pagination", False),
        Document("features/relationship-queries", "features/relationship-queries.md", "Relationship Queries", False),
        Document("features/warnings", "features/warnings.md", "Warnings", False),
    )
}


@dataclass(frozen=True)
class Rule:
    """One requirement: a sentence of the spec with an RFC 2119 keyword.

    ``anchor`` is a short phrase of the sentence itself (a few words, never more), by which a
    test finds it in its section; ``summary`` says the rule in our own words. A rule is judged
    by ``tests`` (our test ids), or not judged, saying why (``not_judged``). ``reading``: where
    the spec says otherwise elsewhere, the other sentence (a rule id) and the reading we take.
    ``anchored_by``: for a MUST of an informative document, the normative rule or the
    conformance test that makes it a MUST all the same. ``gathers``: the rule asks that every
    test it names passes (a category, a level), so a run meets it only when they all do.
    """

    id: str  # "<document>:<section>:<slug>", stable
    keyword: str  # as the sentence says it (MUST, MUST NOT, SHOULD, MAY, REQUIRED...)
    section: str  # the section number ("4.6", "6.1") or, for a section without one, its title
    anchor: str
    summary: str
    tests: tuple[str, ...] = ()
    not_judged: str = ""
    subject: str = SERVER
    reading: str = ""
    anchored_by: str = ""
    gathers: bool = False

    @property
    def document(self) -> Document:
        return DOCUMENTS[self.id.split(":", 1)[0]]

    @property
    def strength(self) -> Requirement | None:
        """What a violation costs: MUST (a FAIL) for an absolute keyword of the core, of the
        conformance document or anchored in either; SHOULD (a WARN) for an advised keyword, or
        an absolute one found only in an informative document; None for what a sentence allows
        (MAY, OPTIONAL), which never fails anything."""
        if self.keyword in ALLOWED:
            return None
        if self.keyword in ABSOLUTE and (
            self.document.normative or self.document.key == "conformance" or self.anchored_by
        ):
            return Requirement.MUST
        return Requirement.SHOULD

    @property
    def informative_must(self) -> bool:
        """An absolute keyword judged as a SHOULD: it stands only in an informative document."""
        return self.keyword in ABSOLUTE and self.strength is Requirement.SHOULD

    @property
    def proof(self) -> Proof | None:
        """The defect shown to be caught by a test this rule names (verdict/rules/proofs.py)."""
        return PROOFS.get(self.id) if self.tests else None

    @property
    def needs(self) -> tuple[str, ...]:
        """The evidence a run must hold for a pass to say this rule held (verdict/rules/needs.py)."""
        return NEEDS.get(self.id, ())

    @property
    def judged(self) -> bool:
        """A test names it and a server breaking it alone was shown to be caught."""
        return self.proof is not None

    @property
    def why_not_judged(self) -> str:
        """Why it is not judged ("" when it is): its own reason, or that its test has no proof."""
        if self.judged:
            return ""
        return self.not_judged or UNPROVEN + ", ".join(self.tests)
