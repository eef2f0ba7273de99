"""One definition of each vocabulary: every ``enum`` of every schema we publish is compared with
the Python vocabulary its writers and readers use, and a difference fails naming both (issue 34:
capture wrote the value source "safe value", which the bundle schema had never been told)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpaql_conformance.files import vocabulary as v
from mcpaql_conformance.files.schemas import schema_document
from mcpaql_conformance.verdict import model

SCHEMAS = Path(__file__).resolve().parents[2] / "mcpaql_conformance" / "files" / "schemas"
# The schemas `schema NAME` publishes (cli.judge.SCHEMA_KINDS) and the two the others refer to.
PUBLISHED = (
    "bundle",
    "plan",
    "tasks",
    "scenario",
    "baseline",
    "report",
    "registry",
    "introspection",
    "operation-result",
)

Source = tuple[str, Callable[[], tuple[Any, ...]]]


def _vocabulary(name: str) -> Source:
    return f"mcpaql_conformance.files.vocabulary.{name}", lambda: v.words(getattr(v, name))


VERDICT_EXITS = (model.EXIT_CONFORMANT, model.EXIT_MUST_FAILED, model.EXIT_SHOULD_WARNED)
# Every enum of our schemas (schema name, JSON pointer) and the Python vocabulary that defines it.
SOURCES: dict[tuple[str, str], Source] = {
    ("bundle", "/properties/expected_level/enum"): _vocabulary("Level"),
    ("bundle", "/properties/expected_exit_code/enum"): (
        "mcpaql_conformance.verdict.model.EXIT_*",
        lambda: (*VERDICT_EXITS, model.EXIT_CONFIG_ERROR),
    ),
    ("bundle", "/properties/introspection/properties/query_attempts/items/properties/query/enum"): _vocabulary(
        "IntrospectQuery"
    ),
    ("bundle", "/properties/introspection/properties/unknown_name_queries/items/properties/query/enum"): _vocabulary(
        "IntrospectQuery"
    ),
    ("bundle", "/properties/semantic_tests/items/properties/judge/properties/verdict/enum"): _vocabulary(
        "JudgeVerdict"
    ),
    ("bundle", "/properties/provenance/properties/permission/enum"): _vocabulary("PermissionLabel"),
    ("bundle", "/properties/changes/items/properties/needed/enum"): _vocabulary("ChangeNeed"),
    ("bundle", "/properties/changes/items/properties/source/enum"): _vocabulary("ChangeSource"),
    ("bundle", "/properties/capture_notes/items/properties/cause/enum"): _vocabulary("NoteCause"),
    ("bundle", "/properties/agent_tests/items/properties/kind/enum"): _vocabulary("AgentTestKind"),
    ("bundle", "/properties/update_input_tests/items/properties/kind/enum"): _vocabulary("UpdateInputKind"),
    ("bundle", "/properties/pagination_tests/items/properties/kind/enum"): _vocabulary("PaginationTestKind"),
    ("bundle", "/properties/field_tests/items/properties/kind/enum"): _vocabulary("FieldTestKind"),
    ("bundle", "/properties/aggregate_tests/items/properties/kind/enum"): _vocabulary("AggregateTestKind"),
    ("bundle", "/properties/relationship_tests/items/properties/kind/enum"): _vocabulary("RelationshipTestKind"),
    ("bundle", "/properties/search_tests/items/properties/kind/enum"): _vocabulary("SearchTestKind"),
    ("bundle", "/properties/execution_tests/items/properties/scenario/enum"): _vocabulary("ExecutionScenario"),
    ("bundle", "/properties/sort_tests/items/properties/kind/enum"): _vocabulary("SortTestKind"),
    ("bundle", "/properties/configuration_tests/items/properties/configuration/enum"): _vocabulary("ConfigurationName"),
    ("bundle", "/properties/request_tests/items/properties/name/enum"): _vocabulary("RequestTestName"),
    ("bundle", "/properties/answer_encoding/properties/transport/enum"): _vocabulary("Transport"),
    ("bundle", "/$defs/AgentRun/properties/tool_calls/items/properties/outcome/enum"): _vocabulary("ToolCallOutcome"),
    ("bundle", "/$defs/ValueSource/enum"): _vocabulary("ValueSource"),
    ("introspection", "/$defs/SemanticCategory/enum"): _vocabulary("SemanticCategory"),
    ("introspection", "/$defs/TypeSummary/properties/kind/enum"): _vocabulary("TypeKind"),
    ("introspection", "/$defs/TypeDetails/properties/kind/enum"): _vocabulary("TypeKind"),
    ("introspection", "/$defs/ProtocolMetadata/properties/mode/enum"): _vocabulary("ProtocolMode"),
    ("introspection", "/$defs/ProtocolMetadata/properties/conformance/enum"): _vocabulary("ConformanceClaim"),
    ("introspection", "/$defs/ProtocolMetadata/properties/concurrency/enum"): _vocabulary("ConcurrencyModel"),
    ("introspection", "/$defs/OperationDetails/properties/aggregation_support/properties/default_mode/enum"): (
        _vocabulary("AggregationMode")
    ),
    (
        "introspection",
        "/$defs/OperationDetails/properties/relationship_capabilities/properties/directions/items/enum",
    ): _vocabulary("RelationshipDirection"),
    ("operation-result", "/$defs/Warning/properties/severity/enum"): _vocabulary("WarningSeverity"),
    ("report", "/properties/requestedLevel/enum"): (
        "mcpaql_conformance.files.vocabulary.Level, or null",
        lambda: (*v.words(v.Level), None),
    ),
    ("report", "/properties/exitCode/enum"): (
        "mcpaql_conformance.verdict.model.EXIT_* (verdicts)",
        lambda: VERDICT_EXITS,
    ),
    ("report", "/properties/requirements/items/properties/result/enum"): _vocabulary("RequirementResult"),
    ("report", "/$defs/Result/enum"): ("mcpaql_conformance.verdict.model.Result", lambda: tuple(model.Result)),
    ("scenario", "/$defs/Event/properties/type/enum"): _vocabulary("ScenarioEvent"),
    ("scenario", "/$defs/Expect/properties/outcome/enum"): _vocabulary("ScenarioOutcome"),
}


def enums(node: Any, pointer: str = "") -> Iterator[tuple[str, list[Any]]]:
    """(JSON pointer of an enum, its values) for every ``enum`` keyword in a schema."""
    if isinstance(node, dict):
        for key, child in node.items():
            here = f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}"
            if key == "enum" and isinstance(child, list):
                yield here, child
            else:
                yield from enums(child, here)
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from enums(child, f"{pointer}/{index}")


def every_enum() -> Iterator[tuple[str, str, list[Any]]]:
    for name in PUBLISHED:
        for pointer, values in enums(schema_document(name)):
            yield name, pointer, values


def difference(schema: str, pointer: str, values: list[Any], source: Source) -> str:
    """What differs between a schema's enum and its Python vocabulary, both named ("" if nothing)."""
    where, words = source
    python = list(words())
    only_code = [word for word in python if word not in values]
    only_schema = [word for word in values if word not in python]
    if not only_code and not only_schema:
        return ""
    parts = [f"{schema}.schema.json#{pointer} and {where} differ:"]
    if only_code:
        parts.append(f"the code writes {only_code!r}, which the schema refuses;")
    if only_schema:
        parts.append(f"the schema allows {only_schema!r}, which the code never defines;")
    return " ".join(parts) + " define the word once in the code and list it in the schema"


