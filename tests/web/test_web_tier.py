"""The web tier at retrieval against a loopback server speaking SearXNG's JSON format: results
classified and shown below the vault's with tier and weight, excluded ones dropped, failures
reported, `ora web save` writing a `type: web` note."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from sidecar.answers import answer
from sidecar.cli import main
from sidecar.index import open_index
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions
from sidecar.settings import SETTINGS, Config, make_config
from sidecar.vault.note import parse_note
from sidecar.web.save import Page, save_page
from sidecar.web.searxng import web_tier
from tests.notes import write_notes

_spec = importlib.util.spec_from_file_location("web_fake_searxng",
                                               Path(__file__).with_name("fake_searxng.py"))
assert _spec is not None and _spec.loader is not None
fake = importlib.util.module_from_spec(_spec)
sys.modules["web_fake_searxng"] = fake
_spec.loader.exec_module(fake)

NOTES = {
    "Resources/Sourdough.md": ("---\nnexus: []\ntype: resource\ntags: []\n---\n# Sourdough\n\n"
                               "A sourdough starter of wild yeast leavens the bread dough.\n"),
    "Registry — Trusted Web Sources.md": (
        "---\nnexus: []\ntype: reference\ntags: []\nwhitelist: [\"nature.com\"]\n"
        "excluded: [\"*.contentfarm.example\"]\n---\n# Registry\n"),
}
QUERY = "what leavens sourdough bread"
RESULTS = [
    fake.searx_result("https://www.contentfarm.example/10-bread-hacks", "10 bread hacks",
                      "You won't believe what leavens bread."),
    fake.searx_result("https://blog.example.net/starter", "My starter",
                      "Wild yeast in a starter leavens sourdough."),
    fake.searx_result("https://www.nature.com/articles/sourdough", "Sourdough microbiology",
                      "Lactobacilli and yeasts in sourdough starters."),
]


@pytest.fixture
async def searx() -> AsyncIterator[Any]:
    server = await fake.FakeSearxng().start()
    server.results = RESULTS
    yield server
    await server.stop()


def _config(tmp_path: Path, url: str, **extra: Any) -> Config:
    vault = write_notes(tmp_path / "vault", NOTES)
    models = tmp_path / "models"
    return make_config(vault, tmp_path / "data", embed_model="int8", models_dir=str(models),
                       cohere_api_key="", reranker_dir=str(models / "absent"), searxng_url=url,
                       **extra)


async def test_ora_search_web_lists_web_results_below_the_vault_with_their_tiers(
    tmp_path: Path, searx: Any, embedder: Embedder, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = _config(tmp_path, searx.url)
    for s in SETTINGS:
        monkeypatch.setenv(s.env, str(config.values[s.name]))
    with open_index(config, writer=True, embedder=embedder) as index:
        index.reconcile()
    argv = ["search", str(config.vault), QUERY, "--data", str(config.data), "--no-rerank"]
    assert await asyncio.to_thread(main, [*argv, "--web", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["results"][0]["path"] == "Resources/Sourdough.md"
    assert [(r["url"], r["tier"], r["weight"]) for r in doc["web"]] == [
        ("https://www.nature.com/articles/sourdough", "whitelisted", 0.8),
        ("https://blog.example.net/starter", "single", 0.15)]
    assert doc["web_excluded"] == 1 and "contentfarm" not in json.dumps(doc["web"])
    assert searx.queries[-1] == {"q": QUERY, "format": "json"}
    assert not (config.vault / "Web").exists()  # nothing enters the vault unless saved

    assert await asyncio.to_thread(main, [*argv, "--web"]) == 0
    shown = capsys.readouterr().out
    vault_at, web_at = shown.index("Resources/Sourdough.md"), shown.index("W1. whitelisted")
    assert vault_at < web_at and "W2. single (weight 0.15)  https://blog.example.net" in shown

    assert await asyncio.to_thread(main, [*argv, "--json"]) == 0  # no --web: no web search
    assert "web" not in json.loads(capsys.readouterr().out) and len(searx.queries) == 2


async def test_a_failing_or_unconfigured_web_search_leaves_the_vault_results(
    tmp_path: Path, searx: Any, embedder: Embedder,
) -> None:
    searx.mode = "html"
    doc = await web_tier(_config(tmp_path, searx.url), embedder, QUERY, 5, private=False)
    assert doc["web"] == [] and "HTTP 403" in doc["web_reason"] and "json" in doc["web_reason"]
    doc = await web_tier(_config(tmp_path, ""), embedder, QUERY, 5, private=False)
    assert doc == {"web": [], "web_reason": "no web search is configured (set searxng_url)"}


async def test_an_answer_with_web_gives_the_model_the_web_results_after_the_passages(
    tmp_path: Path, searx: Any, embedder: Embedder,
) -> None:
    from tests.answers.conftest import fake_llm

    llm = await fake_llm.FakeLLM().start()
    try:
        config = _config(tmp_path, searx.url, llm_url=llm.url, llm_model="m")
        with open_index(config, writer=True, embedder=embedder) as index:
            index.reconcile()
            llm.reply = lambda body: "Wild yeast [1]."
            doc = await answer(config, index, embedder, None, QUERY,
                               SearchOptions(k=2, rerank=False), web=True)
        prompt = llm.requests[-1]["messages"][-1]["content"]
        assert prompt.index("[1] (Resources/Sourdough.md") < prompt.index(
            "[W1] (https://www.nature.com/articles/sourdough; web tier whitelisted, weight 0.8)")
        assert [r["tier"] for r in doc["web"]] == ["whitelisted", "single"]
    finally:
        await llm.stop()


async def test_ora_web_save_writes_a_web_note_that_is_retrieved_at_p4(
    tmp_path: Path, searx: Any, embedder: Embedder, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = _config(tmp_path, searx.url)
    for s in SETTINGS:
        monkeypatch.setenv(s.env, str(config.values[s.name]))
    page = f"{searx.url}/page"
    assert await asyncio.to_thread(main, ["web", "save", page, "--vault", str(config.vault),
                                          "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == {"path": "Web/Sourdough basics.md", "url": page, "title": "Sourdough basics"}
    text = (config.vault / doc["path"]).read_text(encoding="utf-8")
    note = parse_note(text, doc["path"])
    assert note.type == "web" and note.frontmatter["url"] == page
    assert "lactobacilli leavens the dough" in text and "var x" not in text and "color" not in text
    assert "Feed it flour & water daily." in text

    with open_index(config, writer=True, embedder=embedder) as index:
        index.reconcile()
    argv = ["search", str(config.vault), "lactobacilli dough", "--data", str(config.data),
            "--no-rerank", "--json"]
    assert await asyncio.to_thread(main, argv) == 0
    found = json.loads(capsys.readouterr().out)["results"]
    saved = next(r for r in found if r["path"] == doc["path"])
    assert saved["type"] == "web" and saved["why"]["type_weight"] == 0.1

    assert await asyncio.to_thread(main, ["web", "save", page, "--vault", str(config.vault),
                                          "--json"]) == 0  # never over the first
    assert json.loads(capsys.readouterr().out)["path"] == "Web/Sourdough basics 2.md"


async def test_the_search_and_save_routes(tmp_path: Path, searx: Any, app_client: Any) -> None:
    api = await app_client(_config(tmp_path, searx.url))
    await api.reconciled()
    status, doc = await api.call("POST", "/v1/search", {"query": QUERY, "web": True,
                                                        "rerank": False})
    assert status == 200 and doc["results"][0]["path"] == "Resources/Sourdough.md"
    assert [r["tier"] for r in doc["web"]] == ["whitelisted", "single"]
    status, saved = await api.call("POST", "/v1/web/save", {"url": f"{searx.url}/page"})
    assert status == 200 and saved["path"] == "Web/Sourdough basics.md"
    status, doc = await api.call("POST", "/v1/search", {"query": "lactobacilli", "k": 3,
                                                        "rerank": False})
    assert saved["path"] in {r["path"] for r in doc["results"]}  # indexed at once
    status, err = await api.call("POST", "/v1/web/save", {"url": "ftp://nowhere"})
    assert status == 400 and err["error"]["code"] == "bad_request"


def test_a_saved_page_never_takes_the_name_of_a_note_elsewhere_in_the_vault(
    tmp_path: Path,
) -> None:
    """Obsidian resolves [[Tomato varieties]] by name alone: a web note of that name, even in
    another folder, made the user's existing links ambiguous (and could send them to the page)."""
    vault = tmp_path / "vault"
    (vault / "Garden").mkdir(parents=True)
    (vault / "Garden/Tomato varieties.md").write_text("Brandywine.\n", encoding="utf-8")
    (vault / "Welcome.md").write_text("See [[Tomato varieties]].\n", encoding="utf-8")
    config = make_config(vault, tmp_path / "data")
    page = Page("https://example.org/tomatoes", "tomato Varieties", "Many kinds.")
    assert save_page(config, page) == "Web/tomato Varieties 2.md"
    assert save_page(config, page) == "Web/tomato Varieties 3.md"
    other = Page("https://example.org/beans", "Beans", "Runner beans.")
    assert save_page(config, other) == "Web/Beans.md"


def test_the_name_a_saved_page_gets_does_not_depend_on_private_notes(tmp_path: Path) -> None:
    """No existence oracle: a page saved outside private mode is named as if the private notes
    (and notes that cannot be read, which may be private) were not there, so the name it gets
    back does not tell that a private note of that name exists."""
    vault = tmp_path / "vault"
    (vault / "Garden").mkdir(parents=True)
    (vault / "Garden/Diary.md").write_text("---\ntags: [private]\n---\nDear diary.\n",
                                           encoding="utf-8")
    (vault / "Garden/Ledger.md").write_bytes(b"Caf\xe9 bills.\n")
    (vault / "Garden/Plan.md").write_text("Beds and paths.\n", encoding="utf-8")
    config = make_config(vault, tmp_path / "data")
    for title in ("Diary", "Ledger"):
        assert save_page(config, Page(f"https://example.org/{title}", title, "Text.")) == (
            f"Web/{title}.md")
    assert save_page(config, Page("https://example.org/plan", "Plan", "Text.")) == (
        "Web/Plan 2.md")  # a public note's name still counts
