"""The web tier cascade, case by case, on real embeddings of the findings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sidecar.errors import BadRequest
from sidecar.models.embedder import Embedder
from sidecar.web import Registry, classify, load_registry, parse_registry

WEBB = "The James Webb telescope found carbon dioxide in the atmosphere of exoplanet WASP-39b."
WEBB_AGAIN = ("Carbon dioxide was detected in the atmosphere of the exoplanet WASP-39b by the "
              "James Webb Space Telescope.")
WEBB_DENIED = ("The James Webb telescope did not find carbon dioxide in the atmosphere of "
               "exoplanet WASP-39b.")
BREAD = "A sourdough starter needs daily feeding with flour and water to stay active."

REGISTRY = parse_registry(
    {
        "whitelist": ["nature.com", "https://en.wikipedia.org/wiki/*"],
        "overrides": [{"url": "https://blog.example.net/post?id=3", "tier": "corroborated"}],
        "excluded": ["*.contentfarm.example", "spam.example/*"],
    },
    "Registry — Trusted Web Sources.md",
)


def result(url: str, text: str, title: str = "") -> dict[str, str]:
    return {"url": url, "title": title, "text": text}


def tiers(doc: dict[str, Any]) -> dict[str, tuple[str, float]]:
    return {r["url"]: (r["tier"], r["weight"]) for r in doc["results"]}


def test_whitelisted_host_and_subdomain_weigh_as_curated_reference(embedder: Embedder) -> None:
    doc = classify([result("https://www.nature.com/articles/x", BREAD),
                    result("https://en.wikipedia.org/wiki/Sourdough", BREAD)], REGISTRY, embedder)
    assert tiers(doc) == {"https://www.nature.com/articles/x": ("whitelisted", 0.8),
                          "https://en.wikipedia.org/wiki/Sourdough": ("whitelisted", 0.8)}


def test_path_pattern_does_not_whitelist_other_paths_of_the_site(embedder: Embedder) -> None:
    doc = classify([result("https://en.wikipedia.org/w/index.php?title=X", BREAD)],
                   REGISTRY, embedder)
    assert tiers(doc) == {"https://en.wikipedia.org/w/index.php?title=X": ("single", 0.15)}


def test_exact_page_override_sets_its_tier_but_not_for_other_pages(embedder: Embedder) -> None:
    doc = classify([result("https://BLOG.example.net/post?id=3#top", BREAD),
                    result("https://blog.example.net/post?id=4", WEBB)], REGISTRY, embedder)
    assert [(r["tier"], r["weight"], r["reason"]) for r in doc["results"]] == [
        ("corroborated", 0.3, "page override at tier corroborated"),
        ("single", 0.15, "one source, not corroborated in this result set"),
    ]


def test_excluded_results_are_removed_and_listed(embedder: Embedder) -> None:
    doc = classify([result("https://www.contentfarm.example/a", WEBB),
                    result("http://spam.example/b", WEBB_AGAIN),
                    result("https://science.example.org/webb", WEBB)], REGISTRY, embedder)
    assert [r["url"] for r in doc["excluded"]] == ["https://www.contentfarm.example/a",
                                                  "http://spam.example/b"]
    assert all(r["weight"] == 0.0 and r["tier"] == "excluded" for r in doc["excluded"])
    # Excluded sites cannot corroborate what is left.
    assert tiers(doc) == {"https://science.example.org/webb": ("single", 0.15)}


def test_same_finding_on_two_unaffiliated_domains_is_corroborated(embedder: Embedder) -> None:
    doc = classify([result("https://news.alpha-example.com/1", WEBB),
                    result("https://www.beta-example.org/2", WEBB_AGAIN),
                    result("https://www.gamma-example.org/3", BREAD)], REGISTRY, embedder)
    assert tiers(doc) == {"https://news.alpha-example.com/1": ("corroborated", 0.3),
                          "https://www.beta-example.org/2": ("corroborated", 0.3),
                          "https://www.gamma-example.org/3": ("single", 0.15)}
    assert doc["results"][0]["domain"] == "alpha-example.com"
    assert "beta-example.org" in doc["results"][0]["reason"]


def test_subdomains_of_one_registrable_domain_do_not_corroborate(embedder: Embedder) -> None:
    doc = classify([result("https://a.example.co.uk/1", WEBB),
                    result("https://b.example.co.uk/2", WEBB_AGAIN)], REGISTRY, embedder)
    assert {r["domain"] for r in doc["results"]} == {"example.co.uk"}
    assert set(tiers(doc).values()) == {("single", 0.15)}


def test_sites_under_a_public_suffix_are_unaffiliated(embedder: Embedder) -> None:
    doc = classify([result("https://alice.github.io/1", WEBB),
                    result("https://bob.github.io/2", WEBB_AGAIN)], REGISTRY, embedder)
    assert set(tiers(doc).values()) == {("corroborated", 0.3)}


def test_contradicting_findings_do_not_corroborate(embedder: Embedder) -> None:
    doc = classify([result("https://news.alpha-example.com/1", WEBB),
                    result("https://www.beta-example.org/2", WEBB_DENIED)], REGISTRY, embedder)
    assert set(tiers(doc).values()) == {("single", 0.15)}


def test_whitelist_wins_over_override_as_the_cascade_orders(embedder: Embedder) -> None:
    registry = parse_registry({"whitelist": ["nature.com"],
                               "overrides": [{"url": "https://nature.com/a", "tier": "single"}]},
                              "r.md")
    doc = classify([result("https://nature.com/a", BREAD)], registry, embedder)
    assert tiers(doc) == {"https://nature.com/a": ("whitelisted", 0.8)}


def test_a_result_is_tiered_by_the_host_the_browser_opens(embedder: Embedder) -> None:
    # Before: `evil.example\\@nature.com` was classified as nature.com, whitelisted, and
    # `contentfarm。example` (an ideographic full stop) slipped past `*.contentfarm.example`.
    doc = classify([result("https://www.contentfarm.example\\@nature.com/x", BREAD),
                    result("https://www.contentfarm\u3002example/a", WEBB),
                    result("https://SPAM\uff0eexample/b", WEBB_AGAIN)], REGISTRY, embedder)
    assert [r["url"] for r in doc["excluded"]] == ["https://www.contentfarm.example\\@nature.com/x",
                                                  "https://www.contentfarm\u3002example/a",
                                                  "https://SPAM\uff0eexample/b"]
    assert doc["results"] == []


@pytest.mark.parametrize("bad", [
    [{"title": "no url"}],
    [{"url": "ftp://example.org/file"}],
    [{"url": "http://[::1"}],  # Before: urlsplit's ValueError, a 500
    [{"url": "https://a.example:99999/"}],
    [{"url": "https://example.org", "text": 3}],
    "not a list",
])
def test_malformed_results_are_refused(bad: Any, embedder: Embedder) -> None:
    with pytest.raises(BadRequest):
        classify(bad, Registry(), embedder)


def test_registry_with_an_unknown_override_tier_is_refused() -> None:
    with pytest.raises(BadRequest, match="override"):
        parse_registry({"overrides": [{"url": "https://a.example", "tier": "gold"}]}, "r.md")


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file()}


def test_classify_reads_the_registry_note_and_never_touches_vault_notes(
    tmp_path: Path, embedder: Embedder
) -> None:
    vault = tmp_path / "vault"
    (vault / "Web").mkdir(parents=True)
    (vault / "Registry — Trusted Web Sources.md").write_text(
        "---\ntype: reference\nnexus: []\ntags: []\nwhitelist:\n  - nature.com\n---\n",
        encoding="utf-8")
    saved = "---\ntype: web\nnexus: []\ntags: []\nurl: https://www.beta-example.org/2\n---\n"
    (vault / "Web" / "Saved page.md").write_text(saved + WEBB_AGAIN + "\n", encoding="utf-8")
    before = _snapshot(vault)
    registry = load_registry(vault, 1 << 20)
    doc = classify([result("https://www.nature.com/x", WEBB),
                    result("https://www.beta-example.org/2", WEBB_AGAIN)], registry, embedder)
    assert _snapshot(vault) == before
    assert registry.source == "Registry — Trusted Web Sources.md"
    # The saved web note does not lift the external result: that is retrieval's vault P4.
    assert tiers(doc)["https://www.beta-example.org/2"] == ("corroborated", 0.3)
    assert tiers(doc)["https://www.nature.com/x"] == ("whitelisted", 0.8)


def test_vault_without_registry_note_has_an_empty_registry(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("hello", encoding="utf-8")
    assert load_registry(tmp_path, 1 << 20) == Registry()
