"""files.compact: a large document decoded compactly is the same JSON value (issue 35), with its
equal parts shared; text that is not JSON is refused as the plain decode refuses it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.files import compact, jsonio

SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
)  # fmt: skip
JSON = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=6),
    max_leaves=30,
)  # fmt: skip


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=JSON, spaces=st.sampled_from([b"", b" ", b"\n\t  "]))
def test_the_compact_decode_is_the_same_value(value: Any, spaces: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compact, "SHARED_BYTES", 16)  # small: every shape is split and shared
    text = spaces + msgspec.json.encode(value)
    decoded = compact.decode_owned([text])
    expected = msgspec.json.decode(text)
    assert decoded == expected
    assert msgspec.json.encode(decoded) == msgspec.json.encode(expected)  # key order, and true is not 1


def test_equal_parts_are_one_object_and_true_is_not_1() -> None:
    parameter = {"name": "record_id", "type": "string", "required": True}
    document = {"a": [dict(parameter) for _ in range(50)], "b": [{"x": 1}, {"x": True}, {"x": 1.0}], "c": "z" * 200}
    decoded = compact.decode_owned([msgspec.json.encode(document)])
    assert decoded == document
    assert len({id(item) for item in decoded["a"]}) == 1
    assert [type(item["x"]) for item in decoded["b"]] == [int, bool, float]
    assert decoded["b"][0] is not decoded["b"][1]


def test_a_large_file_that_is_not_json_is_refused_as_a_small_one_is(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(jsonio, "COMPACT_BYTES", 10)
    path = tmp_path / "big.json"
    path.write_bytes(b'{"a": [1, 2, 3], "b": {"c": [1, 2,, 3]}}')
    with pytest.raises(ConfigError) as refused:
        jsonio.load_json_file(path, "bundle")
    assert str(refused.value).startswith(f"{path}:1:")
    assert "invalid JSON" in str(refused.value)
    path.write_bytes(b'{"a": "\xff"}' + b" " * 20)
    with pytest.raises(ConfigError, match="not valid UTF-8"):
        jsonio.load_json_file(path, "bundle")
    path.write_bytes(b'{"a": [1, 2, {"b": null}]}')
    assert jsonio.load_json_file(path, "bundle") == {"a": [1, 2, {"b": None}]}
