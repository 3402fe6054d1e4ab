"""The vault's own settings file (ora.yaml): defaults, folder rules, exclusions, a bad file, the
round-trip writers of lint-ignore entries and of `exclude` (the plugin's excluded-folders
picker)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import pytest

from sidecar.errors import Conflict, InvalidSettings
from sidecar.schema import load_json
from sidecar.vault.settings_edit import add_lint_ignore, set_excluded
from sidecar.vault.vault_settings import (
    VaultSettings,
    default_vault_settings,
    effective_type,
    is_excluded,
    is_lint_ignored,
    is_private_path,
    load_vault_settings,
    note_language,
    opted_out,
    settings_files,
)


def _vault(tmp_path: Path, settings: str | None = None, app: object = None) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    if settings is not None:
        (root / "ora.yaml").write_text(settings, encoding="utf-8")
    if app is not None:
        (root / ".obsidian").mkdir()
        (root / ".obsidian" / "app.json").write_text(json.dumps(app), encoding="utf-8")
    return root


def _assert_matches(matches: Callable[[VaultSettings, str], bool], settings: VaultSettings, *,
                    hits: tuple[str, ...], misses: tuple[str, ...]) -> None:
    """`matches` (`is_excluded`, `is_lint_ignored`) takes every path of `hits` and none of
    `misses`; a failure names the paths it got wrong."""
    assert [rel for rel in hits if not matches(settings, rel)] == []
    assert [rel for rel in misses if matches(settings, rel)] == []


def test_a_vault_without_ora_yaml_gets_the_defaults_from_schema_data(tmp_path: Path) -> None:
    settings = load_vault_settings(_vault(tmp_path), data=None)
    defaults = load_json("vault_defaults.json")
    assert dict(settings.folders) == defaults["folders"]
    assert settings.untyped_type == defaults["untyped_type"] == "resource"
    assert settings.lint_untyped == "hint" and settings.chats_folder == "Chats/Ora"
    assert settings.problems == () and not settings.file_exists
    assert settings == default_vault_settings()


@pytest.mark.parametrize(("rel", "declared", "expected"), [
    ("Engrams/Sleep.md", None, ("engram", True)),
    ("engrams/lower case folder.md", None, ("engram", True)),
    ("Chats/2024/Talk.md", None, ("chat", True)),
    ("Daily/2024-05-01.md", None, ("resource", True)),
    ("Top level.md", None, ("resource", True)),
    ("Web/Saved.md", "engram", ("engram", False)),  # a declared Ora type wins
    ("Web/Saved.md", "book", ("web", True)),  # a vault's own type value is not Ora's
])
def test_effective_type_by_declared_type_folder_rule_and_default(
    tmp_path: Path, rel: str, declared: str | None, expected: tuple[str, bool]
) -> None:
    assert effective_type(load_vault_settings(_vault(tmp_path), None), rel, declared) == expected


def test_folder_rules_merge_over_defaults_and_the_longest_prefix_wins(tmp_path: Path) -> None:
    vault = _vault(tmp_path, "folders:\n  Notes/: engram\n  Notes/Clippings: web\n"
                             "  Web/: null\nuntyped_type: chat\n")
    settings = load_vault_settings(vault, data=None)
    assert effective_type(settings, "Notes/Clippings/a.md", None) == ("web", True)
    assert effective_type(settings, "Notes/b.md", None) == ("engram", True)
    assert effective_type(settings, "Web/c.md", None) == ("chat", True)  # default rule removed
    assert effective_type(settings, "Engrams/d.md", None) == ("engram", True)
    assert settings.problems == () and settings.file_exists


def test_exclusions_take_paths_folders_and_globs(tmp_path: Path) -> None:
    vault = _vault(tmp_path, "exclude:\n  - Templates\n  - '**/*.excalidraw.md'\n"
                             "  - Inbox/draft?.md\n")
    settings = load_vault_settings(vault, data=None)
    _assert_matches(is_excluded, settings,
                    hits=("Templates/Daily.md", "Templates/Sub/x.md", "Drawing.excalidraw.md",
                          "A/B/Drawing.excalidraw.md", "Inbox/draft1.md"),
                    misses=("Templates2/x.md", "Inbox/draft12.md", "Notes/Plain.md"))


def test_folders_with_brackets_and_folder_globs_cover_what_is_beneath(tmp_path: Path) -> None:
    """The plugin's "ignore this folder" on `Daily [old]/`, and a folder glob, used to match
    nothing: a `[` made the entry a glob, and a glob ending in `/` wanted a second `/`."""
    vault = _vault(tmp_path, "exclude:\n  - '**/attachments/'\n  - Projects/*/drafts\n"
                             "lint:\n  ignore:\n    - Daily [old]/\n    - '[Meta].md'\n")
    settings = load_vault_settings(vault, data=None)
    _assert_matches(is_lint_ignored, settings,
                    hits=("Daily [old]/2020-01-01.md", "Daily [old]/Sub/x.md", "[Meta].md"),
                    misses=("Daily o/x.md", "M.md"))
    _assert_matches(is_excluded, settings,
                    hits=("attachments/a.md", "Notes/attachments/a.md",
                          "Projects/Ora/drafts/x.md"),
                    misses=("Notes/attachments.md", "Projects/Ora/final/x.md"))


def test_obsidian_excluded_files_are_honoured_with_obsidians_matching(tmp_path: Path) -> None:
    vault = _vault(tmp_path, app={"userIgnoreFilters": ["Archive/", "/\\.draft\\.md$/", 3]})
    settings = load_vault_settings(vault, data=None)
    assert settings.obsidian_excluded == ("Archive/", "/\\.draft\\.md$/")
    _assert_matches(is_excluded, settings, hits=("Archive/Old.md", "Ideas/x.draft.md"),
                    # Obsidian's prefixes are case-sensitive
                    misses=("Ideas/x.md", "archive/old.md"))


def test_obsidians_templates_are_left_out(tmp_path: Path) -> None:
    """A template is a skeleton: found by search it is noise, and `ora adopt` used to propose
    a fixed `date created` for it, which every note made from it would have copied."""
    vault = _vault(tmp_path)
    configs = {".obsidian/templates.json": {"folder": "Templates"},
               ".obsidian/plugins/templater-obsidian/data.json": {"templates_folder": "/Meta/Tp/"},
               ".obsidian/daily-notes.json": {"folder": "Daily", "template": "Meta/Daily plan"}}
    for rel, config in configs.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(json.dumps(config), encoding="utf-8")
    settings = load_vault_settings(vault, data=None)
    assert settings.obsidian_templates == ("Templates/", "Meta/Tp/", "Meta/Daily plan.md")
    assert settings.to_json()["obsidian_templates"] == list(settings.obsidian_templates)
    _assert_matches(is_excluded, settings,
                    hits=("Templates/Meeting.md", "Meta/Tp/sub/x.md", "Meta/Daily plan.md"),
                    misses=("Templates.md", "Meta/Daily plan 2.md", "Daily/2024-05-01.md"))
    assert default_vault_settings().index_key() == _settings_key_without_templates(vault)
    assert settings.index_key() != default_vault_settings().index_key()


def test_a_plugins_marker_tag_is_read_from_its_config(tmp_path: Path) -> None:
    """The Tasks plugin's global filter (`#task` on every task line) is the vault's own word:
    lint knows it. It is a settings file, so the watcher follows it; the index does not depend
    on it."""
    vault = _vault(tmp_path)
    rel = ".obsidian/plugins/obsidian-tasks-plugin/data.json"
    assert rel in settings_files()
    (vault / rel).parent.mkdir(parents=True)
    (vault / rel).write_text(json.dumps({"globalFilter": "#task", "globalQuery": ""}),
                             encoding="utf-8")
    settings = load_vault_settings(vault, data=None)
    assert settings.plugin_tags == ("task",)
    assert settings.to_json()["obsidian_plugin_tags"] == ["task"]
    assert settings.index_key() == default_vault_settings().index_key()
    (vault / rel).write_text("{not json", encoding="utf-8")
    assert load_vault_settings(vault, data=None).plugin_tags == ()


def _settings_key_without_templates(vault: Path) -> str:
    """The index key of `vault` once its template configs name nothing (a vault without them
    keeps the key it had before templates were read: its index is not re-planned)."""
    for name in ("templates.json", "daily-notes.json", "plugins/templater-obsidian/data.json"):
        (vault / ".obsidian" / name).write_text("{}", encoding="utf-8")
    return load_vault_settings(vault, data=None).index_key()


def test_a_broken_obsidian_app_json_excludes_nothing(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "app.json").write_text("{not json", encoding="utf-8")
    assert load_vault_settings(vault, data=None).obsidian_excluded == ()


def test_an_app_json_caught_half_written_keeps_the_exclusions_last_read(tmp_path: Path) -> None:
    # Before: Obsidian rewrites app.json in place, and a read mid-write excluded nothing: every
    # excluded note was indexed, then dropped again at the next read.
    vault = _vault(tmp_path, app={"userIgnoreFilters": ["Archive/"]})
    assert load_vault_settings(vault, data=None).obsidian_excluded == ("Archive/",)
    app = vault / ".obsidian" / "app.json"
    for half in ("", '{"userIgnoreFilters": ["Arch'):
        app.write_text(half, encoding="utf-8")
        assert load_vault_settings(vault, data=None).obsidian_excluded == ("Archive/",)
    app.write_text('{"userIgnoreFilters": []}', encoding="utf-8")
    assert load_vault_settings(vault, data=None).obsidian_excluded == ()
    app.unlink()
    assert load_vault_settings(vault, data=None).obsidian_excluded == ()


@pytest.mark.parametrize(("text", "problem"), [
    ("folders: [unclosed\n", "invalid YAML"),
    ("- a list\n", "must be a mapping"),
    ("untyped_type: blog\n", "untyped_type 'blog'"),
    ("lint:\n  untyped: loud\n", "lint.untyped 'loud'"),
    ("exclude: 3\n", "exclude must be a list"),
    ("folders:\n  Notes/: novel\n", "unknown type 'novel'"),
    ("colour: blue\n", "unknown setting(s) colour"),
    ("chats_folder: ../outside\n", "chats_folder must be a folder inside the vault"),
    # YAML allows a key once; PyYAML kept the last, silently (fail on the code before).
    ("private: [A/]\nexclude: []\nprivate: [B/]\n",
     "invalid YAML: the key 'private' is given twice (lines 1 and 3)"),
    ("lint:\n  ignore: [a]\n  untyped: off\n  ignore: [b]\n",
     "invalid YAML: the key 'lint.ignore' is given twice (lines 2 and 4)"),
    ("folders: {A/: engram, A/: resource}\n",
     "invalid YAML: the key 'folders.A/' is given twice (line 1)"),
])
def test_a_bad_file_gives_a_clear_problem_and_the_defaults(
    tmp_path: Path, text: str, problem: str
) -> None:
    settings = load_vault_settings(_vault(tmp_path, text), data=None)
    assert len(settings.problems) == 1
    assert problem in settings.problems[0] and "ora.yaml" in settings.problems[0]
    defaults = default_vault_settings()
    assert settings.folders == defaults.folders
    assert settings.untyped_type == defaults.untyped_type
    assert settings.lint_untyped == defaults.lint_untyped
    assert settings.chats_folder == defaults.chats_folder


def test_lint_off_may_be_written_as_a_bare_yaml_off(tmp_path: Path) -> None:
    settings = load_vault_settings(_vault(tmp_path, "lint:\n  untyped: off\n"), data=None)
    assert settings.lint_untyped == "off" and settings.problems == ()


@pytest.mark.parametrize(("frontmatter", "out"), [
    ({"ora-lint": "ignore"}, True), ({"ora-lint": False}, True), ({"ora-lint": "Off"}, True),
    ({"ora-lint": "strict"}, False), ({}, False),
])
def test_a_note_opts_out_of_lint_by_its_ora_lint_property(
    frontmatter: dict[str, object], out: bool
) -> None:
    assert opted_out(frontmatter) is out


def test_add_lint_ignore_creates_the_file_when_absent(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    settings = add_lint_ignore(vault, "Daily/", data_folder=None)
    assert settings.lint_ignore == ("Daily/",)
    _assert_matches(is_lint_ignored, settings, hits=("Daily/2024-01-01.md",),
                    misses=("Notes/x.md",))
    assert load_vault_settings(vault, data=None).lint_ignore == ("Daily/",)


def test_add_lint_ignore_keeps_comments_order_and_other_keys(tmp_path: Path) -> None:
    text = ("# my vault's Ora settings\nfolders:\n  Zettel/: engram  # curated\n"
            "lint:\n  untyped: hint\n  ignore:\n    - Templates/\n"
            "chats_folder: 'Chats/Ora'\n")
    vault = _vault(tmp_path, text)
    add_lint_ignore(vault, "Inbox/Scratch.md", data_folder=None)
    add_lint_ignore(vault, "Inbox/Scratch.md", data_folder=None)  # a second time changes nothing
    after = (vault / "ora.yaml").read_text(encoding="utf-8")
    assert after == text.replace("    - Templates/\n", "    - Templates/\n    - Inbox/Scratch.md\n")
    assert not list(vault.glob(".ora.yaml.*"))  # no temp file left behind


def test_add_lint_ignore_keeps_windows_line_endings(tmp_path: Path) -> None:
    text = ("# my vault's Ora settings\r\nexclude:   # skipped\r\n  - Templates/\r\n\r\n"
            "lint:\r\n  untyped: hint\r\n  ignore:\r\n    - Daily/\r\n")
    vault = _vault(tmp_path, text)
    (vault / "ora.yaml").write_bytes(text.encode("utf-8"))  # as written on Windows
    add_lint_ignore(vault, "Inbox/", data_folder=None)
    after = (vault / "ora.yaml").read_bytes().decode("utf-8")
    assert after == text.replace("    - Daily/\r\n", "    - Daily/\r\n    - Inbox/\r\n")


def test_add_lint_ignore_refuses_a_file_it_cannot_edit_and_leaves_it(tmp_path: Path) -> None:
    vault = _vault(tmp_path, "lint: [broken\n")
    with pytest.raises(InvalidSettings):
        add_lint_ignore(vault, "Daily/", data_folder=None)
    assert (vault / "ora.yaml").read_text(encoding="utf-8") == "lint: [broken\n"


def test_add_lint_ignore_leaves_a_linked_settings_file_a_link(tmp_path: Path) -> None:
    """ora.yaml kept elsewhere (a dotfiles folder) and linked into the vault: the atomic write
    replaced the link with a plain file, so the user's own copy silently stopped applying."""
    elsewhere = tmp_path / "dotfiles" / "ora.yaml"
    elsewhere.parent.mkdir()
    elsewhere.write_text("lint:\n  ignore: [Daily/]\n", encoding="utf-8")
    vault = _vault(tmp_path)
    (vault / "ora.yaml").symlink_to(elsewhere)
    with pytest.raises(InvalidSettings, match="symbolic link"):
        add_lint_ignore(vault, "Inbox/", data_folder=None)
    assert (vault / "ora.yaml").is_symlink()
    assert elsewhere.read_text(encoding="utf-8") == "lint:\n  ignore: [Daily/]\n"
    assert load_vault_settings(vault, data=None).lint_ignore == ("Daily/",)


