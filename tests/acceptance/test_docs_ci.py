"""The CI recipes of the README and of the docs site (the "In CI" page, the registry page's
matrix) and the GitHub Action (action.yml) work as written, run locally.

The YAML blocks of the "In CI" page and of the README's "In CI" section (each block once: the
README shows one of the page's) are parsed (PyYAML) and their commands run in
order in a temporary folder, with the quick start's virtual environment first on PATH: the
`run:` steps of a GitHub workflow (a step guarded with ``if: always()`` runs after a failed
one, the others are skipped as GitHub does), the `script` then `after_script` lines of a
GitLab job. ``python my_server.py`` becomes the demo server, the install line (``pip install
...``) is dropped (the checkout is installed), GITHUB_STEP_SUMMARY and GITHUB_OUTPUT are
temporary files. A ``uses:`` of this repository's action runs action.yml's steps with the
step's ``with:`` inputs, as GitHub would run the composite action (its install step with
``install: none``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.acceptance.conftest import DEMO, ROOT, demo_over_http, warm, warm_path

MY_SERVER = "python my_server.py"
DEMO_COMMAND = "python -m mcpaql_conformance.demo_adapter"
# Steps a recipe may take from elsewhere: not run locally (the checkout is here, Python is the
# venv's, artifacts stay in the folder).
FOREIGN_ACTIONS = ("actions/checkout@", "actions/setup-python@", "actions/upload-artifact@")
_INSTALL = re.compile(r"^\s*(?:python3? -m )?pip install\b")
_EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
VENV_BIN = ROOT / ".venv" / "bin"


def in_ci_section() -> str:
    """The README's "In CI" section."""
    text = (ROOT / "README.md").read_text()
    start = text.index("\n## In CI\n")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def in_ci_page() -> str:
    return (ROOT / "docs" / "ci.md").read_text()


def yaml_blocks(text: str) -> list[str]:
    return re.findall(r"^```yaml\n(.*?)^```$", text, re.M | re.S)


def recipes() -> list[dict[str, Any]]:
    """The YAML blocks of the "In CI" page and of the README's section, each once, parsed."""
    blocks = dict.fromkeys([*yaml_blocks(in_ci_page()), *yaml_blocks(in_ci_section())])
    return [yaml.safe_load(block) for block in blocks]


def github_workflows() -> list[dict[str, Any]]:
    return [recipe for recipe in recipes() if "jobs" in recipe]


def gitlab_jobs() -> list[dict[str, Any]]:
    return [job for recipe in recipes() if "jobs" not in recipe for job in recipe.values() if "script" in job]


def uses_this_action(step: dict[str, Any]) -> bool:
    return bool(re.fullmatch(r"[\w.-]+/mcpaql-conformance@[\w./-]+", str(step.get("uses", ""))))


@dataclass
class Shell:
    """Where a recipe runs: a temporary folder, the venv first on PATH, GitHub's files."""

    folder: Path
    server: str = DEMO_COMMAND
    summary: Path = field(init=False)

    def __post_init__(self) -> None:
        self.summary = self.folder / "step-summary.md"
        self.summary.write_text("")

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        drop = ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "PYTHONPATH", "GITHUB_OUTPUT", "GITHUB_ENV")
        env = {k: v for k, v in os.environ.items() if k not in drop}
        env["PATH"] = f"{warm_path(VENV_BIN)}{os.pathsep}{env.get('PATH', '')}"  # its commands start warm
        env["VIRTUAL_ENV"] = str(VENV_BIN.parent)
        env["GITHUB_STEP_SUMMARY"] = str(self.summary)
        env["CI"] = "true"
        env.update(extra or {})
        return env

    def local(self, script: str) -> str:
        """A recipe's script as it runs here: the demo for the user's server, no install line."""
        lines = [line for line in script.splitlines() if not _INSTALL.match(line)]
        local = "\n".join(lines).replace(MY_SERVER, self.server)
        # the demo started warm (conftest.warm): these tests are about the recipes and the action
        return local.replace(DEMO_COMMAND, shlex.join(warm(*DEMO))) if DEMO_COMMAND in local else local

    def run(
        self, script: str, cwd: Path | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        assert "${{" not in script, f"an expression the local run cannot evaluate: {script}"
        return subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
            cwd=cwd or self.folder,
            env=self.env(env),
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )


