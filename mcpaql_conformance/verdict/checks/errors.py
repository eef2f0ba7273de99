"""Error Quality (MUST): well-formed, implementation-agnostic, actionable errors."""

from __future__ import annotations

import json
from typing import Any

from mcpaql_conformance.evidence.answers import Kind, classify, texts
from mcpaql_conformance.evidence.blanket import by_refusal
from mcpaql_conformance.evidence.bundle import JsonObject, response_path
from mcpaql_conformance.evidence.index import Context
from mcpaql_conformance.evidence.where import answer_label, error_case_label
from mcpaql_conformance.files.schemas import CompiledSchema, operation_result_schema
from mcpaql_conformance.sanitize import plain
from mcpaql_conformance.verdict.blame import case_blame, refusal_said
from mcpaql_conformance.verdict.checks.base import CONFORMANCE, CORE, Category, Outcome, cite, judge, told, uncited
from mcpaql_conformance.verdict.checks.requests import encoding_owned, several_unknown_findings
from mcpaql_conformance.verdict.checks.sessions import SESSION_ID, session_findings
from mcpaql_conformance.verdict.checks.warned import warning_findings
from mcpaql_conformance.verdict.model import Requirement, Result
from mcpaql_conformance.verdict.textmatch import find_leaks, leak_artifacts, leaks_outside, mentions_all

ERRORS = Category("Error Quality", required=True, level=1)
MUST = Requirement.MUST
SHOULD = Requirement.SHOULD


_ERRORS_DISCRIMINATED_UNION_RULES = (
    "core:10.1:l1-formats", "core:10.1:l2-meets-l1", "core:10.1:l2-passes-suite", "conformance:2.1:error-quality",
    "conformance:4.1:level1-categories", "introspection:3.1:discriminated-union",
    "operations:3.1:discriminated-union", "operations:3.2:success-shape", "operations:3.3:failure-shape",
    "operations:3.4:metadata-underscore", "operations:5.4:validation-errors", "operations:8.1:structured-codes",
    "operations:8.2:structured-errors", "operations:8.2:code", "operations:8.2:message",
    "error-codes:1.4:structured-error-objects", "error-codes:7.1:must-list", "mcp:4.2:no-jsonrpc-codes",
    "mcp:4.2:domain-errors-as-results", "mcp:7.1:conformance-musts", "features/warnings:6.1:success-only",
    "features/warnings:6.4:at-most-ten", "features/warnings:server-side-deduplication:exact-duplicates",
    "features/warnings:server-side-deduplication:deduplicate",
    "features/warnings:deduplication-recommendations:single-request", "features/warnings:6.2:should-list",
    "features/warnings:3.2:stable-severity", "features/warnings:deduplication-recommendations:batch-summary",
    "features/warnings:3.2:high-sparingly", "core:4.7.1:utf-8",
)  # fmt: skip


@ERRORS.check(
    "L1.errors.discriminated-union",
    "Responses match the discriminated union",
    f"{CORE} §5.1-5.3; {CONFORMANCE} §2.1",
    rules=_ERRORS_DISCRIMINATED_UNION_RULES,
    primary="core:10.1:l1-formats",
)
def discriminated_union(ctx: Context) -> Outcome:
    responses = ctx.bundle.responses
    schema = operation_result_schema()
    failures: list[str] = not_utf8(ctx.bundle.data.get("answer_encoding"))
    if not ctx.all_responses_valid:
        for template, group in ctx.bundle.response_groups:
            cases = ctx.bundle.group_cases(template)
            for index, response in enumerate(group):
                if not schema.is_valid(response):
                    if cases is not None and index < len(cases) and encoding_owned(cases[index], classify(response)):
                        continue  # judged by core §4.7.1's rule alone
                    where = _where(ctx, template, cases, index)
                    failures.append(cite(union_rule(response), f"{where}: {_union_failure(schema, response)}"))
    data = ctx.bundle.data
    return judge(
        MUST,
        judged=len(responses),
        failures=failures,
        warnings=stdout_noise(data.get("stdout_noise"))
        + mcp_deviations(data.get("mcp_deviations"))
        + warning_findings(ctx.bundle.response_groups, lambda t, i: _where(ctx, t, ctx.bundle.group_cases(t), i)),
        passed=f"All {len(responses)} recorded response(s) are valid {{success, data}} or {{success, error}} results.",
        no_evidence=told(ctx, "the server answered no call", "the bundle records no response"),
    )


