"""The contradiction list's check of privacy now (`cleaning/live_privacy.py`) reads the settings
as search does: with the index's data folder, which keeps what a missing ora.yaml said."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.cleaning.live_privacy import LivePrivacy
from sidecar.retrieval.private_now import settings_now
from sidecar.vault import settings_memory


def test_a_note_of_a_private_folder_stays_hidden_while_ora_yaml_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(settings_memory, "_memory", {})  # a process that just started
    vault, data = tmp_path / "vault", tmp_path / "data"
    (vault / "Health").mkdir(parents=True)
    data.mkdir()
    (data / "ora.yaml.last-good").write_text("private: [Health]\n", encoding="utf-8")
    note = vault / "Health" / "a.md"
    note.write_text("x\n", encoding="utf-8")
    st = note.stat()
    assert settings_now(vault, data).private_paths()("Health/a.md")  # what search sees
    live = LivePrivacy(vault, data, 1_000_000)
    assert live.turned_private({"Health/a.md": (st.st_size, st.st_mtime_ns)}) == {"Health/a.md"}
