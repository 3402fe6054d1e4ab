"""`ora` itself, before and around any one subcommand: start-up interrupts and --help text."""

from __future__ import annotations

import argparse
import sys
import types

import pytest

from sidecar.cli import COMMANDS, build_parser, main


def _interrupting_module(name: str) -> types.ModuleType:
    """A stand-in subcommand module whose registration is where Ctrl-C lands."""
    module = types.ModuleType(name)

    def register(_: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        raise KeyboardInterrupt

    module.register = register  # type: ignore[attr-defined]
    return module


def test_ctrl_c_while_the_subcommands_load_exits_130_quietly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C during start-up (build_parser importing every subcommand) used to escape `main`
    as a KeyboardInterrupt traceback, the process dying by the signal."""
    name = f"sidecar.cli.{COMMANDS[-1]}"  # the last one loaded: the others are real
    monkeypatch.setitem(sys.modules, name, _interrupting_module(name))
    try:
        status = main(["search", "/nonexistent", "x"])
    except KeyboardInterrupt:  # caught here, or pytest would take it as its own Ctrl-C
        pytest.fail("KeyboardInterrupt escaped main()")
    assert status == 130
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_subcommand_help_has_a_description_paragraph(command: str) -> None:
    """`ora index`, `ora watch` and `ora serve --help` showed only usage and options."""
    assert _subparsers()[command].description
