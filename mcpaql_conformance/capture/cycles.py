"""Round trips: the plan's cycles, and cycles inferred from introspection when no plan covers an
operation (a CREATE whose answer carries an identifier a READ or UPDATE operation takes).
Every cycle runs its steps one after another, each within the run's permission level."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from mcpaql_conformance.capture.candidates import ANSWER, SAFE, SeenValues, candidates, names_existing
from mcpaql_conformance.capture.constraints import read_only_attempt
from mcpaql_conformance.capture.merges import array_replaced
from mcpaql_conformance.capture.probes import fresh_keys, next_choice
from mcpaql_conformance.capture.values import changed_value, distinct_value, sensitive_value
from mcpaql_conformance.evidence.answers import Kind, classify
from mcpaql_conformance.evidence.declared import object_properties, write_only
from mcpaql_conformance.evidence.execution import LOOP_OPERATIONS
from mcpaql_conformance.evidence.identifiers import identifier_like
from mcpaql_conformance.evidence.reading import identifier_words
from mcpaql_conformance.files.values import MISSING, json_equal, resolve_path
from mcpaql_conformance.files.vocabulary import (
    FAILED,
    MISSING_INPUT,
    NOT_APPLICABLE,
    NOTHING_TO_KEEP,
    PLAN_STEP,
    NoteCause,
)
from mcpaql_conformance.live.discovery import Operation
from mcpaql_conformance.live.levels import strictest
from mcpaql_conformance.live.plan import substitute
from mcpaql_conformance.live.session import PHASE_CYCLES, Live, gather, note
from mcpaql_conformance.regex import lazy
from mcpaql_conformance.verdict.blame import our_value_refused

JsonObject = dict[str, Any]
MAX_DEPTH = 4  # how deep an identifier is looked for in an answer
MAX_UPDATE_TRIES = 3  # fields tried, one per update, before an inferred update cycle gives up
INFERRED = 1000  # inferred cycles sort after the plan's


STALE_VERSION = 'W/"mcpaql-conformance-stale"'  # an if_match no record of any server carries


@dataclass
class Inferred:
    """Cycles inferred during the capture, in the plan format (for --write-plan)."""

    create_read: list[JsonObject] = field(default_factory=list)
    update_read: list[JsonObject] = field(default_factory=list)


# --- the plan's cycles -------------------------------------------------------------------------


async def run_plan_cycles(live: Live, operations: dict[str, Operation]) -> None:
    index = 0
    for cycle in live.plan.create_read:
        steps = await _steps(live, operations, cycle, ("create", "read"), index)
        index += 1
        if steps is not None:
            fields = cycle.get("expected_fields") or {
                f"data.{k}": v for k, v in _echoed(live, cycle["create"], operations).items()
            }
            live.evidence.round_trip_tests.append(
                {
                    "name": cycle["name"],
                    "operation": cycle["create"]["operation"],
                    "expected_fields": live.redactor.value(fields),
                    "read_response": steps[-1],
                }
            )
    for cycle in live.plan.update_read:
        steps = await _steps(live, operations, cycle, ("create", "update", "read"), index)
        index += 1
        if steps is not None:
            names = ("setup", "create", "update", "read") if "setup" in cycle else ("create", "update", "read")
            changed = _changed_by(live, operations, cycle["update"], dict(zip(names, steps, strict=True)))
            kept = cycle.get("expected_fields") or {
                f"data.{k}": v for k, v in _echoed(live, cycle["create"], operations).items() if k not in changed
            }
            live.evidence.update_preservation_tests.append(
                {
                    "name": cycle["name"],
                    "operation": cycle["update"]["operation"],
                    "preserved_fields": live.redactor.value(kept),
                    "read_response": steps[-1],
                }
            )
    for cycle in live.plan.constraints:
        steps = await _steps(live, operations, cycle, ("create", "attempt"), index)
        index += 1
        if steps is not None:
            attempt = cycle["attempt"]
            request = live.redactor.params(attempt["operation"], dict(attempt.get("params") or {}))
            live.evidence.constraint_tests.append(
                {
                    "name": cycle["name"],
                    "documented": cycle.get("documented") is True,
                    "request": request,
                    "response": steps[-1],
                }
            )


def _changed_by(live: Live, operations: dict[str, Operation], update: JsonObject, answers: JsonObject) -> set[str]:
    """The fields a plan's update step changes: those in its `input` (core §4.5); where it sends
    them flat in `params`, every one of them (so that none is expected unchanged), and the call is
    evidence of an UPDATE taken without `input` (core §4.5.3 item 1), judged as capture's own."""
    params = update.get("params") or {}
    nested = params.get("input")
    if isinstance(nested, dict):
        return set(nested)
    op = operations[update["operation"]]
    if op.category == "UPDATE":  # the request as sent: the plan's references filled in from earlier answers
        request = live.redactor.params(op.name, dict(substitute(params, answers)))
        case = {"operation": op.name, "kind": MISSING_INPUT, "request": request, "response": answers["update"]}
        live.evidence.update_input_tests.append(case)
    return set(params)


