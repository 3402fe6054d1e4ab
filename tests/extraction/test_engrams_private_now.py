"""The gate's engram lookup follows the vault's settings as they are now: an engram whose folder
was made private after indexing is never named to a non-private extraction (as a duplicate or
a contradiction), before any re-index."""

from __future__ import annotations

from pathlib import Path

from sidecar.extraction import IndexEngrams, load_source, plan_extraction
from sidecar.index import open_index
from sidecar.models.embedder import Embedder
from tests.notes import write_notes

from .conftest import chat_text, settings

SECRET = "Health/Rye flour.md"


async def test_an_engram_made_private_since_indexing_is_never_named_outside_private_mode(
    tmp_path: Path, embedder: Embedder,
) -> None:
    # Before: the dense lookup read the index's stored flag, so the new private engram was
    # named as the duplicate of the claim (`dropped.of`) until the next re-index.
    claim = "Rye flour ferments faster than wheat flour."
    vault = write_notes(tmp_path / "vault", {
        SECRET: f"---\ntype: engram\nnexus: []\ntags: [atomic]\n---\n{claim}\n",
        "Chats/Ora/c.md": chat_text("c", [("assistant", claim)])})
    config = settings(vault)
    with open_index(config, embedder=embedder) as index:
        index.reconcile()
        source = load_source(config, conversation="c")
        before = await plan_extraction(config, source, IndexEngrams(index, embedder,
                                                                    private=False))
        assert [(d.reason, d.of) for d in before.dropped] == [("duplicate", SECRET)]
        (vault / "ora.yaml").write_text("private: [Health/]\n")  # no re-index after this
        after = await plan_extraction(config, source, IndexEngrams(index, embedder,
                                                                   private=False))
        assert [p.text for p in after.proposals] == [claim]
        assert all(d.of != SECRET for d in after.dropped)
        kept = await plan_extraction(config, source, IndexEngrams(index, embedder,
                                                                  private=True))
        assert [(d.reason, d.of) for d in kept.dropped] == [("duplicate", SECRET)]
