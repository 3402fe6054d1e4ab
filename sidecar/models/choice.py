"""Which embedder the settings ask for, for this vault and its index: `embed_model = auto` keeps
the variant the index holds (`indexed_variants`, from `index.json`), else takes the packaged
multilingual embedder for a vault mostly in languages it reads better (`language/suggest.py`),
else the best packaged variant available (`embedder.choose_variant`); with `embed_url` set, a
server's model (`remote_embedder.py`).
"""

from __future__ import annotations

from pathlib import Path

from sidecar.index_params import load_params
from sidecar.language.suggest import vault_shares, wants_multilingual
from sidecar.models import multilingual
from sidecar.models.embedder import VARIANTS, Embedder, choose_variant, open_embedder
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
    """The packaged variants whose vectors the index in `data` holds (from its saved model ids,
    `all-MiniLM-L6-v2:<variant>:<sha>` or `use-multilingual-v3:onnx:<sha>`), in its
    namespaces' order."""
    out = []
    for values in load_params(data)["namespaces"].values():
        name, _, rest = str(values.get("model", "")).partition(":")
        variant = rest.partition(":")[0]
        if name == EMBED_NAME and variant in VARIANTS and variant not in out:
            out.append(variant)
        elif name == multilingual.NAME and name not in out:
            out.append(name)
    return out


def load_embedder(config: Config, *, defer: bool = False) -> Embedder:
    """The Embedder the settings ask for: a server's model when `embed_url` is set, else the
    `embed_model` variant (auto = the index's own variant, else the best available); `defer`:
    loaded at its first use (`open_embedder`)."""
    if config.embed_url:
        return RemoteEmbedder.from_config(config)
    return open_embedder(embed_variant(config), config.models_path, defer=defer)