def _text(value: Any) -> str:
    """An input value as GitHub hands it on: a string (YAML's true is "true", 1 is "1")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


@dataclass
class ActionRun:
    exit_code: int
    outputs: dict[str, str]
    log: str


def run_action(shell: Shell, given: dict[str, Any]) -> ActionRun:
    """action.yml's composite steps, as GitHub runs them: each step's ``${{ inputs.X }}``
    from ``given`` or the input's default, its own GITHUB_OUTPUT, GITHUB_ACTION_PATH the
    checkout; the install step with ``install: none``. Stops at the first failing step."""
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    declared = action["inputs"]
    unknown = set(given) - set(declared)
    assert not unknown, f"inputs action.yml does not declare: {unknown}"
    inputs = {name: _text(given.get(name, spec.get("default", ""))) for name, spec in declared.items()}
    steps: dict[str, dict[str, str]] = {}
    log = []

    def substitute(text: str, local_inputs: dict[str, str]) -> str:
        def value(match: re.Match[str]) -> str:
            expression = match.group(1)
            assert expression.startswith("inputs."), f"action.yml: cannot evaluate {expression!r} locally"
            return local_inputs[expression.removeprefix("inputs.")]

        return _EXPRESSION.sub(value, text)

    for number, step in enumerate(action["runs"]["steps"]):
        assert "run" in step and step.get("shell") == "bash", step  # runnable here, as on every runner
        local_inputs = dict(inputs)
        if "install" in step["run"]:
            local_inputs["install"] = "none"  # the checkout is installed in the venv already
        env = {key: substitute(_text(value), local_inputs) for key, value in (step.get("env") or {}).items()}
        output_file = shell.folder / f"github-output-{number}"
        output_file.write_text("")
        env |= {"GITHUB_ACTION_PATH": str(ROOT), "GITHUB_OUTPUT": str(output_file)}
        if "INPUT_SERVER" in env:
            env["INPUT_SERVER"] = shell.local(env["INPUT_SERVER"])
        cwd = shell.folder / substitute(step.get("working-directory", "."), local_inputs)
        result = shell.run(substitute(step["run"], local_inputs), cwd=cwd, env=env)
        log.append(f"--- {step.get('name')}: exit {result.returncode}\n{result.stdout}{result.stderr}")
        lines = output_file.read_text().splitlines()
        steps[step.get("id", str(number))] = dict(line.split("=", 1) for line in lines if "=" in line)
        if result.returncode != 0:
            return ActionRun(result.returncode, {}, "\n".join(log))
    outputs = {}
    for name, spec in action["outputs"].items():
        match = re.fullmatch(r"\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}", spec["value"])
        assert match, spec
        outputs[name] = steps.get(match.group(1), {}).get(match.group(2), "")
    return ActionRun(0, outputs, "\n".join(log))


def check_outputs(shell: Shell) -> ActionRun:
    """The outputs of the check step even when it failed (GitHub keeps them)."""
    lines = (shell.folder / "github-output-1").read_text().splitlines()
    return ActionRun(-1, dict(line.split("=", 1) for line in lines if "=" in line), "")


needs_venv = pytest.mark.skipif(
    not (VENV_BIN / "mcpaql-conformance").exists(), reason="no .venv: the recipes assume the quick start's environment"
)


# --- the recipes of the "In CI" page and the README -----------------------------------------


def test_the_readme_shows_the_action_recipe_of_the_in_ci_page():
    [shown] = yaml_blocks(in_ci_section())
    assert shown in yaml_blocks(in_ci_page())
    assert any(uses_this_action(step) for job in yaml.safe_load(shown)["jobs"].values() for step in job["steps"])


def test_the_in_ci_page_has_a_github_recipe_with_the_action_a_long_form_and_a_gitlab_job():
    workflows = github_workflows()
    steps = [step for workflow in workflows for job in workflow["jobs"].values() for step in job["steps"]]
    assert any(uses_this_action(step) for step in steps), "the GitHub recipe uses the action"
    assert any(MY_SERVER in str(step.get("run", "")) for step in steps), "the long form stays"
    assert gitlab_jobs()
    for step in steps:
        uses = str(step.get("uses", ""))
        assert not uses or uses_this_action(step) or uses.startswith(FOREIGN_ACTIONS), uses
    for script in [str(step.get("run", "")) for step in steps] + [
        line for job in gitlab_jobs() for line in job["script"] + job.get("after_script", [])
    ]:
        assert "${{" not in script or "steps." in script, script


def github_recipe_runs(shell: Shell, workflow: dict[str, Any]) -> list[tuple[str, int | None]]:
    """Each step of each job in order: (what, exit code), None for a step GitHub would skip."""
    done: list[tuple[str, int | None]] = []
    for job in workflow["jobs"].values():
        failed = False
        for step in job["steps"]:
            condition = str(step.get("if", "success()"))
            if failed and "always()" not in condition and "failure()" not in condition:
                done.append((str(step.get("name") or step.get("uses") or step.get("run")), None))
                continue
            if uses_this_action(step):
                result = run_action(shell, {k: shell.local(v) if k == "server" else v for k, v in step["with"].items()})
                code, what, log = result.exit_code, f"uses {step['uses']}", result.log
            elif "uses" in step:
                continue  # checkout, setup-python, upload-artifact: not run here
            elif not shell.local(step["run"]).strip():
                assert _INSTALL.match(step["run"]), step
                continue  # the install line: the checkout is installed
            else:
                ran = shell.run(shell.local(step["run"]))
                code, what, log = ran.returncode, step["run"], ran.stdout + ran.stderr
            done.append((what, code))
            print(f"{what}: exit {code}\n{log}")
            failed = failed or code != 0
    return done


@needs_venv
@pytest.mark.parametrize("number", range(len(github_workflows())))
def test_the_github_recipe_passes_on_the_conformant_demo_and_fills_the_summary(number, tmp_path):
    shell = Shell(tmp_path)
    done = github_recipe_runs(shell, github_workflows()[number])
    assert done and all(code == 0 for _, code in done), done
    assert "# MCP-AQL Conformance Report" in shell.summary.read_text()
    assert json.loads((tmp_path / "conformance" / "results.json").read_text())["conformanceLevel"] == 1
    for name in ("junit.xml", "badge.svg"):
        assert (tmp_path / "conformance" / name).stat().st_size > 0, name


@needs_venv
@pytest.mark.parametrize("number", range(len(github_workflows())))
def test_the_github_recipe_fails_on_a_faulty_server_and_still_writes_junit_and_badge(number, tmp_path):
    shell = Shell(tmp_path, server=f"{DEMO_COMMAND} --fault silent-unknown")
    done = github_recipe_runs(shell, github_workflows()[number])
    codes = [code for _, code in done]
    assert codes[0] == 1, done  # the check step fails the job
    assert all(code == 0 for code in codes[1:]), done  # the steps run "whatever the verdict" succeed
    assert "NOT CONFORMANT" in shell.summary.read_text().upper()
    for name in ("junit.xml", "badge.svg"):
        assert (tmp_path / "conformance" / name).stat().st_size > 0, name


@needs_venv
@pytest.mark.parametrize("server", [DEMO_COMMAND, f"{DEMO_COMMAND} --fault leaky-errors"], ids=["demo", "faulty"])
def test_the_gitlab_recipe_writes_its_junit_report_whatever_the_verdict(server, tmp_path):
    for job in gitlab_jobs():
        shell = Shell(tmp_path, server=server)
        codes = []
        for line in job["script"]:
            ran = shell.run(shell.local(line))
            codes.append(ran.returncode)
            if ran.returncode != 0:
                break
        after = [shell.run(shell.local(line)) for line in job.get("after_script", [])]
        assert codes[-1] == (0 if server == DEMO_COMMAND else 1), codes
        assert all(ran.returncode == 0 for ran in after), [(ran.args, ran.stderr) for ran in after]
        junit = job["artifacts"]["reports"]["junit"]
        assert (tmp_path / junit).stat().st_size > 0
        for path in job["artifacts"]["paths"]:
            assert (tmp_path / path).exists(), path


# --- the action -----------------------------------------------------------------------------

DEMO_INPUTS = {"server": DEMO_COMMAND, "allow-destructive": True}


@needs_venv
def test_the_action_checks_the_conformant_demo_and_exposes_every_path(tmp_path):
    shell = Shell(tmp_path)
    run = run_action(shell, DEMO_INPUTS)
    assert run.exit_code == 0, run.log
    outputs = run.outputs
    assert outputs["exit-code"] == "0" and outputs["level"] == "1", outputs
    folder = tmp_path / "conformance"
    expected = {"report": "results.json", "junit": "junit.xml", "badge": "badge.svg", "bundle": "bundle.json"}
    for name, file in expected.items():
        assert Path(outputs[name]) == folder / file and Path(outputs[name]).stat().st_size > 0, name
    assert json.loads(Path(outputs["report"]).read_text())["exitCode"] == 0
    assert "<testsuites" in Path(outputs["junit"]).read_text()
    assert "Level 1 conformant" in Path(outputs["badge"]).read_text()
    assert "# MCP-AQL Conformance Report" in shell.summary.read_text()
    assert "--- Install mcpaql-conformance: exit 0\nmcpaql-conformance" in run.log  # with install: none


@needs_venv
@pytest.mark.parametrize(
    ("fault", "level", "fail_on", "step_exit", "check_exit"),
    [
        ("silent-unknown", 1, "must", 1, 1),
        ("silent-unknown", 1, "never", 0, 1),
        (None, 2, "must", 0, 2),
        (None, 2, "should", 2, 2),
    ],
)
def test_fail_on_decides_which_verdicts_fail_the_step(tmp_path, fault, level, fail_on, step_exit, check_exit):
    server = DEMO_COMMAND + (f" --fault {fault}" if fault else "")
    shell = Shell(tmp_path)
    run = run_action(shell, {"server": server, "allow-destructive": True, "level": level, "fail-on": fail_on})
    assert run.exit_code == step_exit, run.log
    outputs = run.outputs if step_exit == 0 else check_outputs(shell).outputs
    assert outputs["exit-code"] == str(check_exit), outputs
    # the files a later `if: always()` step uploads are written whatever the verdict
    for name in ("report", "junit", "badge", "bundle"):
        assert Path(outputs[name]).is_file(), name
    assert outputs["level"] == ("0" if fault else "2")


@needs_venv
def test_the_action_takes_a_url_formats_a_working_directory_and_an_output_dir(tmp_path):
    (tmp_path / "service").mkdir()
    shell = Shell(tmp_path)
    with demo_over_http() as url:
        secret = url.replace("http://", "http://user:hunter2@") + "?token=hunter2"
        given = {"url": secret, "formats": "markdown, html", "working-directory": "service", "output-dir": "out/mcp"}
        run = run_action(shell, given)
    assert "hunter2" not in run.log and f"--url {url}" in run.log
    assert run.exit_code == 0, run.log
    folder = tmp_path / "service" / "out" / "mcp"
    assert run.outputs["report"] == str(folder / "results.json")
    assert run.outputs["junit"] == "" and run.outputs["badge"] == ""
    assert (folder / "report.md").is_file() and (folder / "report.html").is_file()
    assert not (folder / "junit.xml").exists()


@needs_venv
def test_the_action_hands_on_a_baseline_and_more_options(tmp_path):
    shell = Shell(tmp_path)
    faulty = {"server": f"{DEMO_COMMAND} --fault silent-unknown", "allow-destructive": True}
    first = run_action(shell, faulty)
    assert first.exit_code == 1
    report = json.loads((tmp_path / "conformance" / "results.json").read_text())
    failing = [t["id"] for c in report["categories"] for t in c["tests"] if t["result"] == "FAIL"]
    assert failing
    entries = [{"id": test, "reason": "tracked upstream"} for test in failing]
    (tmp_path / "baseline.json").write_text(json.dumps({"entries": entries}))
    again = run_action(shell, faulty | {"baseline": "baseline.json", "args": "--timeout 60 --max-findings 3"})
    assert again.exit_code == 0, again.log
    assert json.loads(Path(again.outputs["report"]).read_text())["baseline"]["file"] == "baseline.json"
    assert "--timeout 60 --max-findings 3" in again.log


@needs_venv
@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({}, "give the server's command (server) or its URL (url)"),
        ({"server": DEMO_COMMAND, "url": "http://127.0.0.1:1/mcp"}, "give server or url, not both"),
        ({"server": DEMO_COMMAND, "level": 3}, "level: expected 1 or 2, got '3'"),
        ({"server": DEMO_COMMAND, "fail-on": "warnings"}, "fail-on: expected must, should or never"),
        ({"server": DEMO_COMMAND, "formats": "json pdf"}, "formats: unknown format 'pdf'"),
        ({"server": DEMO_COMMAND, "allow-destructive": "yes"}, "allow-destructive: expected true or false"),
        ({"server": "python -c 'import sys; sys.exit(4)'"}, "mcpaql-conformance could not check the server (exit 3)"),
        (
            {"server": DEMO_COMMAND, "fail-on": "never", "baseline": "missing.json"},
            "mcpaql-conformance could not check",
        ),
    ],
)
def test_wrong_inputs_and_an_unreachable_server_fail_the_step_with_exit_3(tmp_path, given, message):
    shell = Shell(tmp_path)
    run = run_action(shell, given)
    assert run.exit_code == 3, run.log
    assert f"::error::{message}" in run.log
    if "could not check" in message:
        assert "could not be checked (exit 3)" in shell.summary.read_text()
        assert check_outputs(shell).outputs["report"] == ""


def test_every_input_and_output_of_the_action_is_documented_on_the_in_ci_page():
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    section = in_ci_page()
    for name in [*action["inputs"], *action["outputs"]]:
        assert f"`{name}`" in section, name
    for name in action["inputs"]:
        assert f"inputs.{name} }}}}" in (ROOT / "action.yml").read_text(), f"input {name} is never used"


def test_the_action_scripts_are_valid_bash():
    for script in ("install.sh", "check.sh"):
        result = subprocess.run(["bash", "-n", str(ROOT / "action" / script)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


# --- the registry's matrix recipe ----------------------------------------------------------


def registry_recipe() -> dict[str, Any]:
    """The matrix recipe of the docs site's registry page (its one YAML block)."""
    text = (ROOT / "docs" / "registry.md").read_text()
    (block,) = re.findall(r"^```yaml\n(.*?)^```$", text, re.M | re.S)
    return dict(yaml.safe_load(block))


