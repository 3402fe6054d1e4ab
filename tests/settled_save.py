"""A save of ora.yaml made to look settled, as it looks once a user's edit has been left alone
for SETTLE_S (vault_settings.py `_settled`), without the test sleeping.

A text that drops a `private` or `exclude` entry is trusted only once settled, by a modification
time later than when the last good text was kept (an earlier one cannot be true: the file changed
since). So both are dated back, in the order a real edit has them: the last good text kept, then
the save, then SETTLE_S and more of nothing.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from sidecar.vault import settings_memory
from sidecar.vault.vault_settings import SETTLE_S


def settle(file: Path) -> None:
    """Date `file`'s save SETTLE_S and more back, and its last good text (this process's memory
    and every data folder's `.last-good` a read named) before that."""
    saved = time.time() - SETTLE_S - 1
    kept = saved - 1
    key = file.resolve()
    found = settings_memory._memory.get(key)
    if found is not None:
        settings_memory._memory[key] = (found[0], found[1], min(found[2], kept))
    for folder in settings_memory._folders.get(key, ()):
        with contextlib.suppress(FileNotFoundError):  # none kept there yet
            os.utime(folder / f"{file.name}.last-good", (kept, kept))
    os.utime(file, (saved, saved))
