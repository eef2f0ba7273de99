"""The package's shape, read from its own imports: no module imports another that (directly or
through others) imports it back, and no package imports one of a layer above it. A type two
modules need goes into a small module of its own. Also: a small package root, no module over
600 lines, and CONTRIBUTING's tree naming every package there is."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "mcpaql_conformance"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> dict[str, set[str]]:
    """Every module of the package and the modules of the package it imports (anywhere in it,
    inside functions and TYPE_CHECKING blocks too)."""
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*parts, *([node.module] if node.module else [])])
                targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            graph[name] |= {target for target in targets if target in modules and target != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_no_module_imports_itself_back_through_others() -> None:
    graph = imports()
    assert len(graph) > 50 and graph["mcpaql_conformance.cli"]  # the walk found the package
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


# The layers, bottom up (CONTRIBUTING, "How the code is organised"). A package imports its own
# modules and packages of lower layers only; packages of one layer do not import each other.
ROOT_MODULES = {"mcpaql_conformance", "mcpaql_conformance.errors", "mcpaql_conformance.sanitize"}
ROOT_MODULES |= {"mcpaql_conformance.secrecy", "mcpaql_conformance.lifetime", "mcpaql_conformance.regex"}
LAYERS = {
    "": 0,  # the root's foundation: the version, errors, sanitising, secrets, how the process ends, regexes
    "files": 1,
    "demo_adapter": 1,  # stands alone: the root's version only
    "demo_model": 1,  # stands alone: the standard library only
    "evidence": 2,
    "verdict": 3,
    "live": 3,
    "report": 4,
    "capture": 4,
    "agent": 4,
    "shapes": 5,
    "registry": 5,  # many reports on one page: reads them as `report` does
    "cli": 6,
    "__main__": 7,  # the faces: `python -m`, the pytest plugin
    "pytest_plugin": 7,
}
MAX_ROOT_MODULES = 8
MAX_MODULE_LINES = 600


def package_of(module: str) -> str:
    """The top-level package (or face) a module belongs to; "" for the root's foundation."""
    parts = module.split(".")
    return "" if module in ROOT_MODULES else parts[1]


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a package of the same or a higher layer than the importer's own."""
    found = []
    for importer, targets in sorted(graph.items()):
        mine = package_of(importer)
        for target in sorted(targets):
            theirs = package_of(target)
            if theirs != mine and LAYERS[theirs] >= LAYERS[mine]:
                found.append(f"{importer} -> {target} ({theirs or 'root'} is not below {mine or 'root'})")
    return found


def test_every_package_has_a_layer() -> None:
    packages = {package_of(module) for module in imports()}
    assert packages == set(LAYERS), "give the new package a layer here and a line in CONTRIBUTING's tree"


def test_no_package_imports_upward_or_sideways() -> None:
    assert upward(imports()) == []


def test_the_layer_check_finds_an_upward_import() -> None:
    graph = {"mcpaql_conformance.evidence.bundle": {"mcpaql_conformance.verdict.model"}}
    graph["mcpaql_conformance.live.session"] = {"mcpaql_conformance.verdict.runner", "mcpaql_conformance.errors"}
    assert upward(graph) == [
        "mcpaql_conformance.evidence.bundle -> mcpaql_conformance.verdict.model (verdict is not below evidence)",
        "mcpaql_conformance.live.session -> mcpaql_conformance.verdict.runner (verdict is not below live)",
    ]


def test_the_package_root_stays_small() -> None:
    root = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, root


def test_no_module_is_over_600_lines() -> None:
    long = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_contributing_names_every_package() -> None:
    contributing = (PACKAGE.parent / "CONTRIBUTING.md").read_text(encoding="utf-8")
    tree = contributing.split("## How the code is organised", 1)[1].split("\n## ", 1)[0]
    packages = sorted(path.parent.name for path in PACKAGE.glob("*/__init__.py"))
    assert [name for name in packages if f"{name}/" not in tree] == []
    assert "```mermaid" in tree
