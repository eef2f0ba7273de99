"""The bytes of the wire (live/encoding.py): answers decoded strictly once, those not UTF-8
counted and quoted where the bytes are; capture's one request of invalid UTF-8 put on the wire
with its bytes and recorded as a lenient reader reads them."""

from __future__ import annotations

from mcpaql_conformance.live.encoding import MARK, StreamCheck, Utf8Watch, as_recorded, on_wire


def test_a_message_that_is_not_utf8_is_read_leniently_and_counted() -> None:
    watch = Utf8Watch("stdio")
    assert watch.evidence() is None  # nothing read: nothing to say
    assert watch.decode(b'{"a": "caf\xe9"}', "tools/call read") == '{"a": "caf\ufffd"}'
    assert watch.decode('{"a": "café"}'.encode(), None) == '{"a": "café"}'
    assert watch.evidence() == {
        "transport": "stdio", "answers": 2, "invalid": 1,
        "examples": [{"after": "tools/call read", "offset": 10, "bytes": "7B 22 61 22 3A 20 22 63 61 66 E9 22 7D"}],
    }  # fmt: skip


def test_a_body_in_pieces_is_checked_across_them() -> None:
    watch = Utf8Watch("streamable-http")
    whole = "naïve".encode()  # 'ï' is two bytes: split between the pieces
    check = StreamCheck(watch, lambda: "tools/call read")
    check.feed(whole[:3])
    check.feed(whole[3:])
    check.end()
    assert watch.evidence() == {"transport": "streamable-http", "answers": 1, "invalid": 0, "examples": []}
    broken = StreamCheck(watch, lambda: "tools/call read")
    broken.feed(b"abc\xc3")
    broken.feed(b"(def")  # C3 28: a lead byte without its continuation, at offset 3 of the body
    broken.end()
    assert watch.evidence() == {
        "transport": "streamable-http", "answers": 2, "invalid": 1,
        "examples": [{"after": "tools/call read", "offset": 3, "bytes": "C3 28 64 65 66"}],
    }  # fmt: skip


def test_the_mark_goes_out_as_invalid_bytes_and_is_recorded_as_read() -> None:
    sent = f'{{"name": "intro{MARK}spect"}}'.encode()
    assert on_wire(sent) == b'{"name": "intro\xc0\xafspect"}'
    assert on_wire(b'{"name": "introspect"}') == b'{"name": "introspect"}'
    arguments = {"operation": "introspect", "params": {"names": [f"a{MARK}"], "query": "operations"}}
    recorded = {"operation": "introspect", "params": {"names": ["a\ufffd\ufffd"], "query": "operations"}}
    assert as_recorded(arguments) == recorded
