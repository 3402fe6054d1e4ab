"""Whether a note is private now, not only when the last scan read it.

A pair's `private` flag is set by the contradiction scan, which runs seconds after a change (or
only when asked, with background scans off). A note tagged `private` since then must leave
non-private lists at once, as it leaves search at once: so before a pair is shown outside private
mode, each note the last scan saw as public is checked against its file. A file whose size and
mtime are those the scan saw is what the scan read; any other is read again (once per version)
and counts as private when it carries the tag, or when it cannot be read or parsed (privacy fails
closed, as `Note.is_private` does).

A note that is gone from its path counts as private (`missing`): it may have been moved into a
private folder, or renamed and tagged, and its pair still shows its claim text under the old
path; which it was is not known without finding the note again, so privacy fails closed until a
scan re-pairs it. The queue makes the one exception it can tell: a note its pair's own
resolution moved to the trash (`Queue._private_now`).

Where a note lies counts too: ora.yaml's `private` folders are read again whenever the file
changed, and a note they cover now is private now, moved or not, as the next scan will find it
(`note_private`); so is a note `ora ingest` made from a document they cover now (the ingest
manifest names its document). Settings that cannot say which notes are private (`unsafe`) make
every note private here: privacy fails closed. That part is search's own check, shared
(`retrieval/private_now.py`): a folder made private leaves search and this list alike.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

from sidecar.errors import OraError
from sidecar.retrieval.private_now import settings_now
from sidecar.vault.chat_format import has_private_turn
from sidecar.vault.note import read_note
from sidecar.vault.scan import vault_path
from sidecar.vault.vault_settings import VaultSettings, is_private_path, source_document

Seen = tuple[int, int]  # (size, mtime_ns) of a file as the scan read it


class LivePrivacy:
    """The current privacy of a vault's notes, read from the files when they changed."""

    def __init__(self, vault: Path, data: Path, max_bytes: int) -> None:
        self.vault, self.max_bytes = vault, max_bytes
        # a version read here: its own privacy, and the document it was made from
        self._read: dict[str, tuple[Seen, bool, str | None]] = {}
        # the vault's settings, read again only when ora.yaml changed (a list of pairs asks for
        # them on every request), the one reader search uses: with the data folder, which
        # keeps the settings of a missing ora.yaml
        self._settings = settings_now(vault, data)
        self._guard = threading.Lock()

    def turned_private(self, seen: Mapping[str, Seen]) -> set[str]:
        """Of these notes (each with the version the last scan read as public), those that
        are private now."""
        by_place = self._settings.private_paths()  # unsafe settings hold every path private
        settings = self._settings.settings()
        return {path for path, version in seen.items()
                if by_place(path) or self._private_now(path, version, settings)}

    def missing(self, paths: Iterable[str]) -> set[str]:
        """Of these notes (ones the last scan did not see as public), those gone from their
        path: hidden like private ones (see the module docstring)."""
        return {path for path in paths if self._gone(path)}

    def _gone(self, path: str) -> bool:
        try:
            os.stat(vault_path(self.vault, path))
        except FileNotFoundError:
            return True
        except (OSError, OraError):
            return False  # there, behind a link or unreadable: turned_private's to judge
        return False

    def _private_now(self, path: str, scanned: Seen, settings: VaultSettings) -> bool:
        try:
            st = os.stat(vault_path(self.vault, path))
        except FileNotFoundError:
            return True  # gone: maybe moved somewhere private (see the module docstring)
        except (OSError, OraError):
            return True  # behind a link now, or unreadable: fail closed
        version = (st.st_size, st.st_mtime_ns)
        if version == scanned:
            return False
        with self._guard:
            known = self._read.get(path)
        if known is None or known[0] != version:
            try:
                note = read_note(self.vault, path, self.max_bytes)
                # the folder is turned_private's; the document's is asked with the settings now
                known = (version, note.is_private or has_private_turn(note),
                         source_document(note))
            except (OSError, OraError):
                known = (version, True, None)
            with self._guard:
                self._read[path] = known
        source = known[2]
        return known[1] or (source is not None and is_private_path(settings, source))
