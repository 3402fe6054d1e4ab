"""Whether the index holds a note as it is on disk: an answer sends a model, and cites, only
passages of notes that are still there as they were indexed.

The index can be behind the vault: a note renamed, deleted or edited while no `ora watch` or `ora
serve` ran keeps its old chunks until the next `ora index`. Quoting such a chunk would give the
model text the note no longer holds and cite a path that no longer opens (a renamed chat note's
old path, written as a broken link into the conversation). A note is current when its file is
there with the stamp the ledger recorded (size, modification and change times, inode: an edit
whose mtime was put back moves its ctime), or, when that moved (a touch, a sync tool), when its
bytes still hash to the ledger's content hash (`vault/write.py content_hash`,
`documents/manifest.py file_hash`: the same sha256). Each note is checked once.
"""

from __future__ import annotations

import stat

from sidecar.documents.manifest import file_hash
from sidecar.errors import OraError
from sidecar.index.ledger import Ledger, stamp_of
from sidecar.settings import Config
from sidecar.vault.scan import vault_path


class OnDisk:
    """`holds(path)`: whether the note at `path` is on disk as the index holds it."""

    def __init__(self, config: Config, ledger: Ledger, namespace: str) -> None:
        self._vault, self._ledger, self._namespace = config.vault, ledger, namespace
        self._known: dict[str, bool] = {}

    def holds(self, path: str) -> bool:
        known = self._known.get(path)
        if known is None:
            known = self._known[path] = self._check(path)
        return known

    def _check(self, path: str) -> bool:
        row = self._ledger.rows(self._namespace, [path]).get(path)
        if row is None:  # chunks the ledger no longer owns
            return False
        try:
            file = vault_path(self._vault, path)
            st = file.stat()
            if not stat.S_ISREG(st.st_mode):
                return False
            if stamp_of(st) == row.stamp:  # an edit whose mtime was put back moves its ctime
                return True
            return file_hash(file) == row.hash
        except (OSError, ValueError, OraError):  # gone, unreadable, or now behind a link
            return False
