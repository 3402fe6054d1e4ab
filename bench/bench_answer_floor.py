"""The relevance floor of answers (`answer_floor` in sidecar/answers/pipeline.py): how similar
a passage must be to the question to be sent to the model and cited.

Two vaults, each indexed cold with the default settings (the packaged embedder, no re-ranker):
the English Obsidian help vault (`en/` of obsidianmd/obsidian-help) and a SciFact subset (the
abstracts that answer the first `--queries` TRAIN claims with a train qrel, plus random
abstracts to `--docs` notes; never the test claims). Each question takes the passages an answer
takes (the top `answers.k` of `schema/memory.json`), and each passage's similarity to it as the
answer pipeline measures it (`pipeline.similarities`): the search's query vector against the
vector the index stores for the passage's chunk (its breadcrumb, then its readable text).

- answerable: `bench/data/multilingual/en.json` on the help vault, the train claims on the
  SciFact subset; what counts is the best similarity among the passages of the expected note
  (questions whose expected note is among the passages at all);
- unanswerable: the train claims on the help vault, the help questions on the SciFact subset;
  what counts is the best similarity of any passage.

The floor printed is the highest value (to 0.01 below) that keeps the expected passage of at
least 99% of the answerable questions of each vault; with it (and with a few floors around it),
the share of unanswerable questions answered "nothing in your notes matches".

    git clone --depth 1 https://github.com/obsidianmd/obsidian-help /tmp/obsidian-help
    python bench/bench_answer_floor.py /tmp/obsidian-help [--data ../shared/eval/scifact]
        [--queries 300] [--docs 1200] [--floor F]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

from report import ROOT, SCIFACT

from sidecar.answers.pipeline import StoredVectors, answer_floor, default_k, similarities
from sidecar.index import open_index
from sidecar.index.index import Index
from sidecar.models.choice import load_embedder
from sidecar.models.embedder import Embedder
from sidecar.retrieval.search import RememberedQueries, SearchOptions, search_sync
from sidecar.settings import make_config

HELP_QUESTIONS = ROOT / "bench" / "data" / "multilingual" / "en.json"
KEEP = 0.99  # the share of answerable questions whose expected passage the floor must keep
Question = dict[str, Any]  # {"q", "expected": [note paths]}


@contextmanager
def indexed(vault: Path, data: Path) -> Iterator[tuple[Index, Embedder]]:
    """`vault` indexed cold with the default settings, opened for reading, with its embedder."""
    config = make_config(vault, data)
    embedder = load_embedder(config)
    with open_index(config, embedder=embedder) as index:
        index.reconcile()
    with open_index(config, writer=False) as index:
        yield index, embedder


def scifact(data: Path, queries: int, docs: int, vault: Path) -> list[Question]:
    """The first `queries` train claims with a train qrel, their abstracts and random others
    (seeded) written to `vault` as notes, one per abstract, titled by the abstract's title."""
    qrels: dict[str, list[str]] = {}
    for line in (data / "qrels" / "train.tsv").read_text(encoding="utf-8").splitlines()[1:]:
        qid, doc, _ = line.split("\t")
        qrels.setdefault(qid, []).append(doc)
    claims = {}
    for line in (data / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["_id"] in qrels:
            claims[row["_id"]] = row["text"]
    chosen = list(claims)[:queries]
    corpus = {row["_id"]: row for row in map(json.loads, (data / "corpus.jsonl").read_text(
        encoding="utf-8").splitlines())}
    wanted = {doc for qid in chosen for doc in qrels[qid] if doc in corpus}
    others = sorted(set(corpus) - wanted)
    wanted |= set(random.Random(7).sample(others, max(0, docs - len(wanted))))
    vault.mkdir(parents=True, exist_ok=True)
    for doc in wanted:
        row = corpus[doc]
        (vault / f"{doc}.md").write_text(f"# {row['title']}\n\n{row['text']}\n", encoding="utf-8")
    return [{"q": claims[qid], "expected": [f"{doc}.md" for doc in qrels[qid]]}
            for qid in chosen]


def passages(index: Index, embedder: Embedder, question: str, k: int) -> list[tuple[str, float]]:
    """(note path, similarity) of the passages an answer to `question` would take, measured as
    the answer's floor measures them: the search's query vector against each chunk's stored
    vector (`StoredVectors`; the index is fully embedded, so none is embedded again)."""
    options = SearchOptions(k=k, rerank=False)
    queries, stored = RememberedQueries(embedder), StoredVectors(index, options)
    found = search_sync(index, queries, None, question, replace(options, shown=stored))
    results = [r for r in found["results"] if not r["private"]][:k]
    scores = similarities(embedder, question, results, queries.vector(question),
                          stored.vectors(results, embedder.model_id))
    return list(zip([r["path"] for r in results], scores, strict=True))


def gold_scores(index: Index, embedder: Embedder, questions: list[Question], k: int,
                ) -> list[float | None]:
    """Per answerable question, the best similarity of a passage of its expected note, or None
    when none is among the passages."""
    out: list[float | None] = []
    for q in questions:
        found = [s for path, s in passages(index, embedder, q["q"], k) if path in q["expected"]]
        out.append(max(found) if found else None)
    return out


def best_scores(index: Index, embedder: Embedder, questions: list[Question], k: int,
                ) -> list[float]:
    """Per unanswerable question, the best similarity of any passage."""
    return [max((s for _, s in passages(index, embedder, q["q"], k)), default=-1.0)
            for q in questions]


def chosen_floor(golds: list[float]) -> float:
    """The highest floor, to 0.01 below, that keeps at least `KEEP` of `golds`."""
    ranked = sorted(golds)
    allowed = math.floor(len(ranked) * (1 - KEEP))  # golds the floor may lose
    return math.floor(ranked[allowed] * 100) / 100


def sweep_row(floor: float, help_gold: list[float | None], claims_gold: list[float | None],
              claims_off: list[float], help_off: list[float]) -> str:
    """One row of the trade-off table: expected passages kept, unanswerable ones refused."""
    def share(hits: int, of: int) -> str:
        return f"{hits / max(of, 1):.1%}"

    golds = [[s for s in scores if s is not None] for scores in (help_gold, claims_gold)]
    kept = [share(sum(s >= floor for s in g), len(g)) for g in golds]
    refused = [share(sum(s < floor for s in o), len(o)) for o in (claims_off, help_off)]
    return f"| {floor:.2f} | " + " | ".join(kept + refused) + " |"


def run(args: argparse.Namespace) -> str:
    k = default_k()
    help_questions: list[Question] = json.loads(HELP_QUESTIONS.read_text(encoding="utf-8"))[
        "questions"]
    with tempfile.TemporaryDirectory(prefix="ora-floor-") as tmp:
        work = Path(tmp)
        shutil.copytree(args.help_vault / "en", work / "help", ignore=shutil.ignore_patterns(
            "*.png", "*.jpg", "*.jpeg", "*.gif", "*.mp4", "*.webm", "*.svg", "*.pdf"))
        claims = scifact(args.data, args.queries, args.docs, work / "scifact")
        with indexed(work / "help", work / "help-data") as (index, embedder):
            model = embedder.model_id
            help_gold = gold_scores(index, embedder, help_questions, k)
            claims_off = best_scores(index, embedder, claims, k)
        with indexed(work / "scifact", work / "scifact-data") as (index, embedder):
            claims_gold = gold_scores(index, embedder, claims, k)
            help_off = best_scores(index, embedder, help_questions, k)
    golds = [s for s in help_gold + claims_gold if s is not None]
    floor = args.floor if args.floor is not None else min(
        chosen_floor([s for s in scores if s is not None]) for scores in (help_gold, claims_gold))
    schema_floor = answer_floor(model)

    def kept(scores: list[float | None]) -> str:
        found = [s for s in scores if s is not None]
        return (f"{sum(s >= floor for s in found)} of {len(found)} "
                f"({sum(s >= floor for s in found) / max(len(found), 1):.1%}); "
                f"expected note among the passages for {len(found)} of {len(scores)}")

    def nothing(scores: list[float]) -> str:
        return (f"{sum(s < floor for s in scores)} of {len(scores)} "
                f"({sum(s < floor for s in scores) / max(len(scores), 1):.1%})")

    return "\n".join([
        "## Answers: the relevance floor", "",
        f"`python bench/bench_answer_floor.py PATH --queries {args.queries} --docs {args.docs}`: "
        f"embedder {model.split(':')[0]}, k {k}, no re-ranker; floor {floor:.2f} "
        f"(schema: {schema_floor}).", "",
        "| set | measure | result |", "|---|---|---|",
        f"| help questions on the help vault | expected passage kept | {kept(help_gold)} |",
        f"| train claims on SciFact subset | expected passage kept | {kept(claims_gold)} |",
        f"| train claims on the help vault | answered nothing found | {nothing(claims_off)} |",
        f"| help questions on SciFact subset | answered nothing found | {nothing(help_off)} |",
        "", "| floor | help kept | claims kept | claims on help: nothing found | "
        "help on SciFact: nothing found |", "|---|---|---|---|---|",
        *[sweep_row(f, help_gold, claims_gold, claims_off, help_off)
          for f in sorted({floor, 0.15, 0.2, 0.25, 0.3, 0.35})],
        "", "Lowest expected-passage similarities: "
        + ", ".join(f"{s:.3f}" for s in sorted(golds)[:8]),
        "Highest unanswerable best similarities: "
        + ", ".join(f"{s:.3f}" for s in sorted(claims_off + help_off, reverse=True)[:8]), ""])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("help_vault", type=Path,
                        help="a checkout or export of obsidianmd/obsidian-help")
    parser.add_argument("--data", type=Path, default=SCIFACT, help="the SciFact BEIR folder")
    parser.add_argument("--queries", type=int, default=300, help="SciFact train claims asked")
    parser.add_argument("--docs", type=int, default=1200, help="SciFact abstracts in the vault")
    parser.add_argument("--floor", type=float, default=None,
                        help="report this floor instead of choosing one")
    print(run(parser.parse_args()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
