"""The text `ora.yaml` last had when it could be used, kept for the moments it cannot.

Which notes are private (`private:`) and which are left out (`exclude:`) is read from ora.yaml. A
file that cannot be used (invalid YAML, unreadable, one of those two values malformed), or one an
editor has just emptied to write it again, must not make the defaults apply: private notes would
become public ones until the file is fixed, found by searches outside private mode and sent to
remote models. So the settings read from such a file are those of the text it last had, kept
in memory per vault and, where an index's data folder is known, in `DATA/ora.yaml.last-good` for
the next process (vault_settings.py `load_vault_settings`).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from sidecar.data_folder import FILE_MODE, private_file

_FILE = "ora.yaml.last-good"
_memory: dict[Path, str] = {}


def remember(vault: Path, text: str, data: Path | None) -> None:
    """Keep `text` (the usable file's, "" when there is none) as the vault's last good."""
    key = vault.resolve()
    if _memory.get(key) != text:
        _memory[key] = text
    if data is None:
        return
    with contextlib.suppress(OSError):  # a read-only data folder keeps only the memory
        if _stored(data) == text:
            private_file(data / _FILE)  # tightened, as every file of the data folder
            return
        tmp = data / f"{_FILE}.tmp"
        tmp.write_text(text, encoding="utf-8")
        tmp.chmod(FILE_MODE)
        os.replace(tmp, data / _FILE)


def recall(vault: Path, data: Path | None) -> str | None:
    """The vault's last good text, from this process's memory or the data folder; None when
    neither has one."""
    found = _memory.get(vault.resolve())
    if found is None and data is not None:
        found = _stored(data)
    return found


def _stored(data: Path) -> str | None:
    try:
        return (data / _FILE).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
