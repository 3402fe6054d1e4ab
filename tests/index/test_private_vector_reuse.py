"""A public chunk's vector is computed in a call of public texts only: it is never taken from the
private store by its text's hash, nor embedded in a call with a private text (the q8 embedder
quantises per call: tests/index/test_private_batches.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from sidecar.index import Index
from sidecar.models.embedder import Embedder

from .conftest import OpenIndex, note, write

SHARED = "Okapi tracks by the river at dusk."
SECRET = "Secret diary entry about the ranger."
PUBLIC = "Giraffe herd grazing on the plains."


@pytest.fixture
def calls(embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The texts of each call to the embedder."""
    seen: list[list[str]] = []
    embed = embedder.embed

    def recorded(texts: Sequence[str]) -> np.ndarray:
        seen.append(list(texts))
        return embed(texts)

    monkeypatch.setattr(embedder, "embed", recorded)
    return seen


def _private_notes(vault: Path) -> None:
    write(vault, "Diary/Same.md", note("engram", SHARED, tags=["private"]))
    write(vault, "Diary/Other.md", note("engram", SECRET, tags=["private"]))


def _public_notes(vault: Path) -> None:
    write(vault, "Public/Same.md", note("engram", SHARED))
    write(vault, "Public/Other.md", note("engram", PUBLIC))


def _assert_public_batch(calls: list[list[str]]) -> None:
    joined = ["\n".join(texts) for texts in calls]
    # the shared text embedded for the public note, in a call without a private text
    assert any(SHARED in t and SECRET not in t for t in joined), joined
    assert not any(SECRET in t and PUBLIC in t for t in joined), joined


def test_a_public_chunk_does_not_reuse_a_vector_of_the_private_store(
    tmp_path: Path, open_idx: OpenIndex, calls: list[list[str]],
) -> None:
    # Before: the public note's chunk found the private note's vector by its hash, computed in
    # a call of private texts.
    vault = tmp_path / "vault"
    _private_notes(vault)
    index: Index = open_idx(vault)
    index.reconcile()
    calls.clear()
    _public_notes(vault)
    index.reconcile()
    _assert_public_batch(calls)


def test_a_sync_embeds_public_and_private_chunks_in_separate_calls(
    tmp_path: Path, open_idx: OpenIndex, calls: list[list[str]],
) -> None:
    # Before: a sync that embeds as it writes (not by its words first) made one call of both.
    vault = tmp_path / "vault"
    _private_notes(vault)
    _public_notes(vault)
    index: Index = open_idx(vault)
    index._need_writer().sync(
        ["Diary/Same.md", "Diary/Other.md", "Public/Same.md", "Public/Other.md"], quick=False)
    _assert_public_batch(calls)