def test_every_schema_enum_has_one_python_vocabulary() -> None:
    unclaimed = [f"{name}.schema.json#{pointer}" for name, pointer, _ in every_enum() if (name, pointer) not in SOURCES]
    assert unclaimed == [], f"enums with no Python vocabulary (add one to files/vocabulary.py and SOURCES): {unclaimed}"


def test_every_vocabulary_source_names_an_enum_that_exists() -> None:
    found = {(name, pointer) for name, pointer, _ in every_enum()}
    assert sorted(set(SOURCES) - found) == []


@pytest.mark.parametrize(("schema", "pointer", "values"), list(every_enum()), ids=lambda x: str(x)[:60])
def test_each_schema_enum_equals_its_vocabulary(schema: str, pointer: str, values: list[Any]) -> None:
    source = SOURCES.get((schema, pointer))
    assert source is not None
    assert difference(schema, pointer, values, source) == ""


def test_the_constant_words_of_our_schemas_are_the_writers_own() -> None:
    """A ``const`` a writer of ours emits: the registry's kind (what a folder we may rebuild says)."""
    from mcpaql_conformance.registry.collect import KIND

    assert schema_document("registry")["properties"]["kind"] == {"const": KIND}


def test_a_gap_is_named_with_both_sides() -> None:
    """The mistake of issue 34, replayed: the schema without a word the code writes."""
    pointer = "/$defs/ValueSource/enum"
    values = [word for word in v.words(v.ValueSource) if word != "safe value"]
    message = difference("bundle", pointer, values, SOURCES[("bundle", pointer)])
    assert message == (
        "bundle.schema.json#/$defs/ValueSource/enum and "
        "mcpaql_conformance.files.vocabulary.ValueSource differ: the code writes ['safe value'], which the schema"
        " refuses; define the word once in the code and list it in the schema"
    )
