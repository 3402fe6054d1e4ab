"""Private content never appears in a response to a non-private request (a property).

Random small vaults mix public and private notes of every retrievable-by-default kind, private by
a frontmatter tag, an inline `#private`, a nested `#private/…`, a `private: true` property, where
it lies (`ora.yaml`'s `private: [Health/]`, no tag), or frontmatter that does not parse (an
unclosed `[`, `key: a: b`, a tab, a repeated key, a `---` never closed: such a note is indexed by
its body, as private);
every private note carries a secret word (`zqx` + hex) in its title, so in its path, and in its
body, and some private notes contradict public ones so that the contradiction scan pairs them.
Each vault also holds a PDF made private by `ora.yaml`'s `private` folder rule (a document has
no tags), its secret in its name, its text and its own title, author and subject, beside a public
PDF, and its page note as `ora ingest` wrote it before the folder was private (in `Resources/`,
untagged: private by the document its `source_path` names).
After a real index and scan, two public things turn private while the server runs, each
carrying its own secret (`qzf` + hex): a public note the scan paired with another public one is
tagged private, and a conversation asked in public mode has its chat note tagged private by
hand (or both are named in `ora.yaml`'s `private`, as the watcher reports a change of it). In
private mode, a claim naming a secret is said in a private conversation and kept as a private
engram through extraction. Then every content-bearing route is asked, with generated
options (filters, archived, re-ranking, one-hop expansion, k), in non-private mode (no body may
hold `zqx` or `qzf`) and in private mode (the secrets must be there, so the property can fail).
Searches and questions ask for web results too, from a SearXNG on this machine: no private-mode
query may reach it (it passes every query on to public search engines), public ones do.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from sidecar.cleaning import Queue, scan
from sidecar.cleaning.rules import RulesJudge
from sidecar.index import open_index
from sidecar.models.embedder import Embedder
from sidecar.server.app import init_app
from sidecar.server.resources import LANE
from sidecar.settings import Config, make_config
from tests.notes import write_notes

from .conftest import AppClient
from .documents.make_pdfs import one_page_pdf
from .web.fake_searxng import FakeSearxng

MARK = "zqx"
FLIP = "qzf"  # the secrets of what turns private while the server runs
PRIVATE_FORMS = ("frontmatter", "inline", "nested", "property", "folder")
PRIVATE_FOLDER = "Health/"  # ora.yaml `private`: a "folder" note lies here, with no tag
# Frontmatter that does not parse, made from a valid note's (`tags: [`, `nexus: []` on line 3):
# the note is private until it parses (whatever the block says), and indexed by its body.
BROKEN_FORMS: dict[str, Callable[[str], str]] = {
    "bracket": lambda text: text.replace("tags: [", "tags: [[", 1),
    "colon": lambda text: text.replace("\nnexus: []", "\nnexus: []\ntitle: Notes: part one", 1),
    "tab": lambda text: text.replace("\nnexus: []", "\nnexus: []\n\tindented: by a tab", 1),
    "duplicate": lambda text: text.replace("\nnexus: []", "\nnexus: []\nnexus: []", 1),
    "unclosed": lambda text: text.replace("\n---\n", "\n", 1),  # the closing fence
}
# A chat note without the tag whose turn was asked in private mode (`· private`): the turn is
# private, and so the note wherever its text is shown (its owner took the tag off by hand).
TURN = "turn"
ALL_FORMS = (*PRIVATE_FORMS, *BROKEN_FORMS)
FOLDERS = {"engram": "Engrams", "resource": "Resources", "chat": "Chats"}
# Subjects stated both ways, which the rules judge calls a contradiction (negation cue).
SUBJECTS = (
    ("Regular caffeine intake", "increases", "increase", "alertness in adults"),
    ("Daily exercise", "improves", "improve", "sleep quality in older people"),
    ("Reading before bed", "reduces", "reduce", "stress for most students"),
    ("Spaced repetition", "improves", "improve", "retention of new vocabulary"),
)
WORDS = ("garden", "river", "lamp", "orbit", "ledger", "violin", "harbor", "quartz", "meadow",
         "signal", "copper", "lantern")


@dataclass(frozen=True)
class Spec:
    type: str
    private: bool
    subject: int
    negated: bool
    filler: tuple[str, ...]
    form: str = "frontmatter"  # how a private note says so: PRIVATE_FORMS


@dataclass(frozen=True)
class Case:
    """One generated vault and what is asked of it."""

    notes: dict[str, str | bytes]  # notes, documents (bytes) and ora.yaml
    secrets: list[str]  # the private notes' and the private document's secrets
    words: list[str]  # random query words
    flip: str  # the secret of the note and the conversation that turn private
    flip_note: str  # that note's path
    flip_form: str  # how it turns private
    broken: tuple[str, str]  # the path and secret of a note private by broken frontmatter only
    searches: list[dict[str, Any]]  # generated search options


def _claim(spec: Spec) -> str:
    who, verb, base, what = SUBJECTS[spec.subject]
    return f"{who} does not {base} {what}." if spec.negated else f"{who} {verb} {what}."


def _notes(specs: list[Spec], secrets: list[str]) -> dict[str, str | bytes]:
    notes: dict[str, str | bytes] = {}
    for n, (spec, secret) in enumerate(zip(specs, secrets, strict=True)):
        words = " ".join(spec.filler)
        title = f"{secret} note {n}" if spec.private or secret.startswith(FLIP) else (
            f"Public note {n}")
        body = f"# {title}\n\n{_claim(spec)}\nIt mentions {words}.\n"
        if spec.private and spec.form == TURN:  # a public chat note, one turn of it private
            title = f"Public chat {n}"
            body = (f"# {title}\n\n## You · 2024-01-02 09:00:00 UTC\n\n{_claim(spec)}\n"
                    f"It mentions {words}.\n\n## Ora · 2024-01-02 09:00:05 UTC · private\n\n"
                    f"{_claim(spec)} The secret word here is {secret}.\n")
        elif spec.private or secret.startswith(FLIP):
            body += f"The secret word here is {secret}.\n"
        if spec.private and spec.form in ("inline", "nested"):
            body += "#private\n" if spec.form == "inline" else "Filed under #private/health.\n"
        tags = "[private, health]" if spec.private and spec.form == "frontmatter" else "[health]"
        if spec.private and spec.form == "property":
            tags += "\nprivate: true"
        text = (f"---\ntype: {spec.type}\nnexus: []\ntags: {tags}\n"
                f"date created: 2024-01-0{n % 9 + 1}\n---\n{body}")
        if spec.private and spec.form in BROKEN_FORMS:
            text = BROKEN_FORMS[spec.form](text)
        folder = PRIVATE_FOLDER if spec.private and spec.form == "folder" else ""
        notes[f"{folder}{FOLDERS[spec.type]}/{title}.md"] = text
    return notes


specs = st.builds(
    Spec,
    type=st.sampled_from(sorted(FOLDERS)),
    private=st.booleans(),
    subject=st.integers(0, len(SUBJECTS) - 1),
    negated=st.booleans(),
    filler=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(tuple),
    form=st.sampled_from(ALL_FORMS),
)
# Search options a non-private request may carry: each must keep private notes out.
search_options = st.fixed_dictionaries({}, optional={
    "k": st.integers(1, 30),
    "include_archived": st.booleans(),
    "rerank": st.booleans(),
    "expand": st.booleans(),
    "filters": st.fixed_dictionaries({}, optional={
        "types": st.lists(st.sampled_from(sorted(FOLDERS)), min_size=1, max_size=3, unique=True),
        "folders": st.lists(st.sampled_from(sorted(FOLDERS.values())), min_size=1, max_size=2,
                            unique=True),
        "tags": st.sampled_from([["health"], ["private"], ["private/health"]]),
        "since": st.sampled_from(["2024-01-01", "2024-01-05"]),
        "until": st.sampled_from(["2024-01-09", "2030-01-01"]),
        # c2's chat note is tagged private by hand while the server runs
        "conversations": st.sampled_from([["c1"], ["c2"], ["c1", "c2"]]),
        "clusters": st.sampled_from([["auto:regular-caffeine-intake"], ["AUTO:DAILY-EXERCISE"]]),
    }),
})


@st.composite
def vaults(draw: st.DrawFn) -> Case:
    """The first notes always are a public engram and a private engram contradicting it, then
    a private chat and a newer public chat on the same subject (one decay cluster, which the
    private chat founded), then two public engrams contradicting each other on another subject,
    the second of which turns private after the scan, a note private by its broken
    frontmatter (the scan takes no claims from it: its type is unknown), and an engram private
    only by its folder that contradicts the first, which the first `supports` and which
    `supersedes` the first (so a public result could name it by a relationship), and a
    public chat note whose second turn was asked in private mode and contradicts the engrams of
    the other subject."""
    subject = draw(st.integers(0, len(SUBJECTS) - 1))
    other = (subject + 1) % len(SUBJECTS)
    form = draw(st.sampled_from(PRIVATE_FORMS))
    pair = [Spec("engram", False, subject, False, ("garden",)),
            Spec("engram", True, subject, True, ("river",), form),
            # an older private chat and a public one on its subject share a decay cluster
            Spec("chat", True, subject, False, ("lamp",), form),
            Spec("chat", False, subject, False, ("lamp",)),
            Spec("engram", False, other, False, ("orbit",)),
            Spec("engram", False, other, True, ("quartz",)),  # turns private
            Spec(draw(st.sampled_from(sorted(FOLDERS))), True, other, False, ("meadow",),
                 draw(st.sampled_from(sorted(BROKEN_FORMS)))),
            Spec("engram", True, subject, True, ("harbor",), "folder"),
            Spec("chat", True, other, True, ("violin",), TURN)]
    rest = draw(st.lists(specs, max_size=4))
    all_specs = pair + rest
    hexes = draw(st.lists(st.integers(0, 16**6 - 1), min_size=len(all_specs) + 1,
                          max_size=len(all_specs) + 1, unique=True))
    secrets = [f"{MARK}{h:06x}" for h in hexes]
    secrets[5] = f"{FLIP}{hexes[5]:06x}"
    doc_secret = secrets.pop()
    notes = _notes(all_specs, secrets)
    first, folder_note = "Engrams/Public note 0.md", f"{secrets[7]} note 7"
    notes[first] = str(notes[first]).replace(
        "\nnexus: []\n", f'\nnexus: []\nrelationships:\n  supports: ["[[{folder_note}]]"]\n', 1)
    at = f"{PRIVATE_FOLDER}Engrams/{folder_note}.md"
    notes[at] = str(notes[at]).replace(
        "\nnexus: []\n", '\nnexus: []\nrelationships:\n  supersedes: ["[[Public note 0]]"]\n', 1)
    private = [s for spec, s in zip(all_specs, secrets, strict=True) if spec.private]
    queries = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3))
    # A private document: private by its folder (ora.yaml), its secret in its text and metadata.
    words = " ".join(queries)
    notes["ora.yaml"] = f"private:\n  - {PRIVATE_FOLDER}\n"
    notes[f"Health/{doc_secret} results.pdf"] = one_page_pdf(
        f"The lab results on {words} say {doc_secret}.", title=f"Results {doc_secret}",
        author=f"Dr {doc_secret}", subject=f"{doc_secret} {words}")
    notes["Papers/Leaflet.pdf"] = one_page_pdf(f"A public leaflet about {words}.")
    # Its page note as `ora ingest` wrote it before Health/ was private: outside the private
    # folder, untagged, private by the document it names (`source_path`).
    notes[f"Resources/{doc_secret}/{doc_secret} - page 1.md"] = (
        f"---\ntype: resource\nnexus: []\ntags: []\nsource_file: \"{doc_secret} results.pdf\"\n"
        f"source_format: pdf\nsource_path: \"Health/{doc_secret} results.pdf\"\n---\n"
        f"# Results {doc_secret}, page 1\n\nThe lab results on {words} say {doc_secret}.\n")
    private.append(doc_secret)
    return Case(notes, private, queries, secrets[5], f"Engrams/{secrets[5]} note 5.md",
                draw(st.sampled_from(ALL_FORMS)),
                (f"{FOLDERS[pair[6].type]}/{secrets[6]} note 6.md", secrets[6]),
                draw(st.lists(search_options, min_size=1, max_size=3)))


def _config(root: Path) -> Config:
    models = root / "models"
    return make_config(root / "vault", root / "data", embed_model="int8", models_dir=str(models),
                       cohere_api_key="", reranker_dir=str(models / "none"), llm_url="")


def _prepare(config: Config, notes: dict[str, str | bytes], embedder: Embedder) -> None:
    """Index the vault and run the contradiction scan, as `ora index` and `--scan` do."""
    write_notes(config.vault, notes)
    with open_index(config, embedder=embedder) as index:
        index.reconcile()
    queue = Queue(config.data)
    try:
        asyncio.run(scan(config, queue, embedder, RulesJudge()))
    finally:
        queue.close()


async def _answers(api: AppClient, case: Case, private: bool) -> list[Any]:
    """Every content-bearing answer in one mode, less the echo of the asker's own query.

    Secrets are asked about outside any conversation; conversation `c1` holds one private
    turn naming a secret (asked first) and, in non-private mode, a turn of random words; `c2`
    is the conversation whose note was tagged private by hand."""
    flag = {"private": True} if private else {}
    web = {"web": True}  # the SearXNG on this machine must hear no private-mode query
    query = "true" if private else "false"
    words = " ".join(case.words)
    in_c1 = case.secrets[0] if private else words
    asked = [*case.secrets, case.flip, words, _claim(Spec("engram", False, 0, True, ()))]
    calls: list[tuple[str, str, Any]] = [
        ("GET", "/v1/status", None),
        ("GET", f"/v1/contradictions?status=all&private={query}", None),
        ("GET", f"/v1/contradictions?status=open&private={query}", None),
        ("POST", "/v1/contradictions/scan", flag),
        *[("POST", "/v1/search", {"query": q, **web, **flag}) for q in asked],
        *[("POST", "/v1/search", {"query": q, **options, **flag})
          for options in case.searches for q in (case.secrets[0], case.flip, words)],
        *[("POST", "/v1/ask", {"question": q, **web, **flag})
          for q in [*case.secrets, case.flip]],
        *[("POST", "/v1/related", {"path": p, "k": 20, **flag})
          for p in ("Engrams/Public note 0.md", "Engrams/Public note 4.md")],
        ("GET", f"/v1/adopt?private={query}", None),
        ("POST", "/v1/ask", {"question": in_c1, "conversation": "c1", **flag}),
        *([("POST", "/v1/ask", {"question": f"The {case.secrets[0]} starter needs rye flour "
                                            "every morning.", "conversation": "c1", **flag})]
          if private else []),
        ("GET", f"/v1/conversations/c1?private={query}", None),
        ("GET", f"/v1/conversations/c2?private={query}", None),
        ("GET", f"/v1/conversations?private={query}", None),
        # Extraction: c1 and c2 are private conversations, not found outside private mode; in
        # private mode c1's claim naming a secret is kept as a private engram, which the
        # non-private requests then must not reach, and a non-private undo must not name.
        ("POST", "/v1/extract", {"conversation": "c1", **flag}),
        ("POST", "/v1/extract", {"conversation": "c2", **flag}),
        *([("POST", "/v1/extract/accept", {"conversation": "c1", "accept": "all", **flag})]
          if private else [("POST", "/v1/extract/undo", {}),
                           ("POST", "/v1/extract/accept", {"conversation": "c1",
                                                           "accept": "all"})]),
    ]
    # A chat note whose frontmatter no longer parses is no conversation Ora can read: c2 is gone
    # in both modes (until the note is fixed), which leaks nothing.
    gone = {"/v1/conversations/c2"} if case.flip_form in BROKEN_FORMS else set()
    # outside private mode c1 (no public turn: its first was private) and c2 are not found,
    # word for word as a conversation that does not exist, or name their public twins (the
    # non-private ask above made c1's: memory/notes.py), holding no claim of the private turns
    hidden = set() if private else {"/v1/extract", "/v1/extract/accept", "/v1/extract/undo",
                                    "/v1/conversations/c1", "/v1/conversations/c2"}
    answers = []
    for method, path, body in calls:
        status, doc = await api.call(method, path, body)
        if status == 404 and (path.split("?")[0] in gone | hidden or (
                path == "/v1/extract" and body["conversation"] == "c2"
                and case.flip_form in BROKEN_FORMS)):
            answers.append(doc)  # the message must leak nothing either
            continue
        assert status == 200, (path, doc)
        if path == "/v1/extract/accept" and private:  # the secret's claim: a private engram
            assert len(doc["written"]) == 1, doc
        answers.append({k: v for k, v in doc.items() if k not in ("query", "question")})
    return answers


def _made_private(text: str, form: str) -> str:
    """`text` (a note with `tags: [health]` or `tags: []`) tagged private as its owner would,
    or its frontmatter broken (a "folder" note is left as it is: ora.yaml names it)."""
    if form == "folder":
        return text
    if form in BROKEN_FORMS:
        return BROKEN_FORMS[form](text)
    if form == "frontmatter":
        return text.replace("tags: [", "tags: [private, ", 1)
    if form == "property":
        return text.replace("\ntags: [", "\nprivate: true\ntags: [", 1)
    return text + ("\n#private\n" if form == "inline" else "\nSee #private/later.\n")


async def _turn_private(api: AppClient, app: web.Application, config: Config,
                        case: Case) -> None:
    """While the server runs: a conversation asked in public mode, then its note and a note the
    scan paired publicly both tagged private by their owner (and reported, as the plugin does),
    or both named in ora.yaml's `private` (and reported, as the watcher does)."""
    status, doc = await api.call("POST", "/v1/ask",
                                 {"question": f"Remember {case.flip}", "conversation": "c2"})
    assert status == 200
    changed = [case.flip_note, doc["conversation_note"]]
    for rel in changed:
        path = config.vault / rel
        path.write_text(_made_private(path.read_text(encoding="utf-8"), case.flip_form),
                        encoding="utf-8")
    status, _ = await api.call("POST", "/v1/events", {
        "events": [{"kind": "modified", "path": rel} for rel in changed]})
    assert status == 200
    if case.flip_form == "folder":
        with (config.vault / "ora.yaml").open("a", encoding="utf-8") as settings_file:
            settings_file.writelines(f"  - {json.dumps(rel)}\n" for rel in changed)
        await app[LANE].settings_changed()
        await api.reconciled()  # every note re-planned by the new settings


