"""Generate a realistic synthetic vault of N notes for benchmarks.

Notes follow the schema: folders by type, `nexus`/`type`/`tags` on every note, linter dates,
clusters on half the chats, a few private, archived and incubating notes, and the type mix of a
working vault (most notes retrievable, some frameworks, modes, references and matrices). Bodies
are short (one or two chunks: a heading and a few sentences, sometimes a second section) so that
embedding 10,000 notes on two shared cores fits a benchmark run. With `--realistic`, bodies follow
the length mix of a real vault instead: most notes short, a tail of long ones (dozens of
sections, a few over a hundred chunks), about 4 chunks per note. Deterministic for a given seed.

    python bench/gen_vault.py OUT --notes 10000 [--seed 1] [--realistic]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
from pathlib import Path

from sidecar.schema import get_schema

# (weight, type, folder)
TYPE_MIX = [
    (35, "engram", "Engrams"), (20, "resource", "Resources"), (14, "chat", "Chats"),
    (5, "transcript", "Transcripts"), (10, "web", "Web"), (3, "framework", "Frameworks"),
    (2, "mode", "Modes"), (3, "reference", "Reference"), (2, "paper", "Papers"),
    (3, "working", "Drafts"), (2, "matrix", "Matrices"), (1, "supervision", "Supervision"),
]  # fmt: skip

TOPICS = {
    "learning": ["spaced repetition", "retrieval practice", "interleaving", "desirable difficulty",
                 "working memory", "note taking", "deliberate practice", "forgetting curve"],
    "health": ["sleep pressure", "zone two training", "protein timing", "circadian light",
               "resting heart rate", "mobility work", "hydration", "sauna use"],
    "software": ["database indexes", "garbage collection", "async runtimes", "type inference",
                 "cache invalidation", "vector search", "code review", "feature flags"],
    "finance": ["index funds", "tax brackets", "emergency fund", "compound interest",
                "rebalancing", "inflation hedges", "expense ratios", "bond duration"],
    "history": ["printing press", "silk road", "industrial revolution", "roman roads",
                "hanseatic league", "black death", "spice trade", "telegraph networks"],
    "science": ["photosynthesis", "plate tectonics", "quantum tunnelling", "enzyme kinetics",
                "ocean currents", "gene expression", "entropy", "immune memory"],
    "design": ["visual hierarchy", "affordances", "colour contrast", "grid systems",
               "typography scale", "progressive disclosure", "error states", "white space"],
    "philosophy": ["stoic practice", "moral luck", "personal identity", "free will",
                   "epistemic humility", "virtue ethics", "the ship of theseus", "akrasia"],
    "writing": ["story structure", "active voice", "editing passes", "character arcs",
                "show not tell", "outlining", "dialogue tags", "narrative tension"],
    "productivity": ["weekly review", "time blocking", "inbox zero", "energy management",
                     "batching tasks", "deep work", "context switching", "checklists"],
}  # fmt: skip

OPENERS = [
    "The core idea behind {t} is simple once it is stated plainly.",
    "Most explanations of {t} skip the part that actually matters in practice.",
    "I keep coming back to {t} because it connects to {u}.",
    "A useful way to think about {t} is as a trade-off with {u}.",
    "Notes from reading about {t} this week.",
]
MIDDLES = [
    "It works because small, repeated effort compounds over time rather than all at once.",
    "The evidence is mixed for beginners but strong for people with some prior experience.",
    "A common mistake is to optimise {t} in isolation and ignore {u} entirely.",
    "Measured over months, the effect on {u} is larger than the short-term numbers suggest.",
    "The mechanism involves feedback: each step changes the conditions for the next one.",
    "Practitioners disagree on details, yet agree that consistency beats intensity here.",
    "When {t} fails, it usually fails quietly, which is why checking {u} helps.",
    "The cost is front-loaded; the benefit arrives later and is easy to misattribute.",
]
CLOSERS = [
    "Open question: how does this interact with {u}?",
    "Next step: try it for two weeks and write down what changes.",
    "This contradicts what I believed a year ago about {u}.",
    "Related: the same pattern shows up in {u}.",
]


def _sentences(rng: random.Random, topic: str, other: str, n: int) -> str:
    parts = [rng.choice(OPENERS), *rng.sample(MIDDLES, n), rng.choice(CLOSERS)]
    return " ".join(p.format(t=topic, u=other) for p in parts)


# (weight, fewest, most sections) of a note's body with `realistic`: short notes dominate, and a
# heavy tail of long ones (imported articles, transcripts, journals) reaches the per-note caps.
SECTION_MIX = [(55, 1, 1), (25, 2, 4), (13, 5, 12), (5, 13, 40), (2, 41, 160)]


def _sections(rng: random.Random, topic: str, other: str) -> str:
    """Extra `##` sections, drawn from SECTION_MIX (the first section is the note's own)."""
    weights, lows, highs = zip(*SECTION_MIX, strict=True)
    k = rng.choices(range(len(weights)), weights=weights)[0]
    parts = []
    for n in range(rng.randint(lows[k], highs[k]) - 1):
        a, b = (topic, other) if n % 2 else (other, topic)
        text = " ".join(_sentences(rng, a, b, rng.randint(2, 6)) for _ in range(rng.randint(1, 3)))
        parts.append(f"\n## Part {n + 1}: {a}\n\n{text}\n")
    return "".join(parts)


def _note(
    rng: random.Random, i: int, start: dt.date, realistic: bool = False
) -> tuple[str, str]:
    """(vault-relative path, text) of note number i."""
    weights, types, folders = zip(*TYPE_MIX, strict=True)
    k = rng.choices(range(len(types)), weights=weights)[0]
    type_, folder = types[k], folders[k]
    domain = rng.choice(sorted(TOPICS))
    topic = rng.choice(TOPICS[domain])
    other = rng.choice(TOPICS[rng.choice(sorted(TOPICS))])
    title = f"{topic.capitalize()} {i:05d}"
    tags = [rng.choice(["atomic", "molecular", "compound", "process"]), domain]
    roll = rng.random()
    if roll < 0.03:
        tags.append("private")
    elif roll < 0.06:
        tags.append("archived")
    elif roll < 0.08:
        tags.append("incubating")
    created = start + dt.timedelta(days=rng.randrange(730))
    modified = created + dt.timedelta(days=rng.randrange(60))
    fm: dict[str, object] = {"nexus": [f"[[{domain.capitalize()}]]"], "type": type_, "tags": tags}
    fm["date created"] = created.isoformat()
    fm["date modified"] = modified.isoformat()
    if type_ in get_schema().decay_types and rng.random() < 0.5:
        fm["cluster"] = topic.replace(" ", "-")
    if type_ == "engram":
        fm["subtype"] = rng.choice(get_schema().subtypes)
    body = f"# {title}\n\n{_sentences(rng, topic, other, rng.randint(1, 3))}\n"
    if realistic:
        body += _sections(rng, topic, other)
    elif rng.random() < 0.3:
        body += f"\n## In practice\n\n{_sentences(rng, other, topic, rng.randint(1, 2))}\n"
    lines = ["---", *(f"{key}: {json.dumps(value)}" for key, value in fm.items()), "---", ""]
    return f"{folder}/{title}.md", "\n".join(lines) + body


def generate(
    out: Path, notes: int, seed: int = 1, realistic: bool = False, links: int = 0,
) -> list[str]:
    """Write `notes` notes under `out`; returns their vault-relative paths. With `realistic`,
    note lengths follow SECTION_MIX; with `links`, each note ends with that many wikilinks to
    others (`_link_lines`)."""
    rng = random.Random(seed)
    start = dt.date(2024, 1, 1)
    paths = []
    for i in range(notes):
        rel, text = _note(rng, i, start, realistic)
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        paths.append(rel)
    if links:
        _link_lines(out, paths, links, random.Random(seed + 1))
    return paths


def _link_lines(out: Path, paths: list[str], links: int, rng: random.Random) -> None:
    """End each note with a sentence of `links` wikilinks, by name, to other notes: half chosen
    evenly, half by a Zipf law over a shuffled order, so a few notes are linked from much of the
    vault, as a real vault's hubs are (a separate generator: the notes' own text is unchanged)."""
    hubs = rng.sample(paths, len(paths))
    weights = [1 / (rank + 1) for rank in range(len(hubs))]
    for rel in paths:
        named = rng.sample(paths, links - links // 2) + rng.choices(hubs, weights, k=links // 2)
        line = ", ".join(f"[[{Path(p).stem}]]" for p in named if p != rel)
        with (out / rel).open("a", encoding="utf-8") as f:
            f.write(f"\nSee also {line} for how this connects.\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--realistic", action="store_true",
                        help="a real vault's length mix (many short notes, some very long)")
    parser.add_argument("--links", type=int, default=0, help="wikilinks at the end of each note")
    args = parser.parse_args()
    paths = generate(args.out, args.notes, args.seed, args.realistic, args.links)
    print(f"wrote {len(paths)} notes to {args.out}")


if __name__ == "__main__":
    main()
