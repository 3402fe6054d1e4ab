"""Patterns users write (Obsidian's "Excluded files" `/…/` entries, ora.yaml's globs), matched in
time linear in the path's length.

Python's `re` backtracks: Obsidian's `/^(a|a)+$/` against a long name took time exponential in
its length, and `ora index` never finished. Every user pattern is compiled by RE2 (google-re2),
which never backtracks; a pattern it cannot run (a backreference, a lookaround) is reported as
not supported and not applied, never handed to a backtracking engine.
"""

from __future__ import annotations

from functools import cache
from typing import Protocol

import re2


class Matcher(Protocol):
    """A compiled pattern: `search` anywhere in a path, `match` from its start."""

    def search(self, text: str) -> object | None: ...

    def match(self, text: str) -> object | None: ...


class UnsupportedPattern(ValueError):
    """A pattern RE2 cannot compile (its own words in the message)."""


def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # the error is ours to report, not RE2's to print on stderr
    return options


@cache
def compile_pattern(pattern: str) -> Matcher:
    """`pattern` compiled to run in linear time; UnsupportedPattern when RE2 cannot run it."""
    try:
        compiled: Matcher = re2.compile(pattern, options=_options())
    except re2.error as exc:
        why = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(
            exc.args[0], bytes) else str(exc)
        raise UnsupportedPattern(f"pattern {pattern!r} is not supported ({why})") from exc
    return compiled
