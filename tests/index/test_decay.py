"""Decay data: each chunk knows its cluster and how many newer chunks that cluster holds."""

from __future__ import annotations

from pathlib import Path

from sidecar.index import ChunkRecord, Index

from .conftest import OpenIndex, note, write


def _records(index: Index, query: str) -> dict[str, ChunkRecord]:
    hits = index.bm25_search(query, 20, private=True)
    return {r.path: r for r in index.get_chunks([h[0] for h in hits], private=True).values()}


def _chat(root: Path, title: str, body: str, day: str, cluster: str = "kettle") -> None:
    text = note("chat", body, cluster=cluster, date_created=f"2024-03-{day}")
    write(root, f"Chats/{title}.md", text)


def test_newer_in_cluster_counts_newer_chunks_of_the_same_cluster(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    root = tmp_path / "v"
    for day in (1, 2, 3):
        _chat(root, f"Kettle {day}", f"Talking about kettle descaling, take {day}.", f"0{day}")
    _chat(root, "Other", "Kettle descaling elsewhere.", "20", cluster="other")
    write(root, "Engrams/Kettle.md", note("engram", "Kettle descaling engram.", cluster="kettle"))
    index = open_idx(root)
    index.reconcile()
    got = _records(index, "kettle descaling")
    assert {p: r.newer_in_cluster for p, r in got.items()} == {
        "Chats/Kettle 1.md": 2,
        "Chats/Kettle 2.md": 1,
        "Chats/Kettle 3.md": 0,
        "Chats/Other.md": 0,
        "Engrams/Kettle.md": 0,  # not decay-eligible: never counted, never counting
    }
    assert got["Chats/Kettle 1.md"].cluster == "kettle"
    assert got["Chats/Kettle 1.md"].date == "2024-03-01T00:00:00"

    _chat(root, "Kettle 4", "Kettle descaling, take 4.", "09")
    index.reconcile()
    assert _records(index, "kettle descaling")["Chats/Kettle 1.md"].newer_in_cluster == 3


def test_undeclared_chats_are_clustered_by_similarity_and_rebuilds_agree(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    root = tmp_path / "v"
    chats = {
        "Chats/Tea 1.md": ("How long should green tea steep in hot water?", "2024-01-01"),
        "Chats/Tea 2.md": ("Green tea steeping time and water temperature.", "2024-01-05"),
        "Chats/Taxes.md": ("Filing a quarterly VAT return for a small business.", "2024-01-03"),
    }
    for rel, (body, date) in chats.items():
        write(root, rel, note("chat", body, date_created=date))
    index = open_idx(root)
    index.reconcile()
    got = {p: r.cluster for p, r in _records(index, "tea OR VAT").items()}
    assert got["Chats/Tea 1.md"] == got["Chats/Tea 2.md"] == "auto:tea-1"
    assert got["Chats/Taxes.md"] == "auto:taxes"
    assert _records(index, "tea")["Chats/Tea 1.md"].newer_in_cluster == 1

    rebuilt = open_idx(root, data=tmp_path / "data2")
    rebuilt.reconcile()
    assert {p: r.cluster for p, r in _records(rebuilt, "tea OR VAT").items()} == got


def test_a_reconcile_repairs_clusters_left_stale_by_an_interrupted_run(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    root = tmp_path / "v"
    for rel, body, date in (("Chats/Tea 1.md", "Green tea steeping time.", "2024-01-01"),
                            ("Chats/Tea 2.md", "Steeping green tea longer.", "2024-01-05")):
        write(root, rel, note("chat", body, date_created=date))
    index = open_idx(root)
    index.reconcile()
    # A run that wrote its notes but stopped before the cluster pass leaves this behind.
    index.ledger.set_clusters(index.namespace, {"Chats/Tea 2.md": "auto:stale"})
    result = index.reconcile()
    assert result["embedded"] == 0
    assert index.ledger.rows(index.namespace)["Chats/Tea 2.md"].cluster == "auto:tea-1"
    assert _records(index, "tea")["Chats/Tea 1.md"].newer_in_cluster == 1


def test_a_private_chat_neither_names_nor_counts_in_a_public_chats_cluster(
    tmp_path: Path, open_idx: OpenIndex
) -> None:
    """Issue 10 item 3: the earliest chat of an automatic cluster was private, and a public
    chat's `why.cluster` showed its title (`auto:2023-11-01-chat-koala-divorce-papers`)."""
    root = tmp_path / "v"
    secret = "Chats/2023-11-01 chat koala divorce papers.md"
    write(root, secret, note("chat", "# Green tea\n\nGreen tea steeping time and temperature.",
                             tags=["private"], date_created="2023-11-01"))
    write(root, "Chats/Tea.md", note("chat", "# Green tea\n\nHow long should green tea steep?",
                                     date_created="2023-11-05"))
    write(root, "Chats/Tea later.md", note(
        "chat", "# Green tea\n\nSteeping green tea, water temperature.", date_created="2023-11-09"))
    index = open_idx(root)
    index.reconcile()
    hits = index.bm25_search("green tea", 20, private=False)
    public = {r.path: r for r in index.get_chunks([h[0] for h in hits], private=False).values()}
    assert public["Chats/Tea.md"].cluster == "auto:tea"
    assert public["Chats/Tea.md"].newer_in_cluster == 1  # the later public chat only
    assert "koala" not in repr(public)
    everything = _records(index, "green tea")
    assert everything[secret].cluster == "auto:tea"  # one cluster, named by a public member
    assert everything[secret].newer_in_cluster == 2
