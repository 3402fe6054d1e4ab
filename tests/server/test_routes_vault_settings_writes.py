"""The plugin's edits of ora.yaml (`POST /v1/vault-settings/exclude`, `…/lint-ignore`) never
leave a file the reader cannot read, and never answer 200 for an edit that does not apply."""

from __future__ import annotations

from typing import Any

import pytest

from sidecar.settings import Config
from sidecar.vault import settings_memory
from sidecar.vault.vault_settings import MAX_SETTINGS_BYTES, load_vault_settings

MINE = "# mine\nprivate: [Health/]  # medical\nexclude: [Old/]\n"


async def test_excluding_folders_named_like_yaml_keeps_the_file_readable(
    api: Any, config: Config, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before: `? q/` was written bare into the flow list and read as a mapping (`exclude`
    # unreadable: settings unsafe), and `: x/` made the file invalid YAML; both answered 200.
    (config.vault / "ora.yaml").write_text(MINE, encoding="utf-8")
    for folder in ("? q/", ": x/", "No/"):
        answer = await api.post("/v1/vault-settings/exclude", {"path": folder, "excluded": True})
        assert answer.status == 200
        assert answer.json["exclude"][-1] == folder and answer.json["problems"] == []
    answer = await api.post("/v1/vault-settings/lint-ignore", {"path": "Drafts/"})
    assert answer.status == 200
    monkeypatch.setattr(settings_memory, "_memory", {})  # another machine's reader
    settings = load_vault_settings(config.vault, data=None)
    assert settings.problems == () and not settings.unsafe
    assert settings.private == ("Health/",)
    assert settings.exclude == ("Old/", "? q/", ": x/", "No/")
    assert "# medical" in (config.vault / "ora.yaml").read_text(encoding="utf-8")


async def test_an_edit_of_a_file_over_the_readers_cap_is_refused(
    api: Any, config: Config,
) -> None:
    # Before: written, and answered 200 with settings that did not have it (the reader reads
    # no file this large).
    text = "private:\n  - Health/\nlint:\n  ignore:\n    - Old/\n" + (
        "# " + "x" * 98 + "\n") * (MAX_SETTINGS_BYTES // 100 + 1)
    (config.vault / "ora.yaml").write_text(text, encoding="utf-8")
    answer = await api.post("/v1/vault-settings/lint-ignore", {"path": "Drafts/"})
    assert answer.status == 422
    assert answer.json["error"]["code"] == "invalid_settings"
    assert "larger than" in answer.json["error"]["message"]
    assert (config.vault / "ora.yaml").read_text(encoding="utf-8") == text


async def test_an_edit_of_a_file_whose_private_cannot_be_read_is_refused(
    api: Any, config: Config,
) -> None:
    text = "private: {Health: yes}\nexclude: [Old/]\n"
    (config.vault / "ora.yaml").write_text(text, encoding="utf-8")
    answer = await api.post("/v1/vault-settings/exclude", {"path": "Drafts/", "excluded": True})
    assert answer.status == 422
    assert "private must be a list" in answer.json["error"]["message"]
    assert (config.vault / "ora.yaml").read_text(encoding="utf-8") == text


async def test_the_settings_say_when_an_edit_of_exclude_would_be_refused(
    api: Any, config: Config,
) -> None:
    # Before: the plugin guessed it from the problems' English wording, and offered edits of a
    # file the editor refuses (too large, not YAML) that then failed one by one.
    file = config.vault / "ora.yaml"
    file.write_text(MINE, encoding="utf-8")
    answer = await api.get("/v1/vault-settings")
    assert answer.status == 200 and answer.json["exclude_refused"] is None
    file.write_text(MINE + "#" * (MAX_SETTINGS_BYTES + 10) + "\n", encoding="utf-8")
    answer = await api.get("/v1/vault-settings")
    assert answer.json["exclude"] == ["Old/"]  # the settings it last had
    refused = answer.json["exclude_refused"]
    assert isinstance(refused, str) and "ora.yaml" in refused
    tried = await api.post("/v1/vault-settings/exclude", {"path": "Ideas/", "excluded": True})
    assert tried.status == 422 and tried.json["error"]["message"] == refused
    file.write_text("exclude: [Old/\n", encoding="utf-8")  # not YAML
    assert "not valid YAML" in (await api.get("/v1/vault-settings")).json["exclude_refused"]


async def test_an_edit_answers_whether_the_next_one_would_be_refused(
    api: Any, config: Config,
) -> None:
    # Before: only GET said it; after an edit the picker guessed it from the problems' wording.
    (config.vault / "ora.yaml").write_text(MINE, encoding="utf-8")
    added = await api.post("/v1/vault-settings/exclude", {"path": "Ideas/", "excluded": True})
    ignored = await api.post("/v1/vault-settings/lint-ignore", {"path": "Inbox/"})
    for answer in (added, ignored):
        assert answer.status == 200 and "exclude_refused" in answer.json
        assert answer.json["exclude_refused"] is None
