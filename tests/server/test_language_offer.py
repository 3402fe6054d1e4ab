"""`GET /v1/models/suggestion` on the real app: a vault mostly in Spanish indexed by the
English-only embedder is offered the packaged multilingual one with its re-embedding time; an
English one is not."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path

from sidecar.settings import Config, make_config

from ..conftest import AppClient
from ..index.conftest import KETTLE, write

AppFactory = Callable[[Config], Awaitable[AppClient]]

SPANISH = {
    "Incrustar archivos.md": "Puedes incrustar el contenido de una nota dentro de otra nota. "
    "Escribe un signo de exclamación delante del enlace y la nota aparece en el lugar donde "
    "la pones, con todos sus párrafos y sus imágenes.\n",
    "Etiquetas.md": "Las etiquetas son palabras clave que te ayudan a encontrar las notas que "
    "tratan del mismo tema. Se escriben con una almohadilla y se pueden anidar con una barra.\n",
    "Plantillas.md": "Con una plantilla insertas en la nota actual un texto que necesitas una y "
    "otra vez, como la fecha del día o la lista de las tareas de la semana.\n",
}


async def _offer(tmp_path: Path, app_client: AppFactory,
                 notes: dict[str, str]) -> tuple[AppClient, dict[str, object]]:
    vault = tmp_path / "vault"
    for name, text in notes.items():
        write(vault, name, text)
    api = await app_client(make_config(vault, tmp_path / "data",
                                       models_dir=str(tmp_path / "models")))
    await api.reconciled()
    status, offer = await api.call("GET", "/v1/models/suggestion")
    assert status == 200
    return api, offer


async def test_a_spanish_vault_is_offered_the_multilingual_embedder_with_its_time(
    tmp_path: Path, app_client: AppFactory
) -> None:
    api, offer = await _offer(tmp_path, app_client, {**SPANISH, "Kettle.md": KETTLE})
    assert offer["languages"] == {"es": 0.75, "en": 0.25}
    suggestion = offer["suggestion"]
    assert isinstance(suggestion, dict)
    _, status = await api.call("GET", "/v1/status")
    assert suggestion["model"] == "use-multilingual-v3" and suggestion["packaged"] is True
    assert suggestion["installed"] is False  # this app's models folder has none built
    assert suggestion["download_mb"] is None and suggestion["share_not_english"] == 0.75
    assert suggestion["chunks"] == status["chunks"] >= 4 and suggestion["estimate_s"] >= 0
    assert "a download of" not in suggestion["message"]
    told = (rf"Re-embedding the index's {status['chunks']} chunks takes "
            r"(about \d+ (s|min)|under a second) on this machine\.$")
    assert re.search(told, suggestion["message"])
    _, report = await api.call("GET", "/v1/models")
    sizes = {row["name"]: row["download_mb"] for row in report["catalogue"]}
    assert sizes["multilingual-e5-small"] == 487 and sizes["ms-marco-minilm-l6"] == 91
    _, after = await api.call("GET", "/v1/status")
    assert after["model"] == status["model"]  # offering changes nothing


async def test_an_english_vault_is_offered_nothing(
    tmp_path: Path, app_client: AppFactory
) -> None:
    _, offer = await _offer(tmp_path, app_client, {"Kettle.md": KETTLE, "Garden.md":
                            "The tomatoes need sun and water every day in the summer, and "
                            "the beans want a stick to climb on.\n"})
    assert offer == {"languages": {"en": 1.0}, "suggestion": None}
