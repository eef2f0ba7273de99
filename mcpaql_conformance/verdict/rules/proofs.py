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
    "operations:6.3:mismatch-error": Proof("refuses a wrongly routed operation without naming its endpoint"),
    "core:6.2:wrong-endpoint-rejected": Proof("runs an operation sent to another family's endpoint"),
    "endpoint-modes:5.5:unknown-operation-structured": Proof("answers an unknown operation as list_shelves"),
    "core:10.1:l2-batch": Proof("refuses batches"),
    "operations:7.2:batch-results": Proof("answers a batch without its summary and with one result only"),
    "core:10.1:l2-both-modes": Proof("reports mode 'all' with the CRUDE tools only"),
    "mcp:4.2:domain-errors-as-results": Proof("answers a validation failure as a plain-text MCP error"),
    "mcp:4.2:no-jsonrpc-codes": Proof("answers a validation failure as a JSON-RPC error (-32602)"),
}

# rule -> the rule whose defect breaks it too (a rule that restates or gathers that one)
VIA: dict[str, str] = {
    "introspection:8.2.1:explicit-unknown": "core:4.6:unknown-rejected",
    "introspection:8.2.1:not-silent": "core:4.6:unknown-rejected",
}
# fmt: on

PROOFS: dict[str, Proof] = {
    **OWN,
    **{rule: Proof(OWN[by].breaks, via=by) for rule, by in VIA.items()},
}