async def _check(config: Config, case: Case) -> None:
    searx = await FakeSearxng().start()
    config = config.with_values(searxng_url=searx.url)
    app = init_app(config)
    client = TestClient(TestServer(app))
    await client.start_server()
    try:
        api = AppClient(client, (config.data / "token").read_text(encoding="utf-8").strip())
        await api.reconciled()
        await _turn_private(api, app, config, case)
        # Private turns first, so the non-private conversation could leak them if it were wrong.
        private_text = json.dumps(await _answers(api, case, True), ensure_ascii=False)
        assert searx.queries == []  # no private-mode query went to the web
        public_text = json.dumps(await _answers(api, case, False), ensure_ascii=False)
        assert searx.queries  # public ones did
        # The broken note is indexed by its body: private search finds its text.
        path, secret = case.broken
        status, found = await api.call("POST", "/v1/search", {"query": secret, "private": True})
        assert status == 200 and any(r["path"] == path and secret in r["text"]
                                     for r in found["results"]), found
    finally:
        await client.close()
        await searx.stop()
    for mark in (MARK, FLIP):
        leak = public_text.find(mark)
        assert leak < 0, public_text[max(0, leak - 400): leak + 100]
    for secret in [*case.secrets, case.flip]:
        assert secret in private_text, secret


# No shrinking: a failure is reported at once (the examples are derandomized, so reproducible).
@settings(max_examples=10, deadline=None, derandomize=True, phases=[Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=vaults())
def test_private_notes_never_reach_a_non_private_answer(
    case: Case, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory,
) -> None:
    config = _config(tmp_path_factory.mktemp("leak"))
    _prepare(config, case.notes, embedder)
    queue = Queue(config.data)
    try:  # the scan paired a private note with a public one, and the note to turn private
        pairs = queue.pairs(private=True)
        assert any(p.private for p in pairs)
        assert any(not p.private and case.flip_note in (p.a.path, p.b.path) for p in pairs)
    finally:
        queue.close()
    asyncio.run(_check(config, case))
