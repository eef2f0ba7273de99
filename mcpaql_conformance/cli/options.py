"""The options several commands share, declared once: how to judge (`test`, `check`), what to connect
to and how to probe (`capture`, `check`), the model and judge (`agent`, `check --agent`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from mcpaql_conformance.agent.presets import PRESETS, preset_help
from mcpaql_conformance.report import FORMATS

FORMAT_CHOICE = click.Choice(list(FORMATS), case_sensitive=False)
BADGE_CHOICE = click.Choice(["svg", "json", "markdown"], case_sensitive=False)
TIER_CHOICE = click.Choice(["1", "2", "both"], case_sensitive=False)
LEVEL_CHOICE = click.Choice(["1", "2"])


MAX_FINDINGS_OPTION = click.option(
    "--max-findings",
    type=click.IntRange(min=0),
    default=10,
    show_default=True,
    help="Text report: findings shown under each test (0: all); the rest are counted.",
)


def judging_options(function: Any) -> Any:
    """The options `test` and `check` share: how to judge, and where the report goes."""
    options = [
        click.option(
            "--level", "-l", type=LEVEL_CHOICE, default="1", show_default=True, help="Conformance level to test."
        ),
        click.option(
            "--tier",
            type=TIER_CHOICE,
            default="both",
            show_default=True,
            help="Semantic evaluation tier: 1 structural only, 2 semantic only, both = the spec's two-tier matrix.",
        ),
        click.option(
            "--format", "-f", "fmt", type=FORMAT_CHOICE, default="text", show_default=True, help="Report format."
        ),
        click.option("--output", "-o", type=click.Path(path_type=Path), help="Write the report to FILE (atomically)."),
        click.option(
            "--category",
            "-c",
            metavar="NAME",
            help="Run one category only (its name, or a unique start of it, in any case).",
        ),
        click.option(
            "--baseline",
            type=click.Path(path_type=Path),
            help="Expected failures (JSON or YAML): listed failures do not fail the run; stale entries do.",
        ),
        click.option(
            "--write-baseline",
            type=click.Path(path_type=Path),
            metavar="FILE",
            help="Also write a baseline of every test that fails in this run, each with its first finding as the"
            " reason (atomically): give it to --baseline to fail only on new failures.",
        ),
        MAX_FINDINGS_OPTION,
    ]
    for option in reversed(options):
        function = option(function)
    return function


PASS_ENV_OPTION = click.option(
    "--pass-env",
    "pass_env",
    multiple=True,
    metavar="NAME",
    help="Hand the model key variable NAME to the server all the same (they are kept from it; repeatable).",
)


def capture_options(function: Any) -> Any:
    """The options `capture` and `check` share (what to connect to, how to probe)."""
    options = [
        click.option(
            "--plan", type=click.Path(path_type=Path), help="Capture plan (JSON or YAML): values, examples, cycles."
        ),
        click.option(
            "--capture-dir",
            type=click.Path(path_type=Path),
            default=Path("capture"),
            show_default=True,
            help="Folder for one record per exchange, metrics.json and the server's stderr.",
        ),
        click.option("--timeout", type=float, default=20.0, show_default=True, help="Seconds each call may take."),
        click.option(
            "--overall-timeout",
            type=float,
            metavar="SECONDS",
            help="Seconds the whole capture may take, plus the allowance per operation  [default: 30 x --timeout].",
        ),
        click.option(
            "--overall-timeout-per-operation",
            type=float,
            default=0.1,
            show_default=True,
            metavar="SECONDS",
            help="Added to --overall-timeout for every operation the server lists (the work grows with them).",
        ),
        click.option(
            "--concurrency",
            type=click.IntRange(min=1),
            default=4,
            show_default=True,
            help="Probes in flight at once over the one session (1: one at a time); with check --agent, also the"
            " agent runs at once (1 for a local model server that answers one request at a time).",
        ),
        click.option(
            "--allow-writes",
            is_flag=True,
            help="Also call additive operations (CREATE): they add data, so that create-read round trips can be"
            " judged. Without it, and without --allow-destructive, only read-only operations are called.",
        ),
        click.option(
            "--allow-destructive",
            is_flag=True,
            help="Also call UPDATE, DELETE and EXECUTE operations (implies --allow-writes): they change or remove"
            " data, so use a disposable instance only. A server with the execution safety loop is driven through"
            " it (an agent of its own is hard-blocked), then connected to again (a server started by command is"
            " started anew) to see what outlived the first session.",
        ),
        click.option(
            "--cleanup",
            is_flag=True,
            help="At the end, delete every record the run created, with a DELETE operation that takes its identifier"
            " (needs --allow-destructive); what could not be deleted stays listed under the report's changes.",
        ),
        click.option(
            "--configurations",
            is_flag=True,
            help="At the end, start the server (given by command) again seven times, only listing its tools each"
            " time: with the same environment (tool names stay the same), with none of MCP_AQL_ENDPOINT_MODE,"
            " MCP_AQL_ENDPOINT_PROFILE and MCP_AQL_TOOL_PREFIX (the CRUDE profile by default), with each"
            " MCP_AQL_ENDPOINT_MODE value (semantic, single, all, crude) and with MCP_AQL_TOOL_PREFIX=zzconf_."
            " Only these variables change: give the command as it starts the server unconfigured.",
        ),
        click.option(
            "--previous",
            metavar="BUNDLE",
            type=click.Path(path_type=Path, dir_okay=False),
            help="An earlier capture of this server (its previous version): the shared parameters and $ref paths"
            " each operation documented then are kept in the new bundle, and one an operation no longer documents,"
            " with no alias naming it, warns (operations §4.4.2: references are preserved, never renamed silently).",
        ),
        click.option(
            "--dry-run",
            is_flag=True,
            help="Start the server and read its introspection only, then print every call the run would send at"
            " this permission level and every call it would withhold, with why; nothing else is sent and no"
            " bundle or report is written (check -f json prints the list as JSON).",
        ),
        click.option("--write-plan", type=click.Path(path_type=Path), help="Also write an editable plan (JSON)."),
        click.option("--url", help="Streamable-HTTP endpoint of a running server (instead of a command)."),
        click.option(
            "--also-url",
            metavar="URL",
            help="A second configuration of the same server to capture too (its other endpoint mode, say), at this"
            " address; or give its command after the server's: -- SERVER... --also -- SECOND...",
        ),
        PASS_ENV_OPTION,
        click.argument("command", nargs=-1, type=click.UNPROCESSED),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def agent_options(function: Any) -> Any:
    """The options `agent` and `check --agent` share: the model, the judge, tasks and scenarios."""
    options = [
        click.option(
            "--model",
            "models",
            multiple=True,
            metavar="PROVIDER:MODEL[@URL]",
            help="The model: openai:NAME or anthropic:NAME, with its own endpoint after @ where it needs one"
            " (openai:gemma@http://127.0.0.1:8080/v1). Repeatable: every model runs the same tasks, side by side.",
        ),
        click.option(
            "--target-model",
            "target_models",
            multiple=True,
            metavar="MODEL",
            help="A model whose runs decide Semantic Evaluation (as --model names it; repeatable). Default: every"
            " model must pass; the others' results are reported, never folded into the verdict.",
        ),
        click.option(
            "--base-url",
            metavar="URL",
            help="OpenAI-compatible endpoint (Ollama, vLLM, llama.cpp...) for the models that name none.",
        ),
        click.option(
            "--model-key-env",
            "model_key_env",
            multiple=True,
            metavar="MODEL@URL=VAR",
            help="The variable holding the key of a model given with its own URL (repeatable); --api-key-env is"
            " the key of --base-url's models. A model at its own loopback URL needs none.",
        ),
        click.option("--api-key-env", metavar="VAR", help="Variable holding the model's key (default: by provider)."),
        click.option("--judge", metavar="PROVIDER:MODEL", help="Tier 2: a model that grades each run's transcript."),
        click.option(
            "--judge-base-url",
            metavar="URL",
            help="The judge's OpenAI-compatible endpoint (default: a judge of the model's provider uses --base-url"
            " and --api-key-env; one of the other provider, its own API).",
        ),
        click.option("--judge-api-key-env", metavar="VAR", help="Variable holding the judge's key."),
        click.option(
            "--allow-insecure-base-url",
            is_flag=True,
            help="Send a key over plain http to a base URL that is not loopback (refused otherwise).",
        ),
        click.option("--tasks", type=click.Path(path_type=Path), help="Your own tasks (JSON or YAML)."),
        click.option(
            "--prices",
            type=click.Path(path_type=Path),
            help="What each model's tokens cost (JSON or YAML; `schema prices`): the table then shows each model's"
            " cost. None is built in.",
        ),
        click.option(
            "--scenario",
            "scenarios",
            multiple=True,
            type=click.Path(path_type=Path),
            help="A pinned interaction to play instead of a model (JSON or YAML; repeatable).",
        ),
        click.option("--no-builtin", is_flag=True, help="Run only --tasks, not the built-in tasks."),
        click.option("--runs", type=click.IntRange(1, 100), help="Runs per task (default: 3, or the preset's)."),
        click.option(
            "--min-pass-rate",
            type=click.FloatRange(0, 1),
            help="Share of a task's runs that must pass (default: 0.8, or the preset's).",
        ),
        click.option(
            "--preset",
            type=click.Choice(sorted(PRESETS)),
            help=f"Named settings, which the options given override: {preset_help()}.",
        ),
        click.option("--max-turns", type=click.IntRange(1, 100), help="Turns per run (default: 8, or the preset's)."),
        click.option("--model-timeout", type=float, default=120.0, show_default=True, help="Seconds per model reply."),
        click.option(
            "--max-tokens-total",
            type=click.IntRange(min=1),
            metavar="N",
            help="Token budget (model and judge, input and output, as the APIs report them): once reached, no"
            " model request starts, the runs in flight stop at their next turn, and the bundle keeps every"
            " finished run, marked incomplete (exit 0; `agent --resume` runs the rest).",
        ),
        click.option(
            "--max-tokens-per-model",
            type=click.IntRange(min=1),
            metavar="N",
            help="Each model's own token budget (its runs' input and output): once reached, that model's runs"
            " stop as with --max-tokens-total, and the other models go on.",
        ),
        click.option(
            "--transcripts",
            type=click.Path(path_type=Path),
            default=Path("transcripts"),
            show_default=True,
            help="Folder for one JSONL transcript per run.",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


AGENT_SETTINGS = (
    "models", "target_models", "max_tokens_per_model", "model_key_env", "base_url", "api_key_env", "judge",
    "judge_base_url", "judge_api_key_env", "tasks", "scenarios", "no_builtin", "runs", "min_pass_rate", "max_turns",
    "model_timeout", "transcripts", "allow_insecure_base_url", "preset", "max_tokens_total", "prices",
)  # fmt: skip
