"""Search filters (type, folder, tag, dates, cluster, conversation) run inside the stores,
before the top-k cut."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from sidecar.cli import main
from sidecar.errors import BadRequest
from sidecar.index.scope import NoteFilter
from sidecar.retrieval.fusion import FusionSettings

from .conftest import IndexVault, NoteSpec

QUERY = "spaced repetition review intervals memory"
STRONG = "Spaced repetition: review at growing intervals so memory lasts; repetition {n} review."
WEAK = "A note on gardening {n}, which mentions review only once."


def _paths(document: dict[str, Any]) -> list[str]:
    return [r["path"] for r in document["results"]]


async def test_k_results_come_back_when_the_filter_removes_the_top_candidates(
    index_vault: IndexVault,
) -> None:
    # Twelve strong matches outside the folder; three weak ones inside it. The candidate pool is
    # three deep, so a filter applied after the first stage would find none of the three.
    strong = [NoteSpec(f"Engrams/Strong {n}.md", "engram", STRONG.format(n=n)) for n in range(12)]
    weak = [NoteSpec(f"Garden/Weak {n}.md", "engram", WEAK.format(n=n), tags=["garden/veg"])
            for n in range(3)]
    vault = index_vault([*strong, *weak])
    shallow = FusionSettings(method="rrf", k=60, weights={"dense": 1.0, "bm25": 1.0}, pool=3)
    unfiltered = await vault.search(QUERY, fusion=shallow, k=3)
    assert not any(p.startswith("Garden/") for p in _paths(unfiltered))
    for note_filter in (NoteFilter.make(folders=["Garden"]), NoteFilter.make(tags=["garden"])):
        found = await vault.search(QUERY, fusion=shallow, k=3, filters=note_filter)
        assert sorted(_paths(found)) == [f"Garden/Weak {n}.md" for n in range(3)]


async def test_types_folders_and_tags_combine(index_vault: IndexVault) -> None:
    vault = index_vault([
        NoteSpec("Engrams/A.md", "engram", STRONG.format(n=1), tags=["Project/Ora"]),
        NoteSpec("Engrams/B.md", "engram", STRONG.format(n=2), tags=["project"]),
        NoteSpec("Resources/C.md", "resource", STRONG.format(n=3), tags=["project/ora", "x"]),
        NoteSpec("Chats/D.md", "chat", STRONG.format(n=4)),
    ])

    async def paths(**parts: Any) -> list[str]:
        return sorted(_paths(await vault.search(QUERY, k=10, filters=NoteFilter.make(**parts))))

    assert await paths(types=["engram", "chat"]) == ["Chats/D.md", "Engrams/A.md", "Engrams/B.md"]
    assert await paths(folders=["Resources/", "Chats"]) == ["Chats/D.md", "Resources/C.md"]
    # A tag matches its nested tags, case-insensitively; several tags must all be present.
    assert await paths(tags=["#project"]) == ["Engrams/A.md", "Engrams/B.md", "Resources/C.md"]
    assert await paths(tags=["project/ora"]) == ["Engrams/A.md", "Resources/C.md"]
    assert await paths(tags=["project/ora", "x"]) == ["Resources/C.md"]
    assert await paths(tags=["proj"]) == []
    assert await paths(types=["engram"], tags=["project/ora"]) == ["Engrams/A.md"]


async def test_dates_come_from_date_created_then_modified_then_mtime(
    index_vault: IndexVault,
) -> None:
    old_mtime = 1_600_000_000  # 2020-09-13
    vault = index_vault([
        NoteSpec("Engrams/Created.md", "engram", STRONG.format(n=1),
                 extra={"date created": "2024-01-05", "date modified": "2025-01-01"}),
        NoteSpec("Engrams/Modified.md", "engram", STRONG.format(n=2),
                 extra={"date modified": "2024-03-01"}),
        NoteSpec("Engrams/Mtime.md", "engram", STRONG.format(n=3)),
    ])
    os.utime(vault.config.vault / "Engrams/Mtime.md", (old_mtime, old_mtime))
    vault.index.reconcile()

    async def paths(since: str | None = None, until: str | None = None) -> list[str]:
        note_filter = NoteFilter.make(since=since, until=until)
        return sorted(_paths(await vault.search(QUERY, k=10, filters=note_filter)))

    assert await paths(since="2024-01-05") == ["Engrams/Created.md", "Engrams/Modified.md"]
    assert await paths(until="2024-01-05") == ["Engrams/Created.md", "Engrams/Mtime.md"]
    assert await paths(since="2024-01-06", until="2024-03-01") == ["Engrams/Modified.md"]
    assert await paths(until="2020-12-31") == ["Engrams/Mtime.md"]
    assert await paths(until="2024-01-04T23:59:59") == ["Engrams/Mtime.md"]


async def test_a_plain_notes_date_is_the_creation_date_it_states_not_its_file_time(
    index_vault: IndexVault,
) -> None:
    # Written the way people date notes: a `created:` property, a daily note's file name; the
    # files themselves were touched today (a sync, a clone).
    vault = index_vault([
        NoteSpec("Notes/Trip.md", "engram", STRONG.format(n=1), extra={"created": "2019-05-02"}),
        NoteSpec("Daily/2021-07-08.md", "engram", STRONG.format(n=2)),
        NoteSpec("Notes/Stated.md", "engram", STRONG.format(n=3),
                 extra={"date created": "2023-01-01", "created": "2019-05-02"}),
        NoteSpec("Notes/Undated.md", "engram", STRONG.format(n=4)),
    ])

    async def paths(since: str | None = None, until: str | None = None) -> list[str]:
        note_filter = NoteFilter.make(since=since, until=until)
        return sorted(_paths(await vault.search(QUERY, k=10, filters=note_filter)))

    assert await paths(until="2019-05-02") == ["Notes/Trip.md"]
    assert await paths(since="2021-07-08", until="2021-07-08") == ["Daily/2021-07-08.md"]
    assert await paths(since="2022-01-01", until="2023-01-01") == ["Notes/Stated.md"]
    assert await paths(since="2024-01-01") == ["Notes/Undated.md"]


async def test_a_filter_never_widens_private_mode(index_vault: IndexVault) -> None:
    vault = index_vault([
        NoteSpec("Engrams/Open.md", "engram", STRONG.format(n=1), tags=["topic"]),
        NoteSpec("Engrams/Diary.md", "engram", STRONG.format(n=2), tags=["topic", "private"]),
    ])
    topic = NoteFilter.make(tags=["topic"])
    assert _paths(await vault.search(QUERY, filters=topic)) == ["Engrams/Open.md"]
    both = _paths(await vault.search(QUERY, filters=topic, private=True))
    assert sorted(both) == ["Engrams/Diary.md", "Engrams/Open.md"]


def _chats() -> list[NoteSpec]:
    """Twelve strong engrams and three weak chat notes: two conversations, one declared
    cluster; the third chat's cluster is the one the index assigns."""
    strong = [NoteSpec(f"Engrams/Strong {n}.md", "engram", STRONG.format(n=n)) for n in range(12)]
    return [*strong,
            NoteSpec("Chats/One.md", "chat", WEAK.format(n=1),
                     extra={"conversation": "cli:one", "cluster": "Gardening"}),
            NoteSpec("Chats/Two.md", "chat", WEAK.format(n=2),
                     extra={"conversation": "cli:two", "cluster": "Gardening"}),
            NoteSpec("Chats/Three.md", "chat", "Bicycle commute, train timetables and a "
                     "rainy ride home; one review.", extra={"conversation": "c3"})]


