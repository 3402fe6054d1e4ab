"""Language-aware BM25: each note analysed in its language (detected, or set in ora.yaml), German
compounds found by their parts, CJK words found, and a layout change rebuilding only BM25."""

from __future__ import annotations

import copy
import sqlite3
from pathlib import Path

import pytest

from sidecar.index import bm25 as bm25_module
from sidecar.index import bm25_engine
from sidecar.index.bm25 import Bm25Store
from sidecar.index.bm25_table import SparseRow
from sidecar.language.languages import grams
from sidecar.models.embedder import Embedder
from sidecar.schema import load_json
from sidecar.vault.vault_settings import load_vault_settings, note_language

from ..language.sentences import ENGLISH, FRENCH, GERMAN
from .conftest import OpenIndex, write


def _row(i: int, text: str, *, path: str | None = None, language: str = "") -> SparseRow:
    return SparseRow(f"id{i}", path or f"n{i}.md", False, text, "", "", language=language)


def _store(tmp_path: Path, rows: list[SparseRow], private: list[SparseRow] | None = None
           ) -> Bm25Store:
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("ns")
    bm25.replace("ns", deletes={}, inserts={False: rows, True: private or []})
    return bm25


def _ids(bm25: Bm25Store, query: str, *, private: bool = False) -> list[str]:
    return [cid for cid, _ in bm25.search("ns", query, 5, private=private,
                                          include_archived=False)]


def test_german_is_stemmed_as_german_and_its_stopwords_do_not_match(tmp_path: Path) -> None:
    # Before: English stemming and stopwords made "wie viele", "ich" and "mein" the match.
    bm25 = _store(tmp_path, [
        _row(1, "Die Anzahl der Wörter eines Textes steht unten in der Statusleiste der Notiz."),
        _row(2, "Ich weiß nicht, wie viele Tage mein Urlaub hat und wie ich ihn plane, mein "
                "Freund. Wie viele Wochen sind es noch, frage ich mich."),
    ])
    assert _ids(bm25, "wo sehe ich, wie viele Wörter mein Text hat")[0] == "id1"
    bm25.close()


def test_a_stopword_spelled_with_its_accent_is_no_query_term(tmp_path: Path) -> None:
    # Before: "cómo" and "dónde" (the list spells "como", "donde") stayed query terms, stemmed
    # to "com" and "dond", which ranked a note of "cómo", "comer" and "dónde" first.
    bm25 = _store(tmp_path, [
        _row(1, "Las notas se guardan en archivos de texto dentro de la carpeta de la bóveda, "
                "y puedes abrirlas con cualquier editor."),
        _row(2, "Cómo comer: dónde y cómo comemos. Dónde come la gente y cómo, dónde cenar y "
                "cómo pagar las notas."),
        _row(3, "Un diario de viaje con fotos."),
        _row(4, "Lista de la compra para la semana."),
    ])
    assert _ids(bm25, "cómo y dónde se guardan las notas")[0] == "id1"
    es_terms = {t for f, t in bm25_engine.analyze([], ["cómo", "dónde", "notas"], {"es"}).words}
    assert es_terms == {"not"}
    bm25.close()


def test_an_accented_word_that_folds_to_an_english_stopword_is_no_english_term(
    tmp_path: Path,
) -> None:
    # Before: "à" read in the English field (which folds accents) was the term "a", a stopword
    # the query drops when typed as "a": the notes holding "a" (here few, so it scored as
    # high as "Hugon") ranked above the only note holding "Hugon".
    short = [_row(i, f"Idea {i}: a plant-watering reminder with a sensor.") for i in (2, 3, 4)]
    english = [_row(i, f"This note is about the day in the garden, number {i}, with the list "
                       "and the plan for the week and what we did there.") for i in range(5, 40)]
    bm25 = _store(tmp_path, [_row(1, "Nous avons mangé des quenelles au bouchon Chez Hugon. Le "
                                     "vieux Lyon est magnifique sous la pluie."),
                             *short, *english])
    assert _ids(bm25, "Hugon à Lyon") == ["id1"]
    bm25.close()


def test_a_german_compound_is_found_by_its_part(tmp_path: Path) -> None:
    bm25 = _store(tmp_path, [
        _row(1, "Mit Hinweisblöcken hebst du Inhalte hervor, ohne den Textfluss zu stören. "
                "Die Blöcke lassen sich falten und haben eigene Farben für die Notiz."),
        _row(2, "Tags ordnen deine Notizen. Du kannst sie in der Seitenleiste sehen und in "
                "der Suche nach ihnen filtern, wenn du sie brauchst."),
    ])
    assert _ids(bm25, "Hinweise") == ["id1"]
    bm25.close()


