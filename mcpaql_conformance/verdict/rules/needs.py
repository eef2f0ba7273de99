"""What a run must hold before the absence of a finding says a rule held.

A rule's tests can pass without having seen anything the rule is about: a server with no UPDATE
operation breaks no rule about UPDATE's `input`, and a bundle without request calls cannot show
a request without `operation` refused. For such rules, a report's ``requirements`` says PASS only
when the run held one of the evidence listed here (a bundle section with entries, or
``category:NAME`` for an operation of that semantic category, ``request_tests:NAME`` for one of
capture's request calls), and SKIP naming what was missing
otherwise. A finding citing the rule decides it whatever this table says.
"""

from __future__ import annotations

from mcpaql_conformance.files.vocabulary import (
    AGAIN,
    AGGREGATES,
    APPROVAL_PAUSED,
    ARRAY_REPLACED,
    BATCH_WARNED,
    BEYOND_A_PAGE,
    BYSTANDER,
    CHALLENGE_WAITED,
    COMPUTED_ANSWERED,
    CONFIGURED_MODE,
    CUSTOM_FAMILY,
    DENY_REPORTED,
    DEPRECATED_PARAMETER,
    DEPRECATION_WARNED,
    EXECUTION_STATE,
    FAILING_ITEM,
    FAILURE_PAUSED,
    FULL_DEFAULT,
    HARD_BLOCK,
    LIMIT_KNOWN,
    LOOP_MONITORING,
    META_CLAIMED,
    OLD_EXECUTION,
    OLD_STATE,
    PREFIXED,
    PRESET_PARAMETER,
    PROFILES_LISTED,
    PROGRESS,
    PROGRESS_ASKED,
    PROGRESS_NOTIFIED,
    QUERY_GRAMMAR,
    RATE_PROBED,
    RELATIONSHIPS,
    RELISTED,
    RESTARTED_BLOCK,
    SAFETY_LOOP,
    SEARCH,
    SESSION_REPORTED,
    SHARED,
    SINGLE_TOOL,
    STALE_PROBED,
    TERMINAL_TOUCHED,
    UNCONFIGURED,
    VERIFY_TIER,
    WARNED,
    WARNED_CONDITIONS,
    WARNED_TWICE,
)

UPDATE = "category:UPDATE"
UPDATE_INPUT = ("update_input_tests",)
ROUTING = ("routing_tests",)
CONFIGURED_AGAIN = f"configuration_tests:{AGAIN}"
CONFIGURED_NONE = f"configuration_tests:{UNCONFIGURED}"
CONFIGURED_PREFIX = f"configuration_tests:{PREFIXED}"
CONFIGURED = (CONFIGURED_AGAIN, CONFIGURED_NONE, CONFIGURED_PREFIX)  # (and CONFIGURED_MODE) capture --configurations'


