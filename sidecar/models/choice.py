"""Which embedder the settings ask for, for this vault and its index: `embed_model = auto` keeps
the variant the index holds (`indexed_variants`, from `index.json`), else takes the packaged
multilingual embedder for a vault mostly in languages it reads better (`language/suggest.py`),
else the best packaged variant available (`embedder.choose_variant`); with `embed_url` set, a
server's model (`remote_embedder.py`).
"""

from __future__ import annotations

from pathlib import Path

from sidecar.errors import ModelUnavailable
from sidecar.index_params import load_params
from sidecar.language.suggest import vault_shares, wants_multilingual
from sidecar.models import multilingual
from sidecar.models.embedder import (
    REMOTE,
    VARIANTS,
    Embedder,
    choose_variant,
    is_pulled_embedder,
    open_embedder,
)
from sidecar.models.files import EMBED_NAME
from sidecar.models.remote_embedder import RemoteEmbedder
from sidecar.settings import Config


def embed_variant(config: Config, *, vault: bool = True) -> str:
    """The variant `embed_model` resolves to for the index in `config.data`: what the index
    embeds with, and what `ora models` reports. `vault=False`: `config.vault` is no vault (`ora
    models` runs anywhere), so it is not sampled for its language."""
    return choose_variant(str(config.embed_model), config.models_path,
                          indexed_variants(config.data),
                          (lambda: wants_multilingual(vault_shares(config.vault,
                                                                   data=config.data)))
                          if vault else None)


def indexed_variants(data: Path) -> list[str]:
    """The embedders whose vectors the index in `data` holds, from its saved model ids, in its
    namespaces' order: a packaged variant (`all-MiniLM-L6-v2:<variant>:<sha>`), the packaged
    multilingual or a pulled catalogue embedder by name (`<name>:onnx:<sha>`), or a server's
    model by its whole id (`remote:<model>@<host>:<dim>`, `remote_embedder.py`)."""
    out = []
    for values in load_params(data)["namespaces"].values():
        model = str(values.get("model", ""))
        name, _, rest = model.partition(":")
        variant = rest.partition(":")[0]
        if name == EMBED_NAME and variant in VARIANTS:
            found = variant
        elif name == multilingual.NAME or (variant == "onnx" and is_pulled_embedder(name)):
            found = name
        elif name == REMOTE:
            found = model
        else:
            continue
        if found not in out:
            out.append(found)
    return out


def check_query_model(data: Path, indexed: str, model: str) -> None:
    """ModelUnavailable when the vectors of an index in `data` are another model's (`indexed`)
    than `model` (a query embedder's id): its query vectors would rank them by noise, or, of
    another width, fail in the vector store. Nothing indexed yet, or no id: nothing to say."""
    if model and indexed and model != indexed:
        raise ModelUnavailable(
            f"the index in {data} holds vectors of {indexed}, not of {model} (the embed_model "
            "setting's): set embed_model (ORA_EMBED_MODEL) to auto, or to the index's model, to "
            "search it, or run `ora index` to re-embed it with this one")


def load_embedder(config: Config, *, defer: bool = False) -> Embedder:
    """The Embedder the settings ask for: a server's model when `embed_url` is set, else the
    `embed_model` variant (auto = the index's own variant, else the best available); `defer`:
    loaded at its first use (`open_embedder`)."""
    if config.embed_url:
        return RemoteEmbedder.from_config(config)
    return open_embedder(embed_variant(config), config.models_path, defer=defer)