def test_english_notes_get_no_character_grams(tmp_path: Path) -> None:
    # n-grams are for compound languages: an English note is found by its words only.
    bm25 = _store(tmp_path, [_row(1, ENGLISH + " Callouts highlight content in the note.")])
    assert _ids(bm25, "callout") == ["id1"]
    assert _ids(bm25, "allou") == []
    assert grams("Hinweisblöcke")[:2] == ["hinw", "inwe"]
    bm25.close()


def test_a_chinese_vault_is_searchable_by_words(tmp_path: Path) -> None:
    bm25 = _store(tmp_path, [
        _row(1, "在设置中打开字数统计插件，状态栏会显示当前笔记的字数和字符数。"),
        _row(2, "使用模板插件可以把预先写好的文本插入到笔记中。"),
        _row(3, "关系图谱展示了笔记之间的链接。"),
    ])
    assert _ids(bm25, "字数")[0] == "id1"
    assert _ids(bm25, "模板")[0] == "id2"
    assert _ids(bm25, "图谱") == ["id3"]
    bm25.close()


def test_a_notes_chunks_share_the_language_detected_from_the_whole_note(tmp_path: Path) -> None:
    # The second chunk alone has no stopwords to tell; the note is German, so its compound is
    # found by a part (n-grams are indexed for German, not for English).
    rows = [_row(1, GERMAN, path="a.md"), _row(2, "Wörterbücher, Zeichenketten", path="a.md"),
            _row(3, ENGLISH, path="b.md")]
    bm25 = _store(tmp_path, rows)
    assert _ids(bm25, "Ketten") == ["id2"]
    bm25.close()


def test_a_rebuilt_engine_keeps_the_set_language_and_detects_the_others_again(
    tmp_path: Path,
) -> None:
    bm25 = _store(tmp_path, [_row(1, "Wörterbücher, Zeichenketten", path="a.md", language="de"),
                             _row(2, GERMAN, path="b.md"), _row(3, "Hinweisblöcke", path="b.md")])
    bm25.close()
    with sqlite3.connect(tmp_path / "bm25.sqlite") as conn:
        assert dict(conn.execute('SELECT id, lang FROM "ns__vault"').fetchall()) == {
            "id1": "de", "id2": "", "id3": ""}
        conn.execute("UPDATE bm25_state SET engine = 'another layout'")
    bm25 = Bm25Store(tmp_path / "bm25.sqlite")
    bm25.create("ns")
    assert (_ids(bm25, "Ketten"), _ids(bm25, "Hinweise")) == (["id1"], ["id3"])
    bm25.close()


def test_a_chinese_notes_english_words_are_stemmed_as_english(tmp_path: Path) -> None:
    bm25 = _store(tmp_path, [_row(1, "使用 templates 插件可以把预先写好的文本插入到笔记中。"),
                             _row(2, ENGLISH)])
    assert _ids(bm25, "template") == ["id1"]
    assert _ids(bm25, "模板插件")[0] == "id1"
    bm25.close()


def test_a_private_german_note_stays_out_of_a_public_search(tmp_path: Path) -> None:
    bm25 = _store(tmp_path, [_row(1, ENGLISH)], private=[_row(2, GERMAN)])
    assert _ids(bm25, "Wörter Anzahl") == []
    assert _ids(bm25, "Wörter Anzahl", private=True) == ["id2"]
    bm25.close()


def test_a_store_of_the_layout_before_languages_is_rebuilt_with_detected_languages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "bm25.sqlite"
    # The layout before: no lang column, every note in the one English field.
    with sqlite3.connect(path) as conn:
        conn.executescript("""
        CREATE TABLE bm25_state (store TEXT PRIMARY KEY, engine TEXT NOT NULL,
                                 pending INTEGER NOT NULL);
        CREATE TABLE "ns__vault" (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE,
            path TEXT NOT NULL, archived INTEGER NOT NULL, text TEXT NOT NULL,
            title TEXT NOT NULL, heading TEXT NOT NULL, about TEXT NOT NULL DEFAULT '');
        INSERT INTO bm25_state VALUES ('ns__vault', 'tantivy 0.27.0; body: ...', 0);
        """)
        conn.execute(
            """INSERT INTO "ns__vault" VALUES (1, 'id1', 'a.md', 0, ?, '', '', '')""",
            ("Mit Hinweisblöcken hebst du Inhalte hervor, ohne den Text zu stören.",))
    bm25 = Bm25Store(path)
    bm25.create("ns")
    assert _ids(bm25, "Hinweise") == ["id1"]  # German, with its n-grams
    bm25.close()


def test_ora_yaml_sets_the_language_per_vault_or_folder(tmp_path: Path) -> None:
    write(tmp_path, "ora.yaml", "language:\n  /: de\n  English/: en\n  Other/: auto\n")
    settings = load_vault_settings(tmp_path, data=None)
    assert settings.problems == ()
    assert [note_language(settings, p) for p in ("a.md", "English/b.md", "Other/c.md")] == [
        "de", "en", "auto"]
    write(tmp_path, "ora.yaml", "language: fr\n")
    assert note_language(load_vault_settings(tmp_path, data=None), "x/y.md") == "fr"
    write(tmp_path, "ora.yaml", "language: klingon\n")
    bad = load_vault_settings(tmp_path, data=None)
    assert note_language(bad, "a.md") is None and "klingon" in bad.problems[0]


