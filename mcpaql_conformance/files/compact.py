"""Large JSON documents held compactly: the same values, far fewer objects, and the raw text
released as it is read.

A bundle of 64,000 operations repeats itself: every operation's name in five sections, every
parameter ``{"name": "record_id", "type": "string", "required": true}``, every
``{"code": "VALIDATION_MISSING_PARAM", "message": ...}``. Decoded at once, each repetition is
an object of its own (about 2.4 million strings and 1.2 million dictionaries, most equal to
another), on top of the whole raw text. ``decode_owned`` decodes a document one container at a
time, from the outside in: a small container (at most ``SHARED_BYTES`` of JSON text) is decoded
once for every time its exact text repeats, every string is kept once, and each container's
text is released once its members have their own. The peak is about the decoded, shared
document: about half of what decoding at once costs (``benchmarks/bench_memory.py``).

The result is the same JSON value as ``msgspec.json.decode`` gives (keys in order, ``true`` and
``1`` apart: equal text is equal value), and it is read only, as every reader of a bundle is: a
shared container must never be changed in place.
"""

from __future__ import annotations

from typing import Any

import msgspec

_OBJECT = msgspec.json.Decoder(dict[str, msgspec.Raw])
_LIST = msgspec.json.Decoder(list[msgspec.Raw])
_ANY = msgspec.json.Decoder()
SHARED_BYTES = 128  # a container this short is decoded once for every time its text repeats
MAX_DEPTH = 64  # containers split this deep; a deeper one is decoded whole (the same value)
_OPENING = frozenset(b"{[")
_SPACE = frozenset(b" \t\r\n")


def decode_owned(box: list[bytes]) -> Any:
    """The JSON document whose text is the one item of ``box`` (taken out of it, so that it is
    released as soon as it is split): its value, with equal small containers and equal strings
    shared. Raises what ``msgspec.json.decode`` raises on text that is not JSON."""
    text = box.pop()
    start = next((index for index, byte in enumerate(text[:64]) if byte not in _SPACE), 0)
    box.append(text[start:] if start else text)
    del text  # the box holds the only reference: owned() releases it
    return _Decoding().owned(box, 0)


class _Decoding:
    """One document's decode: the small containers met so far by their text, the strings."""

    def __init__(self) -> None:
        self.containers: dict[bytes, Any] = {}
        self.strings: dict[str, str] = {}

    def owned(self, box: list[bytes], depth: int) -> Any:
        text = box.pop()
        first = text[0] if text else 0
        if first not in _OPENING:
            value = _ANY.decode(text)
            return self.strings.setdefault(value, value) if type(value) is str else value
        if len(text) <= SHARED_BYTES:
            found = self.containers.get(text)
            if found is None:
                found = self.containers[text] = _ANY.decode(text)
            return found
        if depth > MAX_DEPTH:
            return _ANY.decode(text)
        if first == ord("["):
            parts = [bytes(item) for item in _LIST.decode(text)]
            del text  # the list's text is gone; each item's goes as it is decoded
            return [self._take(parts, index, depth) for index in range(len(parts))]
        members = _OBJECT.decode(text)
        keys, parts = list(members), [bytes(item) for item in members.values()]
        del members, text
        strings = self.strings
        return {strings.setdefault(key, key): self._take(parts, index, depth) for index, key in enumerate(keys)}

    def _take(self, parts: list[Any], index: int, depth: int) -> Any:
        box = [parts[index]]
        parts[index] = None
        return self.owned(box, depth + 1)
