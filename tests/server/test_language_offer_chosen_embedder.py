"""`GET /v1/models/suggestion` offers the multilingual embedder only when `embed_model = auto`
chose the embedder in use: one named on purpose (`embed_model`, or a server's by `embed_url`)
is the user's choice, and the endpoint says there is nothing to suggest (the languages are
still reported)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from sidecar.settings import Config, make_config

from ..conftest import AppClient
from ..index.conftest import KETTLE, write
from .test_language_offer import SPANISH

AppFactory = Callable[[Config], Awaitable[AppClient]]


async def _suggestion(tmp_path: Path, app_client: AppFactory,
                      embed_model: str) -> dict[str, object]:
    vault = tmp_path / "vault"
    for name, text in {**SPANISH, "Kettle.md": KETTLE}.items():
        write(vault, name, text)
    api = await app_client(make_config(vault, tmp_path / "data", embed_model=embed_model,
                                       embed_url="", models_dir=str(tmp_path / "models")))
    await api.reconciled()
    status, offer = await api.call("GET", "/v1/models/suggestion")
    assert status == 200
    return offer


async def test_an_embedder_chosen_on_purpose_is_offered_no_other(
    tmp_path: Path, app_client: AppFactory,
) -> None:
    # Before: the plugin offered use-multilingual-v3 over an English embedder named on purpose
    # (`ORA_EMBED_MODEL=int8`, the packaged one's variant these tests build).
    offer = await _suggestion(tmp_path, app_client, "int8")
    assert offer == {"languages": {"es": 0.75, "en": 0.25}, "suggestion": None}


async def test_an_embedder_auto_chose_is_still_offered_the_multilingual_one(
    tmp_path: Path, app_client: AppFactory,
) -> None:
    offer = await _suggestion(tmp_path, app_client, "auto")
    suggestion = offer["suggestion"]
    assert isinstance(suggestion, dict) and suggestion["model"] == "use-multilingual-v3"
