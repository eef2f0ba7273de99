"""Which rules are proven judged: for each, what a server breaking that rule alone does, shown to
be caught by the test the rule names.

Each proof is a defect switch of the spec-written test server (tests/acceptance/reading_server.py,
``READING_DEFECT=<rule id>``): with it on, that server breaks this one rule and nothing it can
avoid breaking besides; tests/acceptance/test_rule_proofs.py checks each switch makes a test the
rule names FAIL (a MUST) or WARN (a SHOULD) with a finding citing the rule, where the unbroken
server passes. A rule that gathers others (a conformance level, a category of tests) is proven
``via`` one of them: a server breaking that one breaks it too, and is caught citing that one.
A rule without a proof is not judged, whatever test names it (``Rule.judged``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Proof:
    breaks: str  # what the broken server does, said as "a server that ..." ends
    via: str = ""  # the rule whose defect proves this one (a rule that gathers it), or "" for its own


# fmt: off
OWN: dict[str, Proof] = {
    "core:4.6:unknown-rejected": Proof("accepts a parameter the operation does not define and ignores it"),
    "core:4.6:unknown-param-code": Proof("refuses an unknown parameter with VALIDATION_INVALID_TYPE"),
    "core:4.6.2:default-rejects": Proof("accepts an unknown parameter with a warning naming it, strict mode on"),
    "introspection:8.1:protocol-object": Proof("lists its operations without a _protocol object"),
    "introspection:4.1.1:protocol-version": Proof("gives its spec version as 'v1'"),
    "introspection:4.1.1:protocol-conformance": Proof("leaves the conformance level out of _protocol"),
    "introspection:4.1.1:protocol-mode": Proof("leaves the endpoint mode out of _protocol"),
    "introspection:4.1.1:mode-semantic": Proof("reports its mode as 'crude'"),
    "introspection:4.3:unknown-operation-null": Proof("refuses the details of an unknown operation with NOT_FOUND"),
    "introspection:5.3:protocol-types": Proof("lists none of the protocol types (OperationResult...)"),
    "core:9.2:types-discoverable": Proof("leaves a type an operation returns (BookPage) out of its type list"),
    "introspection:8.1:must-list": Proof("answers a type's details as a sentence instead of TypeDetails"),
    "introspection:8.2:should-list": Proof("leaves introspect out of its operations list"),
    "introspection:4.1:endpoint-family-name": Proof("gives each operation's endpoint as its tool name"),
    "core:4.5:update-input": Proof("documents an UPDATE's `input` as a string"),
    "core:4.5.3:missing-input-rejected": Proof("refuses an UPDATE without `input` with VALIDATION_INVALID_TYPE"),
    "core:4.5.3:no-identifier-in-input": Proof("ignores a read-only identifier sent inside an UPDATE's `input`"),
    "introspection:8.1.2:optional-false": Proof("documents an optional parameter as required"),
    "operations:8.3:standard-codes": Proof("refuses a missing parameter with its own code, MISSING_ARGUMENT"),
    "core:4.3:snake-case": Proof("takes a camelCase parameter (bookId)"),
    "core:4.5.1:deep-merge": Proof("replaces a book with an update's `input`, losing the fields it leaves out"),
    "introspection:8.1.3:no-stack-traces": Proof("puts a Python stack trace in its error messages"),
    "introspection:8.1.3:no-language-errors": Proof("names a runtime exception (KeyError) in its error messages"),
    "introspection:8.1.3:no-class-names-paths": Proof("names a source path in its error messages"),
    "introspection:8.2.3:actionable": Proof("refuses a missing parameter with 'Invalid request.' alone"),
    "operations:8.2:code": Proof("sends errors without a code"),
    "operations:8.2:message": Proof("sends errors without a message"),
    "operations:8.2:structured-errors": Proof("sends each error as a string"),
    "operations:3.1:discriminated-union": Proof("answers failures with `ok` instead of `success`"),
    "features/warnings:6.1:success-only": Proof("puts warnings on failed answers"),
    "operations:3.3:failure-shape": Proof("adds `data: null` to its failures"),
    "operations:3.2:success-shape": Proof("answers a success without `data` (its result under `result`)"),
    "operations:3.4:metadata-underscore": Proof("adds a `meta` key without an underscore to its answers"),
    "core:10.1:l2-field-selection": Proof("offers no field selection (no `fields`, no capability)"),
    "mcp:2.1.1:crude-templates": Proof("shows no quick-start call in its UPDATE tool's description"),
    "mcp:2.1.1:custom-template": Proof("serves READ through a custom family whose description names no category"),
    "mcp:2.1.1:purpose-and-kinds": Proof("opens its DELETE tool's description with the operation list"),
    "endpoint-modes:4.7:intent-revealing-names": Proof("names its READ family `books`, after its resource"),
    "endpoint-modes:5.4:unified-description": Proof("describes its single tool with no category and no call"),
    "features/collection-querying:2.1:query-grammar-documented": Proof("shows no example of query_books's `query`"),
    "features/collection-querying:4.2:grammar-in-description": Proof("describes query_books without its grammar"),
    "features/collection-querying:4.2:composed-example": Proof("never shows `query` with fields, sort or a page"),
    "features/collection-querying:3:query-filter-rules": Proof("says nothing of how `filter` and `query` combine"),
    "features/collection-querying:4.2:input-type-introspected": Proof("documents query_books's `query` untyped"),
    "features/warnings:6.4:at-most-ten": Proof("puts eleven warnings on each list_books answer"),
    "features/warnings:server-side-deduplication:exact-duplicates": Proof("repeats a warning in one answer"),
    "features/warnings:6.2:should-list": Proof("gives a warning without details"),
    "features/warnings:3.2:stable-severity": Proof("gives one warning alternately low and high"),
    "features/warnings:deduplication-recommendations:batch-summary": Proof("repeats a warning on each batch item"),
    "operations:6.3:mismatch-error": Proof("refuses a wrongly routed operation without naming its endpoint"),
    "core:6.2:wrong-endpoint-rejected": Proof("runs an operation sent to another family's endpoint"),
    "endpoint-modes:5.5:unknown-operation-structured": Proof("answers an unknown operation as list_shelves"),
    "core:10.1:l2-batch": Proof("refuses batches"),
    "operations:7.2:batch-results": Proof("answers a batch without its summary and with one result only"),
    "core:10.1:l2-both-modes": Proof("reports mode 'all' with the CRUDE tools only"),
    "mcp:4.2:domain-errors-as-results": Proof("answers a validation failure as a plain-text MCP error"),
    "mcp:4.2:no-jsonrpc-codes": Proof("answers a validation failure as a JSON-RPC error (-32602)"),
    "operations:5.1:description": Proof("gives an operation's details without a description"),
    "operations:5.1:endpoint": Proof("gives an operation's details without its endpoint"),
    "mcp:2.2.1:names-introspected": Proof("gives an operation's details without its mcpTool"),
    "operations:5.1:semantic-category": Proof("gives an operation the category QUERY in its details"),
    "operations:5.2:type": Proof("documents an operation's parameters without their types"),
    "operations:4.3:required-or-optional": Proof("documents parameters without saying whether they are required"),
    "core:8.5.2:snake-case-names": Proof("names an operation listShelves"),
    "core:8.5.4:no-custom-reserved": Proof("gives the reserved name confirm_operation to a READ operation of its own"),
    "introspection:8.1.2:accepted-documented": Proof("takes an `include_deleted` parameter it does not document"),
    "features/collection-querying:2.6:style-documented": Proof("takes an `offset` parameter it does not document"),
    "introspection:8.1.2:required-true": Proof("refuses a list without shelf_id, documented as optional"),
    "core:4.5:identifiers-in-params": Proof("takes an UPDATE's book_id inside `input`, with no parameter beside it"),
    "core:4.5.3:input-object": Proof("takes an UPDATE whose `input` is a string, as no change"),
    "core:4.5.3:input-fields-validated": Proof("stores the fields of an UPDATE's `input` without checking their types"),
    "core:4.5.3:unknown-field": Proof("stores a field of an UPDATE's `input` the book does not define"),
    "operations:2.2:operation-field": Proof("declares `operation` optional, taking a call without it as introspect"),
    "operations:2.2:operation-defined": Proof("takes a request with an empty operation for introspect"),
    "operations:2.4:case-sensitive": Proof("takes INTROSPECT for introspect"),
    "operations:2.3:resolution-order": Proof("lets a top-level parameter win over the same one in params"),
    "error-codes:4.5:several-unknown-parameters": Proof("names only the first of several unknown parameters"),
    "core:4.7.1:null-bytes": Proof("takes strings holding U+0000"),
    "features/pagination:2.3:invalid-combinations": Proof("serves a page asked for with first and last together"),
    "mcp:2.1:introspect-in-descriptions": Proof("describes its create tool without a word of introspect"),
    "mcp:3.1:base-input-schema": Proof("takes `params` as a string in its tools' input schema"),
    "mcp:3.1:operation-required": Proof("leaves `operation` optional in its tools' input schema, batch or not"),
    "mcp:2.3:tool-annotations": Proof("registers its tools without annotations"),
    "mcp:2.3:conservative-annotations": Proof("annotates its delete tool destructiveHint false"),
    "mcp:6.4:prefix-short": Proof("prefixes its tools with the 24 characters reading_list_adapter_v2_"),
    "operations:9.1:introspect": Proof("has no read endpoint and no single tool, serving introspect on execute"),
    "introspection:8.1.1:types-match": Proof("documents an integer (first) its handler refuses, wanting a string"),
    "introspection:8.1.1:names-match": Proof("documents shelf_id where its handler takes `shelf`"),
    "core:4.7.2:iso-8601": Proof("writes its timestamps as 05/01/2026 09:00"),
    "core:4.7.2:utc": Proof("writes its timestamps with a +01:00 offset"),
    "features/pagination:3.1:page-info": Proof("leaves hasPreviousPage out of pageInfo"),
    "core:7.2:introspect": Proof("refuses introspect's types query as an unknown operation"),
    "introspection:3.1:discriminated-union": Proof("answers introspect's type list without `success` and `data`"),
    "core:3.3:one-mode": Proof("serves no MCP-AQL tool (its tools take an `action`, named reading_list_*)"),
    "operations:6.1:by-semantics": Proof("serves a READ operation on the create endpoint"),
    "introspection:8.1.2:feature-parameters": Proof("documents `fields` without its type"),
    "operations:4.4.5:expand-inline": Proof("documents a parameter as a $ref to a type"),
    "mcp:2.2.1:standard-names": Proof("names its tools mcp-aql-read and so on"),
    "mcp:6.4:prefix-charset": Proof("prefixes its tools with 'Reading-'"),
    "mcp:6.4:prefix-underscore": Proof("prefixes its tools with 'reading' and no underscore"),
    "features/field-selection:2.2:prefer-fields": Proof("takes field selection as `select`, not `fields`"),
    "features/field-selection:5.3:discoverable": Proof("takes `fields` but lists no FieldSelection type"),
    "core:4.7.5:enforce-limits": Proof("answers a request holding a value nested 70 levels deep"),
    "core:4.7.5:too-large-error": Proof("refuses an over-deep request as too large without saying which limit"),
    "core:4.7.5:limits-in-protocol": Proof("leaves its payload limits out of _protocol"),
    "operations:7.1:batch-format": Proof("declares batches but refuses {operations: [...]}, taking its own format"),
    "operations:7.3:batch-semantics": Proof("answers success false for a batch in which one item failed"),
    "operations:7.3:failure-continues": Proof("stops a batch at its first failing item"),
    "features/collection-querying:2.2:unknown-filter-key": Proof("lists every book for a filter key it ignores"),
    "features/collection-querying:2.1:search-query-name": Proof("takes search_books' free text in `text`"),
    "features/collection-querying:2.1:list-no-query": Proof("requires (and documents) a `query` to list shelves"),
    "operations:4.4.4:same-type": Proof("documents `last` as a number on one list and an integer on the other"),
    "operations:4.4.4:same-default": Proof("pages its shelves by 10 and its books by 20 when `first` is left out"),
}

# rule -> the rule whose defect breaks it too (a rule that restates or gathers that one)
_UNKNOWN = "core:4.6:unknown-rejected"
_WRONG_ENDPOINT = "core:6.2:wrong-endpoint-rejected"
_DUPLICATE_WARNING = "features/warnings:server-side-deduplication:exact-duplicates"
_BOTH_MODES = "core:10.1:l2-both-modes"
VIA: dict[str, str] = {
    # an unknown parameter taken without a word breaks the validation these ask for
    "introspection:8.2.1:explicit-unknown": _UNKNOWN,
    "introspection:8.2.1:not-silent": _UNKNOWN,
    "operations:5.1:validate-first": _UNKNOWN,
    "operations:5.4:validation-steps": _UNKNOWN,
    "endpoint-modes:6.4:common-enforcement": _UNKNOWN,
    "conformance:2.1:parameter-handling": _UNKNOWN,
    "conformance:4.1:level1-categories": _UNKNOWN,
    "core:10.1:l2-passes-suite": _UNKNOWN,
    # an operation run from another family's endpoint: every routing rule
    "core:10.1:l1-wrong-endpoint": _WRONG_ENDPOINT,
    "operations:6.3:validate-endpoint": _WRONG_ENDPOINT,
    "operations:6.3:no-cross-execution": _WRONG_ENDPOINT,
    "endpoint-modes:4.2:wrong-tool-rejected": _WRONG_ENDPOINT,
    "endpoint-modes:4.5:wrong-family-rejected": _WRONG_ENDPOINT,
    "endpoint-modes:4.6:route-validated": _WRONG_ENDPOINT,
    "endpoint-modes:8.1:conformance-musts": _WRONG_ENDPOINT,
    "crude:5.1:reject-wrong-endpoint": _WRONG_ENDPOINT,
    "crude:7.1:profile-musts": _WRONG_ENDPOINT,
    # one endpoint mode where Level 2 asks both
    "core:3.3:both-modes": _BOTH_MODES,
    "crude:4.3:both-modes": _BOTH_MODES,
    "crude:7.2:profile-shoulds": _BOTH_MODES,
    "endpoint-modes:8.2:conformance-shoulds": _BOTH_MODES,
    "conformance:2.2:level2-features": _BOTH_MODES,
    "conformance:4.2:level2-categories": _BOTH_MODES,
    # errors: the shape and the text
    "core:10.1:l1-formats": "operations:3.1:discriminated-union",
    "error-codes:1.4:structured-error-objects": "operations:8.2:structured-errors",
    "operations:5.4:validation-errors": "operations:8.2:structured-errors",
    "operations:8.1:structured-codes": "operations:8.2:code",
    "error-codes:7.1:must-list": "operations:8.2:code",
    "mcp:7.1:conformance-musts": "mcp:4.2:domain-errors-as-results",
    "conformance:2.1:error-quality": "introspection:8.1.3:no-stack-traces",
    "introspection:8.1.3:no-internals": "introspection:8.1.3:no-class-names-paths",
    "operations:8.4:message-guidelines": "introspection:8.2.3:actionable",
    # what introspection says against what the handler does
    "introspection:8.1.1:required-match": "introspection:8.1.2:optional-false",
    "introspection:8.1.1:accurate": "introspection:8.1.2:optional-false",
    "core:4.5.3:validate-input": "core:4.5.3:no-identifier-in-input",
    "operations:4.1:snake-case": "core:4.3:snake-case",
    "operations:4.1:canonical-snake-case": "core:4.3:snake-case",
    "conformance:2.1:round-trip-integrity": "core:4.5.1:deep-merge",
    "conformance:2.1:introspection-fidelity": "introspection:8.1:must-list",
    "core:10.1:l2-meets-l1": "introspection:8.1:must-list",
    "introspection:8.1.2:complete": "introspection:8.1.2:accepted-documented",
    # what operation details must say
    "operations:5.2:parameter-fields": "operations:5.2:type",
    "operations:5.1:operation-schema": "operations:5.1:endpoint",
    "crude:6.6:endpoint-discoverable": "operations:5.1:endpoint",
    "core:10.1:l1-document-routing": "operations:5.1:endpoint",
    "core:6.2:one-category": "operations:5.1:semantic-category",
    "core:10.1:l1-classify": "operations:5.1:semantic-category",
    "endpoint-modes:4.4:one-category-each": "operations:5.1:semantic-category",
    "crude:6.6:document-classification": "operations:5.1:semantic-category",
    "operations:2.4:snake-case": "core:8.5.2:snake-case-names",
    "core:8.5.4:reserved-names": "core:8.5.4:no-custom-reserved",
    "core:10.1:l1-introspect": "core:7.2:introspect",
    "core:10.1:l1-one-mode": "core:3.3:one-mode",
    "crude:4.3:one-mode": "core:3.3:one-mode",
    "core:6.2:one-family": _WRONG_ENDPOINT,  # served by every family's endpoint
    "crude:5.1:one-endpoint": _WRONG_ENDPOINT,
    "core:10.2:claiming": "operations:5.1:description",  # its operations not all documented
    "core:10.3:extensions-documented": "introspection:8.1.2:accepted-documented",  # a parameter of its own
    "mcp:7.2:conformance-shoulds": "mcp:2.2.1:standard-names",
    "operations:2.1:input-structure": "mcp:3.1:base-input-schema",  # a tool refusing {operation, params}
    "features/collection-querying:3:search-query": "features/collection-querying:2.1:search-query-name",
    "features/field-selection:5.1:must-list": "features/field-selection:2.2:prefer-fields",
    "operations:4.2:common-patterns": "features/field-selection:2.2:prefer-fields",
    "features/collection-querying:6:expose-list": "features/field-selection:5.3:discoverable",
    "endpoint-modes:4.7:family-description": "mcp:2.1.1:crude-templates",
    "features/collection-querying:3:query-grammar": "features/collection-querying:2.1:query-grammar-documented",
    "features/collection-querying:6:grammar-summary": "features/collection-querying:4.2:grammar-in-description",
    "features/warnings:server-side-deduplication:deduplicate": _DUPLICATE_WARNING,
    "features/warnings:deduplication-recommendations:single-request": _DUPLICATE_WARNING,
    "endpoint-modes:7.1:tool-annotations": "mcp:2.3:tool-annotations",
    "crude:3.3:tool-annotations": "mcp:2.3:tool-annotations",
    "endpoint-modes:7.1:conservative-annotations": "mcp:2.3:conservative-annotations",
}
# fmt: on

PROOFS: dict[str, Proof] = {
    **OWN,
    **{rule: Proof(OWN[by].breaks, via=by) for rule, by in VIA.items()},
}