def with_matrix(script: str, entry: dict[str, Any]) -> str:
    return _EXPRESSION.sub(lambda match: str(entry[match.group(1).removeprefix("matrix.")]), script)


@needs_venv
def test_the_registry_recipe_checks_each_server_in_a_job_and_builds_the_registry(tmp_path):
    """The matrix job once per entry (in the same folder: the artifacts' upload and download
    are GitHub's), then the registry job; every step of this repository's own is run."""
    recipe = registry_recipe()
    check, registry = recipe["jobs"]["check"], recipe["jobs"]["registry"]
    assert registry["needs"] == "check" and "always()" in registry["if"]
    assert check["strategy"]["fail-fast"] is False
    shell = Shell(tmp_path)
    entries = check["strategy"]["matrix"]["include"]
    for entry in entries:
        for step in check["steps"]:
            if "run" in step and shell.local(step["run"]).strip():
                ran = shell.run(shell.local(with_matrix(step["run"], entry)))
                assert ran.returncode == 0, ran.stderr
            else:
                assert "run" in step or str(step["uses"]).startswith(FOREIGN_ACTIONS), step
    for step in registry["steps"]:
        if "run" in step and shell.local(step["run"]).strip():
            ran = shell.run(shell.local(step["run"]))
            assert ran.returncode == 0, ran.stderr
        else:
            assert "run" in step or str(step["uses"]).startswith((*FOREIGN_ACTIONS, "actions/download-artifact@")), step
    data = json.loads((tmp_path / "registry" / "registry.json").read_text())
    assert len(data["implementations"]) == len(entries) == 2
    assert (tmp_path / "registry" / "index.html").stat().st_size > 0