def test_deleting_the_index_folder_loses_no_setting(tmp_path: Path) -> None:
    vault = _vault(tmp_path, "untyped_type: engram\n")
    (vault / ".ora").mkdir()
    add_lint_ignore(vault, "Daily/", data_folder=None)
    before = load_vault_settings(vault, data=None)
    for child in (vault / ".ora").iterdir():
        child.unlink()
    (vault / ".ora").rmdir()
    assert load_vault_settings(vault, data=None) == before


# ---- round two: ora.yaml goes through the one compare-and-swap writer ----------------------------

_MINE = ("# my settings\nuntyped_type: engram\nexclude: [Archive/]\nlint:\n  untyped: off\n"
         "chats_folder: Chats/Ora\n")


def test_add_lint_ignore_refuses_an_empty_ora_yaml_and_writes_nothing(tmp_path: Path) -> None:
    """An editor between its truncate and its write leaves ora.yaml empty: the entry alone
    replaced every setting the user had (and the editor's save then went into a deleted file)."""
    vault = _vault(tmp_path, "")
    with pytest.raises(Conflict, match="empty"):
        add_lint_ignore(vault, "Daily/", data_folder=None)
    assert (vault / "ora.yaml").read_bytes() == b""


_EDITS: dict[str, Callable[[Path, int], object]] = {
    "lint-ignore": lambda vault, n: add_lint_ignore(vault, f"Inbox {n}/", data_folder=None),
    "exclude": lambda vault, n: set_excluded(vault, f"Inbox {n // 2}/", n % 2 == 0, None),
}


