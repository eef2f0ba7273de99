"""The requirement registry (mcpaql_conformance/verdict/rules): every keyword sentence of the spec's
documents has a rule, each rule stands where it says and is said in our own words, its keyword
decides what a violation costs, and the tests and the registry cite each other both ways."""

from __future__ import annotations

import re

import pytest
from spec_units import SPEC_DOCS, document_units, normal, problems

from mcpaql_conformance.report.rules import contradictions, coverage, coverage_table, readings_list
from mcpaql_conformance.verdict.checks import CATEGORIES
from mcpaql_conformance.verdict.model import Requirement
from mcpaql_conformance.verdict.rules import BY_ID, RULES, citation
from mcpaql_conformance.verdict.rules.model import DOCUMENTS, KEYWORDS, SERVER, SUBJECTS, Rule

NOT_SERVER = {
    "client": "about the client",
    "runner": "about conformance runners",
    "generator": "about adapter generators",
    "definition": "a definition, not a requirement",
}
REASONS = (
    "not observable from evidence: ",
    "needs a probe capture does not send yet: ",
    "needs evidence no bundle records yet: ",
    "no check reads it yet: ",
    "a MAY: allowed either way",
    "the spec says otherwise in ",
)
SEMANTIC = "L2.semantic"  # the semantic tests are made per bundle: L2.semantic.<name>
needs_docs = pytest.mark.skipif(
    not SPEC_DOCS.is_dir(), reason=f"the spec's documents are not at {SPEC_DOCS} (CI has them at ../shared/spec-docs)"
)


def check_rules() -> dict[str, tuple[str, ...]]:
    return {check.id: check.rules for category in CATEGORIES for check in category.checks}


@needs_docs
@pytest.mark.parametrize("document", list(DOCUMENTS))
def test_every_keyword_sentence_of_every_document_has_a_rule_and_every_rule_its_sentence(document: str) -> None:
    assert problems(document) == []


@needs_docs
def test_the_registry_counts_what_the_documents_say() -> None:
    for document in DOCUMENTS:
        sentences = len(document_units(document))
        rules = [rule for rule in RULES if rule.document.key == document]
        assert sentences <= len(rules) <= 2 * sentences, document  # a sentence may hold two rules


@needs_docs
def test_summaries_are_our_own_words() -> None:
    """No summary repeats six words in a row of the sentence it stands for; anchors are short."""
    copied = []
    for rule in RULES:
        unit = next(u for u in document_units(rule.document.key) if u.section == rule.section and
                    normal(rule.anchor) in normal(u.text))  # fmt: skip
        words = normal(unit.text).split()
        runs = {" ".join(words[i : i + 6]) for i in range(len(words) - 5)}
        summary = " ".join(re.findall(r"[\w'-]+", normal(rule.summary)))
        if any(run in summary for run in runs):
            copied.append(rule.id)
    assert copied == []


def test_each_rule_is_well_formed() -> None:
    assert len(BY_ID) == len(RULES)  # ids are unique
    for rule in RULES:
        document, section, slug = rule.id.split(":")
        assert document in DOCUMENTS and section in (rule.section, re.sub(r"\W+", "-", rule.section.lower()))
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", slug), rule.id
        assert rule.keyword in KEYWORDS and rule.subject in SUBJECTS, rule.id
        assert 2 <= len(rule.anchor.split()) <= 8 and len(rule.anchor) <= 80, rule.id
        assert rule.summary and "\n" not in rule.summary, rule.id
        assert bool(rule.tests) != bool(rule.not_judged), rule.id  # judged, or says why not
        if rule.subject != SERVER:
            assert rule.not_judged == NOT_SERVER[rule.subject] and not rule.tests, rule.id
        elif rule.not_judged:
            assert rule.not_judged.startswith(REASONS), rule.id
        if rule.anchored_by:
            assert rule.anchored_by in BY_ID or rule.anchored_by in check_rules(), rule.id


def test_each_test_a_rule_names_exists_and_cites_the_rule_back() -> None:
    declared = check_rules()
    for rule in RULES:
        for test in rule.tests:
            if test == SEMANTIC:
                continue
            assert test in declared, f"{rule.id} names an unknown test {test}"
            assert rule.id in declared[test], f"{test} does not cite {rule.id}, which names it"


def test_each_rule_a_test_cites_exists_and_names_the_test_back() -> None:
    for test, rules in check_rules().items():
        for rule_id in rules:
            assert rule_id in BY_ID, f"{test} cites an unknown rule {rule_id}"
            assert test in BY_ID[rule_id].tests, f"{rule_id} does not name {test}, which cites it"


@pytest.mark.parametrize(
    ("keyword", "document", "anchored", "strength"),
    [
        ("MUST", "core", "", Requirement.MUST),
        ("MUST NOT", "core", "", Requirement.MUST),
        ("SHOULD", "core", "", Requirement.SHOULD),
        ("MAY", "core", "", None),
        ("MUST", "conformance", "", Requirement.MUST),
        ("MUST", "introspection", "", Requirement.SHOULD),  # an informative MUST: a WARN
        ("MUST", "introspection", "L1.params.required-enforced", Requirement.MUST),  # made binding
        ("SHOULD", "operations", "", Requirement.SHOULD),
        ("OPTIONAL", "operations", "", None),
    ],
)
def test_the_keyword_and_the_document_decide_the_strength(
    keyword: str, document: str, anchored: str, strength: Requirement | None
) -> None:
    rule = Rule(f"{document}:1:x", keyword, "1", "a b", "s", not_judged="a MAY", anchored_by=anchored)
    assert rule.strength is strength
    assert rule.informative_must is (keyword == "MUST" and strength is Requirement.SHOULD)


def test_a_citation_names_the_document_the_section_and_the_keyword() -> None:
    rule = next(rule for rule in RULES if rule.document.key == "core")
    assert citation(rule.id) == f"core §{rule.section} {rule.keyword}"
    assert citation("other:1:x") == "other:1:x"  # a rule of another version, as it is
    # a MUST of an informative document warns: its citation says why
    assert citation("introspection:8.1:protocol-object") == "introspection §8.1 MUST, informative"
    assert citation("introspection:8.1:must-list") == "introspection §8.1 MUST"  # anchored: a FAIL


def test_the_requirements_page_is_made_from_the_registry() -> None:
    """docs/requirements.md holds the places where the site's build puts the coverage table and the
    readings (docs/hooks.py, from these functions: tests/acceptance/test_site.py checks the page)."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "requirements.md").read_text(encoding="utf-8")
    assert "<!-- coverage -->" in page and "<!-- readings -->" in page
    assert coverage_table(coverage(RULES)).startswith("| Document | MUST judged |")
    assert len(contradictions(RULES)) >= 10 and readings_list(RULES).count("\n- ") >= 9


def test_each_test_has_a_primary_rule_among_its_own() -> None:
    for category in CATEGORIES:
        for check in category.checks:
            assert check.primary in check.rules, check.id
