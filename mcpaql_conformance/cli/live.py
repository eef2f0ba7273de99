"""The commands that probe a live server: `capture` (write an evidence bundle) and `check` (capture
and judge in one run, optionally with the agent phase)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import click

from mcpaql_conformance.capture.also import split_command
from mcpaql_conformance.cli.agent import agent_after_capture, preflight, prepare_agent
from mcpaql_conformance.cli.judge import judge_bundle, judging_settings
from mcpaql_conformance.cli.options import (
    AGENT_SETTINGS,
    agent_options,
    capture_options,
    judging_options,
)
from mcpaql_conformance.cli.output import (
    refuse_overwriting,
)
from mcpaql_conformance.cli.target import check_command, keep_secrets
from mcpaql_conformance.files.jsonio import dumps
from mcpaql_conformance.sanitize import plain

MAX_SHOWN = 2000  # calls listed by a dry run's text (the JSON lists all)


def dry_run_text(planned: dict[str, Any], source: str) -> str:
    """What ``--dry-run`` prints: the calls the run would send and withhold, one a line."""
    from mcpaql_conformance.live.levels import Permission

    sends, withholds = planned["would_send"], planned["would_withhold"]
    run = {level.label: level.run for level in Permission}[planned["permission"]]
    lines = [
        f"Dry run of {source}, as {run}: nothing was sent but introspect ({planned['introspect_calls']} call(s)).",
        f"Would send {len(sends)} call(s):",
    ]
    for call in sends[:MAX_SHOWN]:
        params = f" {dumps(call['params'], indent=False).strip()}" if "params" in call else ""
        tool = f" via {call['tool']}" if call["tool"] else ""
        lines.append(plain(f"  {call['operation']}{tool}: {call['description']}{params}", max_len=600))
    if len(sends) > MAX_SHOWN:
        lines.append(f"  ... and {len(sends) - MAX_SHOWN} more (check --dry-run -f json lists them all)")
    withheld = sum(sum(entry["probes"].values()) for entry in withholds)
    operations = len({entry["operation"] for entry in withholds})
    lines.append(f"Would withhold {withheld} call(s) of {operations} operation(s):")
    for entry in withholds[:MAX_SHOWN]:
        probes = ", ".join(f"{kind} {count}" for kind, count in entry["probes"].items())
        lines.append(plain(f"  {entry['operation']} ({probes}): {entry['reason']}", max_len=600))
    restarts = planned.get("would_restart") or []
    if restarts:
        lines.append(f"Would start the server again {len(restarts)} time(s) (--configurations), listing its tools:")
    for start in restarts:
        changes = ", ".join(f"{name}={value}" if value is not None else f"no {name}"
                            for name, value in start["environment"].items()) or "the same environment"  # fmt: skip
        lines.append(f"  {start['configuration']}: {changes}")
    for note in planned.get("notes") or []:
        lines.append(plain(f"Also: {note['reason']}", max_len=600))
    return "\n".join(lines) + "\n"


# The agent options that say something only with --agent (by setting), as the command line names them.
AGENT_ONLY = {
    "models": "--model", "target_models": "--target-model", "judge": "--judge", "tasks": "--tasks",
    "scenarios": "--scenario", "prices": "--prices", "max_tokens_per_model": "--max-tokens-per-model",
    "model_key_env": "--model-key-env",
}  # fmt: skip


def prepare_capture(bundle: Path, command: tuple[str, ...], url: str | None, settings: dict[str, Any]) -> Any:
    from mcpaql_conformance.capture.run import CaptureOptions
    from mcpaql_conformance.evidence.previous import previous_version
    from mcpaql_conformance.live.connection import Target
    from mcpaql_conformance.live.levels import permission_of

    check_command(command, url)
    keep_secrets(url, settings["pass_env"])
    if settings["configurations"] and url:
        raise click.UsageError(
            "--configurations starts the server again under other environment variables: give its command"
            " after --, not --url"
        )
    return CaptureOptions(
        Target(command=command, url=url),
        bundle,
        settings["plan"],
        settings["capture_dir"],
        settings["timeout"],
        permission_of(settings["allow_writes"], settings["allow_destructive"]),
        settings["concurrency"],
        settings["write_plan"],
        settings["overall_timeout"],
        settings["overall_timeout_per_operation"],
        settings["dry_run"],
        settings["cleanup"],
        settings["configurations"],
        previous_version(settings["previous"]) if settings["previous"] is not None else None,
    )


def prepare_also(options: Any, second: tuple[str, ...], also_url: str | None, scratch: Path) -> Any:
    """The capture of a second configuration of the server (``--also -- COMMAND...`` or
    ``--also-url URL``), with the first's options; None when there is none."""
    from mcpaql_conformance.live.connection import Target

    if not second and also_url is None:
        return None
    if second and also_url is not None:
        raise click.UsageError("give the second configuration as --also -- COMMAND... or as --also-url URL, not both")
    keep_secrets(also_url, ())
    folder = options.capture_dir
    return dataclasses.replace(
        options,
        target=Target(command=second, url=also_url),
        bundle=scratch / "also-bundle.json",
        capture_dir=None if folder is None else folder.with_name(f"{folder.name}-also"),
        write_plan=None,
        configurations=False,  # the first configuration's restarts are the ones judged
    )


