"""The packaged multilingual embedder (use-multilingual-v3): its tokenizer splits as the
SentencePiece model it is made from, and `embed_model = auto` takes it for a vault whose notes
are mostly not in English, and only then."""

from __future__ import annotations

from pathlib import Path

import pytest
import sentencepiece

from sidecar.errors import ModelUnavailable
from sidecar.language.suggest import vault_shares
from sidecar.models import multilingual
from sidecar.models.choice import embed_variant
from sidecar.models.embedder import choose_variant
from sidecar.models.files import packaged_file
from sidecar.settings import make_config
from tests.notes import write_notes

SENTENCES = [
    "¿Cómo hago que el contenido de una nota aparezca dentro de otra?",
    "Wo sehe ich, wie viele Wörter mein Text hat? Hinweisblöcke und Erstattungsrichtlinie.",
    "Où sont rangés les réglages de mon coffre ? L'étiquette « importante » n'apparaît pas.",
    "Come cambio il tema e i colori dell'interfaccia",
    "De verbanden tussen notities als netwerk bekijken",
    "从印象笔记导入笔记，发布到网站。",
    "ノートをウェブサイトに公開する方法",
    "노트를 웹사이트에 게시하는 방법",
    "Как синхронизировать заметки между телефоном и компьютером?",
    "كيف أنشر ملاحظاتي على الإنترنت",
    "  leading, trailing   and   repeated   spaces  ",
    "Ｆｕｌｌ－ｗｉｄｔｈ ＡＢＣ １２３ and ﬁ ligatures, café vs cafe\u0301",
    "tabs\tand\nnew lines, emoji 😀, a\u00a0no-break space, zero\u200bwidth",
    "- [ ] a task with #tags/nested and [[Wiki link|shown text]] `code` **bold**",
]


@pytest.fixture(scope="module")
def tokenizers_pair() -> tuple[object, sentencepiece.SentencePieceProcessor]:
    sp_model = packaged_file("use/sp.model")
    return (multilingual.spm_tokenizer(sp_model),
            sentencepiece.SentencePieceProcessor(model_file=str(sp_model)))


@pytest.mark.parametrize("text", SENTENCES)
def test_the_tokenizer_gives_sentencepieces_ids(text: str, tokenizers_pair: tuple) -> None:
    ours, reference = tokenizers_pair
    assert ours.encode(text).ids == reference.encode(text, out_type=int, add_bos=True,
                                                     add_eos=True)


def test_control_pieces_typed_as_text_are_spelled_out_as_sentencepiece_does(
        tokenizers_pair: tuple) -> None:
    ours, reference = tokenizers_pair
    text = "Strike <s>this</s> out"
    ids = ours.encode(text).ids
    assert ids == reference.encode(text, out_type=int, add_bos=True, add_eos=True)
    assert ids.count(1) == 1 and ids.count(2) == 1  # only the BOS and EOS Ora adds


def test_counting_without_specials_gives_the_pieces_alone(tokenizers_pair: tuple) -> None:
    ours, reference = tokenizers_pair
    text = SENTENCES[1]
    assert len(ours.encode(text, add_special_tokens=False).ids) == len(reference.encode(text))


SPANISH = ("La nota de hoy: quiero que el contenido de una nota aparezca dentro de otra, y que "
           "los enlaces se vean en el grafo de mi bóveda.")
ENGLISH = ("Today's note: I want the content of one note to show inside another, and the "
           "links to show in the graph of my vault.")


def test_the_vault_sample_reads_bodies_skips_excluded_notes_and_follows_ora_yaml(
        tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "v", {
        **{f"Diario/{n}.md": f"---\ntags: [diario]\ntitle: nota {n}\n---\n{SPANISH}"
           for n in range(3)},
        "Archive/old.md": ENGLISH, "Work/plan.md": ENGLISH,
        "ora.yaml": "exclude: [Archive]\nlanguage: {Work: es}\n",
    })
    assert vault_shares(vault, data=None) == {"es": 1.0}


def _built(models: Path, *variants: str) -> Path:
    """A models folder where `variants`' files exist (choice reads only their presence)."""
    from sidecar.models.embedder import variant_file

    for variant in variants:
        path = variant_file(variant, models)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
    return models


def test_auto_takes_the_multilingual_embedder_for_a_vault_mostly_not_in_english(
        tmp_path: Path) -> None:
    models = _built(tmp_path / "models", "q8", multilingual.NAME)
    spanish = write_notes(tmp_path / "es",
                          {f"{n}.md": SPANISH for n in range(4)} | {"e.md": ENGLISH})
    english = write_notes(tmp_path / "en",
                          {f"{n}.md": ENGLISH for n in range(4)} | {"s.md": SPANISH})
    assert embed_variant(make_config(spanish, tmp_path / "d1", models_dir=str(models))) == (
        multilingual.NAME)
    assert embed_variant(make_config(english, tmp_path / "d2", models_dir=str(models))) == "q8"
    # named, it is taken whatever the vault's language
    assert embed_variant(make_config(english, tmp_path / "d3", models_dir=str(models),
                                     embed_model=multilingual.NAME)) == multilingual.NAME


def test_auto_keeps_the_embedder_an_index_was_made_with(tmp_path: Path) -> None:
    models = _built(tmp_path / "models", "q8", multilingual.NAME)
    assert choose_variant("auto", models, ["q8"], lambda: True) == "q8"
    assert choose_variant("auto", models, [multilingual.NAME], lambda: False) == (
        multilingual.NAME)


def test_auto_never_asks_the_vault_once_an_index_or_no_multilingual_build_decides(
        tmp_path: Path) -> None:
    def ask() -> bool:
        raise AssertionError("the vault was sampled")

    assert choose_variant("auto", _built(tmp_path / "m1", "q8", multilingual.NAME), ["q8"],
                          ask) == "q8"
    assert choose_variant("auto", _built(tmp_path / "m2", "q8"), [], ask) == "q8"


def test_naming_it_unbuilt_says_to_build_it(tmp_path: Path) -> None:
    with pytest.raises(ModelUnavailable, match="run `ora models build`"):
        choose_variant(multilingual.NAME, tmp_path / "models")
