"""A note private only because `#private` appears where Obsidian reads no tag (code, a comment,
a URL) gets the `private-by-mention` hint, so its owner learns why it is missing from
non-private answers; a note private anyway gets none, and the hint reaches an HTTP request
outside private mode no more than the private note itself does."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from sidecar.lint.diagnostics import Diagnostic, LintContext, lint_file, lint_text
from sidecar.settings import Config, make_config
from sidecar.vault.vault_settings import load_vault_settings
from tests.conftest import AppClient
from tests.notes import write_notes

CODE = "private-by-mention"
ADOPTED = "---\nnexus: []\ntype: resource\ntags: [{tag}]\n---\n"

# Each note's text and the file line of its first `#private` that is no tag.
MENTIONS = {
    "inline code": ("How to hide a note in Ora: add the `#private` tag.\n", 1),
    "URL fragment": ("Bookmark [docs](https://example.com/#private)\n", 1),
    "comment": ("Some text.\n\n%% #private %%\n", 3),
    "code block": (ADOPTED.format(tag="food") + "Intro.\n\n```\n#private\n```\n", 9),
}


def _hints(diagnostics: list[Diagnostic]) -> list[tuple[int, str]]:
    return [(d.line, d.message) for d in diagnostics if d.code == CODE]


@pytest.mark.parametrize("where", sorted(MENTIONS))
def test_a_note_private_only_by_a_mention_gets_the_hint_at_its_line(where: str) -> None:
    text, line = MENTIONS[where]
    hints = _hints(lint_text(text, "Notes/howto.md"))
    assert hints == [(line, f"treated as private: `#private` appears in code, a comment or a "
                            f"URL (line {line}); Ora keeps it out of non-private answers")]


@pytest.mark.parametrize("text", [
    "Plain note.\n",
    "A real tag #private and `#private` in code.\n",  # Obsidian reads the first: a real tag
    ADOPTED.format(tag="private") + "Add the `#private` tag.\n",
    "---\nprivate: true\n---\nAdd the `#private` tag.\n",
], ids=["no mention", "inline tag", "frontmatter tag", "private property"])
def test_a_note_private_anyway_or_not_at_all_gets_no_hint(text: str) -> None:
    assert _hints(lint_text(text, "Notes/howto.md")) == []


def test_a_note_in_a_private_folder_gets_no_hint(tmp_path: Path) -> None:
    vault = write_notes(tmp_path / "vault", {"Health/howto.md": "Add the `#private` tag.\n",
                                             "ora.yaml": "private:\n  - Health/\n"})
    ctx = LintContext(settings=load_vault_settings(vault, tmp_path / "data"))
    assert _hints(lint_file(vault, "Health/howto.md", ctx)) == []


def _config(vault: Path, tmp_path: Path) -> Config:
    models = tmp_path / "models"
    return make_config(vault, tmp_path / "data", embed_model="int8", models_dir=str(models),
                       cohere_api_key="", reranker_dir=str(models / "none"), scan_delay=-1.0)


async def test_http_lint_fix_answers_the_note_as_missing_outside_private_mode_only(
    tmp_path: Path, app_client: Callable[[Config], Awaitable[AppClient]],
) -> None:
    text = ADOPTED.format(tag="food") + "Add the `#private` tag.\n"
    vault = write_notes(tmp_path / "vault", {"howto.md": text})
    api = await app_client(_config(vault, tmp_path))
    status, doc = await api.call("POST", "/v1/lint/fix", {"path": "howto.md"})
    assert status == 404 and CODE not in str(doc)  # as any private note: no hint, no existence
    status, doc = await api.call("POST", "/v1/lint/fix", {"path": "howto.md", "private": True})
    assert status == 200
    # the fix added its dates above the body: the hint names the mention's line after them
    line = (vault / "howto.md").read_text(encoding="utf-8").splitlines().index(
        "Add the `#private` tag.") + 1
    assert [d["line"] for d in doc["diagnostics"] if d["code"] == CODE] == [line]
