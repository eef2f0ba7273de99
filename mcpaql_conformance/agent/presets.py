"""Named settings for agent runs (``--preset NAME``), in one place: what each sets, and the
defaults when neither a preset nor an option says. An option given on the command line wins
over the preset; a task's own ``runs`` and ``minPassRate`` win over both."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_RUNS = 3
DEFAULT_MIN_PASS_RATE = 0.8
DEFAULT_MAX_TURNS = 8


@dataclass(frozen=True)
class Preset:
    description: str  # one line, for --help and the README
    runs: int | None = None
    min_pass_rate: float | None = None
    max_turns: int | None = None
    builtin: tuple[str, ...] | None = None  # the built-in task kinds to run (None: every one that applies)


PRESETS: dict[str, Preset] = {
    # The seeds' rule of thumb for one-shot workflows: repeat 3-5 times, at least 4 of 5 to pass.
    "one-shot": Preset("5 runs per task, at least 80% (4 of 5) to pass", runs=5, min_pass_rate=0.8),
    # A smoke test in CI on a small local model: the two built-in tasks that take the fewest
    # tokens (one call with a short answer each; discovery reads the whole operations list,
    # error recovery takes three turns), once each.
    "quick": Preset(
        "1 run per task, only the built-in field-selection and operation-selection tasks, at most 4 turns",
        runs=1,
        max_turns=4,
        builtin=("field-selection", "operation-selection"),
    ),
}


def preset_help() -> str:
    """The presets as --help shows them."""
    return "; ".join(f"{name}: {preset.description}" for name, preset in PRESETS.items())


def max_turns_of(name: str | None, max_turns: int | None) -> int:
    """``--max-turns`` when given, else the preset's, else DEFAULT_MAX_TURNS."""
    preset = PRESETS[name] if name is not None else Preset("")
    return max_turns if max_turns is not None else preset.max_turns or DEFAULT_MAX_TURNS


def builtin_of(name: str | None) -> tuple[str, ...] | None:
    """The built-in task kinds the preset runs (None: every one that applies)."""
    return PRESETS[name].builtin if name is not None else None


def resolved(name: str | None, runs: int | None, min_pass_rate: float | None) -> tuple[int, float]:
    """``(runs, min_pass_rate)``: the options given, else the preset's, else the defaults."""
    preset = PRESETS[name] if name is not None else Preset("")
    return (
        runs if runs is not None else preset.runs if preset.runs is not None else DEFAULT_RUNS,
        min_pass_rate
        if min_pass_rate is not None
        else preset.min_pass_rate
        if preset.min_pass_rate is not None
        else DEFAULT_MIN_PASS_RATE,
    )