SHOWN_NOISE = 3  # lines of a server's stdout noise (and MCP deviations) quoted in findings


def mcp_deviations(found: Any) -> list[str]:
    """MCP answers in shapes MCP does not define, each as capture read it on: a WARN each (the first
    few), for the same reason as stdout noise (MCP's requirements, mcp-integration §1.4)."""
    if not isinstance(found, dict) or not isinstance(found.get("deviations"), list):
        return []
    entries = [e for e in found["deviations"] if isinstance(e, dict) and isinstance(e.get("deviation"), str)]
    said = found.get("count")
    count = said if isinstance(said, int) and not isinstance(said, bool) else len(entries)
    shown: list[str] = [
        uncited(
            f"the server's answer to {plain(str(entry.get('method')), max_len=40)} is not in MCP's shape:"
            f" {plain(entry['deviation'], max_len=300)} (read as the nearest shape; mcp-integration §1.4)"
        )
        for entry in entries[:SHOWN_NOISE]
    ]
    if count > len(shown):
        shown.append(uncited(f"{count - len(shown)} more answer(s) not in MCP's shape"))
    return shown


def not_utf8(found: Any) -> list[str]:
    """Messages the server sent that are not UTF-8 (core §4.7.1: all text is), as capture counted
    them: one finding, the first few quoted by where the bytes were."""
    if not isinstance(found, dict):
        return []
    invalid, read = found.get("invalid"), found.get("answers")
    if not isinstance(invalid, int) or isinstance(invalid, bool) or invalid < 1:
        return []
    listed = found.get("examples")
    examples: list[Any] = listed if isinstance(listed, list) else []
    quoted = [
        f"{_after(entry.get('after'))}, at byte {entry.get('offset')}: {plain(str(entry.get('bytes')), max_len=120)}"
        for entry in examples[:SHOWN_NOISE]
        if isinstance(entry, dict)
    ]
    count = f"{invalid} of the {read}" if isinstance(read, int) and not isinstance(read, bool) else str(invalid)
    text = f"{count} message(s) the server sent were not UTF-8" + (f" ({'; '.join(quoted)})" if quoted else "")
    return [cite("core:4.7.1:utf-8", text)]


def _after(request: Any) -> str:
    return f"after {plain(request, max_len=120)}" if isinstance(request, str) else "before any request"


def stdout_noise(noise: Any) -> list[str]:
    """What a stdio server wrote to stdout, its protocol channel, that is not JSON-RPC: one finding
    per line quoted (the first few), each with the request it followed. MCP's stdio transport
    carries protocol messages only; MCP-AQL takes MCP's transport requirements as they are
    (mcp-integration §1.4, an informative document, with no keyword of its own): a WARN."""
    if not isinstance(noise, dict) or not isinstance(noise.get("lines"), list):
        return []
    lines = [entry for entry in noise["lines"] if isinstance(entry, dict) and isinstance(entry.get("line"), str)]
    said = noise.get("count")
    count = said if isinstance(said, int) and not isinstance(said, bool) else len(lines)
    found: list[str] = []
    for entry in lines[:SHOWN_NOISE]:
        after = entry.get("after")
        when = f"after {plain(after, max_len=120)}" if isinstance(after, str) else "before its first message"
        found.append(
            uncited(
                f"the server wrote text that is not JSON-RPC to stdout, MCP's protocol channel, {when}:"
                f" {plain(entry['line'], max_len=200)!r} (stdio carries protocol messages only, mcp-integration"
                " §1.4: log to stderr)"
            )
        )
    if count > len(found):
        found.append(uncited(f"{count - len(found)} more line(s) of text that is not JSON-RPC on stdout"))
    if isinstance(noise.get("lost"), str):
        found.append(uncited(f"{plain(noise['lost'], max_len=300)}: the capture ended early"))
    return found


def _where(ctx: Context, template: str, cases: list[JsonObject] | None, index: int) -> str:
    """Which call an answer is: in the server's terms for a captured bundle (the probe and its
    operation), the JSON path and the operation for one written by hand."""
    case = cases[index] if cases is not None and index < len(cases) else None
    if ctx.captured:
        return answer_label(template, index, case, captured=True)
    return response_path(template, index) + _operation_of(template, cases, index)


