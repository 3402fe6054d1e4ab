"""Copies in a real vault: a daily template's task list in every daily note does not fill the
top of a search or a related list; one copy stands for all, naming only notes the request may
see."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.index import Index, open_index
from sidecar.models.embedder import Embedder
from sidecar.retrieval.related import RelatedOptions, related
from sidecar.settings import make_config
from tests.notes import write_notes

from .conftest import SearchVault

# A plain vault as Obsidian's daily notes and the Tasks plugin leave it (no Ora frontmatter).
DAILY = """# {day}

Mood:: {mood}
Sleep:: {sleep} hours

## Tasks
- [ ] Water the plants 🔁 every day 📅 {day} #task
- [x] Review inbox ✅ {day} #task
- [ ] Call plumber about the leaking kitchen tap 📅 2024-05-01 ⏫ #task

## Log
Worked on the garden shed project today. {log}
"""
LOGS = {
    "2024-04-24": "The plumber said the tap needs a new washer, cost is 40 euros.",
    "2024-04-26": "The plumber said the tap needs a whole new cartridge, cost is 120 euros.",
}
DAYS = [f"2024-04-{d}" for d in range(22, 29)]
KITCHEN_TAP = """# Kitchen tap

The kitchen tap drips constantly. Plumber visit booked. [due:: 2024-05-01]

- [ ] Call plumber 📅 2024-05-01 ⏫ #task #home
- [ ] Buy replacement washer 🛫 2024-04-28 #task #home
"""
QUERY = "what did the plumber say about the tap"


def _daily_notes() -> dict[str, str]:
    return {f"Daily/{day}.md": DAILY.format(day=day, mood=n % 5 + 1, sleep=6 + n % 3,
                                            log=LOGS.get(day, ""))
            for n, day in enumerate(DAYS)}


@pytest.fixture
def plain_vault(tmp_path: Path, embedder: Embedder) -> Iterator[tuple[Path, Index]]:
    vault = tmp_path / "vault"
    write_notes(vault, {**_daily_notes(), "Projects/Kitchen tap.md": KITCHEN_TAP})
    index = open_index(make_config(vault), writer=True, embedder=embedder)
    index.reconcile()
    yield vault, index
    index.close()


def _search_vault(vault: Path, index: Index, embedder: Embedder) -> SearchVault:
    return SearchVault(make_config(vault), index, embedder)


def _tasks(results: list[dict[str, object]]) -> list[dict[str, object]]:
    return [r for r in results if "Water the plants" in str(r["text"])]


async def test_a_task_list_copied_into_every_daily_note_is_one_result(
    plain_vault: tuple[Path, Index], embedder: Embedder
) -> None:
    vault, index = plain_vault
    found = await _search_vault(vault, index, embedder).search(QUERY, k=5, rerank=False)
    results = found["results"]
    (tasks,) = _tasks(results)
    others = sorted(f"Daily/{day}.md" for day in DAYS if f"Daily/{day}.md" != tasks["path"])
    assert sorted(tasks["duplicates"]) == others
    # The freed places go to the notes that answer: both plumber visits, still k results.
    assert len(results) == 5
    logs = [r["path"] for r in results if "The plumber said" in str(r["text"])]
    assert sorted(logs) == ["Daily/2024-04-24.md", "Daily/2024-04-26.md"]
    distinct = [r for r in results if r is not tasks]
    assert all(r["duplicates"] == [] or "garden shed" in str(r["text"]) for r in distinct)


async def test_days_that_differ_by_their_numbers_are_not_collapsed(
    plain_vault: tuple[Path, Index], embedder: Embedder
) -> None:
    # Each day's mood line and each plumber visit differ by their numbers: none is a copy.
    vault, index = plain_vault
    found = await _search_vault(vault, index, embedder).search(
        "mood and sleep hours", k=20, rerank=False)
    moods = [r for r in found["results"] if "Mood::" in str(r["text"])]
    assert len(moods) == len(DAYS) and all(r["duplicates"] == [] for r in moods)


async def test_a_private_copy_is_named_only_in_private_mode(
    tmp_path: Path, embedder: Embedder
) -> None:
    vault = tmp_path / "vault"
    boilerplate = "## Footer\nReviewed with the household budget spreadsheet, shared folder."
    write_notes(vault, {
        "Projects/Budget.md": f"# Budget\n\nRent, food and travel.\n\n{boilerplate}\n",
        "Journal/Secret.md": f"---\ntags: [private]\n---\n# Secret\n\nA gift.\n\n{boilerplate}\n",
        "Journal/Diary.md": f"# Diary\n#private\n\n{boilerplate}\n",
    })
    index = open_index(make_config(vault), writer=True, embedder=embedder)
    try:
        index.reconcile()
        search = _search_vault(vault, index, embedder).search
        public = await search("household budget spreadsheet", rerank=False)
        assert [(r["path"], r["duplicates"]) for r in public["results"]
                if "spreadsheet" in r["text"]] == [("Projects/Budget.md", [])]
        private = await search("household budget spreadsheet", rerank=False, private=True)
        (kept,) = [r for r in private["results"] if "spreadsheet" in r["text"]]
        named = {kept["path"], *kept["duplicates"]}
        assert named == {"Projects/Budget.md", "Journal/Secret.md", "Journal/Diary.md"}
    finally:
        index.close()


async def test_related_notes_reached_through_one_copied_list_are_one_result(
    plain_vault: tuple[Path, Index], embedder: Embedder
) -> None:
    _vault, index = plain_vault
    # k below the number of days: those not listed on a passage of their own are named.
    found = await related(index, embedder, "Projects/Kitchen tap.md", RelatedOptions(k=3))
    tasks = _tasks(found["results"])
    assert len(tasks) == 1 and len(tasks[0]["duplicates"]) >= 2
    paths = [r["path"] for r in found["results"]]
    assert len(paths) == len(set(paths))
    named = {p for r in found["results"] for p in r["duplicates"]}
    assert not named & set(paths)


def test_cli_search_says_how_many_other_notes_hold_the_text_unless_asked_for_all(
    plain_vault: tuple[Path, Index], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")  # the model the index used
    vault, index = plain_vault
    index.close()
    main(["search", str(vault), QUERY, "--k", "5", "--no-rerank"])
    out = capsys.readouterr().out
    assert "same text in 6 other notes: Daily/" in out and " and 3 more" in out
    main(["search", str(vault), "water the plants", "--k", "7", "--no-rerank", "--all-copies"])
    out = capsys.readouterr().out
    assert out.count("Water the plants") == 7 and "same text" not in out