# How a report says the labels that are no bundle section.
SAID = {
    FAILING_ITEM: "batch in which one item failed",
    SHARED: "cross-cutting parameter two operations document",
    SEARCH: "search_* operation",
    SINGLE_TOOL: "single tool (mcp_aql) whose description capture recorded",
    CUSTOM_FAMILY: "tool of a custom endpoint family whose description capture recorded",
    QUERY_GRAMMAR: "query_* operation taking `query`",
    WARNED: "answer carrying warnings",
    WARNED_TWICE: "warning given on two answers",
    WARNED_CONDITIONS: "three warning conditions or more (code and details)",
    BATCH_WARNED: "batch two of whose items carry warnings",
    PRESET_PARAMETER: "READ operation documenting a `preset` parameter",
    AGGREGATES: "READ operation documenting an `aggregate` parameter",
    COMPUTED_ANSWERED: "answer carrying a `_computed` object",
    DEPRECATED_PARAMETER: "parameter introspection marks deprecated",
    DEPRECATION_WARNED: "answer warning that a parameter it was sent is deprecated",
    RELATIONSHIPS: "relationship query (query_relationships, or an operation taking root and direction)",
    RELISTED: "batch item answering an introspect list again",
    BEYOND_A_PAGE: "page of 1000 asked of a collection larger than the page it got",
    FULL_DEFAULT: "page asked with no size that says another follows",
    OLD_EXECUTION: "step, on a second connection, of an execution the first left running",
    OLD_STATE: "answer to that step saying the execution's state",
    META_CLAIMED: "that step sent again with _meta claiming the closed session's id",
    RESTARTED_BLOCK: "new execution of a hard-blocked agent after a restart of the server",
    PROFILES_LISTED: "_protocol.profiles listing two semantic profiles or more",
    ARRAY_REPLACED: "array an update replaced by one new element, then read back",
    STALE_PROBED: "update sent with an if_match naming no version of the record",
    SESSION_REPORTED: "session id in _protocol, and an error answer to look for it in",
    SAFETY_LOOP: "execution safety loop (execute_agent or record_execution_step listed)",
    EXECUTION_STATE: "answer giving an execution's execution_id and status",
    PROGRESS: "answer giving an execution's progress",
    TERMINAL_TOUCHED: "abort of a completed execution",
    PROGRESS_ASKED: "call carrying a progress token to an operation whose lifecycle declares progress_reporting",
    PROGRESS_NOTIFIED: "notifications/progress a call brought",
    LOOP_MONITORING: "directive of a loop declared monitoring",
    FAILURE_PAUSED: "step whose failed outcome drew a pause",
    LIMIT_KNOWN: "walk of steps past a documented or counted-down step limit",
    APPROVAL_PAUSED: "action paused for approval, then confirmed by the agent itself",
    VERIFY_TIER: "directive putting an action in the verify tier",
    RATE_PROBED: "more than ten wrong verification codes in a row",
    CHALLENGE_WAITED: "challenge waited out past its documented timeout",
    DENY_REPORTED: "action matching a deny pattern, reported",
    HARD_BLOCK: "directive hard-blocking an agent (stopped: true)",
    BYSTANDER: "another executing agent's step after a hard block",
    CONFIGURED_MODE: "start of the server with MCP_AQL_ENDPOINT_MODE set (capture --configurations)",
    CONFIGURED_AGAIN: "start of the server again with the same environment (capture --configurations)",
    CONFIGURED_NONE: "start of the server with no MCP_AQL_ variable set (capture --configurations)",
    CONFIGURED_PREFIX: "start of the server with MCP_AQL_TOOL_PREFIX set (capture --configurations)",
}


def asked(name: str) -> tuple[str, ...]:
    """A request call of capture's (``request_tests`` entries of that name)."""
    return (f"request_tests:{name}",)


def paged(kind: str) -> tuple[str, ...]:
    """A pagination call of capture's of that kind (``pagination_tests`` entries of that kind)."""
    return (f"pagination_tests:{kind}",)


TOOLS = ("mcp_tools",)