def _operation_of(template: str, cases: list[JsonObject] | None, index: int) -> str:
    """`` (operation list_items)`` when the answer's case names the operation it called; the
    read-back of a round trip names the operation whose record it read."""
    case = cases[index] if cases is not None and index < len(cases) else None
    operation = case.get("operation") if isinstance(case, dict) else None
    if not isinstance(operation, str):
        return ""
    if template.endswith(".read_response"):
        return f" (the read-back after {plain(operation, max_len=80)})"
    return f" (operation {plain(operation, max_len=80)})"


def _union_failure(schema: CompiledSchema, response: Any) -> str:
    """Why an answer is not a valid result: what the server sent when it is not an MCP-AQL
    result at all, else the schema's reasons (about the object the server sent)."""
    answer = classify(response)
    if answer.kind in _NOT_A_RESULT or (answer.flagless and answer.kind is not Kind.ERROR):
        return answer.describe()
    return "; ".join(schema.explain(response, limit=2))


def union_rule(response: Any) -> str:
    """The most specific rule an answer outside the union breaks: a JSON-RPC error or a plain-text
    MCP error for a domain failure (mcp-integration §4.2), no boolean ``success``, a success
    without ``data``, an error that is no object or lacks its code or message, warnings on a
    failure; any other deviation from a failure's shape."""
    kind = classify(response).kind
    if kind is Kind.JSONRPC_ERROR:
        return "mcp:4.2:no-jsonrpc-codes"
    if kind is Kind.MCP_ERROR:
        return "mcp:4.2:domain-errors-as-results"
    if kind in (Kind.TEXT, Kind.NO_ANSWER) or not isinstance(response, dict):
        return "core:10.1:l1-formats"
    success = response.get("success")
    if not isinstance(success, bool):
        return "operations:3.1:discriminated-union"
    extra = [key for key in response if key not in _SUCCESS_KEYS and not str(key).startswith("_")]
    if success and "data" in response and extra and "error" not in extra:  # metadata without its underscore
        return "operations:3.4:metadata-underscore"
    if success:
        return "operations:3.2:success-shape"
    error = response.get("error")
    if not isinstance(error, dict):
        return "operations:8.2:structured-errors"
    if "warnings" in response:
        return "features/warnings:6.1:success-only"
    if not isinstance(error.get("code"), str):
        return "operations:8.2:code"
    if not isinstance(error.get("message"), str):
        return "operations:8.2:message"
    return "operations:3.3:failure-shape"


_SUCCESS_KEYS = frozenset({"success", "data", "warnings", "results", "summary", "halted_at", "pending_operations"})

# Objects the server sent are explained by the schema; these are described as what they are.
_NOT_A_RESULT = frozenset({Kind.STRING_ERROR, Kind.MCP_ERROR, Kind.JSONRPC_ERROR, Kind.TEXT, Kind.NO_ANSWER})

TextEntry = tuple[str, int, str, str, bool]  # response path template, index, sub-path, text, in an error


def _error_texts(ctx: Context) -> list[TextEntry]:
    """Every text the recorded responses show a client: error messages and details, warnings,
    batch results, string errors, protocol-level and plain-text answers."""
    found: list[TextEntry] = []
    for template, group in ctx.bundle.response_groups:
        for index, response in enumerate(group):
            found += [(template, index, *text) for text in texts(response)]
    return found


_ERRORS_NO_LEAKAGE_RULES = (
    "core:10.1:l2-passes-suite", "conformance:2.1:error-quality", "conformance:4.1:level1-categories",
    "introspection:8.1.3:no-internals", "introspection:8.1.3:no-language-errors",
    "introspection:8.1.3:no-stack-traces", "introspection:8.1.3:no-class-names-paths",
    "operations:8.4:message-guidelines",
)  # fmt: skip


