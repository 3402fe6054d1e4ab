"""Search lifts a candidate by how near its note's lead sentence is to the query, as much as the
embedder's calibration says (`models.json` `fusion.leads`): a note whose first sentence says what
it is about climbs over one that mentions the question in passing."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sidecar.index import leads
from sidecar.retrieval.fusion import fusion_settings

from .conftest import IndexVault, NoteSpec, ranked_first

ABOUT = NoteSpec("Tomatoes.md", "resource", (
    "# Tomatoes\n\nTomato plants need watering every morning in summer.\n\n"
    "Our allotment also has a shed, a compost heap, a water butt and a bench; the committee "
    "meets in the hall on Thursdays, fees are paid at the office, and the gate code changes "
    "each spring."))
PASSING = NoteSpec("Diary.md", "resource", (
    "# Diary\n\nThe committee raised the fees again this year.\n\n"
    "How often should tomatoes be watered? Someone said every morning."))
OTHER = NoteSpec("Bread.md", "resource", "# Bread\n\nA starter ferments flour with wild yeast.")
QUERY = "how often should I water tomatoes"


@pytest.fixture(autouse=True)
def lifted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test embedder (MiniLM) calibrated as one that lifts by leads, so the index keeps them."""
    monkeypatch.setattr(leads, "calibration", lambda model_id: {"leads": 0.3})


@pytest.mark.parametrize(("weight", "first"), [(0.0, "Diary.md"), (3.0, "Tomatoes.md")])
async def test_a_note_whose_lead_says_it_is_about_the_question_is_lifted(
    index_vault: IndexVault, weight: float, first: str,
) -> None:
    assert await ranked_first(index_vault([ABOUT, PASSING, OTHER]), QUERY, leads=weight) == first


async def test_a_private_notes_lead_lifts_in_private_mode_only(index_vault: IndexVault) -> None:
    secret = NoteSpec("Secret.md", "resource", "# Secret\n\nWater the tomatoes at dusk.",
                      extra={"private": True})
    vault = index_vault([ABOUT, secret])
    fusion = replace(fusion_settings(vault.embedder.model_id), leads=3.0)
    public = await vault.search(QUERY, rerank=False, fusion=fusion)
    assert {r["path"] for r in public["results"]} == {"Tomatoes.md"}
    assert set(vault.index.note_leads(["Tomatoes.md", "Secret.md"], private=True)) == {
        "Tomatoes.md", "Secret.md"}