def _echoed(live: Live, step: JsonObject, operations: dict[str, Operation] | None = None) -> JsonObject:
    """A step's parameters a read is expected to give back: not the sensitive ones, nor those its
    operation documents as never given back (write-only)."""
    operation = step["operation"]
    op = (operations or {}).get(operation)
    hidden = {p["name"] for p in op.parameters or [] if write_only(p)} if op is not None else set()
    return {
        k: v
        for k, v in step.get("params", {}).items()
        if (operation, k) not in live.redactor.sensitive and k not in hidden
    }


async def _steps(
    live: Live, operations: dict[str, Operation], cycle: JsonObject, names: tuple[str, ...], index: int
) -> list[Any] | None:
    names = ("setup", *names) if "setup" in cycle else names
    for step in names:
        op = operations.get(cycle[step]["operation"])
        if op is None:
            reason = "operation not in introspection: cycle skipped"
            live.evidence.notes.append(note(cycle[step]["operation"], cycle["name"], reason, PLAN_STEP, len(names)))
            return None
    steps = [operations[cycle[step]["operation"]] for step in names]
    barred = [op for op in steps if not live.allows(op.need)]
    if barred:
        need = strictest([op.need for op in barred])
        op = next(op for op in barred if op.need.level == need.level)
        live.evidence.notes.append(live.withheld(op.name, cycle["name"], op.need, len(names), "cycle skipped"))
        return None
    answers: dict[str, Any] = {}
    for position, step in enumerate(names):
        op = operations[cycle[step]["operation"]]
        params = substitute(cycle[step].get("params", {}), answers)
        answers[step] = await live.send(
            (PHASE_CYCLES, index, position), op.tool, {"operation": op.name, "params": params}, op.name,
            cycle["name"], f"{cycle['name']}: {step}",
        )  # fmt: skip
    return list(answers.values())


# --- inferred cycles ---------------------------------------------------------------------------


@dataclass
class Created:
    """A create that worked: what was sent, and where its identifiers sit in the answer."""

    op: Operation
    params: JsonObject
    reader: Operation
    ids: dict[str, str]  # reader parameter -> dotted path of its value in the create answer


@dataclass
class Outcome:
    """What one inferred cycle gave: evidence, a plan entry, or the note saying why not."""

    test: JsonObject | None = None
    plan: JsonObject | None = None
    note: JsonObject | None = None
    created: Created | None = None
    reading: tuple[str, str] | None = None
    constraint: JsonObject | None = None  # a read-only field tried after an update cycle (capture/constraints.py)