def test_the_language_setting_reaches_the_index_and_a_layout_change_only_rebuilds_bm25(
    tmp_path: Path, open_idx: OpenIndex, embedder: Embedder, monkeypatch: pytest.MonkeyPatch,
) -> None:
    vault = tmp_path / "vault"
    # Too few stopwords to detect: English, unless ora.yaml says German.
    write(vault, "Begriffe.md", "# Begriffe\n\nHinweisblöcke, Wörterbücher, Zeichenketten.\n")
    write(vault, "Other.md", "# Garden\n\nTomatoes need sun and water every day.\n")
    index = open_idx(vault)
    index.reconcile()
    assert index.bm25_search("Hinweise", 5, private=False) == []
    write(vault, "ora.yaml", "language: de\n")
    again = index.reconcile()
    assert again["embedded"] == 0
    assert len(index.bm25_search("Hinweise", 5, private=False)) == 1
    index.close()
    # Another BM25 layout: the engine is rebuilt from its table, nothing is re-embedded.
    monkeypatch.setattr(bm25_module, "VERSION", bm25_engine.VERSION + "; next")
    monkeypatch.setattr(bm25_module, "TOKENIZE", bm25_module.TOKENIZE + "; next")
    index = open_idx(vault)
    assert index.reconcile()["embedded"] == 0
    assert len(index.bm25_search("Hinweise", 5, private=False)) == 1
    state = sqlite3.connect(tmp_path / "data" / "bm25.sqlite").execute(
        "SELECT DISTINCT engine FROM bm25_state").fetchall()
    assert state == [(bm25_engine.VERSION + "; next",)]


def test_rewording_languages_json_or_its_embedder_rule_rebuilds_no_engine() -> None:
    doc = load_json("languages.json")
    reworded = copy.deepcopy(doc)

    def reword(value: object) -> None:
        if isinstance(value, dict):
            for key in value:
                if key == "$comment":
                    value[key] = "said otherwise"
                else:
                    reword(value[key])

    reword(reworded)
    reworded["description"] = "said otherwise"
    reworded["suggest"]["share"] = 0.9
    assert bm25_engine.analysis(reworded) == bm25_engine.analysis(doc)
    reworded["languages"]["de"]["stemmer"] = "english"
    assert bm25_engine.analysis(reworded) != bm25_engine.analysis(doc)

# Feedback: the first chunk for "sauvegarde" lends its terms (coffre, synchronisation) to the
# query, which then finds the note that shares them but not the query's word.
_BACKUP = ("Une sauvegarde de vos fichiers est importante : nous la conseillons pour le coffre, "
           "avec la synchronisation du coffre.")
_RELATED = ("Le coffre et la synchronisation : vos fichiers restent les mêmes dans le coffre sur "
            "chaque appareil.")


def test_feedback_finds_a_note_that_shares_the_first_hits_words_not_the_querys(
    tmp_path: Path,
) -> None:
    bm25 = _store(tmp_path, [_row(1, _BACKUP), _row(2, _RELATED), _row(3, FRENCH)])
    assert _ids(bm25, "sauvegarde")[:2] == ["id1", "id2"]
    bm25.close()


def test_english_queries_are_not_expanded(tmp_path: Path) -> None:
    bm25 = _store(tmp_path, [
        _row(1, "A backup copy of your files matters: keep one of the vault, and sync the vault."),
        _row(2, "The vault and sync: your files in the vault stay the same on every device."),
        _row(3, ENGLISH)])
    assert _ids(bm25, "backup") == ["id1"]
    bm25.close()


def test_a_private_note_never_expands_a_public_search(tmp_path: Path) -> None:
    bm25 = _store(tmp_path, [_row(2, _RELATED), _row(3, FRENCH)], private=[_row(1, _BACKUP)])
    assert _ids(bm25, "sauvegarde") == []
    assert _ids(bm25, "sauvegarde", private=True) == ["id1"]
    bm25.close()


def test_an_english_chunk_lends_nothing_to_a_query_in_a_mixed_vault(tmp_path: Path) -> None:
    # The first chunk for "backup" is English: read as German it lent "vault" and "sync" to the
    # query's German field, which found the German note that shares neither its words nor its
    # meaning.
    bm25 = _store(tmp_path, [
        _row(1, "A backup copy of your files matters: keep one of the vault, and sync the vault."),
        _row(2, "Der Vault und die Sync-Funktion: so bleiben die Dateien auf jedem Gerät gleich."),
        _row(3, ENGLISH)])
    assert _ids(bm25, "backup") == ["id1"]
    bm25.close()