@ERRORS.check(
    "L1.errors.no-leakage",
    "Error messages do not leak implementation internals",
    f"{CONFORMANCE} §3.3 (No Implementation Leakage)",
    rules=_ERRORS_NO_LEAKAGE_RULES,
    primary="introspection:8.1.3:no-internals",
)
def no_leakage(ctx: Context) -> Outcome:
    if ctx.all_responses_valid:
        texts = _simple_error_texts(ctx)
        if texts is not None and not find_leaks(texts):
            return _leak_outcome(len(texts), [], len(ctx.bundle.responses), missing=_no_text(ctx))
    entries = _error_texts(ctx)
    failures: list[tuple[str, list[str]]] = []  # (where, the artifacts outside the caller's quotes)
    warnings: list[str] = []
    echoes = 0
    for i, _ in find_leaks([entry[3] for entry in entries]):
        template, index, sub, text, in_error = entries[i]
        if ctx.captured:  # the call, in the server's terms, and where in its answer
            where = _where(ctx, template, ctx.bundle.group_cases(template), index)
            where = f"{where}, at {sub.lstrip('.')}" if sub else where
        else:
            where = f"{response_path(template, index)}{sub}"
        artifacts = list(leaks_outside(text, _caller_strings(ctx, template, index)))
        if not artifacts:
            echoes += 1
        elif in_error:
            failures.append((where, artifacts))
        else:  # introspection §8.1.3 is about error answers: elsewhere it is no MUST
            warnings.append(uncited(f"{where}: {artifacts[0]} (in an answer that is no error: a warning)"))
    quoted = _quoted_elsewhere(ctx) if failures else set()
    failed: list[str] = []
    for where, artifacts in failures:
        own = [artifact for artifact in artifacts if artifact not in quoted]
        if own:
            failed.append(cite(leak_rule(own[0]), f"{where}: {own[0]}"))
        else:  # every artifact is also in what the run sent elsewhere or the server stores
            warnings.append(uncited(f"{where}: {artifacts[0]} ({_MAYBE_QUOTED})"))
    return _leak_outcome(len(entries), failed, len(ctx.bundle.responses), echoes, warnings, missing=_no_text(ctx))


# The rule of introspection §8.1.3 each kind of artifact (textmatch.LEAK_RULES' labels) breaks.
_LEAK_RULES = {
    "exception class name": "introspection:8.1.3:no-language-errors",
    "stack trace header": "introspection:8.1.3:no-stack-traces",
    "stack frame": "introspection:8.1.3:no-stack-traces",
    "python frame": "introspection:8.1.3:no-stack-traces",
    "internal path": "introspection:8.1.3:no-class-names-paths",
    "source line reference": "introspection:8.1.3:no-class-names-paths",
    "object dump": "introspection:8.1.3:no-class-names-paths",
}


def leak_rule(artifact: str) -> str:
    """The rule an artifact (as textmatch names it: its kind, then the text) breaks."""
    return next((rule for kind, rule in _LEAK_RULES.items() if artifact.startswith(kind)), _NO_INTERNALS)


_NO_INTERNALS = "introspection:8.1.3:no-internals"
_MAYBE_QUOTED = (
    "the same text is in a request of this run or in data the server returned: it may quote it, so a warning"
)


def _quoted_elsewhere(ctx: Context) -> set[str]:
    """The artifacts found in text the run sent (any recorded request) or the server keeps (the
    ``data`` of its successful answers to operations). A message showing one of them may be
    quoting it, which leaks nothing; the tool cannot tell, so it warns (read only when some
    message would fail). Introspection is the server's own account of itself, not stored data:
    an exception name its descriptions show still fails where an error message shows it."""
    strings: list[str] = []
    for template, group in ctx.bundle.response_groups:
        for case in ctx.bundle.group_cases(template) or ():
            if isinstance(case, dict):
                strings += _sent_strings(case)
        if template.startswith("$.introspection."):
            continue
        for response in group:
            if isinstance(response, dict) and response.get("success") is True:
                strings += _leaf_strings(response.get("data"), 0)
    return leak_artifacts(strings)


def _no_text(ctx: Context) -> str:
    """What is missing when no answer carried a message, in the server's terms for a capture."""
    return told(ctx, "no answer of the server carried an error or warning message", _NO_TEXT)


_NO_TEXT = "the bundle records no error or warning message"


def _simple_error_texts(ctx: Context) -> list[str] | None:
    """Fast path for valid responses that are just {success, data} or {success, error: {code,
    message}}: the messages (None when some response needs the full walk). Locations are only
    worked out when a leak is found."""
    texts: list[str] = []
    for group in ctx.bundle.response_groups:
        for response in group[1]:
            if len(response) != 2:  # warnings, batch results, a confirmation, metadata, ...
                return None
        failures = [r["error"] for r in group[1] if r["success"] is False]
        if any(len(error) != 2 for error in failures):  # details, or metadata
            return None
        texts += [error["message"] for error in failures]
    return texts


def _caller_strings(ctx: Context, template: str, index: int) -> list[str]:
    """What the caller itself sent for the answer at ``template``/``index`` (``_sent_strings``),
    each also as JSON writes it inside a string (a server that quotes the request as JSON
    escapes its backslashes and quotes)."""
    cases = ctx.bundle.group_cases(template)
    case = cases[index] if cases is not None and index < len(cases) else None
    if not isinstance(case, dict):
        return []
    sent = [text for text in _sent_strings(case) if len(text) >= MIN_ECHO]
    return sent + [escaped for text in sent if (escaped := json.dumps(text, ensure_ascii=False)[1:-1]) != text]