async def infer_cycles(live: Live, operations: list[Operation], seen: SeenValues | None = None) -> Inferred:
    """Create→read and update→read cycles for operations no plan cycle covers. Each cycle runs
    its steps in order; cycles of different operations are independent and overlap. ``seen``:
    what the server answered so far, for a create refused for a value of ours."""
    inferred = Inferred()
    planned_creates = {c["create"]["operation"] for c in live.plan.create_read}
    planned_updates = {c["update"]["operation"] for c in live.plan.update_read}
    readers = [op for op in operations if op.category == "READ" and op.required_names]
    skipped = planned_creates | LOOP_OPERATIONS.keys()  # the loop's reserved CREATEs make no record to read back
    creates = [o for o in operations if o.category == "CREATE" and o.name not in skipped]
    updates = [o for o in operations if o.category == "UPDATE" and o.name not in planned_updates]
    outcomes = await gather([_creator(live, op, readers, INFERRED + i, seen) for i, op in enumerate(creates)])
    created = [o.created for o in outcomes if o.created is not None]
    start = INFERRED + len(creates)
    outcomes += await gather([_updater(live, op, created, start + i) for i, op in enumerate(updates)])
    for outcome in outcomes:
        _apply(live, inferred, outcome)
    return inferred


def _creator(live: Live, op: Operation, readers: list[Operation], index: int, seen: SeenValues | None) -> Any:
    return lambda: _infer_create_read(live, op, readers, index, seen)


def _updater(live: Live, op: Operation, created: list[Created], index: int) -> Any:
    return lambda: _infer_update_read(live, op, created, index)


def _apply(live: Live, inferred: Inferred, outcome: Outcome) -> None:
    if outcome.reading is not None:
        live.readings.add(*outcome.reading)
    if outcome.note is not None:
        live.evidence.notes.append(outcome.note)
    if outcome.constraint is not None:
        live.evidence.constraint_tests.append(live.redactor.value(outcome.constraint))
    if outcome.test is None:
        return
    kind = "create_read" if "expected_fields" in outcome.test else "update_read"
    tests = live.evidence.round_trip_tests if kind == "create_read" else live.evidence.update_preservation_tests
    tests.append(outcome.test)
    if outcome.plan is not None:
        getattr(inferred, kind).append(outcome.plan)


def _skip(op: Operation, probe: str, reason: str, cause: NoteCause, count: int = 2) -> Outcome:
    what = probe.replace("_", "-")
    return Outcome(note=note(op.name, probe, f"inferred {what} cycle not run: {reason}", cause, count))


def create_params(live: Live, op: Operation, seen: SeenValues | None = None) -> JsonObject:
    """Every documented parameter (or every required one the server named), with a value that
    differs from its default; a safety switch or mode gets its safe value; a reference to
    another kind of record (add_book's shelf_id) one the server answered, where it did."""
    return create_values(live, op, seen)[0]


def create_values(live: Live, op: Operation, seen: SeenValues | None = None) -> tuple[JsonObject, set[str]]:
    """``create_params``, and the documented parameters the server answered a value for: they
    point at another record, so the read is not expected to give them back as sent."""
    params: JsonObject = {}
    referenced: set[str] = set()
    known = op.parameters if op.parameters is not None else [{"name": name} for name in op.discovered]
    for parameter in known:
        answered = _referenced(op, parameter, seen)
        if answered is not MISSING and op.parameters is not None:
            referenced.add(parameter["name"])
        planned = live.plan.value_for(op.name, parameter["name"])
        if planned is not MISSING:
            params[parameter["name"]] = planned
        elif parameter.get("sensitive") is True:
            params[parameter["name"]] = sensitive_value(parameter)
        elif is_safety_value(op, parameter["name"]):
            params[parameter["name"]] = candidates(op.name, parameter, op.declarations)[0].value
        elif answered is not MISSING:
            params[parameter["name"]] = answered
        else:
            params[parameter["name"]] = distinct_value(parameter, parameter["name"])
    return fresh_keys(live, op, params), referenced


def _referenced(op: Operation, parameter: JsonObject, seen: SeenValues | None) -> Any:
    """The first value the server answered for a record the parameter names that the server must
    already have (another kind's, or its own kind's for an operation that does not create it); MISSING."""
    if seen is None or not names_existing(op.name, parameter["name"], op.category):
        return MISSING
    found = [c for c in candidates(op.name, parameter, op.declarations, seen, op.category) if c.source == ANSWER]
    return found[0].value if found else MISSING