@pytest.mark.parametrize("edit", _EDITS.values(), ids=_EDITS.keys())
def test_editing_ora_yaml_racing_an_editors_saves_never_loses_a_setting(
    tmp_path: Path, edit: Callable[[Path, int], object]
) -> None:
    """An editor saving ora.yaml in a loop (truncate, write) while entries are added (and, for
    `exclude`, removed): after each of its saves the file still holds every setting (Ora's
    edits may come on top, or Ora's call is a Conflict); before, an addition landing mid-save
    left only the entry."""
    vault = _vault(tmp_path, _MINE)
    file = vault / "ora.yaml"
    stop = threading.Event()
    lost: list[str] = []

    def editor() -> None:
        while not stop.is_set():
            with open(file, "w", encoding="utf-8") as handle:  # truncated: the save has begun
                time.sleep(0.001)
                handle.write(_MINE)
            after = file.read_text(encoding="utf-8")
            if "untyped_type: engram" not in after or "# my settings" not in after:
                lost.append(after)

    saving = threading.Thread(target=editor)
    saving.start()
    written = refused = 0
    try:
        for n in range(150):
            try:
                edit(vault, n)
                written += 1
            except Conflict:
                refused += 1
    finally:
        stop.set()
        saving.join()
    assert lost == [], f"{len(lost)} saves lost the settings, e.g. {lost[0]!r}"
    assert refused > 0  # the race was run: some additions met the file mid-save
    assert load_vault_settings(vault, data=None).untyped_type == "engram"


