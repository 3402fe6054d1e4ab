"""Every language searchable by its words: known items on Obsidian's help vault in 33 languages.

Each language folder of `obsidianmd/obsidian-help` is copied to a temporary vault, indexed cold
with the settings' defaults (`embed_model = auto`: the embedder its detected languages call for),
and asked, for each of its notes, three consecutive words of that note's longest line of prose
as ICU's word segmenter splits them (`bench/known_items.mjs` wrote them, to
`bench/data/multilingual/known_items.json`: an independent splitter, so Thai, Khmer and Chinese
words are a reader's words, not Ora's). Written without spaces, as their readers write them, in
the scripts that put none between words. Reported per language: the embedder, the share of notes
detected in the folder's own language (Chinese for `zh-TW`), and hit@5 / MRR@10 over distinct
notes of the default search, BM25 alone and dense alone. A phrase remembered is not a question:
this measures whether a note's own words find it, in every script; the question sets of
`bench_multilingual.py` measure ranking.

With `--unaccented` each phrase is typed without its accents, as on a keyboard without them: each
Latin or Greek letter without its combining marks, ł ø đ ı ħ as l o d i h, œ æ ß as oe ae ss, and
Cyrillic ё as е (other scripts as written); with `--other-script` each Chinese phrase in the other
script (Simplified Chinese's in Traditional characters, Traditional's in Simplified, by OpenCC's
own conversion: the bench extra `opencc`). Only the languages where some phrase changes are
reported, with how many changed.

    python bench/bench_known_items.py /tmp/obsidian-help [--languages th,km,...] [--keep DIR]
        [--unaccented | --other-script] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_multilingual import MODES, measures, ranker
from report import ROOT, cpu_name, report_main

from sidecar.index import open_index
from sidecar.language.languages import language_of
from sidecar.models.choice import load_embedder
from sidecar.settings import make_config
from sidecar.vault.note import split_frontmatter

ITEMS = ROOT / "bench" / "data" / "multilingual" / "known_items.json"
HEADING = "## Multilingual: every language searchable by its words"
HEADING_UNACCENTED = "## Multilingual: a phrase typed without its accents"
# Chinese in the other script is one of the ways of typing that section tells of (by hand).
HEADING_OTHER_SCRIPT = ("## Multilingual: words however they are typed or saved (Arabic script, "
                        "Hebrew, Turkish, decomposed, Chinese in either script)")
# How a phrase is typed otherwise (`--unaccented`, `--other-script`): the section each writes.
HEADINGS = {"unaccented": HEADING_UNACCENTED, "other-script": HEADING_OTHER_SCRIPT}
# Each Chinese vault's phrases in the other script, by OpenCC's conversion of whole phrases
# (the bench extra `opencc`, not Ora's table of characters).
_OTHER_SCRIPT = {"zh": "s2t", "zh-TW": "t2s"}
# Scripts written without spaces between words: their readers type a phrase without them.
_UNSPACED = {"zh", "zh-TW", "ja", "th", "km"}
_SPACE_BETWEEN_NON_LATIN = re.compile(r"(?<=[^\x00-\x7f]) (?=[^\x00-\x7f])")


# Letters with no combining mark to drop, as typed on a keyboard without them (œ as oe, ß as ss);
# Russian ё as the е most writers type for it.
_PLAIN = str.maketrans({**dict(zip("łŁøØđĐıħĦёЁ", "lLoOdDihHеЕ", strict=True)),
                        "œ": "oe", "Œ": "Oe", "æ": "ae", "Æ": "Ae", "ß": "ss"})


def _typed(words: str, lang: str) -> str:
    return _SPACE_BETWEEN_NON_LATIN.sub("", words) if lang in _UNSPACED else words


def _unaccented(words: str) -> str:
    """`words` without the accents of their Latin and Greek letters (the first 0x370 code
    points, Greek and Coptic, and Latin and Greek Extended)."""
    def plain(letter: str) -> str:
        if ord(letter) < 0x400 or 0x1E00 <= ord(letter) < 0x2000:
            return "".join(c for c in unicodedata.normalize("NFD", letter)
                           if not unicodedata.combining(c))
        return letter
    return "".join(plain(letter) for letter in words).translate(_PLAIN)


def _typed_otherwise(how: str | None, lang: str) -> Callable[[str], str]:
    """How `lang`'s phrases are typed: as written, without accents, or in the other script."""
    if how == "unaccented":
        return _unaccented
    if how == "other-script" and lang in _OTHER_SCRIPT:
        import opencc  # bench extra

        return opencc.OpenCC(_OTHER_SCRIPT[lang]).convert  # type: ignore[no-any-return]
    return str


