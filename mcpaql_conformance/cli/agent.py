"""The `agent` command, and the agent phase of `check --agent`: endpoints prepared and checked
before any server starts."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import click

from mcpaql_conformance.cli.options import (
    PASS_ENV_OPTION,
    agent_options,
)
from mcpaql_conformance.cli.output import (
    refuse_overwriting,
)
from mcpaql_conformance.cli.target import keep_secrets, server_target


def _endpoint(
    spec: str | None,
    base_url: str | None,
    key_env: str | None,
    timeout: float,
    option: str,
    insecure: bool = False,
    own_keys: dict[str, str] | None = None,
) -> Any:
    """The endpoint, prepared before any server starts: its key variable kept from the server, the
    key registered as a secret, and a key refused where it must not go (see Endpoint). A model
    given with its own URL (``PROVIDER:MODEL@URL``) goes there instead of ``base_url``, with the
    key variable ``own_keys`` names for it (``--model-key-env``), never ``key_env`` (which is the
    key of ``base_url``)."""
    from mcpaql_conformance.agent.endpoints import Endpoint, model_option

    if spec is None:
        if base_url is not None or key_env is not None:
            raise click.UsageError(f"{option}-base-url and {option}-api-key-env need {option} PROVIDER:MODEL")
        return None
    if not timeout > 0 or timeout == float("inf"):
        raise click.UsageError(f"--model-timeout must be a positive number of seconds, not {timeout:g}")
    parsed, own = model_option(spec, option)
    if own is not None and own_keys is not None:  # a model's own URL: its own key, never --base-url's
        key_env = own_keys.get(spec)
    endpoint = Endpoint(parsed, own or base_url, key_env, timeout, insecure, own_url=own is not None)
    endpoint.prepare()
    return endpoint


def _models(settings: dict[str, Any]) -> tuple[list[Any], tuple[str, ...]]:
    """Every ``--model`` (else the tasks file's ``models``), prepared, and the target models'
    names (``--target-model``, else the tasks file's ``targetModels``; none: every model)."""
    from mcpaql_conformance.agent.tasks import tasks_models

    texts, targets = tuple(settings["models"]), tuple(settings["target_models"])
    if not texts and settings["tasks"] is not None:
        texts, listed = tasks_models(settings["tasks"])
        targets = targets or listed
    if not texts and (settings["base_url"] is not None or settings["api_key_env"] is not None):
        raise click.UsageError("--base-url and --api-key-env need --model PROVIDER:MODEL")
    own_keys = _own_keys(settings["model_key_env"], texts)
    models = [
        _endpoint(text, settings["base_url"], settings["api_key_env"], settings["model_timeout"], "--model",
                  settings["allow_insecure_base_url"], own_keys)
        for text in texts
    ]  # fmt: skip
    names = [model.name for model in models]
    twice = next((name for index, name in enumerate(names) if name in names[:index]), None)
    if twice is not None:
        raise click.UsageError(f"--model {twice} is given twice: give each model once (another endpoint: MODEL@URL)")
    if targets and not models:
        raise click.UsageError("--target-model names one of the --model options: give --model too")
    unknown = next((target for target in targets if target not in names), None)
    if unknown is not None:
        raise click.UsageError(f"--target-model {unknown} is none of the models: {', '.join(names)}")
    return models, targets


def _own_keys(pairs: tuple[str, ...], texts: tuple[str, ...]) -> dict[str, str]:
    """``--model-key-env MODEL@URL=VAR``: the key variable of each model given with its own URL."""
    keys: dict[str, str] = {}
    for pair in pairs:
        model, equals, variable = pair.rpartition("=")
        if not equals or not model or not variable:
            raise click.UsageError(f"--model-key-env {pair!r}: expected MODEL@URL=VARIABLE, as --model gives the model")
        if model not in texts or "@" not in model:
            raise click.UsageError(f"--model-key-env {model}: name a model given with its own URL: {', '.join(texts)}")
        keys[model] = variable
    return keys


def prepare_agent(bundle: Path, target: Any, permission: Any, timeout: float, settings: dict[str, Any]) -> Any:
    from mcpaql_conformance.agent.preflight import judge_endpoint
    from mcpaql_conformance.agent.presets import builtin_of, max_turns_of, resolved
    from mcpaql_conformance.agent.run import AgentOptions

    insecure = settings["allow_insecure_base_url"]
    models, targets = _models(settings)
    first = models[0] if models else None
    if settings["judge"] is None and (settings["judge_base_url"] or settings["judge_api_key_env"]):
        raise click.UsageError("--judge-base-url and --judge-api-key-env need --judge PROVIDER:MODEL")
    # a judge of the first model's provider goes to --base-url when that model does, unless told otherwise
    shared = first is not None and not first.own_url  # the first model is at --base-url (or its provider's API)
    judge_url, judge_key = judge_endpoint(
        str(first.spec) if first else None, settings["base_url"] if shared else None, settings["api_key_env"],
        settings["judge"], settings["judge_base_url"], settings["judge_api_key_env"],
    )  # fmt: skip
    judge = _endpoint(settings["judge"], judge_url, judge_key, settings["model_timeout"], "--judge", insecure)
    runs, min_pass_rate = resolved(settings["preset"], settings["runs"], settings["min_pass_rate"])
    return AgentOptions(
        target=target,
        bundle=bundle,
        models=tuple(models),
        targets=targets,
        judge=judge,
        tasks=settings["tasks"],
        scenarios=tuple(settings["scenarios"]),
        builtin=not settings["no_builtin"],
        runs=runs,
        min_pass_rate=min_pass_rate,
        max_turns=max_turns_of(settings["preset"], settings["max_turns"]),
        builtin_kinds=builtin_of(settings["preset"]),
        transcripts=settings["transcripts"],
        permission=permission,
        timeout=timeout,
        max_tokens_total=settings["max_tokens_total"],
        max_tokens_per_model=settings["max_tokens_per_model"],
        prices=_prices(settings["prices"], models),
    )


def _prices(path: Path | None, models: list[Any]) -> dict[str, dict[str, Any]]:
    """Each model's price from ``--prices`` (none without it)."""
    from mcpaql_conformance.agent.tasks import load_prices

    if path is None:
        return {}
    if not models:
        raise click.UsageError("--prices gives what a model's tokens cost: give --model too")
    return load_prices(path, [(model.name, str(model.spec)) for model in models])


def run_agent(options: Any, *, kept_bundle: bool = True) -> Any:
    from mcpaql_conformance import lifetime
    from mcpaql_conformance.agent.run import run_agent
    from mcpaql_conformance.sanitize import plain

    lifetime.heavy_process()
    result = run_agent(options, lambda line: click.echo(f"agent: {line}", err=True))
    for line in result.said:
        click.echo(f"agent: {line}", err=True)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    for reason in result.skipped:
        click.echo(f"agent: built-in task not applicable: {plain(reason)}", err=True)
    kept = f"; transcripts: {click.format_filename(result.transcripts)}" if result.transcripts else ""
    where = f" in {click.format_filename(options.bundle)}" if kept_bundle else ""
    click.echo(f"agent: {result.runs} run(s) recorded{where}{kept}", err=True)
    if result.incomplete is not None:  # the token budget: the evidence is kept, and said to be incomplete
        click.echo(f"agent: {result.incomplete}", err=True)
    return result


@click.command(context_settings={"ignore_unknown_options": True})
@click.option(
    "--bundle",
    "bundle_path",
    type=click.Path(path_type=Path),
    default=Path("agent-bundle.json"),
    show_default=True,
    help="The bundle to add the agent evidence to (created if missing; atomically).",
)
@agent_options
@click.option(
    "--concurrency",
    type=click.IntRange(1, 64),
    default=4,
    show_default=True,
    help="Runs of each model at once over the one MCP session, every model side by side (hosted APIs take"
    " several; a local model server that answers one request at a time, such as llama.cpp's without parallel"
    " slots: 1).",
)
@click.option(
    "--resume",
    is_flag=True,
    help="Continue the incomplete agent runs in --bundle (interrupted, or stopped by --max-tokens-total): the"
    " finished runs are kept, the rest run. Give the same options.",
)
@click.option("--timeout", type=float, default=20.0, show_default=True, help="Seconds each tool call may take.")
@click.option(
    "--allow-writes",
    is_flag=True,
    help="Let the model call additive operations (CREATE) too; without it, and without --allow-destructive,"
    " only read-only operations reach the server.",
)
@click.option(
    "--allow-destructive",
    is_flag=True,
    help="Let the model call UPDATE, DELETE and EXECUTE operations too (implies --allow-writes; use a"
    " disposable instance).",
)
@click.option("--url", help="Streamable-HTTP endpoint of a running server (instead of a command).")
@PASS_ENV_OPTION
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def agent(
    bundle_path: Path,
    concurrency: int,
    resume: bool,
    timeout: float,
    allow_writes: bool,
    allow_destructive: bool,
    url: str | None,
    command: tuple[str, ...],
    **settings: Any,
) -> int:
    """Let an LLM drive a live MCP-AQL server through its MCP tools, or play pinned scenarios,
    and record the runs as Semantic Evaluation evidence (agent_tests and agent_runs in
    --bundle, one JSONL transcript per run). The verdict is `test --level 2`'s.

    
      mcpaql-conformance agent --scenario scenarios/demo-notes.yaml -- python -m mcpaql_conformance.demo_adapter
      mcpaql-conformance agent --model openai:gpt-4o-mini -- python my_server.py
      mcpaql-conformance agent --model openai:local --base-url http://127.0.0.1:8080/v1 --url URL

    Before the server starts, the model and the judge are each checked with a 1-token request
    (one line says which URL each uses); one that cannot be used stops the agent in seconds.
    The bundle is rewritten after every finished run and marked incomplete until the last: a
    signal (exit 128 + N), the time limit or a model that stops answering (exit 3) leaves every
    finished run in it, and --resume runs only the missing ones. --max-tokens-total stops the
    runs the same way, exit 0 (the evidence is written; `test` says it is incomplete).
    Exit 0 once the evidence is written; 3 when the model or the server cannot be used.
    """
    target = server_target(command, url, timeout)
    keep_secrets(url, settings.pop("pass_env"))
    scenarios = [("--scenario", path) for path in settings["scenarios"]]
    refuse_overwriting([("--bundle", bundle_path)], [("--tasks", settings["tasks"]), *scenarios])
    from mcpaql_conformance.live.levels import permission_of

    permission = permission_of(allow_writes, allow_destructive)
    options = prepare_agent(bundle_path, target, permission, timeout, settings)
    result = run_agent(dataclasses.replace(options, concurrency=concurrency, resume=resume))
    for line in discoverability(result.bundle, str(bundle_path), options.judge is not None):
        click.echo(line)
    click.echo(f"next: mcpaql-conformance test {click.format_filename(bundle_path)} --level 2", err=True)
    return 0


def discoverability(bundle: dict[str, Any], source: str, judged: bool) -> list[str]:
    """What the runs show of which models can use the server: the table at a glance and a line
    per model (and per model that could not be used), as `test` judges the bundle."""
    from mcpaql_conformance.evidence.bundle import bundle_from_data
    from mcpaql_conformance.report.common import glance_table
    from mcpaql_conformance.report.escape import terminal
    from mcpaql_conformance.verdict.runner import evaluate

    report = evaluate(bundle_from_data(bundle, source), 2, "both" if judged else "1", "semantic")
    if not report.agent_metrics and not report.agent_models:
        return []
    lines = [f"Which models can use the server (every column: mcpaql-conformance test {source} --level 2 -f html):"]
    lines += [f"  {line}" for line in glance_table(report.agent_metrics)] if report.agent_metrics else []
    return lines + [f"  {terminal(line)}" for line in report.agent_models]


def preflight(agent: Any) -> Any:
    """`check --agent`: the endpoints checked before the capture, not again before the runs."""
    from mcpaql_conformance.agent.run import usable_models

    return usable_models(agent, lambda line: click.echo(f"agent: {line}", err=True))


def agent_after_capture(agent: Any, bundle_path: Path | None, records: Path | None) -> Any:
    """`check --agent`'s agent phase: stopped by a signal, it says what the capture wrote."""
    from mcpaql_conformance.agent.run import AgentStopped
    from mcpaql_conformance.sanitize import plain

    try:
        return run_agent(agent, kept_bundle=bundle_path is not None).bundle
    except AgentStopped as exc:
        kept = f"its records and the server's stderr are in {plain(str(records))}; " if records is not None else ""
        if bundle_path is not None and exc.kept_runs is not None:
            wrote = f"the capture's bundle was written to {plain(str(bundle_path))}; {exc.kept_runs}"
        elif bundle_path is not None:
            wrote = f"the capture's bundle was written to {plain(str(bundle_path))}, without the agent evidence"
        else:
            wrote = "the capture's bundle was not kept (give --bundle FILE to keep it)"
        raise exc.saying(f"{wrote}; {kept}no report was made") from None
