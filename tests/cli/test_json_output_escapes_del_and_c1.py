"""`--json` output escapes every control character a terminal acts on: C0 (json does), DEL and
C1 as `\\u` escapes; other non-ASCII text is printed as it is."""

from __future__ import annotations

import argparse
import json

import pytest

from sidecar.cli.common import emit


def test_json_output_escapes_del_and_c1_but_not_other_non_ascii(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Before: DEL and C1 (the CSI U+009B among them) were printed raw.
    answer = "Sun\x1b[2J \x9b31m\x7f\x80 caf\u00e9 \u00a0\u65e5\u672c"
    emit(argparse.Namespace(json=True), {"answer": answer, "k\x85": 1}, str)
    out = capsys.readouterr().out
    assert not any(0x7f <= ord(c) <= 0x9f or (ord(c) < 0x20 and c != "\n") for c in out)
    assert "\\u009b31m\\u007f\\u0080" in out and "\\u001b[2J" in out
    assert "caf\u00e9 \u00a0\u65e5\u672c" in out
    assert json.loads(out) == {"answer": answer, "k\x85": 1}
