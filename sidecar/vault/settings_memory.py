"""The text a settings file last had when it could be used, kept for the moments it cannot.

Which notes are private (`private:`) and which are left out (`exclude:`) is read from ora.yaml. A
file that cannot be used (invalid YAML, unreadable, one of those two values malformed), or one an
editor has just emptied to write it again, must not make the defaults apply: private notes would
become public ones until the file is fixed, found by searches outside private mode and sent to
remote models. So the settings read from such a file are those of the text it last had, kept
in memory per vault and, where an index's data folder is known, in `DATA/ora.yaml.last-good` for
the next process (vault_settings.py `load_vault_settings`). Obsidian's `.obsidian/app.json`
(its Excluded files) is kept in memory the same way: Obsidian rewrites it in place.

A missing ora.yaml is kept as the text it last had too, until it has been missing long enough to
have been deleted on purpose: the time a read first found it missing is kept beside the text
(`DATA/ora.yaml.missing-since`), so a file deleted and written again (a sync tool's save) never
lets the defaults apply in between, in this process or the next.

A file read halfway through an editor's in-place save (a prefix of comments, or one that ends
before its `private:` or `exclude:` entries) can be valid YAML that drops private folders. A text
that drops an entry of those two the last good text had is therefore trusted only once the file
has settled (vault_settings.py `SETTLE_S`): this process keeps when it first read that version,
and when it will count as settled, so a server reads the file again then (`settled_at`).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Hashable
from pathlib import Path

from sidecar.data_folder import FILE_MODE, private_file

# the last good text per file, the data folder of the read that kept it (None: a read without
# one, which must not stand in for a data folder's own copy: `recall`) and when it was first kept
_memory: dict[Path, tuple[str, Path | None, float]] = {}
# when a read first found the file missing (time.time()), per (file, data folder): kept only
# without a data folder, or while it cannot be written (missing_since)
_missing: dict[tuple[Path, Path | None], float] = {}
# The data folders a read named for the file: a read without one still clears what they keep.
_folders: dict[Path, set[Path]] = {}
# A read that dropped `private` or `exclude` entries before the file settled, per file: (the
# version read: its stamp and text, when this process first read it, when it counts as settled).
_unsettled: dict[Path, tuple[Hashable, float, float]] = {}


def _kept_in(key: Path, data: Path | None) -> set[Path]:
    if data is not None:
        _folders.setdefault(key, set()).add(data)
    return set(_folders.get(key, ()))


def remember(file: Path, text: str, data: Path | None) -> None:
    """Keep `text` (the usable `file`'s, "" when there is none) as its last good, in memory and,
    with `data`, in `DATA/<name>.last-good`, with when it was first kept (`recalled_since`)."""
    key = file.resolve()
    found = _memory.get(key)
    since = found[2] if found is not None and found[0] == text else time.time()
    _memory[key] = (text, data, since)
    if data is None:
        return
    kept = data / f"{file.name}.last-good"
    with contextlib.suppress(OSError):  # a read-only data folder keeps only the memory
        if _stored(kept) == text:
            private_file(kept)  # tightened, as every file of the data folder
            return
        _write(kept, text)


def _write(kept: Path, text: str) -> None:
    # a temporary name of its own: threads and processes sharing the data folder write at once
    fd, name = tempfile.mkstemp(dir=kept.parent, prefix=f"{kept.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(name, FILE_MODE)
        os.replace(name, kept)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise


def missing_since(file: Path, data: Path | None, now: float | None) -> float | None:
    """When a read first found `file` missing (seconds since the epoch), None when nothing
    knows; with `now` (a read that found it missing), that time is kept when it was not.

    With `data`, only the data folder's record counts: another process that finds the file
    there clears that record, which this process's memory would not see, and two brief
    absences would then count as one long one. Memory keeps the time only without `data`, or
    while the data folder cannot keep it (read-only)."""
    key = file.resolve()
    _kept_in(key, data)
    slot = (key, data)
    kept = None if data is None else data / f"{file.name}.missing-since"
    stored = None
    if kept is not None:
        with contextlib.suppress(ValueError):  # none kept, or not a time
            stored = float(_stored(kept) or "")
    found = stored if stored is not None else _missing.get(slot)
    if now is None or (found is not None and (stored is not None or kept is None)):
        return found  # asked only, or kept already where it counts
    found = now if found is None else found
    if kept is None:
        _missing[slot] = found
        return found
    try:
        _write(kept, repr(found))
    except OSError:  # a read-only data folder: only this process's memory keeps it
        _missing[slot] = found
    else:
        _missing.pop(slot, None)
    return found


def clear_missing(file: Path, data: Path | None) -> None:
    """`file` is there (or taken for deleted): forget when it was first found missing, in
    memory and in every data folder a read of this process named (`data` among them)."""
    key = file.resolve()
    for slot in [slot for slot in _missing if slot[0] == key]:
        del _missing[slot]
    for folder in _kept_in(key, data):
        with contextlib.suppress(OSError):
            (folder / f"{file.name}.missing-since").unlink(missing_ok=True)


def recall(file: Path, data: Path | None) -> str | None:
    """`file`'s last good text, from this process's memory or the data folder; None when
    neither has one. What the data folder holds is kept in memory too, so a later read of the
    process without the data folder keeps the same settings.

    With `data`, a text kept by a read without it (the trash's lookup, which has none: nothing
    to compare a half-saved file with, so it may have trusted one) does not hide the data
    folder's own copy: that copy is what a read with `data` compares with. Memory answers for
    `data` when a read with it kept the text (a read-only data folder keeps only the memory),
    or when the data folder holds none."""
    key = file.resolve()
    _kept_in(key, data)
    found = _memory.get(key)
    if data is None or (found is not None and found[1] == data):
        return None if found is None else found[0]
    kept = data / f"{file.name}.last-good"
    stored = _stored(kept)
    if stored is not None:
        try:  # when it was kept: its file's own time
            since = kept.stat().st_mtime
        except OSError:
            since = time.time()
        _memory[key] = (stored, data, since)
        return stored
    return None if found is None else found[0]


def recalled_since(file: Path) -> float | None:
    """When the text `recall` last gave for `file` was kept as its last good (seconds since the
    epoch); None when none is kept. The file changed after that, so a later modification time
    than this is the only one that can be true (`vault_settings._settled`)."""
    found = _memory.get(file.resolve())
    return None if found is None else found[2]


def _stored(kept: Path) -> str | None:
    try:
        return kept.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def unsettled_until(file: Path, version: Hashable, changed: float, now: float,
                    settle: float) -> float:
    """When `file`, read now as `version` (its stamp and text; last changed at `changed`, its
    modification time), counts as settled: `settle` seconds after it last changed, or, for a
    time ahead of the clock (another machine's), after this process first read that version.
    Kept for `settled_at` until the file is read otherwise (`clear_unsettled`)."""
    key = file.resolve()
    found = _unsettled.get(key)
    first = found[1] if found is not None and found[0] == version else now
    until = min(changed, first) + settle
    _unsettled[key] = (version, first, until)
    return until


def settled_at(file: Path) -> float | None:
    """When the unsettled text a read of `file` last found counts as settled; None when the
    last read found none."""
    found = _unsettled.get(file.resolve())
    return None if found is None else found[2]


def clear_unsettled(file: Path) -> None:
    """A read found `file` trusted (or missing, or unusable): no unsettled text is waited on."""
    _unsettled.pop(file.resolve(), None)
