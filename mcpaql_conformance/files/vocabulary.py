"""The words our files use: each enumerated vocabulary defined once.

Every word a writer of ours puts in a file from a closed set (where a value came from, why a
probe was not sent, how an agent's call was answered...) is a member of one of the ``Literal``
types below; the writers take their words from here, typed with the ``Literal``, so that mypy
refuses a word that is not listed. ``tests/unit/test_vocabulary.py`` compares every ``enum``
of every schema we publish with the Python vocabulary that defines it (these, and the few that
live beside their meaning: ``verdict.model.Result``, the exit codes) and fails naming both. A
new word is added here; the test then names the schema that must learn it.

The spec's own vocabularies (semantic categories, type kinds, ``_protocol`` words...) are
here too: our schemas constrain what a server answers with them, and checks read them.
"""

from __future__ import annotations

from typing import Any, Literal, get_args


def words(vocabulary: Any) -> tuple[Any, ...]:
    """The members of a ``Literal`` vocabulary, in their order."""
    return get_args(vocabulary)


# -- capture: the evidence bundle ----------------------------------------------------------

# Where a value capture sent came from (parameter_tests[*].value_sources, valid_requests...):
# the plan, the harmless value of a safety switch or mode, the parameter's enum, its default, an
# example, a description, an earlier answer of the server, the spec's own values, made up.
ValueSource = Literal[
    "plan", "safe value", "enum", "default", "example", "description", "earlier answer", "spec", "type", "synthesised"
]
# Why a probe was not sent, or was not conclusive (capture_notes[].cause): withheld for safety
# (the level that would send it), no parameter list, not applicable, a plan step that could not
# run, a step the server refused, a write of which nothing can be read back.
NoteCause = Literal[
    "writes", "destructive", "unknown-parameters", "not-applicable", "plan", "failed", "nothing-to-keep"
]
WRITES: NoteCause = "writes"
DESTRUCTIVE: NoteCause = "destructive"
UNKNOWN_PARAMETERS: NoteCause = "unknown-parameters"
NOT_APPLICABLE: NoteCause = "not-applicable"
PLAN_STEP: NoteCause = "plan"
FAILED: NoteCause = "failed"
NOTHING_TO_KEEP: NoteCause = "nothing-to-keep"  # a write whose every input names another record: no field to read back
# The permission level a run had (provenance.permission), and a change needed (changes[].needed).
PermissionLabel = Literal["read-only", "writes", "destructive"]
ChangeNeed = Literal["writes", "destructive"]
# What made a change (changes[].source).
ChangeSource = Literal["capture", "agent", "cleanup"]
CLEANUP: ChangeSource = "cleanup"
# The two introspect list queries (introspection.query_attempts[].query, unknown_name_queries).
IntrospectQuery = Literal["operations", "types"]
OPERATIONS: IntrospectQuery = "operations"
TYPES: IntrospectQuery = "types"
# The kinds of UPDATE `input` probes (update_input_tests[].kind).
UpdateInputKind = Literal[
    "missing_input", "identifier_in_input", "input_not_object", "input_wrong_type", "input_unknown_field"
]
MISSING_INPUT: UpdateInputKind = "missing_input"
IDENTIFIER_IN_INPUT: UpdateInputKind = "identifier_in_input"
INPUT_NOT_OBJECT: UpdateInputKind = "input_not_object"
INPUT_WRONG_TYPE: UpdateInputKind = "input_wrong_type"
INPUT_UNKNOWN_FIELD: UpdateInputKind = "input_unknown_field"