async def test_cluster_and_conversation_filters_apply_before_the_top_k_cut(
    index_vault: IndexVault,
) -> None:
    vault = index_vault(_chats())
    shallow = FusionSettings(method="rrf", k=60, weights={"dense": 1.0, "bm25": 1.0}, pool=3)

    async def paths(**parts: Any) -> list[str]:
        found = await vault.search(QUERY, fusion=shallow, k=3, filters=NoteFilter.make(**parts))
        return sorted(_paths(found))

    assert not any(p.startswith("Chats/") for p in _paths(
        await vault.search(QUERY, fusion=shallow, k=3)))
    assert await paths(clusters=["gardening"]) == ["Chats/One.md", "Chats/Two.md"]
    assert await paths(conversations=["cli:two"]) == ["Chats/Two.md"]
    assert await paths(conversations=["c3", "cli:one"]) == ["Chats/One.md", "Chats/Three.md"]
    assert await paths(clusters=["Gardening"], conversations=["c3"]) == []
    # an assigned cluster, named as the result's `why.cluster` names it
    (three,) = (await vault.search(QUERY, k=3, filters=NoteFilter.make(
        conversations=["c3"])))["results"]
    assert three["why"]["cluster"] and await paths(clusters=[three["why"]["cluster"]]) == [
        "Chats/Three.md"]