def capture_both(options: Any, also: Any) -> Any:
    """The capture, and with a second configuration that one too, merged into the bundle (which
    is written again, atomically); the first capture's result, carrying the merged bundle."""
    from mcpaql_conformance.capture.also import merge
    from mcpaql_conformance.capture.run import refuse_our_own
    from mcpaql_conformance.files.jsonio import write_atomic

    result = run_capture(options)
    if also is None or result.dry_run is not None:
        return result
    click.echo("capturing the second configuration (--also)", err=True)
    second = run_capture(also)
    bundle = merge(result.bundle, second.bundle)
    write_atomic(options.bundle, dumps(bundle))
    refuse_our_own(bundle, options.bundle)
    return dataclasses.replace(result, bundle=bundle, not_sent=result.not_sent + second.not_sent)


def run_capture(options: Any) -> Any:
    from mcpaql_conformance import lifetime
    from mcpaql_conformance.capture.run import capture as run_capture

    lifetime.heavy_process()
    result = run_capture(options)
    for warning in result.warnings:
        click.echo(f"warning: {warning}", err=True)
    if result.dry_run is not None:
        return result
    click.echo(
        f"captured {result.metrics['calls']} call(s) from {result.source} over {options.target.transport}; "
        f"records: {result.records}; {result.not_sent} probe(s) not sent (listed in capture_notes)",
        err=True,
    )
    if options.write_plan is not None:
        click.echo(f"wrote a plan to {click.format_filename(options.write_plan)}", err=True)
    return result


@click.command(context_settings={"ignore_unknown_options": True})
@click.option(
    "--bundle",
    "bundle_path",
    type=click.Path(path_type=Path),
    default=Path("captured-bundle.json"),
    show_default=True,
    help="Where to write the evidence bundle (atomically).",
)
@capture_options
def capture(bundle_path: Path, url: str | None, command: tuple[str, ...], also_url: str | None, **settings: Any) -> int:
    """Probe a live MCP-AQL server and write an evidence bundle for `test`.

    Give either --url URL, or the server command after --:

    \b
      mcpaql-conformance capture --bundle out.json -- python -m mcpaql_conformance.demo_adapter

    A server that offers its other endpoint mode by configuration can be captured in both at
    once: -- SERVER... --also -- SECOND... (or --also-url URL); one bundle holds both.

    Once the MCP handshake is done a bundle is written and the exit code is 0, however the
    server deviates: the verdict is `test`'s (or use `check`).
    """
    refuse_overwriting(
        [("--bundle", bundle_path), ("--write-plan", settings["write_plan"])], [("--plan", settings["plan"])]
    )
    import tempfile

    first, second = split_command(command)
    options = prepare_capture(bundle_path, first, url, settings)
    with tempfile.TemporaryDirectory(prefix="mcpaql-capture-") as scratch:
        result = capture_both(options, prepare_also(options, second, also_url, Path(scratch)))
    if result.dry_run is not None:
        click.echo(dry_run_text(result.dry_run, result.source), nl=False)
        return 0
    click.echo(f"bundle: {click.format_filename(bundle_path)}", err=True)
    click.echo(f"next: mcpaql-conformance test {click.format_filename(bundle_path)} --level 1", err=True)
    return 0


def keeping_our_bundle(capture: Any, scratch: bool) -> Any:
    """``capture()``; when it wrote a bundle `test` would refuse (a fault of ours, exit 70) into
    `check`'s scratch folder, the bundle is moved to a folder of its own that outlives the run,
    and the error names that one: the evidence is never lost."""
    from mcpaql_conformance.capture.run import OwnBundleRefused

    try:
        return capture()
    except OwnBundleRefused as exc:
        if not scratch or not exc.bundle.is_file():
            raise
        import shutil
        import tempfile

        kept = Path(tempfile.mkdtemp(prefix="mcpaql-check-kept-")) / exc.bundle.name
        shutil.move(exc.bundle, kept)
        raise OwnBundleRefused(exc.problem, kept, exc.records_hint) from None