# What a pagination_tests call sends (its `kind`; a case without one is first_and_last, as older
# bundles wrote it): first with last (refused), a page of one, the page after it (sent twice, by
# the cursor the page of one gave), a page of 1000, no page size at all, and cursor with offset or
# page pagination in one request (refused).
PaginationTestKind = Literal["first_and_last", "page_of_one", "next_page", "large_page", "default_page", "mixed_styles"]
FIRST_AND_LAST: PaginationTestKind = "first_and_last"
PAGE_OF_ONE: PaginationTestKind = "page_of_one"
NEXT_PAGE: PaginationTestKind = "next_page"
LARGE_PAGE: PaginationTestKind = "large_page"
DEFAULT_PAGE: PaginationTestKind = "default_page"
MIXED_STYLES: PaginationTestKind = "mixed_styles"
# What a field_tests call sends (its `kind`): each standard preset of features/field-selection §3.1
# as `fields`, a field name no server has (to be refused, §5.2), a computed field the details list
# (`_computed.NAME`, answered under `_computed`, §4.4), and a sort or a filter on one they say is
# not sortable or filterable (to be refused, features/computed-fields §3).
FieldTestKind = Literal["minimal", "standard", "full", "unknown_field", "computed", "computed_sort", "computed_filter"]
STANDARD_PRESETS: tuple[FieldTestKind, ...] = ("minimal", "standard", "full")
UNKNOWN_FIELD_NAME: FieldTestKind = "unknown_field"
COMPUTED: FieldTestKind = "computed"
COMPUTED_SORT: FieldTestKind = "computed_sort"
COMPUTED_FILTER: FieldTestKind = "computed_filter"
# What an aggregate_tests call sends as `aggregate` (its `kind`), to an operation documenting it
# (features/aggregations): a count alone, a count with include_items true (where documented), a
# function no server has, a field no server has, group_by with count.
AggregateTestKind = Literal["summary", "with_items", "unknown_function", "unknown_field", "grouped"]
SUMMARY: AggregateTestKind = "summary"
WITH_ITEMS: AggregateTestKind = "with_items"
UNKNOWN_FUNCTION: AggregateTestKind = "unknown_function"
UNKNOWN_AGGREGATE_FIELD: AggregateTestKind = "unknown_field"
GROUPED: AggregateTestKind = "grouped"
# What a relationship_tests call asks of a relationship query (its `kind`, features/relationship-
# queries): every section (no include), one section (include: relationships), a deep traversal.
RelationshipTestKind = Literal["all_sections", "one_section", "deep"]
ALL_SECTIONS: RelationshipTestKind = "all_sections"
ONE_SECTION: RelationshipTestKind = "one_section"
DEEP_TRAVERSAL: RelationshipTestKind = "deep"
# What a search_tests call sends as a search_* operation's `query` (its `kind`, features/collection-
# querying §4.1): one word of its example's query, that word and a word no record holds, that word twice.
SearchTestKind = Literal["one_word", "two_words", "repeated_word"]
ONE_WORD: SearchTestKind = "one_word"
TWO_WORDS: SearchTestKind = "two_words"
REPEATED_WORD: SearchTestKind = "repeated_word"

# What a sort_tests call sends (its `kind`, features/collection-querying §2.3): sort as a bare field name
# with order beside it, the shortcut form the spec allows only as documented compatibility behaviour.
SortTestKind = Literal["shorthand"]
SORT_SHORTHAND: SortTestKind = "shorthand"

# The scenarios of capture's drive of the execution safety loop (execution_tests[].scenario, core §8.4,
# §8.6-8.8): see capture/safety.py.
ExecutionScenario = Literal[
    "lifecycle", "cancel", "failure", "step_limit", "approval", "verify", "expiry", "deny", "session"
]
LIFECYCLE_SCENARIO: ExecutionScenario = "lifecycle"
CANCEL_SCENARIO: ExecutionScenario = "cancel"
FAILURE_SCENARIO: ExecutionScenario = "failure"
STEP_LIMIT_SCENARIO: ExecutionScenario = "step_limit"
APPROVAL_SCENARIO: ExecutionScenario = "approval"
VERIFY_SCENARIO: ExecutionScenario = "verify"
EXPIRY_SCENARIO: ExecutionScenario = "expiry"
DENY_SCENARIO: ExecutionScenario = "deny"
SESSION_SCENARIO: ExecutionScenario = "session"

# The starts of capture --configurations (configuration_tests[].configuration: capture/configurations.py):
# the run's environment again, none of the MCP_AQL_ variables, each MCP_AQL_ENDPOINT_MODE value the spec
# names (endpoint-modes §3.1, crude §4.3), and MCP_AQL_TOOL_PREFIX set (mcp-integration §6.2).
ConfigurationName = Literal["again", "unconfigured", "mode-semantic", "mode-single", "mode-all", "mode-crude", "prefix"]
AGAIN: ConfigurationName = "again"
UNCONFIGURED: ConfigurationName = "unconfigured"
PREFIXED: ConfigurationName = "prefix"

