"""The path patterns of ora.yaml's `exclude`, `private` and `lint.ignore`: how an entry is read,
and which vault paths it covers (docs/vault-settings.md).

An entry is a note path, a folder (with or without its trailing `/`: everything beneath it) or a
glob. It is read as the user most plausibly meant it, since an entry that silently matches
nothing leaves notes public or indexed: `/` (or `./`) is the whole vault, as in `language:`; a
Windows path (`Journal\\2024\\`) is read with `/` (Obsidian allows no `\\` in a name); a leading
`./` or `/` is dropped (paths are vault-relative). An entry of nothing but spaces is reported.
"""

from __future__ import annotations

import re
from functools import cache

from sidecar.vault.patterns import Matcher, compile_pattern
from sidecar.vault.scan import composed_name

__all__ = ["WHOLE_VAULT", "matches_any", "read_pattern"]

WHOLE_VAULT = "/"  # an entry `/` or `./`: every path of the vault
_GLOB_CHARS = re.compile(r"[*?]")  # `[` is a name's own: `Daily [old]/` is a folder


def read_pattern(entry: str) -> str | None:
    """An entry as it is matched (WHOLE_VAULT for `/`, `./` or `.`); None when it is empty."""
    text = entry.strip().replace("\\", "/")
    if not text:
        return None
    while text.startswith("./"):
        text = text[2:]
    text = text.lstrip("/")
    return WHOLE_VAULT if text in ("", ".") else text


def _glob_regex(pattern: str) -> Matcher:
    """A glob over whole vault paths: `**/` any folders (or none), `*` and `?` within a name."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return compile_pattern("".join(out) + r"(?:/.*)?\z")


@cache
def _pattern_matcher(pattern: str) -> Matcher:
    if pattern == WHOLE_VAULT:
        return compile_pattern(r"(?s).*")
    # A folder (with or without its slash) covers what is beneath it; a file name only itself.
    folder = composed_name(pattern).rstrip("/")
    if _GLOB_CHARS.search(folder):
        return _glob_regex(folder)
    return compile_pattern(re.escape(folder) + r"(?:/.*)?\z")


def matches_any(patterns: tuple[str, ...], rel: str) -> bool:
    """Whether any of `patterns` (as `read_pattern` gives them) covers the vault path `rel`."""
    # Obsidian shows one name however it was saved (NFC or NFD): `private: [Santé/]` covers the
    # folder whichever way either was written.
    rel = composed_name(rel)
    return any(_pattern_matcher(p).match(rel) for p in patterns)