def _own_language_share(vault: Path, lang: str) -> float:
    """The share of the vault's notes detected in its folder's language."""
    code = "zh" if lang == "zh-TW" else lang
    found = [language_of([block.body if (block := split_frontmatter(text)) else text]) == code
             for path in vault.rglob("*.md") for text in [path.read_text(encoding="utf-8")]]
    return sum(found) / len(found)


def run_language(help_root: Path, lang: str, items: list[list[str]], work: Path,
                 typed: Callable[[str], str] = str) -> dict[str, Any]:
    vault = work / lang / "vault"
    if not vault.exists():
        shutil.copytree(help_root / lang, vault, ignore=shutil.ignore_patterns(
            "*.png", "*.jpg", "*.jpeg", "*.gif", "*.mp4", "*.webm", "*.svg", "*.pdf"))
    config = make_config(vault, work / lang / "data")
    embedder = load_embedder(config)
    with open_index(config, embedder=embedder) as index:
        index.reconcile()
    questions: list[dict[str, Any]] = [
        {"q": typed(_typed(q, lang)), "expected": [path]} for q, path in items]
    out: dict[str, Any] = {"embedder": embedder.model_id.split(":")[0],
                           "own": _own_language_share(vault, lang),
                           "changed": sum(typed(q) != q for q, _ in items)}
    with open_index(config, writer=False) as index:
        for mode in MODES:
            rank = ranker(index, embedder, mode)
            ranks = [next((i + 1 for i, p in enumerate(rank(q["q"])[:10]) if p in q["expected"]),
                          None) for q in questions]
            out[mode] = measures(questions, ranks)
    return out


def run(help_root: Path, languages: list[str], keep: Path | None, how: str | None) -> str:
    """The report of `languages`, each phrase typed as written or `how` (`HEADINGS`)."""
    items = json.loads(ITEMS.read_text(encoding="utf-8"))
    load = os.getloadavg()
    if how:  # only the languages where some phrase changes
        languages = [lang for lang in languages
                     if any(_typed_otherwise(how, lang)(q) != q for q, _ in items[lang])]
    with tempfile.TemporaryDirectory(prefix="ora-known-") as tmp:
        work = keep or Path(tmp)
        results = {lang: run_language(help_root, lang, items[lang], work,
                                      _typed_otherwise(how, lang)) for lang in languages}
    rows = [f"| {lang} | {r['embedder']} | "
            + (f"{r['changed']} of {r['default']['questions']}" if how
               else f"{r['default']['questions']} | {r['own']:.0%}") + " | "
            + " | ".join(f"{r[m]['hit@5']:.3f} / {r[m]['mrr@10']:.3f}" for m in MODES) + " |"
            for lang, r in results.items()]
    columns = ["phrases changed"] if how else ["phrases", "own language"]
    return "\n".join([
        HEADINGS[how] if how else HEADING, "",
        f"`python bench/bench_known_items.py PATH{f' --{how}' if how else ''}` on "
        f"{time.strftime('%Y-%m-%d', time.gmtime())}, {cpu_name()}, load average "
        f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}; each vault's embedder is the one "
        "`embed_model = auto` gives it, no re-ranker. hit@5 / MRR@10 over distinct notes; "
        "\"own language\": the notes detected in the folder's language.", "",
        "| " + " | ".join(["language", "embedder", *columns, "default", "BM25 alone",
                           "dense alone"]) + " |",
        "|---" * (len(columns) + 5) + "|", *rows, ""])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("help_vault", type=Path,
                        help="a checkout or export of obsidianmd/obsidian-help")
    parser.add_argument("--languages", default=",".join(
        json.loads(ITEMS.read_text(encoding="utf-8"))))
    parser.add_argument("--keep", type=Path, help="keep the vaults and indexes in this folder")
    typed = parser.add_mutually_exclusive_group()
    typed.add_argument("--unaccented", action="store_const", const="unaccented", dest="how",
                       help="type each phrase without its accents")
    typed.add_argument("--other-script", action="store_const", const="other-script", dest="how",
                       help="type each Chinese phrase in the other script (bench extra opencc)")
    how = next((h for h in HEADINGS if f"--{h}" in sys.argv), None)  # the section written
    return report_main(parser, HEADINGS[how] if how else HEADING, lambda args: run(
        args.help_vault, [lang for lang in args.languages.split(",") if lang], args.keep,
        args.how))


if __name__ == "__main__":
    raise SystemExit(main())
