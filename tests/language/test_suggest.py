"""The embedder that suits a vault's languages (`language/suggest.py`)."""

from __future__ import annotations

import pytest

from sidecar.language.suggest import wants_multilingual


@pytest.mark.parametrize(("found", "wanted"), [
    ({"pl": 0.9, "en": 0.1}, True),  # trained on Polish: it ranked the Polish help vault better
    ({"uk": 0.6, "en": 0.4}, True),  # not trained on Ukrainian, but measured better there
    ({"cs": 0.9, "en": 0.1}, False),  # MiniLM ranked the Czech help vault better
    ({"el": 0.9, "en": 0.1}, False),  # its vectors of Greek are noise its fusion trusts
    ({"en": 0.7, "de": 0.3}, False)])
def test_the_multilingual_embedder_is_wanted_for_languages_it_reads_better(
        found: dict[str, float], wanted: bool) -> None:
    assert wants_multilingual(found) is wanted
