"""Search lifts a candidate by how near its whole note's meaning is to the query, as much as the
embedder's calibration says (`models.json` `fusion.notes`): a note all of whose sections are about
the question climbs over a note with one passage close to it and the rest about other things."""

from __future__ import annotations

import numpy as np
import pytest

from sidecar.index.note_vectors import shares

from .conftest import IndexVault, NoteSpec, ranked_first

WHOLE = NoteSpec("Watering.md", "resource", (
    "# Watering\n\n## Morning\n\nWater tomato plants early, before the sun is high.\n\n"
    "## Soil\n\nKeep the soil moist but never soaked; mulch keeps it from drying.\n\n"
    "## Pots\n\nPotted tomatoes dry out fast and need water every day in summer."))
ONE = NoteSpec("Allotment.md", "resource", (
    "# Allotment diary\n\n## June\n\nHow often should tomatoes be watered: we asked around.\n\n"
    "## Shed\n\nThe shed roof leaks; new felt and battens are on the list.\n\n"
    "## Fees\n\nThe yearly fee went up to forty pounds, paid at the office."))
OTHER = NoteSpec("Bread.md", "resource", "# Bread\n\nA starter ferments flour with wild yeast.")
QUERY = "how often to water tomatoes"


@pytest.mark.parametrize(("weight", "first"), [(0.0, "Allotment.md"), (2.0, "Watering.md")])
async def test_a_note_about_the_question_throughout_is_lifted_by_its_mean_vector(
    index_vault: IndexVault, weight: float, first: str,
) -> None:
    assert await ranked_first(index_vault([WHOLE, ONE, OTHER]), QUERY, notes=weight) == first


async def test_a_private_notes_mean_is_read_in_private_mode_only(index_vault: IndexVault) -> None:
    secret = NoteSpec("Secret.md", "resource", "# Secret\n\nWater the tomatoes at dusk.",
                      extra={"private": True})
    vault = index_vault([WHOLE, secret])
    assert set(vault.index.note_vectors(["Watering.md", "Secret.md"], private=False)) == {
        "Watering.md"}
    means = vault.index.note_vectors(["Watering.md", "Secret.md"], private=True)
    assert set(means) == {"Watering.md", "Secret.md"}
    assert all(abs(float(np.linalg.norm(v)) - 1) < 1e-5 for v in means.values())


def test_shares_run_from_the_farthest_mean_to_the_nearest() -> None:
    means = {"a": np.array([1.0, 0.0], np.float32), "b": np.array([0.0, 1.0], np.float32),
             "c": np.array([0.6, 0.8], np.float32)}
    query = np.array([1.0, 0.0], np.float32)
    assert shares(query, means, ["a", "b", "c"]) == pytest.approx({"a": 1.0, "b": 0.0, "c": 0.6})
    assert shares(query, means, ["a", "new"]) == {}


def test_a_note_without_a_mean_yet_takes_the_middle_share() -> None:
    means = {"a": np.array([1.0, 0.0], np.float32), "b": np.array([0.0, 1.0], np.float32),
             "c": np.array([0.8, 0.6], np.float32)}
    found = shares(np.array([1.0, 0.0], np.float32), means, ["a", "new", "b", "c"])
    assert found == pytest.approx({"a": 1.0, "new": 0.8, "b": 0.0, "c": 0.8})