def is_safety_value(op: Operation, name: str) -> bool:
    """Whether a parameter is a safety switch or a mode sent with its harmless value: it is
    never changed by an update."""
    return candidates(op.name, op.parameter(name), op.declarations)[0].source == SAFE


async def _infer_create_read(
    live: Live, op: Operation, readers: list[Operation], index: int, seen: SeenValues | None = None
) -> Outcome:
    if not live.allows(op.need):
        return Outcome(note=live.withheld(op.name, "create_read", op.need, 2, "inferred create-read cycle not run"))
    if op.parameters is None and not op.discovered:
        return _skip(op, "create_read", "introspection gave no parameter list", NOT_APPLICABLE)
    if any(
        p.get("type") == "object" and p.get("required") is True and not object_properties(p)
        for p in op.parameters or []
    ):
        return _skip(op, "create_read", "it takes an object whose fields introspection does not give", NOT_APPLICABLE)
    params, referenced = create_values(live, op, seen)
    name = f"inferred-{op.name}-read"
    answer = await _call(live, op, params, (PHASE_CYCLES, index, 0), name, "create")
    second = None if classify(answer).succeeded else _second_values(live, op, params, answer, seen)
    if second is not None:
        params, referenced = second
        answer = await _call(live, op, params, (PHASE_CYCLES, index, 0, 1), name, "create, with another value")
    if not classify(answer).succeeded:
        reason = f"the create was refused ({classify(answer).describe()}); a plan entry can give it working values"
        return _skip(op, "create_read", reason, FAILED, 1)
    allowed = [reader for reader in readers if live.allows(reader.need)]
    match = _reader_for(op, answer, allowed)
    reading = None
    if match is None:
        found = await _read_by_prose(live, op, answer, allowed, index, name)
        if found is None:
            return _skip(
                op, "create_read", "no READ operation takes an identifier its answer carries", NOT_APPLICABLE, 1
            )
        reader, ids, read = found
        token = _resolve(answer, next(iter(ids.values())))
        reading = ("read an identifier out of a prose answer", f"{op.name}: {token}")
    else:
        reader, ids = match
        read_params = {param: _resolve(answer, path) for param, path in ids.items()}
        read = await _call(live, reader, read_params, (PHASE_CYCLES, index, 1), name, "read")
    read_by = {param: _resolve(answer, path) for param, path in ids.items()}
    expected = _expected(live, op, params, read_by, read, exclude=referenced)
    if expected is None:
        reason = f"the answer of {reader.name} holds no record with the values sent; a plan entry can name the read"
        return _skip(op, "create_read", reason, NOT_APPLICABLE, 0)
    if not expected:
        return _skip(op, "create_read", "nothing it submits can be compared after a read", NOTHING_TO_KEEP, 0)
    test = {"name": name, "operation": op.name, "expected_fields": live.redactor.value(expected), "read_response": read}
    created = Created(op, params, reader, ids)
    if any(path.startswith(PROSE) for path in ids.values()):
        return Outcome(test=test, created=created, reading=reading)  # a plan cannot point into prose
    refs = {param: "${create." + path + "}" for param, path in ids.items()}
    plan = {
        "name": name,
        "create": {"operation": op.name, "params": live.redactor.params(op.name, params)},
        "read": {"operation": reader.name, "params": refs},
    }
    return Outcome(test=test, plan=plan, created=created, reading=reading)


def _second_values(
    live: Live, op: Operation, params: JsonObject, answer: Any, seen: SeenValues | None
) -> tuple[JsonObject, set[str]] | None:
    """The create's parameters with the next value for the one whose value of ours the server
    refused ("No note with note_id 'mcpaql-conformance-note_id'"), and which parameters now point at a
    record the server returned before; None when there is nothing else to try."""
    blame = our_value_refused(params, None, answer)
    if blame is None:
        return None
    following = next_choice(live, op, blame.parameter, blame.value, seen, made_up=False)
    if following is None:
        return None
    referenced = {blame.parameter} if following.source == ANSWER else set()
    return fresh_keys(live, op, {**params, blame.parameter: following.value}), referenced


