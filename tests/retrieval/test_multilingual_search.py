"""A vault mostly not in English is embedded, out of the box, by the packaged multilingual
embedder: its notes are found by their meaning, even by a question in another language, which
the English-only embedder cannot do (on this vault it put the right note first for 3 of these 5
English questions)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sidecar.cli import main

NOTES = {
    "Incrustar archivos.md": "Puedes incrustar el contenido de una nota dentro de otra: escribe "
    "un signo de exclamación delante del enlace y la nota aparece entera en ese lugar.",
    "Etiquetas.md": "Las etiquetas son palabras clave que agrupan las notas del mismo tema. Se "
    "escriben con una almohadilla y se pueden anidar con una barra.",
    "Plantillas.md": "Una plantilla inserta en la nota actual un texto que necesitas una y otra "
    "vez, como la fecha del día o la lista de tareas de la semana.",
    "Sincronizar.md": "Obsidian Sync mantiene tus notas iguales en el móvil, la tableta y el "
    "ordenador, cifradas de extremo a extremo.",
    "Publicar.md": "Obsidian Publish convierte tus notas en un sitio web que cualquiera puede "
    "leer en internet.",
    "Vista de grafo.md": "La vista de grafo dibuja cada nota como un punto y cada enlace como "
    "una línea entre dos puntos.",
    "Atajos de teclado.md": "Los atajos de teclado ejecutan una orden al pulsar una combinación "
    "de teclas; puedes cambiarlos en los ajustes.",
    "Apariencia.md": "En la apariencia eliges el tema claro u oscuro, el tamaño de la letra y "
    "los colores de acento de la aplicación.",
}
QUESTIONS = {
    "publish my notes as a website": "Publicar.md",
    "draw my notes as dots and lines": "Vista de grafo.md",
    "change the key combination of a command": "Atajos de teclado.md",
    "dark theme and font size": "Apariencia.md",
    "reuse the same text every week": "Plantillas.md",
}


@pytest.fixture
def spanish_index(tmp_path: Path, multilingual_models: Path,
                  monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    # A copy: `ora index` with auto builds MiniLM's variants into its models folder too, and the
    # session's folder must stay as other tests expect it.
    models = tmp_path / "models"
    shutil.copytree(multilingual_models, models)
    monkeypatch.setenv("ORA_MODELS_DIR", str(models))
    monkeypatch.setenv("ORA_EMBED_MODEL", "auto")
    vault, data = tmp_path / "Notas", tmp_path / "data"
    vault.mkdir()
    for name, text in NOTES.items():
        (vault / name).write_text(text + "\n", encoding="utf-8")
    assert main(["index", str(vault), "--data", str(data), "--json"]) == 0
    return vault, data


def test_a_spanish_vault_answers_english_questions_by_meaning(
    spanish_index: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
) -> None:
    vault, data = spanish_index
    capsys.readouterr()
    for question, expected in QUESTIONS.items():
        assert main(["search", str(vault), question, "--data", str(data), "--k", "3",
                     "--json"]) == 0
        found = json.loads(capsys.readouterr().out)
        assert found["results"][0]["path"] == expected, question
