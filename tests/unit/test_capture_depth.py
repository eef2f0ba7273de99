"""capture.depth: answers nested deeper than JSON readers go are cut, not lost."""

from __future__ import annotations

import orjson
import pytest
from mcp import types

from mcpaql_conformance.files.depth import DEEPER, MAX_DEPTH, DeepTolerantReader, cut_deep_text

MARK = orjson.dumps(DEEPER).decode()


def test_containers_deeper_than_the_limit_become_the_marker() -> None:
    text = '[[1],[2,[3]],{"a":{"b":[]}},"x"]'
    assert cut_deep_text(text, 2) == f'[[1],[2,{MARK}],{{"a":{MARK}}},"x"]'
    assert cut_deep_text(text, 4) == text


def test_brackets_and_escaped_quotes_inside_strings_do_not_count() -> None:
    text = '{"a":"[[[{{\\"]]","b":["\\\\",["}"]]}'
    assert orjson.loads(cut_deep_text(text, 2)) == {"a": '[[[{{"]]', "b": ["\\", DEEPER]}


def test_a_message_fifty_thousand_levels_deep_is_cut_in_one_pass() -> None:
    text = '{"result":' + '{"i":[' * 50_000 + '"bottom"' + "]}" * 50_000 + "}"
    cut = orjson.loads(cut_deep_text(text))
    for _ in range(MAX_DEPTH // 2 - 1):
        cut = cut.get("result", cut.get("i", [None]))
        cut = cut[0] if isinstance(cut, list) else cut
    assert DEEPER in orjson.dumps(cut).decode()


def test_the_reader_reads_deep_messages_the_sdk_refuses_and_still_refuses_garbage() -> None:
    reader = DeepTolerantReader(types.jsonrpc_message_adapter)
    deep = '{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"a":' + "[" * 400 + "]" * 400 + "}}}"
    with pytest.raises(ValueError, match="recursion limit"):
        types.jsonrpc_message_adapter.validate_json(deep, by_name=False)
    message = reader.validate_json(deep, by_name=False)
    assert DEEPER in orjson.dumps(message.model_dump(by_alias=True)).decode()
    with pytest.raises(ValueError):
        reader.validate_json("not json", by_name=False)
    assert reader.validate_python == types.jsonrpc_message_adapter.validate_python
