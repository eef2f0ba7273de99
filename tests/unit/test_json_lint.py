"""No Python ``==`` or ``in`` over JSON values in the verdict and drift code (issue 28): in Python
``True == 1`` and ``True in [0, 1]``, in JSON neither holds, so every comparison of values from a
bundle, a capture or a schema goes through ``files.values`` (``json_equal``, ``json_in``,
``json_key``). This lint reads the code: a comparison (``==``, ``!=``, ``in``, ``not in``) with a
side read out of a JSON container (``x[...]``, ``x.get(...)``) or named like a value (``value``,
``expected``, ``default``, ``enum``...) fails, unless a side is plainly not a JSON value that could
be a boolean or a number (a string literal or f-string, ``None``, a literal of strings, ``len()``,
a string method's result, one of our UPPER_CASE constants), or the line says why with a
``# json:`` comment (a name compared with a name, a key looked up in a dictionary)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "mcpaql_conformance"
SCOPE = ("verdict", "shapes")
VALUE_NAMES = re.compile(
    r"^(value|expected|observed|answer|answered|default|documented|enum|allowed|sample|before|after|old|new|"
    r"left|right|item|data|result|got|want|actual)s?$"
)
STRING_METHODS = frozenset({"casefold", "lower", "upper", "strip", "removeprefix", "removesuffix", "describe"})
SAFE_CALLS = frozenset({"len", "type", "id", "str", "repr", "isinstance", "plain", "json_type"})


def _not_a_json_scalar(node: ast.expr) -> bool:
    """Whether a side of a comparison is plainly no boolean or number from outside."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str | bytes) or node.value is None
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(_not_a_json_scalar(element) for element in node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in SAFE_CALLS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr in STRING_METHODS
    if isinstance(node, ast.Subscript):  # an entry of one of our tables (RESERVED_OPERATIONS[name])
        return _not_a_json_scalar(node.value)
    if isinstance(node, ast.Name):
        return node.id.isupper()
    return isinstance(node, ast.Attribute) and node.attr.isupper()


def _json_valued(node: ast.expr) -> bool:
    """Whether a side looks read out of a JSON document."""
    if isinstance(node, ast.Subscript):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return True
    return isinstance(node, ast.Name) and VALUE_NAMES.match(node.id) is not None


def findings(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    found = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        if not isinstance(node, ast.Compare):
            continue
        if not any(isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn) for op in node.ops):
            continue
        sides = [node.left, *node.comparators]
        if any(map(_not_a_json_scalar, sides)) or not any(map(_json_valued, sides)):
            continue
        end = node.end_lineno or node.lineno
        if any("# json:" in line for line in lines[node.lineno - 1 : end + 1]):  # or on the line closing it
            continue
        found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {ast.unparse(node)}")
    return found


MODULES = sorted(path for folder in SCOPE for path in (PACKAGE / folder).rglob("*.py"))


@pytest.mark.parametrize("module", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_no_python_equality_over_json_values(module: Path) -> None:
    assert findings(module) == [], "compare JSON values with files.values (json_equal, json_in, json_key)"


def test_the_lint_catches_what_it_is_for(tmp_path: Path) -> None:
    module = PACKAGE / "verdict" / "_lint_probe.py"  # inside the package: paths are reported from it
    module.write_text(
        "def f(case, allowed, value, name):\n"
        "    a = case['value'] == allowed[0]\n"  # caught: two JSON values
        "    b = value in allowed\n"  # caught: membership by Python's ==
        "    c = case.get('code') == 'NOT_FOUND'\n"  # a string: fine
        "    d = value == name  # json: names, both strings\n"  # said why: fine
        "    return a, b, c, d\n"
    )
    try:
        assert [line.split(": ", 1)[0] for line in findings(module)] == [
            "mcpaql_conformance/verdict/_lint_probe.py:2",
            "mcpaql_conformance/verdict/_lint_probe.py:3",
        ]
    finally:
        module.unlink()
