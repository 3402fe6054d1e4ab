"""The plugin reads and edits the vault's ora.yaml through the API, as the CLI does."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from sidecar.settings import Config
from sidecar.vault.vault_settings import load_vault_settings


async def test_vault_settings_route_returns_the_defaults_without_a_file(api: Any) -> None:
    answer = await api.get("/v1/vault-settings")
    assert answer.status == 200
    doc = answer.json
    assert doc["file"] == "ora.yaml" and doc["exists"] is False
    assert doc["folders"]["Engrams/"] == "engram"
    assert doc["untyped_type"] == "resource"
    assert doc["lint"] == {"untyped": "hint", "ignore": []}
    assert doc["problems"] == []


async def test_vault_settings_route_reports_problems_of_a_bad_file(
    api: Any, config: Config
) -> None:
    (config.vault / "ora.yaml").write_text("untyped_type: blog\n", encoding="utf-8")
    doc = (await api.get("/v1/vault-settings")).json
    assert doc["exists"] is True and doc["untyped_type"] == "resource"
    assert len(doc["problems"]) == 1 and "blog" in doc["problems"][0]


async def test_lint_ignore_route_writes_ora_yaml_and_silences_lint(
    api: Any, config: Config
) -> None:
    text = "---\ntype: engram\n---\nbody\n"  # nexus and tags missing: errors
    before = await api.post("/v1/lint", {"path": "Inbox/Draft.md", "text": text})
    assert before.json["diagnostics"]
    answer = await api.post("/v1/vault-settings/lint-ignore", {"path": "Inbox/"})
    assert answer.status == 200
    assert answer.json["lint"]["ignore"] == ["Inbox/"]
    assert load_vault_settings(config.vault, data=None).lint_ignore == ("Inbox/",)
    after = await api.post("/v1/lint", {"path": "Inbox/Draft.md", "text": text})
    assert after.json["diagnostics"] == []


async def test_lint_ignore_route_refuses_paths_outside_the_vault(api: Any) -> None:
    answer = await api.post("/v1/vault-settings/lint-ignore", {"path": "../elsewhere/"})
    assert answer.status == 400


async def test_lint_ignore_route_will_not_edit_an_invalid_file(api: Any, config: Config) -> None:
    (config.vault / "ora.yaml").write_text("lint: [broken\n", encoding="utf-8")
    answer = await api.post("/v1/vault-settings/lint-ignore", {"path": "Inbox/"})
    assert answer.status == 422
    assert answer.json["error"]["code"] == "invalid_settings"


async def test_editing_ora_yaml_by_hand_reaches_lint_and_the_index(
    api: Any, config: Config
) -> None:
    await api.wait_reconciled()
    text = "just a plain note\n"
    hint = await api.post("/v1/lint", {"path": "Inbox/Plain.md", "text": text})
    assert [d["code"] for d in hint.json["diagnostics"]] == ["frontmatter-missing"]
    (config.vault / "ora.yaml").write_text("lint:\n  untyped: off\nexclude: [Resources/]\n")
    for _ in range(300):  # the watcher sees the file, lint reloads, a reconcile runs
        quiet = await api.post("/v1/lint", {"path": "Inbox/Plain.md", "text": text})
        status = (await api.get("/v1/status")).json
        if (quiet.json["diagnostics"] == [] and status["files"] == 3
                and not status["reconcile"]["running"]):
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError(f"settings change not followed: {status}")
    found = await api.post("/v1/search", {"query": "wild yeast dough", "k": 5, "rerank": False})
    assert "Resources/Sourdough.md" not in [r["path"] for r in found.json["results"]]


async def test_search_says_how_far_indexing_is_while_a_writer_indexes(
    api: Any, config: Config
) -> None:
    await api.wait_reconciled()
    query = {"query": "wild yeast dough", "k": 1, "rerank": False}
    assert "indexing" not in (await api.post("/v1/search", query)).json
    # What a writer in another (live) process leaves while it indexes: see index/indexing.py.
    marker = config.data / "indexing.json"
    marker.write_text(json.dumps({"pid": os.getppid(), "done": 2, "total": 8}))
    try:
        answer = await api.post("/v1/search", query)
        assert answer.json["indexing"] == {"done": 2, "total": 8, "percent": 25,
                                           "phase": "words"}
        assert answer.json["results"][0]["path"] == "Resources/Sourdough.md"
    finally:
        marker.unlink()


async def test_the_tasks_global_filter_reaches_the_editors_lint(api: Any, config: Config) -> None:
    """The plugin's in-editor lint (`POST /v1/lint`) knows the Tasks plugin's marker tag as soon
    as its config is saved, as `ora lint` does; it warned `#task` on every task line."""
    await api.wait_reconciled()
    text = ("---\nnexus: []\ntype: resource\ntags: []\ndate created: 2024-04-22\n"
            "date modified: 2024-04-22\n---\n- [ ] Water the plants #task\n")
    warned = await api.post("/v1/lint", {"path": "Daily/2024-04-22.md", "text": text})
    assert [d["code"] for d in warned.json["diagnostics"]] == ["tag-unknown"]
    plugin = config.vault / ".obsidian" / "plugins" / "obsidian-tasks-plugin"
    plugin.mkdir(parents=True)
    (plugin / "data.json").write_text(json.dumps({"globalFilter": "#task"}), encoding="utf-8")
    for _ in range(300):  # the watcher sees the config, lint reloads its settings
        quiet = await api.post("/v1/lint", {"path": "Daily/2024-04-22.md", "text": text})
        if quiet.json["diagnostics"] == []:
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError(f"the Tasks config was not followed: {quiet.json}")
    doc = (await api.get("/v1/vault-settings")).json
    assert doc["obsidian_plugin_tags"] == ["task"]


async def test_lint_ignore_route_answers_409_for_an_ora_yaml_being_saved(
    api: Any, config: Config
) -> None:
    """Empty: an editor between its truncate and its write. It answered 200 and ora.yaml became
    the new entry alone."""
    (config.vault / "ora.yaml").write_bytes(b"")
    answer = await api.post("/v1/vault-settings/lint-ignore", {"path": "Inbox/"})
    assert answer.status == 409
    assert answer.json["error"]["code"] == "conflict"
    assert (config.vault / "ora.yaml").read_bytes() == b""


async def test_lint_ignore_route_will_not_edit_through_a_yaml_alias(
    api: Any, config: Config
) -> None:
    text = "exclude: &ex\n  - Resources/\nlint:\n  ignore: *ex\n"
    (config.vault / "ora.yaml").write_text(text, encoding="utf-8")
    answer = await api.post("/v1/vault-settings/lint-ignore", {"path": "Inbox/"})
    assert answer.status == 422
    assert "anchors or aliases" in answer.json["error"]["message"]
    assert (config.vault / "ora.yaml").read_text(encoding="utf-8") == text
    await api.wait_reconciled()  # the watcher re-plans for the new ora.yaml: let it finish


# ---- round two: the plugin's excluded-folders picker ---------------------------------------------


async def _until(api: Any, done: Any, what: str) -> dict[str, Any]:
    """The status once `done(status, paths found for the sourdough query)` holds and no reconcile
    runs (the route re-plans; the watcher may start one more for the same file)."""
    for _ in range(600):
        status = (await api.get("/v1/status")).json
        found = await api.post("/v1/search", {"query": "wild yeast dough", "k": 5, "rerank": False})
        paths = [r["path"] for r in found.json["results"]]
        if not status["reconcile"]["running"] and done(status, paths):
            return dict(status)
        await asyncio.sleep(0.1)
    raise AssertionError(f"{what}: {status}")


async def test_exclude_route_takes_a_folder_out_of_the_index_and_brings_it_back(
    api: Any, config: Config
) -> None:
    await api.wait_reconciled()
    answer = await api.post("/v1/vault-settings/exclude", {"path": "Resources/", "excluded": True})
    assert answer.status == 200 and answer.json["exclude"] == ["Resources/"]
    assert load_vault_settings(config.vault, data=None).exclude == ("Resources/",)
    await _until(api, lambda s, paths: s["files"] == 3 and "Resources/Sourdough.md" not in paths,
                 "the excluded folder stayed in the index")
    answer = await api.post("/v1/vault-settings/exclude",
                            {"path": "Resources/", "excluded": False})
    assert answer.status == 200 and answer.json["exclude"] == []
    await _until(api, lambda s, paths: s["files"] == 4 and "Resources/Sourdough.md" in paths,
                 "the re-included folder did not come back")


async def test_exclude_saved_while_the_first_index_runs_still_reaches_the_index(
    api: Any, config: Config
) -> None:
    """The start-up reconcile had read ora.yaml already: a folder excluded meanwhile stayed in
    the index until the next start (the lane refused a second reconcile and forgot the change)."""
    answer = await api.post("/v1/vault-settings/exclude", {"path": "Resources/", "excluded": True})
    assert answer.status == 200
    await _until(api, lambda s, paths: s["files"] == 3 and "Resources/Sourdough.md" not in paths,
                 "the exclusion saved during the first index was lost")


async def test_exclude_route_refuses_a_broken_or_saving_ora_yaml_and_writes_nothing(
    api: Any, config: Config
) -> None:
    file = config.vault / "ora.yaml"
    for text, status, code in (("exclude: [broken\n", 422, "invalid_settings"),
                               ("", 409, "conflict")):
        file.write_text(text, encoding="utf-8")
        answer = await api.post("/v1/vault-settings/exclude",
                                {"path": "Resources/", "excluded": True})
        assert answer.status == status and answer.json["error"]["code"] == code
        assert "ora.yaml" in answer.json["error"]["message"]
        assert file.read_text(encoding="utf-8") == text
    await api.wait_reconciled()


async def test_exclude_route_refuses_paths_outside_the_vault(api: Any) -> None:
    answer = await api.post("/v1/vault-settings/exclude",
                            {"path": "../elsewhere/", "excluded": True})
    assert answer.status == 400