def test_add_lint_ignore_refuses_ora_yaml_with_anchors_and_aliases(tmp_path: Path) -> None:
    """`lint: {ignore: *ex}` shares `exclude`'s list: an entry added to one was added to both,
    so the ignored note silently left the index too. Nothing is written now."""
    text = "exclude: &ex\n  - Archive/\nlint:\n  ignore: *ex\n"
    vault = _vault(tmp_path, text)
    with pytest.raises(InvalidSettings, match="anchors or aliases"):
        add_lint_ignore(vault, "Daily/", data_folder=None)
    assert (vault / "ora.yaml").read_text(encoding="utf-8") == text
    assert load_vault_settings(vault, data=None).exclude == ("Archive/",)


def test_an_obsidian_pattern_with_catastrophic_backtracking_runs_in_linear_time(
    tmp_path: Path
) -> None:
    """`/^(a|a)+$/` against a long name: Python's backtracking engine took time exponential in
    the name's length (`ora index` never finished). RE2 answers at once."""
    vault = _vault(tmp_path, app={"userIgnoreFilters": ["/^(a|a)+$/", "/^Daily\\/\\d{4}-/"]})
    settings = load_vault_settings(vault, data=None)
    assert settings.problems == ()
    started = time.monotonic()
    assert not is_excluded(settings, "a" * 5000 + ".md")
    assert is_excluded(settings, "a" * 64) and is_excluded(settings, "Daily/2024-01-01.md")
    assert time.monotonic() - started < 1