def _reader_for(create: Operation, answer: Any, readers: list[Operation]) -> tuple[Operation, dict[str, str]] | None:
    """The READ operation whose required parameters the create answer fills (most identifiers,
    fewest other parameters, then the most name in common with the create), and where each
    value sits in the answer."""
    ranked = []
    made = created_words(create.name)
    for reader in readers:
        ids = filled(reader.required_names, lambda parameter: _locate(answer, parameter, made))
        if ids is not None:
            identifying = sum(1 for name in ids if identifier_like(name))
            rank = (-identifying, len(ids) - identifying, -shared_suffix(create.name, reader.name), reader.index)
            ranked.append((rank, reader, ids))
    if not ranked:
        return None
    _, reader, ids = min(ranked, key=lambda c: c[0])
    return reader, ids


def filled(names: list[str], lookup: Callable[[str], Any]) -> dict[str, Any] | None:
    """Each of ``names`` with what ``lookup`` finds for it; None when it finds nothing for one."""
    found = {}
    for name in names:
        value = lookup(name)
        if value is None:
            return None
        found[name] = value
    return found


def shared_suffix(left: str, right: str) -> int:
    """Characters two operation names share at their ends (``create_note`` / ``get_note``: 5)."""
    count = 0
    for a, b in zip(reversed(left), reversed(right), strict=False):
        if a != b:
            break
        count += 1
    return count


_CREATING = frozenset({"create", "add", "new", "make", "insert", "post", "put", "write", "register", "save", "upload"})


def created_words(operation: str) -> frozenset[str]:
    """What a create operation makes, as words: ``create_note`` -> {note}, ``addBookmarkList`` ->
    {bookmark, list}."""
    return frozenset(word.lower() for word in identifier_words(operation)) - _CREATING


def _locate(answer: Any, key: str, made: frozenset[str] = frozenset(), path: str = "", depth: int = 0) -> str | None:
    """The dotted path of a scalar field ``key`` in an answer; for ``note_id`` (or ``noteId``) also
    an ``id``, but only where the create made a note: another kind of identifier (``tag_id`` after
    ``create_note``) is not the record's own."""
    if depth > MAX_DEPTH or not isinstance(answer, dict):
        return None
    for name in (key, "id") if _names_kind(key, made) else (key,):
        item = answer.get(name)
        if isinstance(item, str | int) and not isinstance(item, bool) and item != "":
            return f"{path}{name}"
    for name, item in answer.items():
        found = _locate(item, key, made, f"{path}{name}.", depth + 1)
        if found is not None:
            return found
    return None


def _names_kind(key: str, made: frozenset[str]) -> bool:
    """Whether ``key`` is an identifier of what the create made: ``note_id``/``noteId`` after
    ``create_note`` (any identifier, when the create's name says nothing of what it makes)."""
    words = [word.lower() for word in identifier_words(key)]
    if len(words) < 2 or words[-1] != "id":
        return False
    return not made or bool(set(words[:-1]) & made)


