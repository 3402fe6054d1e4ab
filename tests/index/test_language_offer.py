"""What `ora index` and `GET /v1/models/suggestion` say a switch costs, in words."""

from __future__ import annotations

import re
from pathlib import Path

from sidecar.index import open_index
from sidecar.index.language_offer import language_offer
from sidecar.index.reembed import span
from sidecar.models.embedder import Embedder
from sidecar.settings import make_config

from .conftest import write


def test_a_time_reads_as_minutes_seconds_or_under_a_second() -> None:
    assert span(250) == "about 4 min"
    assert span(20.4) == "about 20 s"
    assert span(0.3) == "under a second"  # was "about 0 s"


def test_a_spanish_vault_is_told_the_re_embedding_once_indexed(
    tmp_path: Path, embedder: Embedder
) -> None:
    vault = tmp_path / "vault"
    write(vault, "Etiquetas.md", "Las etiquetas son palabras clave que te ayudan a encontrar las "
          "notas que tratan del mismo tema, y se escriben con una almohadilla.\n")
    config = make_config(vault, tmp_path / "data", models_dir=str(tmp_path / "models"))
    with open_index(config, embedder=embedder) as index:
        assert language_offer(index) == {"languages": {}, "suggestion": None}  # nothing read yet
        index.reconcile()
        offer = language_offer(index)
    found = offer["suggestion"]
    assert offer["languages"] == {"es": 1.0}
    assert found["chunks"] == 1 and found["download_mb"] is None and found["installed"] is False
    assert re.search(r"it comes with Ora \(`ora models build` builds it\)\. The next `ora index` "
                     r"re-embeds and first says how long that takes\. Re-embedding the index's 1 "
                     r"chunk takes (under a second|about \d+ s) on this machine\.$",
                     found["message"])