def test_an_obsidian_pattern_re2_cannot_run_is_reported_and_not_applied(tmp_path: Path) -> None:
    vault = _vault(tmp_path, app={"userIgnoreFilters": ["/(?=Secret)/", "/(x)\\1/"]})
    settings = load_vault_settings(vault, data=None)
    assert len(settings.problems) == 2
    assert all(".obsidian/app.json" in p and "not supported" in p for p in settings.problems)
    assert not is_excluded(settings, "Secret.md")


def test_ora_index_with_a_catastrophic_obsidian_pattern_finishes(tmp_path: Path) -> None:
    vault = _vault(tmp_path, app={"userIgnoreFilters": ["/^(a|a)+$/"]})
    (vault / ("a" * 40 + ".md")).write_text("A note about tides.\n", encoding="utf-8")
    done = subprocess.run(
        [str(Path(sys.executable).with_name("ora")), "index", str(vault), "--data",
         str(tmp_path / "data")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


# ---- round two: the plugin's excluded-folders picker edits `exclude` -----------------------------


def test_set_excluded_creates_the_file_and_takes_a_folder_out(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    settings = set_excluded(vault, "Archive/", True, data_folder=None)
    assert settings.exclude == ("Archive/",)
    _assert_matches(is_excluded, settings, hits=("Archive/2019/old.md",), misses=("Notes/x.md",))
    assert set_excluded(vault, "Archive", True, None).exclude == ("Archive/",)  # the same folder


@pytest.mark.parametrize("spelling", [
    "./Journal/", "'Journal\\'", "' /Journal'", "'Journal/ '",
    "'.\\Journal'",
], ids=["dot-slash", "backslash", "leading-space", "trailing-space", "dot-backslash"])
def test_set_excluded_removes_every_spelling_the_reader_matches(
    tmp_path: Path, spelling: str,
) -> None:
    # Before: `./Journal/` or `Journal\` stayed in the file, still excluding the folder.
    vault = _vault(tmp_path, f"exclude:\n  - {spelling}\n")
    assert is_excluded(load_vault_settings(vault, None), "Journal/a.md")
    settings = set_excluded(vault, "Journal/", False, data_folder=None)
    assert settings.exclude == () and not is_excluded(settings, "Journal/a.md")


def test_set_excluded_removes_a_folder_saved_decomposed(tmp_path: Path) -> None:
    vault = _vault(tmp_path, "exclude:\n  - Sante\u0301/\n")  # as macOS may save it
    assert is_excluded(load_vault_settings(vault, None), "Sant\u00e9/a.md")
    assert set_excluded(vault, "Sant\u00e9/", False, data_folder=None).exclude == ()


def test_set_excluded_removes_every_spelling_and_keeps_every_other_byte(tmp_path: Path) -> None:
    text = ("# my settings\nexclude:   # never indexed\n  - Scratch/  # drafts\n"
            "  - /Archive/\n  - \"**/*.tmp.md\"\n  - Archive\nlint:\n  untyped: off\n")
    vault = _vault(tmp_path, text)
    settings = set_excluded(vault, "Archive/", False, data_folder=None)
    assert settings.exclude == ("Scratch/", "**/*.tmp.md")
    after = (vault / "ora.yaml").read_text(encoding="utf-8")
    assert after == text.replace("  - /Archive/\n", "").replace("  - Archive\n", "")
    set_excluded(vault, "Archive/", False, None)  # nothing left to remove: nothing written
    assert (vault / "ora.yaml").read_text(encoding="utf-8") == after
    set_excluded(vault, "Daily/", True, data_folder=None)
    assert (vault / "ora.yaml").read_text(encoding="utf-8") == after.replace(
        '  - "**/*.tmp.md"\n', '  - "**/*.tmp.md"\n  - Daily/\n')


def test_set_excluded_turns_a_single_pattern_into_a_list(tmp_path: Path) -> None:
    vault = _vault(tmp_path, "exclude: Scratch/\n")
    assert set_excluded(vault, "Daily/", True, data_folder=None).exclude == ("Scratch/", "Daily/")


@pytest.mark.parametrize("text", ["exclude: [broken\n", "exclude: {a: b}\n",
                                  "exclude: &ex [A/]\nprivate: *ex\n"])
def test_set_excluded_refuses_a_file_it_cannot_edit_and_leaves_it(
    tmp_path: Path, text: str
) -> None:
    vault = _vault(tmp_path, text)
    with pytest.raises(InvalidSettings):
        set_excluded(vault, "Daily/", True, data_folder=None)
    assert (vault / "ora.yaml").read_text(encoding="utf-8") == text


def test_a_merge_key_overridden_in_its_mapping_is_no_duplicate(tmp_path: Path) -> None:
    settings = load_vault_settings(_vault(
        tmp_path, "x-base: &base {A/: engram, B/: resource}\nfolders:\n  <<: *base\n"
        "  A/: resource\n"), data=None)
    assert not any("given twice" in p for p in settings.problems)
    assert ("A/", "resource") in settings.folders


def test_the_editor_refuses_a_key_given_twice_in_one_whole_sentence(tmp_path: Path) -> None:
    # Before: "ora.yaml is not valid YAML; fix it by hand first (while constructing a mapping",
    # cut mid-parenthesis; the reader's problem and the editor's refusal now say the same.
    text = "exclude:\n  - Scratch/\nprivate:\n  - Health/\nprivate:\n  - Journal2/\n"
    vault = _vault(tmp_path, text)
    with pytest.raises(InvalidSettings) as refused:
        set_excluded(vault, "Daily/", True, data_folder=None)
    assert str(refused.value) == (
        "ora.yaml is not valid YAML: the key 'private' is given twice (lines 3 and 5); a key "
        "may appear only once. Fix it by hand first; Ora has not changed it")
    assert (vault / "ora.yaml").read_text(encoding="utf-8") == text
    (vault / "ora.yaml").write_text("exclude: [broken\n", encoding="utf-8")
    with pytest.raises(InvalidSettings, match=r"^ora\.yaml is not valid YAML: [^\n]* \(line 2\)\."
                       r" Fix it by hand first; Ora has not changed it$"):
        set_excluded(vault, "Daily/", True, data_folder=None)


def test_settings_that_cannot_say_which_folders_are_private_make_every_note_private(
    tmp_path: Path,
) -> None:
    # Before: with a broken ora.yaml and no last good one, adopt, extraction and memory (which,
    # unlike the index, do not refuse such settings) read every folder as public.
    from sidecar.lint.adopt import plan_adoption

    vault = tmp_path / "vault"
    (vault / "Health").mkdir(parents=True)
    (vault / "Health/Therapy.md").write_text("Session notes.\n", encoding="utf-8")
    (vault / "ora.yaml").write_text("private: [Health/\n", encoding="utf-8")  # never good
    assert load_vault_settings(vault, data=None).unsafe
    [proposal] = plan_adoption(vault, data=None).proposals
    assert proposal.private is True
    assert plan_adoption(vault, data=None).to_json(private=False)["proposals"] == []


@pytest.mark.parametrize("entry", ["health", "HEALTH/", "./Health/", "/Health"])
def test_a_private_folder_is_matched_however_its_case_or_leading_dot_is_written(
    tmp_path: Path, entry: str,
) -> None:
    # Before: `private: [health]` or `[./Health/]` matched nothing and Health/ stayed public,
    # with no problem reported.
    (tmp_path / "ora.yaml").write_text(f"private:\n  - {entry}\n", encoding="utf-8")
    settings = load_vault_settings(tmp_path, data=None)
    assert is_private_path(settings, "Health/Therapy.md")
    assert not is_private_path(settings, "Healthy eating.md")



@pytest.mark.parametrize(("typed", "saved"), [("NFC", "NFD"), ("NFD", "NFC")])
def test_folder_settings_match_a_name_however_its_accents_were_saved(
    tmp_path: Path, typed: Literal["NFC", "NFD"], saved: Literal["NFC", "NFD"],
) -> None:
    # Before: `private: [Santé/]` typed composed left a folder macOS saved decomposed public
    # (and the reverse), `exclude` and the type and language rules likewise.
    def form(text: str, how: Literal["NFC", "NFD"]) -> str:
        return unicodedata.normalize(how, text)

    (tmp_path / "ora.yaml").write_text(form(
        "private: [Santé/]\nexclude: [Brouillés/]\nfolders:\n  Réunions/: transcript\n"
        "language:\n  Été/: fr\n", typed), encoding="utf-8")
    settings = load_vault_settings(tmp_path, data=None)
    assert is_private_path(settings, form("Santé/Bilan.md", saved))
    assert is_excluded(settings, form("Brouillés/Draft.md", saved))
    assert effective_type(settings, form("Réunions/Lundi.md", saved), None) == ("transcript", True)
    assert note_language(settings, form("Été/Plage.md", saved)) == "fr"
