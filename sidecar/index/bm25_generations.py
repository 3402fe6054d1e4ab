"""Where a BM25 store's engines are on disk, by generation, and this process's open ones.

A store's chunk engine and its note engine (`note_level.py`) live in `DATA/bm25/<engine>.<n>/`,
`n` the generation the `bm25_engines` table of `bm25.sqlite` names (0, `bm25/<engine>/`, for an
index of the layout before generations: no row). A rebuild writes a new generation beside the
one in use and then names it in the table (`bm25.Bm25Store._rebuild`), so a reader in any process
finds a whole engine at every instant, and nothing is renamed, which Windows would refuse while
another process has the files open. A generation no longer named is removed once let go
(`sweep`): at every rebuild and at every writer's opening, a folder a process still holds
being left for the next.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path

from sidecar.index import note_level
from sidecar.index.bm25_engine import Bm25Engine, remove

TABLE = "bm25_engines"
CREATE_SQL = (f'CREATE TABLE IF NOT EXISTS "{TABLE}" '
              "(store TEXT PRIMARY KEY, generation INTEGER NOT NULL);")


class Engines:
    """The engines of the stores of one BM25 database, whose engine folders are in `folder`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        # By engine (a store's chunk engine, or its note engine): its generation, and it.
        self._open: dict[str, tuple[int, Bm25Engine]] = {}
        self._guard = threading.Lock()

    def generation(self, conn: sqlite3.Connection, name: str) -> int:
        """The generation of the store's engines the table names."""
        try:
            rows = conn.execute(f'SELECT generation FROM "{TABLE}" WHERE store = ?',
                                (name,)).fetchall()
        except sqlite3.OperationalError:  # a database of the layout before generations
            return 0
        return int(rows[0][0]) if rows else 0

    def folder_of(self, name: str, generation: int, *, notes: bool = False) -> Path:
        """The folder of the store's chunk engine, or note engine, of `generation`."""
        base = note_level.engine(name) if notes else name
        return self.folder / (f"{base}.{generation}" if generation else base)

    def get(self, conn: sqlite3.Connection, name: str, *, notes: bool = False,
            create: bool = False) -> Bm25Engine | None:
        """The store's chunk engine, or note engine, of the generation the table names (opened
        once); None when it has none and `create` is false. One opened of a generation before
        is let go (kept usable by a search still reading it): a writer, of this process or
        another, put a new one in its place. One of a later generation than this thread read
        is kept: another thread read the table after it."""
        generation = self.generation(conn, name)
        key = note_level.engine(name) if notes else name
        with self._guard:
            opened, engine = self._open.get(key, (generation, None))
            if engine is not None and opened >= generation:
                return engine
            folder = self.folder_of(name, generation, notes=notes)
            self._open.pop(key, None)
            if create or Bm25Engine.exists(folder):
                engine = Bm25Engine(folder, create=create)
                self._open[key] = (generation, engine)
                return engine
            return None

    def held_folders(self) -> set[Path]:
        """The folders of the engines this process has open."""
        with self._guard:
            return {engine.folder for _, engine in self._open.values()}

    def let_go(self, name: str) -> None:
        """Close this process's engines of the store."""
        with self._guard:
            engines = [self._open.pop(key, None) for key in (name, note_level.engine(name))]
        for held in engines:
            if held is not None:
                held[1].close()

    def on_disk(self, name: str) -> dict[Path, int]:
        """The folders of the store's engines, each with its generation (-1 for what a rebuild
        of the layout before generations left: `.building`, `.stale`)."""
        found: dict[Path, int] = {}
        if not self.folder.is_dir():
            return found
        for base in (name, note_level.engine(name)):
            pattern = re.compile(rf"{re.escape(base)}(?:\.(\d+|building|stale))?")
            for folder in self.folder.iterdir():
                match = pattern.fullmatch(folder.name)
                if match:
                    tail = match.group(1) or "0"
                    found[folder] = int(tail) if tail.isdigit() else -1
        return found

    def next_generation(self, conn: sqlite3.Connection, name: str) -> int:
        """A generation above the table's and every one on disk: one a process still holds is
        never reused."""
        return 1 + max([self.generation(conn, name), *self.on_disk(name).values()])

    def sweep(self, name: str, keep: int | None) -> None:
        """Remove the store's engine folders but those of generation `keep`. Where the system
        will not remove a folder whose files a process has open (Windows), it is left for the
        next sweep."""
        for folder, generation in self.on_disk(name).items():
            if generation != keep:
                remove(folder)

    def written_before(self, conn: sqlite3.Connection, name: str) -> bool:
        """Whether a sidecar of the layout before generations (a downgrade) wrote the store's
        engine since it moved to a generation: it writes `bm25/<store>`, which a generation's
        rebuild removed."""
        return (self.generation(conn, name) > 0
                and self.folder_of(name, 0) in self.on_disk(name))

    def close(self) -> None:
        with self._guard:
            engines, self._open = [engine for _, engine in self._open.values()], {}
        for engine in engines:
            engine.close()


def name_generation(conn: sqlite3.Connection, name: str, generation: int) -> None:
    """Record `generation` as the store's (in the caller's transaction)."""
    conn.execute(f'INSERT OR REPLACE INTO "{TABLE}" VALUES (?, ?)', (name, generation))
