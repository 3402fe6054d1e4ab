"""`ora serve` with a port out of range, or an address it cannot bind: one line, exit 2."""

from __future__ import annotations

import socket

import pytest

from sidecar.cli import main
from sidecar.settings import Config


@pytest.fixture
def settings_env(config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-process `ora serve` reads the fixture's deterministic settings from ORA_*."""
    monkeypatch.setenv("ORA_EMBED_MODEL", "int8")
    monkeypatch.setenv("ORA_MODELS_DIR", str(config.models_path))
    monkeypatch.setenv("ORA_RERANKER_DIR", str(config.models_path / "absent-reranker"))
    monkeypatch.setenv("ORA_COHERE_API_KEY", "")
    monkeypatch.setenv("ORA_SCAN_DELAY", "-1")


def _serve(config: Config, *args: str) -> int:
    return main(["serve", str(config.vault), "--data", str(config.data), *args])


@pytest.mark.parametrize("port", ["70000", "-1", "65536"])
def test_serve_port_out_of_range_is_a_settings_error_exit_2(
    config: Config, capsys: pytest.CaptureFixture[str], port: str
) -> None:
    """It used to escape from the bind as an OverflowError traceback."""
    assert _serve(config, f"--port={port}") == 2
    err = capsys.readouterr().err
    assert "out of range 0–65535" in err and port in err
    assert not (config.data / "token").exists()


def test_serve_ora_port_out_of_range_is_a_settings_error_exit_2(
    config: Config, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORA_PORT", "99999")
    assert _serve(config) == 2
    assert "port 99999 is out of range 0–65535" in capsys.readouterr().err


@pytest.mark.usefixtures("settings_env")
def test_serve_on_an_address_not_on_this_machine_says_so_not_another_server(
    config: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every bind failure used to be reported as "is another `ora serve` running?"."""
    # 192.0.2.1 is TEST-NET-1 (RFC 5737): no interface of a test machine carries it.
    assert _serve(config, "--host", "192.0.2.1", "--allow-remote", "--port", "0") == 2
    err = capsys.readouterr().err
    assert "cannot listen on 192.0.2.1" in err and "check --host" in err
    assert "another `ora serve`" not in err


@pytest.mark.usefixtures("settings_env")
def test_serve_on_a_port_in_use_suggests_another_server(
    config: Config, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert _serve(config, "--port", str(port)) == 2
    assert "another `ora serve` running? Try --port" in capsys.readouterr().err
