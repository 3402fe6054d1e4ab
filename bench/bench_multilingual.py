"""Ora on vaults in other languages: Obsidian's help vault per language, questions as users ask.

Obsidian's help vault is published in many languages (the public repository
`obsidianmd/obsidian-help`, one folder per language: `de/`, `es/`, `zh/`, ...). Given a checkout
or an export of it, each language folder is copied to a temporary vault, indexed cold with the
default settings, and asked the questions of `bench/data/multilingual/LANG.json` (written for
this bench, each with the note that answers it). Reported per language, hit@5 and MRR@10 over
distinct notes (a note ranks where its first chunk does), for:

- `default`: the same `search()` as `ora search` (fused dense + BM25, no re-ranker);
- `bm25`: the BM25 half alone;
- `dense`: the dense half alone.

Italian, Dutch, French, Polish, Czech, Russian, Ukrainian, Greek and Hebrew are the tuning sets;
Persian a check written for a choice made on Greek and Hebrew;
Spanish and German are the final check, never tuned on. English (`en.json`) is their reference: the
Spanish and German questions translated one by one (each question's `from`), expecting the English
note of the same permalink, reported whole and per source (`en<es`, `en<de`), so a language is
compared with English on the same questions. Each vault is indexed with the embedder the settings
give it (`embed_model = auto` takes the packaged multilingual one for a vault mostly not in
English; `ORA_EMBED_URL` / `ORA_EMBED_MODEL` name another), loaded before its index is timed.

With `--arabic-keyboard` each question's Persian ی and ک are typed as ي and ك, as an Arabic
keyboard types them (the Persian set is written with Persian letters, as its vault is).

With `--markdown-links` each vault's wikilinks are first written as Markdown links, as Obsidian
writes them with "Use [[Wikilinks]]" turned off and the shortest path (`[[Graph view#Filters|the
graph]]` becomes `[the graph](Graph%20view.md#Filters)`): the same vault, linked as such users
link theirs. Frontmatter is left as it is (a property's link is a wikilink in either setting).

    git clone --depth 1 https://github.com/obsidianmd/obsidian-help /tmp/obsidian-help
    python bench/bench_multilingual.py /tmp/obsidian-help [--languages it,nl,fr,es,de,zh,en]
        [--keep DIR] [--markdown-links] [--arabic-keyboard] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Any

from report import ROOT, cpu_name, report_main

from sidecar.index import open_index
from sidecar.index.index import Index
from sidecar.models.choice import load_embedder
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import SearchOptions, search_sync
from sidecar.settings import make_config
from sidecar.vault.scan import iter_note_paths

QUESTIONS = ROOT / "bench" / "data" / "multilingual"
HEADING = "## Multilingual: Obsidian's help vault per language"
LANGUAGES = ("it", "nl", "fr", "pl", "cs", "ru", "uk", "el", "he", "fa", "es", "de", "zh", "en")
MODES = ("default", "bm25", "dense")
DEPTH = 30
# Persian yeh and keheh as an Arabic keyboard types them (`--arabic-keyboard`).
ARABIC_KEYBOARD = str.maketrans("یک", "يك")
# A wikilink to rewrite (this bench writes links; Ora reads them through vault/links.py).
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]|#]*)(#[^\[\]|]*)?(?:\|([^\[\]]*))?\]\]")


def _distinct(paths: list[str]) -> list[str]:
    return list(dict.fromkeys(paths))


def ranker(index: Index, embedder: Embedder, mode: str) -> Callable[[str], list[str]]:
    """The ranked distinct note paths of one question, by `mode`."""
    def paths(hits: list[tuple[str, float]]) -> list[str]:
        chunks = index.get_chunks([cid for cid, _ in hits], private=False)
        return _distinct([chunks[cid].path for cid, _ in hits if cid in chunks])

    def rank(question: str) -> list[str]:
        if mode == "bm25":
            return paths(index.bm25_search(question, DEPTH, private=False))
        if mode == "dense":
            vector = embedder.embed_queries([question])[0]
            return paths(index.dense_search(vector, DEPTH, private=False))
        doc = search_sync(index, embedder, None, question, SearchOptions(k=DEPTH, rerank=False))
        return _distinct([r["path"] for r in doc["results"]])
    return rank


def _score(rank: Callable[[str], list[str]], questions: list[dict[str, Any]]) -> dict[str, Any]:
    """hit@5, MRR@10 and the misses of `questions`, and of each source's share of them (`from`:
    the set an English question was translated from)."""
    ranks: list[int | None] = []
    for q in questions:
        notes = rank(q["q"])
        ranks.append(next((i + 1 for i, p in enumerate(notes[:10]) if p in q["expected"]), None))
    out = measures(questions, ranks)
    for source in dict.fromkeys(str(q["from"]) for q in questions if "from" in q):
        picked = [(q, r) for q, r in zip(questions, ranks, strict=True) if q.get("from") == source]
        out[f"<{source}"] = measures([q for q, _ in picked], [r for _, r in picked])
    return out


def measures(questions: list[dict[str, Any]], ranks: list[int | None]) -> dict[str, Any]:
    return {"questions": len(questions),
            "hit@5": sum(r is not None and r <= 5 for r in ranks) / len(questions),
            "mrr@10": sum(1 / r for r in ranks if r) / len(questions),
            "misses": [q["q"] for q, r in zip(questions, ranks, strict=True)
                       if r is None or r > 5]}


def _markdown_links(vault: Path) -> None:
    """Every note body's wikilinks and embeds written as Markdown links, as Obsidian writes them
    with wikilinks off: the target's name (`.md` added for a note), URL-encoded spaces."""
    notes = {PurePosixPath(p).stem.casefold() for p in iter_note_paths(vault)}
    notes |= {p.removesuffix(".md").casefold() for p in iter_note_paths(vault)}

    def markdown(m: re.Match[str]) -> str:
        embed, target, part, alias = m.group(1), m.group(2).strip(), m.group(3) or "", m.group(4)
        note = target.casefold() in notes
        shown = alias or " > ".join(x for x in [target, *part.strip("#").split("#")]
                                    if x and not x.startswith("^"))
        dest = (target + (".md" if note else "") + part).replace(" ", "%20")
        return f"{embed}[{'' if embed and not note else shown}]({dest})"

    for rel in iter_note_paths(vault):
        path = vault / rel
        text = path.read_text(encoding="utf-8")
        end = text.find("\n---", 4) if text.startswith("---\n") else -1
        split = text.find("\n", end + 1) + 1 if end >= 0 else 0
        path.write_text(text[:split] + _WIKILINK.sub(markdown, text[split:]), encoding="utf-8")


