"""Lint of notes written with community plugins: the Tasks plugin's global filter is a known tag,
and Templater commands left in a note (it was made from a template Templater never ran on) are
pointed at."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.lint.adopt import plan_adoption
from sidecar.lint.diagnostics import LintContext, lint_text, lint_vault

Write = Callable[[str, str | bytes], str]
HEAD = ("---\nnexus: []\ntype: resource\ntags: []\n"
        "date created: 2024-04-22\ndate modified: 2024-04-22\n---\n")  # the body starts on line 8
TASKS_CONFIG = ".obsidian/plugins/obsidian-tasks-plugin/data.json"
TEMPLATER_CONFIG = ".obsidian/plugins/templater-obsidian/data.json"
DAILY = HEAD + ("## Tasks\n"
                "- [ ] Water the plants 🔁 every day 📅 2024-04-22 #task\n"
                "- [x] Review inbox ✅ 2024-04-22 #task/review\n"
                "- [ ] Call plumber #task #home\n")


def _config(vault: Path, rel: str, config: object) -> None:
    (vault / rel).parent.mkdir(parents=True, exist_ok=True)
    (vault / rel).write_text(json.dumps(config), encoding="utf-8")


def _found(vault: Path, rel: str) -> list[tuple[str, int, str]]:
    return [(d.code, d.line, d.message.split("'")[1]) for d in lint_vault(vault, data=None)
            if d.path == rel]


# ---- the Tasks plugin's global filter ------------------------------------------------------


def test_the_tasks_global_filter_is_a_known_tag(vault: Path, write: Write) -> None:
    """`#task` on every task line is the Tasks plugin's marker: it was warned as an unknown tag
    on each (23 of 33 warnings on an adopted vault of daily notes); the user's own `#home` is
    still reported."""
    write("Daily/2024-04-22.md", DAILY)
    _config(vault, TASKS_CONFIG, {"globalQuery": "", "globalFilter": "#task",
                                  "removeGlobalFilter": False})
    assert _found(vault, "Daily/2024-04-22.md") == [("tag-unknown", 11, "home")]


def test_without_the_tasks_config_task_is_a_tag_like_any_other(vault: Path, write: Write) -> None:
    write("Daily/2024-04-22.md", DAILY)
    tags = [t for code, _, t in _found(vault, "Daily/2024-04-22.md") if code == "tag-unknown"]
    assert sorted(tags) == ["home", "task", "task", "task/review"]


@pytest.mark.parametrize("value", ["", "TODO", "#two words", "#", 5, ["#task"]])
def test_a_global_filter_that_is_no_tag_adds_none(vault: Path, write: Write,
                                                  value: object) -> None:
    """Tasks takes any string as its global filter (empty, its default, means every checkbox
    is a task): only a single `#tag` names a tag."""
    write("Daily/2024-04-22.md", DAILY)
    _config(vault, TASKS_CONFIG, {"globalFilter": value})
    assert "task" in [t for _, _, t in _found(vault, "Daily/2024-04-22.md")]


def test_the_context_carries_the_plugin_tags(vault: Path) -> None:
    """The server's `POST /v1/lint` and `ora lint FILE` check against this context."""
    _config(vault, TASKS_CONFIG, {"globalFilter": " #Task "})
    ctx = LintContext.for_vault(vault, data=None)
    assert "task" in ctx.known_tags
    assert lint_text(DAILY.replace("#home", ""), "Daily/x.md", ctx) == []


# ---- Templater commands left un-run --------------------------------------------------------


def _unrun(text: str) -> list[int]:
    found = lint_text(text, "Projects/Shed.md", LintContext())
    assert all(d.severity == "info" for d in found if d.code == "templater-unrun")
    return [d.line for d in found if d.code == "templater-unrun"]


@pytest.mark.parametrize("command", [
    '<% tp.date.now("YYYY-MM-DD") %>',
    "<%tp.file.title%>",
    '<%* const budget = await tp.system.prompt("Budget?"); tR += budget; %>',
    "<%+ tp.file.last_modified_date() %>",
    "<%_ tp.file.title _%>",
    "<%- tp.file.title -%>",
])
def test_each_kind_of_templater_command_is_pointed_at(command: str) -> None:
    assert _unrun(HEAD + f"# Shed\n\nStarted: {command}\n") == [10]


