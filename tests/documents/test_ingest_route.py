"""`POST /v1/ingest` and `/v1/ingest/undo`: the plugin's "Process document into notes", checked
against the OpenAPI document; search cites the notes at once; a private document only in
private mode."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from sidecar.settings import Config, make_config

from ..conftest import AppClient
from .make_pdfs import one_page_pdf, write_paper

DOC = "Tidal pumping.pdf"


def _config(vault: Path, data: Path) -> Config:
    models = data.parent / "models"
    return make_config(vault, data, embed_model="int8", models_dir=str(models),
                       cohere_api_key="", reranker_dir=str(models / "none"), llm_url="",
                       scan_delay=-1.0)


async def _top(api: AppClient, query: str, private: bool = False, want: str = "") -> str:
    """The first result's path, waiting (up to 30 s) for `want`: a write the server's watcher
    also saw is applied by whichever of the two comes second (`Index.expedite`)."""
    deadline = time.monotonic() + 30
    while True:
        status, found = await api.call("POST", "/v1/search", {"query": query, "private": private})
        assert status == 200
        top = str(found["results"][0]["path"]) if found["results"] else ""
        if top == want or not want or time.monotonic() > deadline:
            return top
        await asyncio.sleep(0.2)


async def test_process_a_document_over_http_then_undo(
    tmp_path: Path, app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    vault = tmp_path / "vault"
    write_paper(vault / DOC)
    api = await app_client(_config(vault, tmp_path / "data"))
    await api.reconciled()
    assert await _top(api, "salinity wedge chloride contours") == DOC

    status, plan = await api.call("POST", "/v1/ingest", {"path": DOC})
    assert status == 200 and len(plan["notes"]) == 14 and plan["unchanged"] is False
    status, done = await api.call("POST", "/v1/ingest", {"path": DOC, "apply": True})
    assert status == 200 and len(done["written"]) == 14
    page6 = "Resources/Tidal pumping/Tidal pumping - page 06.md"
    assert await _top(api, "salinity wedge chloride contours", want=page6) == page6
    status, again = await api.call("POST", "/v1/ingest", {"path": DOC, "apply": True})
    assert (status, again) == (200, {"written": [], "trashed": []})

    status, undone = await api.call("POST", "/v1/ingest/undo", {})
    assert status == 200 and len(undone["undone"]) == 14 and undone["document"] == DOC
    assert await _top(api, "salinity wedge chloride contours", want=DOC) == DOC
    status, _ = await api.call("POST", "/v1/ingest/undo", {})
    assert status == 404

    status, refused = await api.call("POST", "/v1/ingest", {"path": "Nope.md"})
    assert status == 400 and "not a document" in refused["error"]["message"]
    status, _ = await api.call("POST", "/v1/ingest", {"path": "Absent.pdf"})
    assert status == 404


async def test_a_private_document_is_processed_into_private_notes_in_private_mode_only(
    tmp_path: Path, app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    vault = tmp_path / "vault"
    (vault / "Health").mkdir(parents=True)
    (vault / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")
    (vault / "Health" / "labs.pdf").write_bytes(one_page_pdf("Ferritin was low in March."))
    api = await app_client(_config(vault, tmp_path / "data"))
    await api.reconciled()
    status, refused = await api.call("POST", "/v1/ingest", {"path": "Health/labs.pdf"})
    assert status == 400 and "private mode" in refused["error"]["message"]
    status, done = await api.call("POST", "/v1/ingest",
                                  {"path": "Health/labs.pdf", "apply": True, "private": True})
    assert done["written"] == ["Health/labs/labs - page 1.md"]  # where `private` covers them
    note = (vault / done["written"][0]).read_text(encoding="utf-8")
    assert "\ntags: [private]\n" in note  # and say so, were they moved out
    assert await _top(api, "ferritin low March", private=True,
                      want=done["written"][0]) == done["written"][0]
    status, found = await api.call("POST", "/v1/search", {"query": "ferritin low March"})
    assert all("labs" not in r["path"] for r in found["results"])
    status, _ = await api.call("POST", "/v1/ingest/undo", {})
    assert status == 404  # the private ingest passed over, as if it were not there


async def test_status_lists_unreadable_documents_but_not_private_ones(
    tmp_path: Path, app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    vault = tmp_path / "vault"
    (vault / "Health").mkdir(parents=True)
    (vault / "ora.yaml").write_text("private:\n  - Health/\n", encoding="utf-8")
    (vault / "broken.pdf").write_bytes(b"%PDF-1.7\n")
    (vault / "Health" / "zqx broken.pdf").write_bytes(b"%PDF-1.7\n")
    (vault / "fine.pdf").write_bytes(one_page_pdf("Readable words."))
    api = await app_client(_config(vault, tmp_path / "data"))
    await api.reconciled()
    status, found = await api.call("GET", "/v1/status")
    assert status == 200
    assert found["unreadable_documents"] == [
        {"path": "broken.pdf", "message": "not indexed: Unreadable PDF: Data format error"}]
