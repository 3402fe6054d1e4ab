"""`ora index` offers the multilingual embedder only when `embed_model = auto` chose the one in
use: an embedder named on purpose (`ORA_EMBED_MODEL=int8`) is not questioned on every run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidecar.cli import main
from sidecar.settings import make_config

from .conftest import write

SPANISH = ("Las etiquetas son palabras clave que te ayudan a encontrar las notas que tratan del "
           "mismo tema, y se escriben con una almohadilla.\n")


def test_an_embedder_set_on_purpose_is_not_offered_another_on_each_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: every `ora index` of a Spanish vault with ORA_EMBED_MODEL=int8 said "set
    # ORA_EMBED_MODEL=use-multilingual-v3" again.
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    monkeypatch.setenv("ORA_MODELS_DIR", str(tmp_path / "models"))
    vault = tmp_path / "vault"
    write(vault, "Etiquetas.md", SPANISH)
    for _ in range(2):
        assert main(["index", str(vault), "--data", str(tmp_path / "data"), "--json"]) == 0
        out, err = capsys.readouterr()
        assert "ORA_EMBED_MODEL=" not in err
        # the JSON still reports what would suit the vault's languages
        assert json.loads(out)["suggestion"]["model"] == "use-multilingual-v3"


@pytest.mark.parametrize(("values", "offered"), [
    ({}, True), ({"embed_model": "auto"}, True), ({"embed_model": "q8"}, False),
    ({"embed_model": "int8"}, False),
    ({"embed_url": "http://127.0.0.1:1/v1", "embed_model": "auto"}, False),
])
def test_only_an_embedder_auto_chose_is_offered_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, values: dict[str, str], offered: bool
) -> None:
    from sidecar.index.language_offer import chosen_by_auto  # here: new with the fix

    for name in ("ORA_EMBED_MODEL", "ORA_EMBED_URL"):  # the settings' defaults, not the shell's
        monkeypatch.delenv(name, raising=False)
    config = make_config(tmp_path / "vault", tmp_path / "data").with_values(**values)
    assert chosen_by_auto(config) is offered