MIN_ECHO = 3  # shorter sent values ("id", "a") would hide nothing a leak rule can match
# Where a case records what the caller sent: the request, its parameters, the operation it
# named, an UPDATE's input, the name an introspect query asked.
_SENT = ("request", "params", "operation", "input", "name")


def _sent_strings(case: JsonObject) -> list[str]:
    """The strings of what a case's caller sent, names (parameter keys) included."""
    return [text for key in _SENT for text in _leaf_strings(case.get(key), 0)]


def _leaf_strings(value: Any, depth: int) -> list[str]:
    """Every string in ``value``, the keys of its objects too (a parameter's name is sent text)."""
    if depth > 16:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (str(key), *_leaf_strings(item, depth + 1))]
    if isinstance(value, list):
        return [text for item in value for text in _leaf_strings(item, depth + 1)]
    return []


def _leak_outcome(
    judged: int,
    failures: list[str],
    answers: int = 0,
    echoes: int = 0,
    warnings: list[str] | None = None,
    *,
    missing: str,
) -> Outcome:
    if judged == 0 and answers:
        # The server never said an error: nothing can leak here; the parameter tests judge why.
        detail = f"not judged: none of the {answers} recorded answer(s) carries an error or warning text"
        return Outcome(Result.WARN, detail)
    return judge(
        MUST,
        judged=judged,
        failures=failures,
        warnings=warnings,
        passed=f"{judged} error text(s) show no stack trace, internal path or language artifact"
        + (f" ({echoes} only quote back what the caller sent)." if echoes else "."),
        no_evidence=missing,
    )


_ERRORS_ACTIONABLE_RULES = (
    "core:10.1:l2-passes-suite", "conformance:2.1:error-quality", "conformance:4.1:level1-categories",
    "introspection:8.2.3:actionable", "operations:8.4:message-guidelines", "error-codes:7.1:must-list",
    "endpoint-modes:8.2:conformance-shoulds", "error-codes:4.5:several-unknown-parameters", SESSION_ID,
)  # fmt: skip


@ERRORS.check(
    "L1.errors.actionable",
    "Error messages are actionable",
    f"{CONFORMANCE} §3.3 (Actionable Error Messages)",
    rules=_ERRORS_ACTIONABLE_RULES,
    primary="introspection:8.2.3:actionable",
)
def actionable(ctx: Context) -> Outcome:
    cases = ctx.bundle.cases("error_tests")
    warnings: list[str] = []
    blanket: list[tuple[tuple[str, str] | None, str]] = []
    judged = 0
    for case in cases:
        operation = case.get("operation")
        label = error_case_label(case, ctx.captured)
        if (key := ctx.blanket.covers(operation, case["response"])) is not None:
            blanket.append((key, f"{operation}." if isinstance(operation, str) else f"{label}."))
            continue
        if not case.get("must_mention"):
            warnings.append(f"{label}: no must_mention criteria to judge the message by")
            continue
        fragments = case.get("must_mention") or []
        blame = case_blame(case, fragments[0] if isinstance(fragments[0], str) else None)
        if blame is not None:  # the refusal was of a value capture chose, not of what it tests
            warnings.append(f"{label}: {blame.not_judged(refusal_said(case))}")
            continue
        judged += 1
        answer = classify(case["response"])
        if not answer.refused:
            warnings.append(f"{label}: the response is not an error ({answer.describe()})")
            continue
        message = answer.message
        missing = [m for m, said in zip(fragments, mentions_all(message, fragments), strict=True) if not said]
        if missing:
            warnings.append(f"{label}: message does not mention {', '.join(missing)}")
    warnings += ctx.blanket.findings(by_refusal(blanket), "error case(s)")
    warnings += several_unknown_findings(ctx) + session_findings(ctx)
    # conformance-testing §3.3 gives this test PASS and WARN outcomes only: no evidence warns too
    return judge(
        SHOULD,
        judged=judged,
        failures=[],
        warnings=warnings,
        passed=f"{judged} error message(s) name what went wrong and what to correct.",
        no_evidence=told(
            ctx,
            "no call drew an error to judge (the missing- and unknown-parameter probes, the unknown-operation call)",
            "no error_tests with must_mention criteria",
        ),
    )