@click.command(context_settings={"ignore_unknown_options": True})
@click.option(
    "--bundle",
    "bundle_path",
    type=click.Path(path_type=Path),
    help="Also keep the evidence bundle here (atomically); by default it is not kept.",
)
@click.option("--agent", "with_agent", is_flag=True, help="Also run the agent tasks and scenarios (see `agent`).")
@agent_options
@judging_options
@capture_options
def check(
    bundle_path: Path | None,
    level: str,
    tier: str,
    fmt: str,
    output: Path | None,
    category: str | None,
    baseline: Path | None,
    write_baseline: Path | None,
    max_findings: int,
    url: str | None,
    command: tuple[str, ...],
    with_agent: bool,
    also_url: str | None,
    **settings: Any,
) -> int:
    """Capture a live MCP-AQL server and judge it in one run: the report of `test`, with its
    exit code (0 conformant, 1 a MUST failed, 2 only SHOULD warnings; 3 when the server
    could not be captured at all or an option is wrong; 70 for a fault of ours, such as a
    bundle capture wrote that `test` refuses: it is kept and named).

    \b
      mcpaql-conformance check --allow-destructive -- python -m mcpaql_conformance.demo_adapter
      mcpaql-conformance check --url http://127.0.0.1:8000/mcp --level 2 -f markdown -o report.md
      mcpaql-conformance check --agent --model openai:gpt-4o-mini --level 2 -- python my_server.py
      mcpaql-conformance check --level 2 -- python my_server.py --also -- python my_server.py --mode single

    --also (or --also-url URL) captures a second configuration of the same server too, for the
    endpoint mode it offers by configuration (endpoint-modes §3.1); one report judges both.

    With --agent, the agent tasks and scenarios run after the capture (a second session) and
    their evidence joins the bundle before it is judged; the model and the judge are checked
    with a 1-token request each before the capture starts.
    """
    import tempfile

    # bad options: before any server starts
    judging = judging_settings(level, tier, fmt, output, category, baseline, max_findings, write_baseline)
    agent_settings = {key: settings.pop(key) for key in AGENT_SETTINGS}
    refuse_overwriting(
        [
            ("-o", output),
            ("--bundle", bundle_path),
            ("--write-plan", settings["write_plan"]),
            ("--write-baseline", write_baseline),
        ],
        [("--plan", settings["plan"]), ("--baseline", baseline), ("--tasks", agent_settings["tasks"])]
        + [("--scenario", path) for path in agent_settings["scenarios"]],
    )
    with tempfile.TemporaryDirectory(prefix="mcpaql-check-") as scratch:
        target = bundle_path if bundle_path is not None else Path(scratch) / "bundle.json"
        first, second = split_command(command)
        options = prepare_capture(target, first, url, settings)
        also = prepare_also(options, second, also_url, Path(scratch))
        agent = None
        if with_agent and options.dry_run:
            raise click.UsageError(
                "--dry-run lists the calls capture would send; a model's calls are not known before it makes them:"
                " drop --agent (agent runs pass the same guard at the same level)"
            )
        if with_agent:
            agent = prepare_agent(target, options.target, options.permission, options.timeout, agent_settings)
            # --concurrency: the probes in flight, and the agent runs at once
            agent = dataclasses.replace(agent, concurrency=options.concurrency, bundle_kept=bundle_path is not None)
            agent = preflight(agent)  # every model endpoint answers before the server is started
        elif given := [flag for key, flag in AGENT_ONLY.items() if agent_settings[key]]:
            raise click.UsageError(f"{', '.join(given)}: only with --agent (the agent runs after the capture)")
        captured = keeping_our_bundle(lambda: capture_both(options, also), bundle_path is None)
        if captured.dry_run is not None:
            shown = dumps(captured.dry_run) if fmt == "json" else dry_run_text(captured.dry_run, captured.source)
            click.echo(shown, nl=False)
            return 0
        bundle = captured.bundle
        if agent is not None:
            bundle = agent_after_capture(agent, bundle_path, captured.records)
        if bundle_path is not None:
            click.echo(f"bundle: {click.format_filename(bundle_path)}", err=True)
        return judge_bundle(bundle, options.target.describe(), judging, server=options.target.describe())