PROSE = "prose:"  # an identifier read out of a prose answer: ``prose:N`` is its Nth candidate token
_TOKEN = lazy(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")
MAX_PROSE_TRIES = 3


def _tokens(answer: Any) -> list[str]:
    """Words of a prose answer that may be identifiers (they contain a digit)."""
    verdict = classify(answer)
    if verdict.kind not in (Kind.PROSE, Kind.TEXT) or verdict.refused:
        return []
    words = (w.rstrip(".:-") for w in _TOKEN.findall(verdict.message[:2000]))
    return [w for w in dict.fromkeys(words) if any(c.isdigit() for c in w)][:MAX_PROSE_TRIES]


async def _read_by_prose(
    live: Live, op: Operation, answer: Any, readers: list[Operation], index: int, name: str
) -> tuple[Operation, dict[str, str], Any] | None:
    """A create that answered prose: try its identifier-like words with each one-parameter READ."""
    tokens = _tokens(answer)
    ordered = sorted(
        (r for r in readers if len(r.required_names) == 1), key=lambda r: (-shared_suffix(op.name, r.name), r.index)
    )
    step = 1
    for reader in ordered[:MAX_PROSE_TRIES]:
        for position, token in enumerate(tokens):
            param = reader.required_names[0]
            read = await _call(live, reader, {param: token}, (PHASE_CYCLES, index, step), name, "read")
            step += 1
            if classify(read).succeeded:
                return reader, {param: f"{PROSE}{position}"}, read
    return None


def _resolve(answer: Any, path: str) -> Any:
    if path.startswith(PROSE):
        tokens = _tokens(answer)
        position = int(path.removeprefix(PROSE))
        return tokens[position] if position < len(tokens) else None
    return resolve_path(answer, path)


def _expected(
    live: Live, op: Operation, params: JsonObject, read_by: JsonObject, read: Any, exclude: set[str]
) -> JsonObject | None:
    """The submitted fields a read must give back, at the place the read answer keeps the record;
    None when a structured read answer holds no record with any of the values sent or read by
    (the read shows something else, e.g. another page of a list: nothing to judge)."""
    sensitive = {name for (operation, name) in live.redactor.sensitive if operation == op.name}
    sensitive |= {p["name"] for p in op.parameters or [] if write_only(p)}  # documented as never given back
    sent = {name: value for name, value in params.items() if name not in sensitive and name not in read_by}
    prefix = "data."
    if classify(read).kind is Kind.SUCCESS:
        found = _record(read, {**sent, **read_by})
        if found is None:
            return None
        prefix = found
    return {f"{prefix}{name}": value for name, value in sent.items() if name not in exclude}


MAX_NODES = 10_000  # objects looked at for the record in a read answer


def _record(read: Any, wanted: JsonObject) -> str | None:
    """The dotted path prefix (``data.``, ``data.items.1.``) of the object in an answer that holds
    the most of the ``wanted`` fields with the wanted values, if any holds one."""
    best: tuple[int, str] | None = None
    queue: list[tuple[Any, str, int]] = [(read, "", 0)]
    for node, path, depth in queue:
        if len(queue) > MAX_NODES:
            break
        if isinstance(node, dict):
            score = sum(1 for key, value in wanted.items() if key in node and json_equal(node[key], value))
            if score and (best is None or score > best[0]):
                best = (score, path)
            children: list[tuple[str, Any]] = list(node.items())[:MAX_NODES]
        elif isinstance(node, list):
            children = [(str(index), item) for index, item in enumerate(node[:MAX_NODES])]
        else:
            continue
        if depth < MAX_DEPTH + 2:
            queue += [(child, f"{path}{key}.", depth + 1) for key, child in children if isinstance(child, dict | list)]
    return best[1] if best is not None else None


async def _call(live: Live, op: Operation, params: JsonObject, key: tuple[int, ...], name: str, step: str) -> Any:
    return await live.send(key, op.tool, {"operation": op.name, "params": params}, op.name, name, f"{name}: {step}")


async def _infer_update_read(live: Live, op: Operation, created: list[Created], index: int) -> Outcome:
    if not live.allows(op.need):
        return Outcome(note=live.withheld(op.name, "update_read", op.need, 3, "inferred update-read cycle not run"))
    if op.parameters is None and not op.discovered:
        return _skip(op, "update_read", "introspection gave no parameter list", NOT_APPLICABLE, 3)
    names = {p["name"] for p in op.parameters} if op.parameters is not None else set(op.discovered)
    identifiers = [name for name in op.required_names if name != "input"]
    if not any(identifier_like(name) for name in identifiers):
        return _skip(op, "update_read", "it takes no parameter that names a record", NOT_APPLICABLE, 3)
    source = next((c for c in created if all(p in c.ids for p in identifiers)), None)
    if source is None:
        return _skip(op, "update_read", "no inferred create answers the identifiers it takes", NOT_APPLICABLE, 3)
    name = f"inferred-{op.name}-read"
    source = replace(source, params=fresh_keys(live, source.op, source.params))  # a new record: a new key
    create = await _call(live, source.op, source.params, (PHASE_CYCLES, index, 0), name, "create")
    if not classify(create).succeeded:
        return _skip(op, "update_read", f"the create was refused ({classify(create).describe()})", FAILED, 2)
    ids = {p: _resolve(create, source.ids[p]) for p in identifiers}
    sensitive = live.redactor.sensitive
    fields = [
        k
        for k in source.params
        if k not in source.ids and (source.op.name, k) not in sensitive and not is_safety_value(source.op, k)
    ]
    fields.sort(key=identifier_like)  # a reference to another record (shelf_id) is changed last, if at all
    takes = object_properties(op.parameter("input")) if "input" in names else {}
    if takes:  # the fields the update's `input` documents (core §4.5): only those may be sent in it
        fields = [k for k in fields if k in takes]
    changed_field, changed_to, attempts, step = None, None, [], 1
    for field_name in fields[:MAX_UPDATE_TRIES]:
        new = changed_value(source.params[field_name], field_name, source.op.parameter(field_name))
        update = {**ids, "input": {field_name: new}} if "input" in names else {**ids, field_name: new}
        answer = await _call(live, op, update, (PHASE_CYCLES, index, step), name, f"update {field_name}")
        step += 1
        attempts.append(f"{field_name}: {classify(answer).describe()}")
        if classify(answer).succeeded:
            changed_field, changed_to = field_name, new
            break
    if changed_field is None:
        reason = "every update tried was refused (" + "; ".join(attempts) + "); a plan entry can give its input"
        return _skip(op, "update_read", reason, FAILED, 0)
    read_params = {p: _resolve(create, path) for p, path in source.ids.items()}
    read = await _call(live, source.reader, read_params, (PHASE_CYCLES, index, step), name, "read")
    kept = _expected(live, source.op, source.params, read_params, read, exclude={changed_field})
    if kept is None:
        reason = f"the answer of {source.reader.name} holds no record with the values sent; a plan entry can name it"
        return _skip(op, "update_read", reason, NOT_APPLICABLE, 0)
    if not kept:
        return _skip(op, "update_read", "the update touched the only field to compare", NOT_APPLICABLE, 0)
    test = {"name": name, "operation": op.name, "preserved_fields": live.redactor.value(kept), "read_response": read}
    if "if_match" in names:  # core §9.3.2: an update whose precondition names no version of the record
        change = {changed_field: changed_to}
        stale = {**ids, **({"input": change} if "input" in names else change), "if_match": STALE_VERSION}
        test["stale_if_match"] = await _call(live, op, stale, (PHASE_CYCLES, index, step + 1), name, "stale if_match")

    async def send(which: str, params: JsonObject, said: str) -> Any:
        nonlocal step
        step += 2
        return await _call(live, op if which == "update" else source.reader, params, (PHASE_CYCLES, index, step),
                           name, said)  # fmt: skip

    shape = {**ids, "input": {}} if "input" in names else dict(ids)
    replaced = await array_replaced(send, shape, read_params, kept, takes)
    if replaced is not None:
        test["array_replaced"] = live.redactor.value(replaced)
    documented = [live.evidence.details, live.evidence.type_details]
    writes = (op.parameter("input"), source.params)
    constraint = await read_only_attempt(send, shape, read, kept, writes, documented, op.name)
    if any(path.startswith(PROSE) for path in source.ids.values()):
        return Outcome(test=test, constraint=constraint)
    refs = {p: "${create." + path + "}" for p, path in source.ids.items()}
    change = {changed_field: changed_to}
    update_params = {**{p: refs[p] for p in identifiers}, **({"input": change} if "input" in names else change)}
    plan = {
        "name": name,
        "create": {"operation": source.op.name, "params": live.redactor.params(source.op.name, source.params)},
        "update": {"operation": op.name, "params": update_params},
        "read": {"operation": source.reader.name, "params": refs},
    }
    return Outcome(test=test, plan=plan, constraint=constraint)