@pytest.mark.parametrize(
    "parts, message",
    [
        ({"types": ["engrams"]}, "unknown type engrams: choose from"),
        ({"clusters": [" "]}, "cluster ' ' is empty"),
        ({"conversations": [""]}, "conversation '' is empty"),
        ({"folders": ["../up"]}, "is not a vault folder"),
        ({"tags": ["#"]}, "is empty"),
        ({"since": "last week"}, "is not a date"),
        ({"since": "2024-02-01", "until": "2024-01-01"}, "is after until"),
    ],
)
def test_bad_filter_values_are_named(parts: dict[str, Any], message: str) -> None:
    with pytest.raises(BadRequest, match=message):
        NoteFilter.make(**parts)


def test_cli_filters_are_repeatable_flags(
    index_vault: IndexVault, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    vault = index_vault([
        NoteSpec("Engrams/A.md", "engram", STRONG.format(n=1), tags=["learning"]),
        NoteSpec("Resources/B.md", "resource", STRONG.format(n=2), tags=["learning"]),
        NoteSpec("Chats/C.md", "chat", STRONG.format(n=3), tags=["learning"]),
    ])
    root = str(vault.config.vault)
    status = main(["search", root, QUERY, "--json", "--no-rerank", "--type", "engram",
                   "--type", "chat", "--tag", "learning", "--since", "2000-01-01"])
    document = json.loads(capsys.readouterr().out)
    assert status == 0 and sorted(_paths(document)) == ["Chats/C.md", "Engrams/A.md"]
    assert main(["search", root, QUERY, "--json", "--folder", "Resources", "--no-rerank"]) == 0
    assert _paths(json.loads(capsys.readouterr().out)) == ["Resources/B.md"]
    assert main(["search", root, QUERY, "--type", "note"]) != 0
    assert "unknown type note" in capsys.readouterr().err


def test_cli_cluster_and_conversation_flags(
    index_vault: IndexVault, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    vault = index_vault(_chats())
    root = str(vault.config.vault)
    assert main(["search", root, QUERY, "--json", "--no-rerank", "--k", "3",
                 "--cluster", "GARDENING"]) == 0
    assert sorted(_paths(json.loads(capsys.readouterr().out))) == ["Chats/One.md", "Chats/Two.md"]
    assert main(["search", root, QUERY, "--json", "--no-rerank", "--conversation", "cli:one",
                 "--conversation", "c3"]) == 0
    assert sorted(_paths(json.loads(capsys.readouterr().out))) == ["Chats/One.md",
                                                                   "Chats/Three.md"]
    assert main(["related", root, "Chats/One.md", "--json",
                 "--conversation", "cli:two"]) == 0
    assert _paths(json.loads(capsys.readouterr().out)) == ["Chats/Two.md"]
