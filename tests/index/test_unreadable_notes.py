"""A note the sidecar may not read (its permissions refuse it) is reported, as a binary or
oversized one is, never left out silently; one indexed before it became unreadable is dropped
from the index (its old text is no longer known to be current, and a note made unreadable is
often one its owner wants hidden) until it can be read again.

The index runs in a process of its own for which a file of mode 000 is unreadable: this user's,
or, as root, root's without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (setpriv drops them from the
bounding set, so the `ora` it starts has them in no set).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import KETTLE, note, write

HIDDEN = "Engrams/Hidden.md"

_RUN = """
import json, sys
from pathlib import Path
from sidecar.index import open_index
from sidecar.index.names import chunk_id
from sidecar.settings import make_config

vault, hidden = Path(sys.argv[1]), sys.argv[2]

def reconcile(data, mode):
    (vault / hidden).chmod(mode)  # chmod changes neither the note's mtime nor its size
    index = open_index(make_config(vault, data), writer=True)
    try:
        result = index.reconcile()
        found = index.get_chunks([cid for cid, _ in index.bm25_search("quokka", 5, private=False)],
                                 private=False)
        vectors = index.chroma.collection("default", False, create=False).get(
            ids=[chunk_id(hidden, 0)])["ids"]
        print(json.dumps({"files": result["files"], "errors": result["errors"],
                          "found": sorted({c.path for c in found.values()}),
                          "vectors": len(vectors)}))
    finally:
        index.close()

for data, mode in zip(sys.argv[3::2], sys.argv[4::2]):
    reconcile(Path(data), int(mode, 8))
"""


def _without_read_override(probe: Path) -> list[str]:
    """The command prefix under which a file of mode 000 cannot be read (none for a user who is
    not root), or a skip saying why there is none."""
    prefix: list[str] = []
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("as root, a file of mode 000 is readable unless CAP_DAC_OVERRIDE is "
                        "dropped: that needs setpriv (util-linux)")
        prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
    probe.write_text("secret")
    probe.chmod(0)
    try:
        tried = subprocess.run(
            [*prefix, sys.executable, "-c", "import sys; open(sys.argv[1]).read()", str(probe)],
            capture_output=True, timeout=60)
    finally:
        probe.unlink()
    if tried.returncode == 0:
        pytest.skip("this system lets the test read a file of mode 000 (Windows, or a "
                    "capability setpriv cannot drop)")
    return prefix


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(root, "Engrams/Kettle.md", KETTLE)
    write(root, HIDDEN, note("engram", "# Hidden\n\nThe quokka smiles at the camera."))
    return root


def _runs(tmp_path: Path, vault: Path, *runs: tuple[str, int]) -> list[dict[str, Any]]:
    """Each (data folder, the hidden note's mode) in turn, reconciled in one process with read
    permissions enforced: what each reconcile says and finds."""
    prefix = _without_read_override(tmp_path / "probe")
    env = {**os.environ, "ORA_EMBED_MODEL": "int8", "ORA_MODELS_DIR": str(tmp_path / "models"),
           "PYTHONDONTWRITEBYTECODE": "1"}
    args = [a for data, mode in runs for a in (str(tmp_path / data), f"{mode:o}")]
    done = subprocess.run([*prefix, sys.executable, "-c", _RUN, str(vault), HIDDEN, *args],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _refused(result: dict[str, Any]) -> bool:
    return [e["path"] for e in result["errors"]] == [HIDDEN] and all(
        "cannot be read: permission denied" in e["message"] for e in result["errors"])


def test_a_note_the_sidecar_cannot_read_is_reported_not_left_out_silently(
    tmp_path: Path,
) -> None:
    (fresh,) = _runs(tmp_path, _vault(tmp_path), ("data", 0o000))
    assert fresh["files"] == 2 and _refused(fresh)
    assert (fresh["found"], fresh["vectors"]) == ([], 0)


def test_a_note_that_becomes_unreadable_is_dropped_and_reported_until_readable_again(
    tmp_path: Path,
) -> None:
    readable, unreadable, again = _runs(
        tmp_path, _vault(tmp_path), ("data", 0o644), ("data", 0o000), ("data", 0o644))
    assert (readable["errors"], readable["found"], readable["vectors"]) == ([], [HIDDEN], 1)
    # Its old text is not served as current: gone from both stores, and the run says why.
    assert unreadable["files"] == 2 and _refused(unreadable)
    assert (unreadable["found"], unreadable["vectors"]) == ([], 0)
    # Readable again, with the same mtime and size: indexed again, not trusted from the error.
    assert (again["errors"], again["found"], again["vectors"]) == ([], [HIDDEN], 1)