# The calls capture sends to see how the server reads a request itself (request_tests[].name):
# one without `operation`, one with an empty name, a known name in upper case, a parameter both
# at the top level and in params, two unknown parameters at once, a string holding U+0000, a
# value nested deeper than any nesting limit core §4.7.5 lets a server configure, a string holding
# bytes that are not UTF-8 (sent last, live/encoding.py).
RequestTestName = Literal[
    "no_operation",
    "empty_operation",
    "operation_case",
    "params_precedence",
    "two_unknown_parameters",
    "null_byte",
    "deep_nesting",
    "invalid_utf8",
]
NO_OPERATION: RequestTestName = "no_operation"
EMPTY_OPERATION: RequestTestName = "empty_operation"
OPERATION_CASE: RequestTestName = "operation_case"
PARAMS_PRECEDENCE: RequestTestName = "params_precedence"
TWO_UNKNOWN_PARAMETERS: RequestTestName = "two_unknown_parameters"
NULL_BYTE: RequestTestName = "null_byte"
DEEP_NESTING: RequestTestName = "deep_nesting"
INVALID_UTF8: RequestTestName = "invalid_utf8"
# How capture spoke to the server (answer_encoding.transport; live.connection.Target.transport).
Transport = Literal["stdio", "streamable-http"]

# -- reports -------------------------------------------------------------------------------

# What a run says of one rule of the registry (requirements[].result): a test's results, or
# "NOT_JUDGED" where no proof shows the rule judged or its test failed naming no rule.
RequirementResult = Literal["PASS", "FAIL", "WARN", "SKIP", "NOT_JUDGED"]
# What a run held beyond its bundle sections (evidence[]; beside `category:NAME` and
# `request_tests:NAME`): a batch one of whose items failed, a cross-cutting parameter that two
# operations document.
FAILING_ITEM = "batch_example:failing_item"
SHARED = "introspection:shared_parameters"
SEARCH = "introspection:search_operation"  # a READ operation named search_*
SINGLE_TOOL = "mcp_tools:single"  # the unified tool (mcp_aql), its description recorded
CUSTOM_FAMILY = "mcp_tools:custom_family"  # a tool of an endpoint family beyond CRUDE, its description recorded
QUERY_GRAMMAR = "introspection:query_grammar"  # a READ operation named query_* taking `query`
WARNED = "responses:warnings"  # a successful answer carrying warnings
BINARY = "responses:base64"  # an answer holding data a field marks base64 (X_encoding: base64)
WARNED_CONDITIONS = "responses:warned_conditions"  # three warning conditions (code and details) or more
WARNED_TWICE = "responses:repeated_warning"  # one warning (code and details) on two answers, a severity on both
BATCH_WARNED = "batch_example:item_warnings"  # a batch two of whose items carry warnings
RELISTED = "batch_example:relisted"  # a batch item answering an introspect list again
PRESET_PARAMETER = "introspection:preset_parameter"  # a READ operation documenting a `preset` parameter
AGGREGATES = "introspection:aggregate_parameter"  # a READ operation documenting an `aggregate` parameter
COMPUTED_ANSWERED = "responses:computed"  # an answer of a READ operation carrying a `_computed` object
DEPRECATED_PARAMETER = "introspection:deprecated_parameter"  # a parameter introspection marks deprecated
DEPRECATION_WARNED = "responses:deprecation_warning"  # an answer warning that a parameter it was sent is deprecated
RELATIONSHIPS = "introspection:relationship_query"  # a READ operation traversing relationships
NOT_APPLICABLE_SAID = "responses:not_applicable"  # a refusal saying an operation does not apply to a type
NESTING_SAID = "responses:nesting"  # a refusal telling where a value belongs ("must be in metadata.tags")
PROFILES_LISTED = "introspection:profiles"  # _protocol.profiles lists two semantic profiles or more
ARRAY_REPLACED = "update_preservation_tests:array_replaced"  # an array replaced by an update, then read back
STALE_PROBED = "update_preservation_tests:stale_if_match"  # an update sent with an if_match naming no version
SESSION_REPORTED = "introspection:session_id"  # _protocol reports a session id, and some answer is an error
# beside `pagination_tests:KIND` for each kind of call the run holds:
BEYOND_A_PAGE = "pagination_tests:beyond_a_page"  # a page of 1000 showing more items than it holds, or over 100
FULL_DEFAULT = "pagination_tests:full_default_page"  # a page asked with no size that says another follows
# beside `execution_tests:SCENARIO` for each scenario of the safety loop's drive the run holds (driven
# against a loop declared enforcing, or declaring no mode):
SAFETY_LOOP = "introspection:safety_loop"  # execute_agent or record_execution_step listed
EXECUTION_STATE = "execution_tests:execution_state"  # an answer giving an execution's id and status
PROGRESS = "execution_tests:progress"  # an answer giving an execution's progress object
TERMINAL_TOUCHED = "execution_tests:after_terminal"  # a completed execution aborted
PROGRESS_ASKED = "execution_tests:progress_token"  # a progress token sent to an operation declaring progress_reporting
PROGRESS_NOTIFIED = "execution_tests:progress_notified"  # a notifications/progress received
LOOP_MONITORING = "execution_tests:monitoring"  # a directive answered by a loop declared monitoring
FAILURE_PAUSED = "execution_tests:failure_paused"  # a failed outcome that drew a pause
LIMIT_KNOWN = "execution_tests:step_limit_known"  # a walk past a documented or counted-down step limit
APPROVAL_PAUSED = "execution_tests:approval_paused"  # an action paused for approval, then confirmed by the agent
VERIFY_TIER = "execution_tests:verify_tier"  # a directive putting an action in the verify tier
RATE_PROBED = "execution_tests:wrong_codes"  # more than ten wrong verification codes in a row
CHALLENGE_WAITED = "execution_tests:after_expiry"  # a challenge waited out, the action reported again
HARD_BLOCK = "execution_tests:hard_block"  # a directive stopping an agent (stopped: true)
DENY_REPORTED = "execution_tests:denied"  # an action matching a deny pattern reported
OLD_EXECUTION = "execution_tests:old_execution"  # a step, on a second connection, of the first's running execution
OLD_STATE = "execution_tests:old_execution_state"  # ... whose answer says the execution's state
META_CLAIMED = "execution_tests:old_execution_claimed"  # ... sent again, _meta claiming the closed session's id
RESTARTED_BLOCK = "execution_tests:restart_blocked"  # a hard-blocked agent's new execution after a restart
BYSTANDER = "execution_tests:bystander_step"  # another executing agent's step after a hard block
# beside `configuration_tests:NAME` for each configuration of capture --configurations that started:
CONFIGURED_MODE = "configuration_tests:mode"  # a start with MCP_AQL_ENDPOINT_MODE set, whether it started or not

