"""The text a settings file last had when it could be used, kept for the moments it cannot.

Which notes are private (`private:`) and which are left out (`exclude:`) is read from ora.yaml. A
file that cannot be used (invalid YAML, unreadable, one of those two values malformed), or one an
editor has just emptied to write it again, must not make the defaults apply: private notes would
become public ones until the file is fixed, found by searches outside private mode and sent to
remote models. So the settings read from such a file are those of the text it last had, kept
in memory per vault and, where an index's data folder is known, in `DATA/ora.yaml.last-good` for
the next process (vault_settings.py `load_vault_settings`). Obsidian's `.obsidian/app.json`
(its Excluded files) is kept in memory the same way: Obsidian rewrites it in place.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from sidecar.data_folder import FILE_MODE, private_file

_memory: dict[Path, str] = {}


def remember(file: Path, text: str, data: Path | None) -> None:
    """Keep `text` (the usable `file`'s, "" when there is none) as its last good, in memory and,
    with `data`, in `DATA/<name>.last-good`."""
    key = file.resolve()
    if _memory.get(key) != text:
        _memory[key] = text
    if data is None:
        return
    kept = data / f"{file.name}.last-good"
    with contextlib.suppress(OSError):  # a read-only data folder keeps only the memory
        if _stored(kept) == text:
            private_file(kept)  # tightened, as every file of the data folder
            return
        tmp = kept.with_name(f"{kept.name}.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.chmod(FILE_MODE)
        os.replace(tmp, kept)


def recall(file: Path, data: Path | None) -> str | None:
    """`file`'s last good text, from this process's memory or the data folder; None when
    neither has one."""
    found = _memory.get(file.resolve())
    if found is None and data is not None:
        found = _stored(data / f"{file.name}.last-good")
    return found


def _stored(kept: Path) -> str | None:
    try:
        return kept.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
