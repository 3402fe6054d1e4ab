"""A purpose-built vault for the cleaning tests, and a scan helper over the real embedder."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sidecar.cleaning.rules import RulesJudge
from sidecar.cleaning.scan import ScanReport, scan
from sidecar.cleaning.store import Queue
from sidecar.models.embedder import Embedder
from sidecar.settings import Config, make_config
from tests.notes import write_notes

NOTES: dict[str, str] = {
    "Engrams/Vitamin C and colds.md": (
        "---\n"
        "type: engram\n"
        "nexus: []\n"
        "tags:\n"
        "  - health\n"
        "date created: 2021-03-04\n"
        "---\n"
        "# Vitamin C and colds\n"
        "\n"
        "Taking vitamin C every day prevents the common cold.\n"
        "Citrus fruit is a good source of it.\n"
    ),
    "Engrams/Vitamin C revisited.md": (
        "---\n"
        "type: engram\n"
        "nexus: [\"[[Health]]\"]  # kept as written\n"
        "tags: [health, ai-derived]\n"
        "date created: 2024-06-01\n"
        "---\n"
        "Large trials show that taking vitamin C every day does not prevent the common cold.\n"
    ),
    "Engrams/Spaced repetition.md": (
        "---\n"
        "type: engram\n"
        "nexus: []\n"
        "tags:\n"
        "- learning\n"
        "---\n"
        "Spaced repetition improves long-term retention of vocabulary.\n"
    ),
    "Engrams/Review intervals.md": (
        "---\n"
        "type: engram\n"
        "nexus: []\n"
        "tags:\n"
        "- learning\n"
        "---\n"
        "Reviewing vocabulary at spaced intervals improves how long words are retained.\n"
    ),
    "Resources/Rates March.md": (
        "---\n"
        "type: resource\n"
        "nexus: []\n"
        "tags: [news, finance]\n"
        "published: 2024-03-20\n"
        "---\n"
        "The central bank held its interest rate at 5.25 percent on Wednesday, citing inflation.\n"
    ),
    "Resources/Rates May.md": (
        "---\n"
        "type: resource\n"
        "nexus: []\n"
        "tags: [news, finance]\n"
        "published: 2024-05-01\n"
        "---\n"
        "The central bank kept its interest rate at 5.25 percent again on Wednesday, as "
        "inflation stayed high.\n"
    ),
    "Resources/Rates June.md": (
        "---\n"
        "type: resource\n"
        "nexus: []\n"
        "tags: [news, finance]\n"
        "date created: 2024-06-12\n"
        "---\n"
        "The central bank cut its interest rate to 5 percent on Wednesday as inflation eased.\n"
    ),
    "Resources/Volcano.md": (
        "---\n"
        "type: resource\n"
        "nexus: []\n"
        "tags: [news]\n"
        "published: 2024-04-02\n"
        "---\n"
        "A volcano erupted in Iceland overnight, forcing the evacuation of a fishing town.\n"
    ),
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return write_notes(tmp_path / "vault", NOTES)


@pytest.fixture
def config(vault: Path, tmp_path: Path) -> Config:
    return make_config(vault, tmp_path / "data")


@pytest.fixture
def queue(config: Config) -> Iterator[Queue]:
    q = Queue(config.data)
    yield q
    q.close()


@pytest.fixture
def run_scan(config: Config, queue: Queue, embedder: Embedder) -> Callable[[], ScanReport]:
    """One incremental scan with the rules judge, as `ora contradictions --scan` runs it."""

    def run() -> ScanReport:
        return asyncio.run(scan(config, queue, embedder, RulesJudge()))
    return run


@pytest.fixture
def vault_queue(config: Config) -> Iterator[Queue]:
    """A queue that records decisions in the vault, as the CLI and the server open it."""
    q = Queue(config.data, config.vault)
    yield q
    q.close()


def scan_with_rules(config: Config, queue: Queue, embedder: Embedder) -> None:
    """One incremental scan of `queue` with the rules judge."""
    asyncio.run(scan(config, queue, embedder, RulesJudge()))
