"""Regular expressions compiled on first use: a command pays only for the ones it runs.

``lazy(pattern, flags)`` stands for ``re.compile(pattern, flags)``: the pattern is compiled the
first time one of its methods or attributes is asked for; from then on they are the compiled
pattern's own (no extra step per call). Module-level patterns are written this way, so that
importing a module compiles none of them.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "split", "sub", "subn", "scanner")


class _Lazy:
    def __init__(self, pattern: Any, flags: int) -> None:
        self._arguments = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        compiled = re.compile(*self._arguments)
        for method in _METHODS:  # the compiled pattern's own, found without this method from now on
            self.__dict__[method] = getattr(compiled, method)
        self.__dict__["_compiled"] = compiled
        self.__class__ = _Compiled
        return getattr(compiled, name)


class _Compiled(_Lazy):
    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_compiled"], name)


def lazy(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile(pattern, flags)``, compiled when first used."""
    return cast("re.Pattern[AnyStr]", _Lazy(pattern, flags))