# fmt: off
NEEDS: dict[str, tuple[str, ...]] = {
    "core:4.5:update-input": (UPDATE,),
    "core:4.5:identifiers-in-params": (UPDATE,),
    "core:4.5.1:deep-merge": ("update_preservation_tests",),
    "core:4.5.3:validate-input": UPDATE_INPUT,
    "core:4.5.3:missing-input-rejected": UPDATE_INPUT,
    "core:4.5.3:input-object": UPDATE_INPUT,
    "core:4.5.3:input-fields-validated": UPDATE_INPUT,
    "core:4.5.3:unknown-field": UPDATE_INPUT,
    "core:4.5.3:no-identifier-in-input": UPDATE_INPUT,
    "core:4.7.1:null-bytes": asked("null_byte"),
    "core:4.7.5:enforce-limits": asked("deep_nesting"),
    "core:4.7.5:too-large-error": asked("deep_nesting"),
    "operations:2.2:operation-field": asked("no_operation"),
    "operations:2.2:operation-defined": asked("empty_operation"),
    "operations:2.3:resolution-order": asked("params_precedence"),
    "operations:2.4:case-sensitive": asked("operation_case"),
    "error-codes:4.5:several-unknown-parameters": asked("two_unknown_parameters"),
    "core:6.2:wrong-endpoint-rejected": ROUTING,
    "core:10.1:l1-wrong-endpoint": ROUTING,
    "operations:6.3:validate-endpoint": ROUTING,
    "operations:6.3:no-cross-execution": ROUTING,
    "operations:6.3:mismatch-error": ROUTING,
    "endpoint-modes:4.2:wrong-tool-rejected": ROUTING,
    "endpoint-modes:4.5:wrong-family-rejected": ROUTING,
    "endpoint-modes:4.6:route-validated": ROUTING,
    "crude:5.1:reject-wrong-endpoint": ROUTING,
    "operations:7.2:batch-results": ("batch_example",),
    "operations:7.1:batch-format": ("batch_example",),
    "operations:7.3:batch-semantics": (FAILING_ITEM,),  # a batch in which one item failed
    "operations:7.3:failure-continues": (FAILING_ITEM,),
    "features/collection-querying:2.1:search-query-name": (SEARCH,),
    "features/collection-querying:3:search-query": (SEARCH,),
    "features/collection-querying:2.1:list-no-query": ("category:READ",),
    "operations:4.4.4:same-type": (SHARED,),
    "operations:4.4.4:same-default": (SHARED,),
    "features/pagination:2.3:invalid-combinations": paged("first_and_last"),
    "features/collection-querying:2.2:unknown-filter-key": ("filter_tests",),
    "mcp:2.1:introspect-in-descriptions": TOOLS,
    "mcp:2.3:tool-annotations": TOOLS,
    "mcp:2.3:conservative-annotations": TOOLS,
    "endpoint-modes:7.1:tool-annotations": TOOLS,
    "endpoint-modes:7.1:conservative-annotations": TOOLS,
    "crude:3.3:tool-annotations": TOOLS,
    "mcp:3.1:operation-required": TOOLS,
    "mcp:3.1:base-input-schema": TOOLS,
    "mcp:2.1.1:crude-templates": TOOLS,
    "mcp:2.1.1:purpose-and-kinds": TOOLS,
    "endpoint-modes:4.7:family-description": TOOLS,
    "mcp:2.1.1:custom-template": (CUSTOM_FAMILY,),
    "endpoint-modes:4.7:intent-revealing-names": (CUSTOM_FAMILY,),  # the CRUDE names are the spec's own
    "endpoint-modes:5.4:unified-description": (SINGLE_TOOL,),
    "features/collection-querying:2.1:query-grammar-documented": (QUERY_GRAMMAR,),
    "features/collection-querying:3:query-grammar": (QUERY_GRAMMAR,),
    "features/collection-querying:3:query-filter-rules": (QUERY_GRAMMAR,),
    "features/collection-querying:4.2:grammar-in-description": (QUERY_GRAMMAR,),
    "features/collection-querying:4.2:input-type-introspected": (QUERY_GRAMMAR,),
    "features/collection-querying:4.2:composed-example": (QUERY_GRAMMAR,),
    "features/collection-querying:6:grammar-summary": (QUERY_GRAMMAR,),
    "features/pagination:4.1:connection-shape": paged("page_of_one"),
    "features/pagination:6.1:must-list": paged("page_of_one"),
    "operations:4.4.3:page-info": paged("page_of_one"),
    "operations:4.4.3:pagination-metadata": paged("page_of_one"),
    "features/pagination:6.4:cursor-properties": paged("next_page"),
    "features/pagination:5.3:clamp-not-reject": paged("large_page"),
    "features/pagination:5.3:max-page-size": (BEYOND_A_PAGE,),
    "features/pagination:5.3:max-100": (BEYOND_A_PAGE,),
    "features/pagination:6.2:should-list": (BEYOND_A_PAGE,),
    "features/pagination:5.2:default-page-size": (FULL_DEFAULT,),
    "features/collection-querying:2.6:mixed-styles-rejected": paged("mixed_styles"),
    "features/collection-querying:5:validation-list": ("filter_tests",),
    "introspection:7.3:caching": (RELISTED,),
    "features/collection-querying:4.1:or-default": ("search_tests:two_words",),
    "features/collection-querying:4.1:multi-word-consistent": ("search_tests:repeated_word",),
    "features/collection-querying:2.3:shortcuts-documented": ("sort_tests:shorthand",),
    "core:2.3.5:session-id-reported": (SESSION_REPORTED,),
    "core:9.3.2:optimistic-concurrency": (STALE_PROBED,),
    "core:4.5.1:merge-result": (ARRAY_REPLACED,),
    **dict.fromkeys(("core:2.3.3:session-state-ends", "core:2.3.3:invalidate-on-end"), (OLD_EXECUTION,)),
    "core:2.3.3:executions-end": (OLD_STATE,),
    "core:2.3.5:meta-not-identity": (META_CLAIMED,),
    "core:8.8.3:block-persists": (RESTARTED_BLOCK,),
    "endpoint-modes:3.3:active-profile-introspected": (PROFILES_LISTED,),
    **dict.fromkeys(("operations:7.5.2:halt-on-confirmation", "operations:7.5.4:skip-not-recommended"),
                    ("confirmation_batch",)),
    "endpoint-modes:3.1:runtime-mode-selection": (CONFIGURED_MODE,),
    "endpoint-modes:3.2:default-crude": (CONFIGURED_NONE,),
    "mcp:2.2.1:names-stable": (CONFIGURED_AGAIN,),
    **dict.fromkeys(("mcp:6.2:tool-prefix", "mcp:6.3:prefix-config-methods"), (CONFIGURED_PREFIX,)),
    "features/aggregations:5:advertise": (AGGREGATES,),
    "features/computed-fields:4:advertise": (COMPUTED_ANSWERED,),
    "introspection:8.2.4:migration-guidance": (DEPRECATED_PARAMETER,),
    "introspection:8.2.4:deprecation-notice": (DEPRECATION_WARNED,),
    "features/field-selection:4.4:computed-object": ("field_tests:computed",),
    "features/collection-querying:2.4:computed-prefix": ("field_tests:computed",),
    "features/computed-fields:3:reject-unsupported": ("field_tests:computed_sort", "field_tests:computed_filter"),
    "features/relationship-queries:6:advertise": (RELATIONSHIPS,),
    "features/relationship-queries:5:max-depth-documented": (RELATIONSHIPS,),
    "features/relationship-queries:2:stable-vocabulary": (RELATIONSHIPS,),
    "features/relationship-queries:3:all-sections-default": ("relationship_tests:all_sections",),
    "features/relationship-queries:3:requested-sections": ("relationship_tests:one_section",),
    "features/relationship-queries:5:dedupe-visited": ("relationship_tests:deep",),
    "features/relationship-queries:5:bounded-expansion": ("relationship_tests:deep",),
    "features/relationship-queries:4:custom-types-documented": ("relationship_tests:all_sections",),
    "features/collection-querying:3:query-aggregate": (AGGREGATES,),
    "features/aggregations:2:expose-functions": (AGGREGATES,),
    "features/aggregations:3:omit-items": ("aggregate_tests:summary",),
    "features/collection-querying:2.5:summary-by-default": ("aggregate_tests:summary",),
    "features/aggregations:3:include-items-flag": ("aggregate_tests:with_items",),
    "features/aggregations:4:reject-unsupported": ("aggregate_tests:unknown_function",),
    "features/aggregations:2:unsupported-combinations": ("aggregate_tests:grouped",),
    "features/field-selection:3.1:standard-presets": ("field_tests:minimal",),
    "features/field-selection:5.2:should-list": ("field_tests:unknown_field",),
    "features/collection-querying:2.4:preset-alias-only": (PRESET_PARAMETER,),
    "features/warnings:6.4:at-most-ten": (WARNED,),
    "features/warnings:6.2:should-list": (WARNED,),
    "features/warnings:server-side-deduplication:exact-duplicates": (WARNED,),
    "features/warnings:server-side-deduplication:deduplicate": (WARNED,),
    "features/warnings:deduplication-recommendations:single-request": (WARNED,),
    "features/warnings:3.2:stable-severity": (WARNED_TWICE,),
    "features/warnings:3.2:high-sparingly": (WARNED_CONDITIONS,),
    "features/warnings:deduplication-recommendations:batch-summary": (BATCH_WARNED,),
    # the execution lifecycle and safety loop (capture's drive of it, judged at the mode declared)
    "core:8.4:standard-lifecycle": (EXECUTION_STATE,),
    "core:8.4.2:terminal-final": (TERMINAL_TOUCHED,),
    "core:8.4.3:state-fields": (EXECUTION_STATE,),
    "core:8.4.3:progress-content": (PROGRESS,),
    "core:8.4.4:custom-states-documented": (EXECUTION_STATE,),
    "core:8.4.4:cancel-from-any": ("execution_tests:cancel",),
    "core:8.4.5:states-introspected": (EXECUTION_STATE,),
    **dict.fromkeys(("core:8.6.1:support-documented", "core:8.6.1:capability-exposed",
                     "core:8.6.7:enforcement-indicated", "core:8.7.2:step-limit-documented",
                     "core:8.7.4:configuration-documented"), (SAFETY_LOOP,)),
    **dict.fromkeys(("core:8.6.2:reports-evaluated", "core:8.7.1:continue-and-factors",
                     "core:8.6.3:element-name-required", "core:8.6.3:next-action-hint-required"),
                    ("execution_tests:lifecycle",)),
    **dict.fromkeys(("core:8.7.2:failure-pauses", "core:8.7.5:previous-outcome-stage"), ("execution_tests:failure",)),
    "core:8.6.4:no-proceed-after-pause": (FAILURE_PAUSED,),
    **dict.fromkeys(("core:8.7.5:step-limit-minimum", "core:8.7.2:step-limit-pause"), (LIMIT_KNOWN,)),
    "core:8.7.5:pattern-stage": (DENY_REPORTED,),
    **dict.fromkeys(("core:8.7.3:self-approval-prevented", "core:8.7.3:confirmer-not-agent"), (APPROVAL_PAUSED,)),
    **dict.fromkeys(("core:8.7.3:verify-verification-id", "core:8.8:out-of-band-required",
                     "core:8.8.3:pending-verify-pauses"), (VERIFY_TIER,)),
    "core:8.8.2:challenge-id-notified": (VERIFY_TIER, HARD_BLOCK),
    **dict.fromkeys(("core:8.8.5:rate-limited", "core:8.8.5:ten-per-minute", "core:8.8.5:over-limit-rejected"),
                    (RATE_PROBED,)),
    **dict.fromkeys(("core:8.8.2:challenge-expiry", "core:8.8.3:expired-reevaluates"), (CHALLENGE_WAITED,)),
    **dict.fromkeys(("core:8.8.1:hard-block-stopped", "core:8.7.3:danger-verification-id",
                     "core:8.7.1:required-notifications", "core:8.8.3:blocked-rejected",
                     "core:8.6.4:no-proceed-after-stop", "core:8.8.3:no-bypass-new-execution"), (HARD_BLOCK,)),
    "core:8.8.1:hard-block-broadcast": (BYSTANDER,),
    "core:8.6.4:monitoring-never-stops": (LOOP_MONITORING,),
    **dict.fromkeys(("mcp:5.1:execute-progress", "mcp:5.2:progress-on-token"), (PROGRESS_ASKED,)),
    "mcp:5.3:mcp-progress-format": (PROGRESS_NOTIFIED,),
}
# fmt: on


def said(need: str) -> str:
    """A label as a report says it: ``UPDATE operation``, ``request_tests``, ``request_tests entry
    deep_nesting``."""
    if need in SAID:
        return SAID[need]
    kind, _, name = need.partition(":")
    if kind == "category":
        return f"{name} operation"
    return f"{kind} entry {name}" if name else need
