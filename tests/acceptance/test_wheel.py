"""The package a stranger installs (issue 37): the sdist and the wheel build from the checkout's
tracked files, their metadata passes `twine check`, and the wheel, installed into a fresh virtual
environment outside the checkout, runs `test` on a bundle, `check` on the demo adapter and `schema
report` there, so that a file the package needs and does not ship fails here, not for a user."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from mcpaql_conformance import __version__
from tests.acceptance.conftest import ROOT

pytestmark = pytest.mark.xdist_group("wheel")  # one build and one install, shared by the tests below


def run(*command: str | Path, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """A command with the environment a stranger has: no PYTHONPATH, nothing of the checkout."""
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run(
        [str(part) for part in command], cwd=cwd, env=environment, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel, built from a copy of the tracked files (nothing else of the checkout)."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    source = tmp_path_factory.mktemp("source")
    for name in filter(None, tracked.decode().split("\0")):
        if (ROOT / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    built = run(sys.executable, "-m", "build", "--outdir", out, source, cwd=source)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a fresh virtual environment holding the wheel (and its dependencies)."""
    venv = tmp_path_factory.mktemp("venv")
    made = run(sys.executable, "-m", "venv", venv, cwd=venv)
    assert made.returncode == 0, made.stderr
    [wheel] = dist.glob("*.whl")
    pip = run(venv / "bin" / "python", "-m", "pip", "install", "-q", wheel, cwd=venv)
    assert pip.returncode == 0, pip.stderr[-3000:]
    return venv / "bin"


def test_the_sdist_and_the_wheel_carry_the_licence_and_pass_twine_check(dist: Path) -> None:
    names = sorted(path.name for path in dist.iterdir())
    assert names == [f"mcpaql_conformance-{__version__}-py3-none-any.whl", f"mcpaql_conformance-{__version__}.tar.gz"]
    checked = run(sys.executable, "-m", "twine", "check", "--strict", *sorted(dist.iterdir()), cwd=dist)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with zipfile.ZipFile(next(dist.glob("*.whl"))) as wheel:
        metadata = wheel.read(f"mcpaql_conformance-{__version__}.dist-info/METADATA").decode()
        shipped = set(wheel.namelist())
    assert "License-Expression: MIT" in metadata and f"Version: {__version__}" in metadata
    assert f"mcpaql_conformance-{__version__}.dist-info/licenses/LICENSE" in shipped
    assert {"mcpaql_conformance/py.typed", "mcpaql_conformance/files/schemas/bundle.schema.json"} <= shipped


def test_the_installed_wheel_judges_a_bundle_outside_the_checkout(installed: Path, tmp_path: Path) -> None:
    where = run(installed / "python", "-c", "import mcpaql_conformance as m; print(m.__file__)", cwd=tmp_path)
    assert where.stdout.startswith(str(installed.parent)), where  # the installed copy, not the checkout's
    bundle = tmp_path / "demo-notes.json"
    shutil.copy(ROOT / "evidence" / "demo-notes.json", bundle)
    judged = run(installed / "mcpaql-conformance", "test", bundle.name, "-f", "json", cwd=tmp_path)
    assert judged.returncode == 0, judged.stderr
    report = json.loads(judged.stdout)
    assert report["conformanceLevel"] == 1 and report["toolVersion"] == __version__
    html = run(installed / "mcpaql-conformance", "test", bundle.name, "-f", "html", "-o", "report.html", cwd=tmp_path)
    assert html.returncode == 0 and "<html" in (tmp_path / "report.html").read_text(encoding="utf-8"), html.stderr


def test_the_installed_wheel_checks_the_demo_adapter(installed: Path, tmp_path: Path) -> None:
    demo = (installed / "python", "-m", "mcpaql_conformance.demo_adapter")
    checked = run(installed / "mcpaql-conformance", "check", "--level", "2", "-f", "json", "--", *demo, cwd=tmp_path)
    assert checked.returncode == 2, checked.stderr  # Level 2, with the SHOULD warnings of a run without a plan
    assert json.loads(checked.stdout)["conformanceLevel"] == 2


def test_the_installed_wheel_prints_its_schemas(installed: Path, tmp_path: Path) -> None:
    printed = run(installed / "mcpaql-conformance", "schema", "report", cwd=tmp_path)
    assert printed.returncode == 0, printed.stderr
    assert json.loads(printed.stdout)["$id"] == "urn:mcpaql-conformance:schema:report"
