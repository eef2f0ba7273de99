"""Hand-written files (capture plans, baselines, agent tasks and scenarios): JSON, or YAML by
their suffix (``.yaml``, ``.yml``).

YAML is read with a strict safe loader: no aliases (``*name`` could make a small file
expand into a huge tree), no timestamps, NaN, infinities or other non-JSON values, only
``true``/``false`` as booleans (``no`` stays the string "no"), string keys only, and no key
given twice. What is read is plain
JSON data, checked afterwards against the kind's JSON Schema like a JSON file.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.files.jsonio import load_json_file, read_bytes
from mcpaql_conformance.files.schemas import json_path
from mcpaql_conformance.sanitize import plain

YAML_SUFFIXES = (".yaml", ".yml")
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_BOOL = "tag:yaml.org,2002:bool"


def load_checked(path: Path, what: str, kind: str, schema: str) -> Any:
    """A hand-written file of one kind (``kind``: kinds.PLAN...), checked strictly against its
    published schema (``schema``: ``plan``, ``tasks``...): an unknown key anywhere is named with
    the closest known one, then the first schema violation with its JSON path."""
    from mcpaql_conformance.files.kinds import refuse_other_kinds

    source = plain(str(path))
    data = load_config_file(path, what)
    refuse_other_kinds(data, source, kind)
    check_document(data, schema, source)
    return data


def check_document(data: Any, schema: str, source: str) -> None:
    """Strict checks of parsed data against one of our schemas (a ConfigError naming the path)."""
    from mcpaql_conformance.files.schemas import compiled_schema

    refuse_unknown_keys(data, schema, source)
    reason = compiled_schema(schema).shape_error(data)
    if reason is not None:
        raise ConfigError(f"{source}: {reason}")


def refuse_unknown_keys(data: Any, schema: str, source: str) -> None:
    """A key the schema does not allow, named with the closest known one (a typo would otherwise
    be ignored silently)."""
    from mcpaql_conformance.files.schemas import did_you_mean, schema_document, unknown_key

    unknown = unknown_key(schema_document(schema), data)
    if unknown is not None:
        where, key, allowed = unknown
        raise ConfigError(f"{source}: {where}: unknown key {plain(key)!r}{did_you_mean(key, allowed)}")


def load_config_file(path: Path, what: str) -> Any:
    """A JSON or YAML document (by suffix); every problem is a ConfigError naming the file."""
    if path.suffix.lower() in YAML_SUFFIXES:
        return parse_yaml(read_bytes(path, what), plain(str(path)))
    return load_json_file(path, what)


def parse_yaml(data: bytes, source: str) -> Any:
    """Parse YAML bytes into JSON data; errors name the source, line and column."""
    import yaml

    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or (len(data) > 1 and 0 in (data[0], data[1])):
        raise ConfigError(f"{source}: UTF-16 is not supported; save the file as UTF-8")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(f"{source}:{line}: not valid UTF-8 (byte offset {exc.start})") from None
    if not text.strip():
        raise ConfigError(f"{source}: file is empty, expected YAML")
    loader = _loader_class()(text)
    try:
        document = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark is not None else source
        raise ConfigError(f"{where}: invalid YAML: {plain(exc.problem or exc.context or 'unreadable')}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: invalid YAML: {plain(str(exc), max_len=200)}") from None
    except RecursionError:
        raise ConfigError(f"{source}: invalid YAML: nested too deeply") from None
    finally:
        loader.dispose()
    _require_json(document, source)
    return document


def _require_json(document: Any, source: str) -> None:
    """Only what JSON can hold: objects with string keys, arrays, strings, numbers, booleans, null."""
    stack: list[tuple[Any, list[str | int]]] = [(document, [])]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise ConfigError(f"{source}: {json_path(path)}: key {plain(repr(key))} is not a string")
                stack.append((item, [*path, key]))
        elif isinstance(value, list):
            stack.extend((item, [*path, index]) for index, item in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{source}: {json_path(path)}: {value!r} is not JSON data; write a finite number")
        elif not (value is None or isinstance(value, str | bool | int | float)):
            kind = type(value).__name__
            raise ConfigError(f"{source}: {json_path(path)}: a YAML {kind} is not JSON data; quote it as a string")


_LOADER: Any = None


def _loader_class() -> Any:
    """SafeLoader without aliases, timestamps or yes/no booleans (built once)."""
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml

    class StrictLoader(yaml.SafeLoader):
        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise yaml.composer.ComposerError(None, None, "aliases (*name) are not supported", mark)
            return super().compose_node(parent, index)

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
                if key is not None and key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"the key {key!r} is given twice", key_node.start_mark
                    )
                seen.add(key)
            return super().construct_mapping(node, deep)

    resolvers = {
        first: [(tag, pattern) for tag, pattern in entries if tag not in (_TIMESTAMP, _BOOL)]
        for first, entries in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    StrictLoader.yaml_implicit_resolvers = resolvers
    StrictLoader.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
    _LOADER = StrictLoader
    return _LOADER