def test_the_hint_names_the_command_and_how_to_run_it() -> None:
    [d] = lint_text(HEAD + "Created: <% tp.file.creation_date() %>\n", "a.md", LintContext())
    assert d.code == "templater-unrun" and d.line == 8
    assert "`<% tp.file.creation_date() %>`" in d.message
    assert "Templater: Replace templates in the active file" in d.message


def test_one_hint_per_line_a_command_over_lines_on_its_first() -> None:
    body = ("# <% tp.file.title %> <% tp.date.now() %>\n"
            "<%*\nconst x = await tp.system.prompt('x');\n\ntR += x;\n%>\nafter\n")
    assert _unrun(HEAD + body) == [8, 9]


def test_commands_in_the_frontmatter_are_pointed_at() -> None:
    text = HEAD.replace("tags: []\n", 'tags: []\ncreated: "<% tp.file.creation_date() %>"\n')
    assert _unrun(text + "body\n") == [5]


@pytest.mark.parametrize("body", [
    "Write `<% tp.date.now() %>` in a template.\n",
    "```\n<% tp.date.now() %>\n```\n",
    "    <% tp.date.now() %>\n",
    "%% <% tp.date.now() %> %%\n",
    "Less than 5<% or more %\n",
    "<% %>\n",
])
def test_examples_in_code_and_stray_percent_signs_are_not_commands(body: str) -> None:
    assert _unrun(HEAD + "# Notes on Templater\n\n" + body) == []


def test_a_note_without_ora_frontmatter_is_pointed_at_too() -> None:
    """About the note's text, not the schema: an un-adopted note gets it beside its hint."""
    found = lint_text("Created: <% tp.date.now() %>\n", "Plain.md", LintContext())
    assert [(d.code, d.line) for d in found] == [("frontmatter-missing", 1),
                                                 ("templater-unrun", 1)]


def test_templates_are_not_linted_but_notes_made_from_them_are(vault: Path, write: Write) -> None:
    _config(vault, TEMPLATER_CONFIG, {"templates_folder": "Templates"})
    write("Templates/Daily.md", "# <% tp.date.now() %>\n")
    write("Daily/2024-04-22.md", HEAD + "# <% tp.date.now() %>\n")
    found = [(d.path, d.code, d.line) for d in lint_vault(vault, data=None)]
    assert found == [("Daily/2024-04-22.md", "templater-unrun", 8)]


# ---- the CLI on a small vault written with both plugins --------------------------------------


def test_cli_lint_of_a_vault_written_with_tasks_and_templater(
    vault: Path, write: Write, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(vault, TASKS_CONFIG, {"globalFilter": "#task"})
    _config(vault, TEMPLATER_CONFIG, {"templates_folder": "Templates"})
    write("Templates/Daily template.md", "# <% tp.date.now() %>\n- [ ] Water #task\n")
    for day in ("2024-04-22", "2024-04-23"):
        write(f"Daily/{day}.md", DAILY.replace("#home", ""))
    write("Projects/Shed plan.md", HEAD + "Created: <% tp.file.creation_date() %>\n"
                                          "- [ ] Buy timber #task\n")
    assert main(["lint", str(vault), "--json"]) == 0
    found = [(d["path"], d["line"], d["severity"], d["code"])
             for d in json.loads(capsys.readouterr().out)["diagnostics"]]
    assert found == [("Projects/Shed plan.md", 8, "info", "templater-unrun")]


KANBAN = ("---\n\nkanban-plugin: basic\n\n---\n\n## Todo\n\n- [ ] Buy timber #garden\n\n\n"
          "%% kanban:settings\n```\n{\"kanban-plugin\":\"basic\"}\n```\n%%\n")


def test_a_kanban_board_gets_no_untyped_hint_and_adopt_leaves_it_to_its_plugin(
    vault: Path, write: Write
) -> None:
    """A board's frontmatter is the Kanban plugin's: lint told every board to "add `type` and
    `nexus`", and adopt wrote Ora's keys into it."""
    assert lint_text(KANBAN, "Boards/Shed.md") == []
    write("Boards/Shed.md", KANBAN)
    write("Notes/Plain.md", "Buy timber for the shed.\n")
    plan = plan_adoption(vault, data=None)
    assert [p.path for p in plan.proposals] == ["Notes/Plain.md"]
    assert [(s.path, s.reason.split(":")[0]) for s in plan.skipped] == [
        ("Boards/Shed.md", "a Kanban board (`kanban-plugin`)")]
