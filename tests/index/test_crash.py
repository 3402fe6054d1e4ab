"""`kill -9` at any moment of `ora index` loses nothing: the next run converges to a clean index.

A run writes every note by its words, then embeds them (issue 29): kills land in either pass
(by a timer, or right after a store's write), and the finished run has every note embedded.

Several `ora index` processes are killed at random points while the vault also changes between
runs; then one run finishes, and its stores must equal those of a fresh build in another folder:
the same chunk ids in the same stores with the same metadata, no orphans, no duplicates.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from sidecar.index import open_index
from sidecar.settings import make_config

from .conftest import note, write

TOPICS = ["kettle limescale", "green tea", "sourdough", "bicycle chains", "tax returns", "kites"]


def _body(i: int, salt: int = 0) -> str:
    topic = TOPICS[i % len(TOPICS)]
    return (f"# Note {i}\n\nAbout {topic}: observation {i}.{salt}.\n\n"
            f"## Detail\n\n{topic.capitalize()} detail number {i * 7 + salt}.")  # fmt: skip


def _write_note(root: Path, i: int, salt: int = 0) -> None:
    kind = ["engram", "resource", "chat", "web", "matrix"][i % 5]
    tags = ["private"] if i % 9 == 0 else ["archived"] if i % 13 == 0 else []
    extra = {"date_created": f"2024-0{1 + i % 9}-1{i % 10}"} if kind in ("chat", "web") else {}
    write(root, f"Notes/Note {i}.md", note(kind, _body(i, salt), tags, **extra))


def _mutate(root: Path, rng: random.Random, round_: int) -> None:
    notes = sorted((root / "Notes").glob("*.md"))
    for path in rng.sample(notes, 15):
        i = int(path.stem.split()[-1])
        choice = rng.choice(["edit", "tags", "move", "delete"])
        if choice == "edit":
            path.write_text(note("engram", _body(i, round_ + 1)), encoding="utf-8")
        elif choice == "tags":
            path.write_text(path.read_text().replace("tags: []", 'tags: ["private"]'))
        elif choice == "move":
            (root / "Moved").mkdir(exist_ok=True)
            path.rename(root / "Moved" / path.name)
        else:
            path.unlink()
    _write_note(root, 1000 + round_)


def _ora_index(root: Path, data: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    ora = str(Path(sys.executable).parent / "ora")
    cmd = [ora, "index", str(root), "--data", str(data), "--json"]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _stamp(path: Path) -> tuple[int, int]:
    try:
        st = path.stat()
    except FileNotFoundError:
        return (0, 0)
    return (st.st_mtime_ns, st.st_size)


# Where a run is killed: by a timer (start-up, repair, scan), or the moment a file of one store
# changes, i.e. right after a Chroma write, a BM25 commit or a ledger commit.
KILL_POINTS = {
    "chroma": "chroma/chroma.sqlite3",
    "bm25": "bm25.sqlite-wal",
    "ledger": "ledger.sqlite-wal",
}


def _kill_midway(proc: subprocess.Popen[bytes], data: Path, rng: random.Random) -> bool:
    """SIGKILL `proc` at a random kind of moment; True if it was still running then."""
    point = rng.choice(["timer", *KILL_POINTS])
    if point == "timer":
        time.sleep(rng.uniform(0.3, 4.0))
    else:
        watched = data / KILL_POINTS[point]
        before = _stamp(watched)
        while proc.poll() is None and _stamp(watched) == before:
            time.sleep(0.002)
        time.sleep(rng.uniform(0.0, 0.05))
    if proc.poll() is not None:
        assert proc.returncode == 0
        return False
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return True


def _state(root: Path, data: Path) -> dict[str, Any]:
    with open_index(make_config(root, data), writer=False) as index:
        ns = index.namespace
        out: dict[str, Any] = {"ledger": {
            p: (r.hash, r.chunk_ids, r.private, r.cluster, r.error, r.embedded)
            for p, r in index.ledger.rows(ns).items()
        }}  # fmt: skip
        for private in (False, True):
            ids = sorted(index.chroma.ids(ns, private))
            got = index.chroma.get(ns, private, ids)
            out[f"chroma/{private}"] = {cid: (doc, dict(meta)) for cid, (doc, meta) in got.items()}
            out[f"bm25/{private}"] = sorted(index.bm25.ids(ns, private))
            assert out[f"bm25/{private}"] == ids  # BM25 and Chroma hold the same chunks
    owned = sorted(c for row in out["ledger"].values() for c in row[1])
    stored = sorted([*out["bm25/False"], *out["bm25/True"]])
    assert owned == stored  # no orphan, nothing missing, nothing duplicated
    return out


@pytest.mark.slow
def test_sigkill_at_random_points_converges_to_a_fresh_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, data = tmp_path / "vault", tmp_path / "data"
    for i in range(200):
        _write_note(root, i)
    env = {**os.environ, "ORA_EMBED_MODEL": "int8", "ORA_MODELS_DIR": str(tmp_path / "models")}
    for key in ("ORA_EMBED_MODEL", "ORA_MODELS_DIR"):
        monkeypatch.setenv(key, env[key])
    rng = random.Random(20240605)
    killed = 0
    for round_ in range(8):
        killed += _kill_midway(_ora_index(root, data, env), data, rng)
        _mutate(root, rng, round_)
    assert killed >= 4, "the runs finished before they could be killed; use a bigger vault"
    assert _ora_index(root, data, env).wait() == 0
    assert _ora_index(root, tmp_path / "fresh", env).wait() == 0
    assert _state(root, data) == _state(root, tmp_path / "fresh")