# -- agent runs ------------------------------------------------------------------------------

# The kinds of agent tests (agent_tests[].kind): the spec's semantic tests, a user's, a scenario.
AgentTestKind = Literal["discovery", "field-selection", "error-recovery", "operation-selection", "user", "scenario"]
# How a model's call was answered (tool_calls[].outcome): by the server, or by the runner instead.
ToolCallOutcome = Literal["sent", "refused", "induced", "simulated", "invalid", "no-answer"]
# A judge model's verdict on a transcript (semantic_tests[].judge.verdict).
JudgeVerdict = Literal["pass", "fail", "invalid"]
PASSED: JudgeVerdict = "pass"
FAILED_RUN: JudgeVerdict = "fail"
INVALID_VERDICT: JudgeVerdict = "invalid"
# A scenario's simulated events and expected ends (scenario files).
ScenarioEvent = Literal["llm_response", "tool_result", "tool_error", "user_input", "llm_error"]
ScenarioOutcome = Literal["completed", "error"]

# -- the spec's words ------------------------------------------------------------------------

Level = Literal[1, 2]
SemanticCategory = Literal["CREATE", "READ", "UPDATE", "DELETE", "EXECUTE"]
TypeKind = Literal["enum", "object", "scalar", "union"]
ProtocolMode = Literal["semantic", "single", "all"]
ConformanceClaim = Literal["level-1", "level-2"]
ConcurrencyModel = Literal["serialized", "read-concurrent", "fully-concurrent", "resource-locked"]
AggregationMode = Literal["summary_only", "include_items"]
RelationshipDirection = Literal["incoming", "outgoing", "both"]
WarningSeverity = Literal["low", "medium", "high"]

VALUE_SOURCES: tuple[ValueSource, ...] = words(ValueSource)
NOTE_CAUSES: tuple[NoteCause, ...] = words(NoteCause)
SEMANTIC_CATEGORIES: tuple[SemanticCategory, ...] = words(SemanticCategory)
LEVELS: tuple[Level, ...] = words(Level)
