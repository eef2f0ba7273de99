"""Agent tasks: built-in ones generated from the server's introspection (one per spec §5.3
row where it applies), and the user's, from a tasks file (JSON or YAML)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.evidence.reading import identifier_words
from mcpaql_conformance.files.configio import load_checked
from mcpaql_conformance.files.kinds import TASKS
from mcpaql_conformance.files.vocabulary import AgentTestKind
from mcpaql_conformance.sanitize import plain

# The built-in kinds, in the order of the spec's table of semantic tests.
DISCOVERY: AgentTestKind = "discovery"
FIELD_SELECTION: AgentTestKind = "field-selection"
ERROR_RECOVERY: AgentTestKind = "error-recovery"
OPERATION_SELECTION: AgentTestKind = "operation-selection"
USER: AgentTestKind = "user"
SHOWN_OPERATIONS = 3  # operation names the discovery answer must contain


@dataclass(frozen=True)
class Task:
    name: str
    input: str
    expected_tools: tuple[str, ...] = ()
    expected_content: tuple[str, ...] = ()
    expected_params: dict[str, tuple[str, ...]] = field(default_factory=dict)
    intent: str | None = None
    runs: int | None = None
    min_pass_rate: float | None = None
    kind: AgentTestKind = USER
    must_succeed: tuple[str, ...] = ()  # operations one of whose calls the server must answer with success
    induce_error_on: str | None = None  # the operation whose first call is answered with an induced error


@dataclass(frozen=True)
class OperationView:
    """What tasks need of an operation: its name, category and parameters."""

    name: str
    category: str | None
    parameters: list[dict[str, Any]] | None
    allowed: bool  # the run's permission level lets it be called

    @property
    def required(self) -> list[str]:
        return [p["name"] for p in self.parameters or [] if p.get("required") is True]

    def documents(self, parameter: str) -> bool:
        return any(p.get("name") == parameter for p in self.parameters or [])


def builtin_tasks(operations: list[OperationView]) -> tuple[list[Task], list[str]]:
    """The built-in tasks that apply to this server, and why the others do not."""
    tasks = [_discovery(operations)]
    skipped: list[str] = []
    reads = [op for op in operations if op.category == "READ" and op.allowed]
    # An operation the model can call without knowing an id first is the fairest test.
    with_fields = sorted((op for op in reads if op.documents("fields")), key=lambda op: len(op.required))
    if with_fields:
        tasks.append(_field_selection(with_fields[0]))
    else:
        skipped.append(f"{FIELD_SELECTION}: no READ operation documents a `fields` parameter")
    open_reads = [op for op in reads if op.parameters is not None and not op.required]
    if open_reads:
        tasks.append(_error_recovery(open_reads[0]))
    else:
        skipped.append(f"{ERROR_RECOVERY}: every READ operation needs a parameter the runner cannot supply")
    creates = [op for op in operations if op.category == "CREATE"]
    if any(op.allowed for op in creates):
        tasks.append(_operation_selection(next(op for op in creates if op.allowed)))
    elif creates:
        skipped.append(f"{OPERATION_SELECTION}: no CREATE operation may be called in this run (pass --allow-writes)")
    else:
        skipped.append(f"{OPERATION_SELECTION}: no CREATE operation that may be called")
    return tasks, skipped


def _discovery(operations: list[OperationView]) -> Task:
    shown = [op.name for op in operations if op.name != "introspect"][:SHOWN_OPERATIONS]
    return Task(
        name="Discover the operations",
        input="Which operations does this server offer? Use its tools to find out, then list the operations by name.",
        expected_tools=("introspect",),
        expected_content=tuple(shown),
        intent="The answer lists the operations the server's introspection reports, by their names.",
        kind=DISCOVERY,
    )


def _field_selection(op: OperationView) -> Task:
    return Task(
        name=f"Select fields with {op.name}",
        input=(
            f"Use the {op.name} operation, but ask the server for as few fields as possible: request only one field"
            " of each result. Then tell me which field you asked for."
        ),
        expected_tools=(op.name,),
        expected_params={op.name: ("fields",)},
        intent=f"The model calls {op.name} with a `fields` parameter that selects a subset of the fields.",
        kind=FIELD_SELECTION,
    )


def _error_recovery(op: OperationView) -> Task:
    return Task(
        name=f"Recover from an error answer of {op.name}",
        input=f"Use the {op.name} operation and tell me briefly what it returned.",
        expected_tools=(op.name,),
        must_succeed=(op.name,),
        intent=f"After an error answer, the model corrects its call of {op.name} and gets a successful answer.",
        kind=ERROR_RECOVERY,
        induce_error_on=op.name,
    )


def _operation_selection(op: OperationView) -> Task:
    noun = thing_created(op.name)
    return Task(
        name=f"Create a {noun}",
        input=f"Create a new {noun} for me. Choose sensible values for everything it needs.",
        expected_tools=(op.name,),
        must_succeed=(op.name,),
        intent=f"The model picks the operation that creates a {noun} ({op.name}) and calls it with valid parameters.",
        kind=OPERATION_SELECTION,
    )


def thing_created(operation: str) -> str:
    """``create_note`` -> "note", ``add_bookmark`` -> "bookmark", ``new_task_list`` -> "task list"."""
    words = [word.lower() for word in identifier_words(operation)]
    while words and words[0] in {"create", "add", "new", "make", "insert", "post", "put"}:
        words = words[1:]
    return " ".join(words) or "record"


def load_tasks(path: Path) -> list[Task]:
    """A tasks file, checked strictly against ``schemas/tasks.schema.json``."""
    data = load_checked(path, "tasks", TASKS, "tasks")
    tasks = [_user_task(entry) for entry in data["tasks"]]
    seen: set[str] = set()
    for index, task in enumerate(tasks):
        if task.name in seen:
            raise ConfigError(f"{plain(str(path))}: $.tasks[{index}]._description: {task.name!r} is used twice")
        seen.add(task.name)
    return tasks


def tasks_models(path: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The models a tasks file names (``models``, as ``--model`` takes them) and its target
    models (``targetModels``), for an invocation that gives no ``--model``."""
    data = load_checked(path, "tasks", TASKS, "tasks")
    return tuple(data.get("models") or ()), tuple(data.get("targetModels") or ())


def load_prices(path: Path, models: list[tuple[str, str]]) -> dict[str, dict[str, Any]]:
    """A prices file (``schemas/prices.schema.json``), as the bundle records each model's price
    (``{input_per_million, output_per_million, currency}``), for the models given as (name,
    ``PROVIDER:MODEL``): a price under the model's name, else under its name without its
    endpoint."""
    from mcpaql_conformance.files.kinds import PRICES

    data = load_checked(path, "prices", PRICES, "prices")
    currency, listed = str(data.get("currency") or "USD"), data["models"]
    found = {}
    for name, spec in models:
        price = listed.get(name) or listed.get(spec)
        if price is not None:
            found[name] = {
                "input_per_million": price["input"],
                "output_per_million": price["output"],
                "currency": currency,
            }
    return found


def _user_task(entry: dict[str, Any]) -> Task:
    return Task(
        name=entry["_description"],
        input=entry["input"],
        expected_tools=tuple(entry.get("expectedTools") or ()),
        expected_content=tuple(entry.get("expectedContent") or ()),
        expected_params={op: tuple(names) for op, names in (entry.get("expectedParams") or {}).items()},
        intent=entry.get("intent"),
        runs=entry.get("runs"),
        min_pass_rate=entry.get("minPassRate"),
    )
