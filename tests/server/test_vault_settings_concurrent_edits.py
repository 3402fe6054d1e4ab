"""The server's own edits of ora.yaml take turns: concurrent requests from one client never see
each other's writes as a change by another program."""

from __future__ import annotations

import asyncio
from typing import Any

from sidecar.settings import Config


async def test_concurrent_edits_of_ora_yaml_all_apply(api: Any, config: Config) -> None:
    # Before: all but one answered 409 "ora.yaml changed while it was being edited", though
    # nothing but the server itself touched the file.
    (config.vault / "ora.yaml").write_text("private:\n  - Private/\n", encoding="utf-8")
    excludes = [api.post("/v1/vault-settings/exclude", {"path": f"Scratch{i}/", "excluded": True})
                for i in range(8)]
    ignores = [api.post("/v1/vault-settings/lint-ignore", {"path": f"Ign{i}/"}) for i in range(8)]
    answers = await asyncio.gather(*excludes, *ignores)
    assert [a.status for a in answers] == [200] * 16
    final = (await api.get("/v1/vault-settings")).json
    assert sorted(final["exclude"]) == sorted(f"Scratch{i}/" for i in range(8))
    assert sorted(final["lint"]["ignore"]) == sorted(f"Ign{i}/" for i in range(8))
    assert final["private"] == ["Private/"]