def run_language(help_root: Path, lang: str, work: Path, markdown_links: bool = False,
                 arabic_keyboard: bool = False) -> dict[str, Any]:
    questions = json.loads((QUESTIONS / f"{lang}.json").read_text(encoding="utf-8"))["questions"]
    if arabic_keyboard:
        questions = [{**q, "q": q["q"].translate(ARABIC_KEYBOARD)} for q in questions]
    vault = work / lang / "vault"
    if not vault.exists():
        shutil.copytree(help_root / lang, vault, ignore=shutil.ignore_patterns(
            "*.png", "*.jpg", "*.jpeg", "*.gif", "*.mp4", "*.webm", "*.svg", "*.pdf"))
        if markdown_links:
            _markdown_links(vault)
    config = make_config(vault, work / lang / "data")
    embedder = load_embedder(config)  # what the settings give this vault (auto: by its language)
    with open_index(config, embedder=embedder) as index:
        started = time.monotonic()
        summary = index.reconcile()
        wall = time.monotonic() - started
    out: dict[str, Any] = {"notes": sum(1 for _ in vault.rglob("*.md")), "wall": wall,
                           "chunks": summary.get("chunks", 0), "embedder": embedder.model_id}
    with open_index(config, writer=False) as index:
        for mode in MODES:
            out[mode] = _score(ranker(index, embedder, mode), questions)
    return out


def _row(name: str, result: dict[str, Any], part: str | None = None) -> str:
    """A table row of one language's result, or of its questions from one source (`part`)."""
    scores = {m: result[m] if part is None else result[m][part] for m in MODES}
    return (f"| {name} | {result['embedder'].split(':')[0]} | {result['notes']} | "
            f"{scores['default']['questions']} | "
            + " | ".join(f"{scores[m]['hit@5']:.3f} / {scores[m]['mrr@10']:.3f}" for m in MODES)
            + f" | {result['wall']:.0f} s |")


def run(help_root: Path, languages: list[str], keep: Path | None,
        markdown_links: bool = False, arabic_keyboard: bool = False) -> str:
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="ora-ml-") as tmp:
        work = keep or Path(tmp)
        results = {lang: run_language(help_root, lang, work, markdown_links, arabic_keyboard)
                   for lang in languages}
    rows = [_row(lang, r) for lang, r in results.items()]
    rows += [_row(f"{lang}{part}", r, part)
             for lang, r in results.items() for part in r["default"] if part.startswith("<")]
    misses = [f"- {lang} ({m}): " + "; ".join(r[m]["misses"])
              for lang, r in results.items() for m in ("default",) if r[m]["misses"]]
    return "\n".join([
        HEADING, "",
        f"`python bench/bench_multilingual.py PATH --languages {','.join(languages)}"
        f"{' --markdown-links' if markdown_links else ''}"
        f"{' --arabic-keyboard' if arabic_keyboard else ''}` on "
        f"{time.strftime('%Y-%m-%d', time.gmtime())}, {cpu_name()}, load average "
        f"{load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}; each vault's embedder is the one the "
        "settings give it (`embed_model = auto`: by the vault's language), no re-ranker. "
        "hit@5 / MRR@10 over distinct notes.", "",
        "| language | embedder | notes | questions | default | BM25 alone | dense alone | "
        "cold index |",
        "|---|---|---|---|---|---|---|---|", *rows, "",
        "Default misses (not in the top 5):", "", *misses, ""])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("help_vault", type=Path,
                        help="a checkout or export of obsidianmd/obsidian-help")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--keep", type=Path, help="keep the vaults and indexes in this folder, "
                        "and reuse them (a BM25 change then rebuilds the BM25 side only)")
    parser.add_argument("--markdown-links", action="store_true",
                        help="write each vault's wikilinks as Markdown links first")
    parser.add_argument("--arabic-keyboard", action="store_true",
                        help="type the questions' Persian ی and ک as an Arabic keyboard does")
    return report_main(parser, HEADING, lambda args: run(
        args.help_vault, [lang for lang in args.languages.split(",") if lang], args.keep,
        args.markdown_links, args.arabic_keyboard))


if __name__ == "__main__":
    raise SystemExit(main())
