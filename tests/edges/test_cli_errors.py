"""Every command's unexpected error is one line on standard error and exit status 1;
``--traceback`` (anywhere on the line) or TREEFARM_TRACEBACK=1 shows the rest."""

from __future__ import annotations

import argparse

import pytest

from treefarm.cli import main as cli_main
from treefarm.cli.command import Command
from treefarm.cli.main import main


def _boom(args: argparse.Namespace) -> int:
    raise ZeroDivisionError("division by zero\nsecond line")


@pytest.fixture
def broken_studies(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tuple(
        Command(c.name, c.help, c.arguments, _boom) if c.name == "studies" else c for c in cli_main.COMMANDS
    )
    monkeypatch.setattr(cli_main, "COMMANDS", broken)
    monkeypatch.delenv("TREEFARM_TRACEBACK", raising=False)


@pytest.mark.usefixtures("broken_studies")
def test_an_unexpected_error_is_one_line_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["studies", "x.db"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines() == [
        "treefarm: error: ZeroDivisionError: division by zero",
        "treefarm: (run with --traceback or TREEFARM_TRACEBACK=1 to see where)",
    ]


@pytest.mark.usefixtures("broken_studies")
@pytest.mark.parametrize("how", ["option first", "option last", "environment"])
def test_the_traceback_is_shown_when_asked(how: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    argv = {"option first": ["--traceback", "studies", "x.db"], "option last": ["studies", "x.db", "--traceback"]}
    if how == "environment":
        monkeypatch.setenv("TREEFARM_TRACEBACK", "1")
    assert main(argv.get(how, ["studies", "x.db"])) == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "in _boom" in err


def test_an_os_error_is_said_in_its_own_words(tmp_path: object, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(args: argparse.Namespace) -> int:
        raise PermissionError(13, "Permission denied", "/x/y.csv")

    monkeypatch.setattr(
        cli_main, "COMMANDS", tuple(Command(c.name, c.help, c.arguments, denied) for c in cli_main.COMMANDS)
    )
    assert main(["studies", "x.db"]) == 1
    assert capsys.readouterr().err.startswith("treefarm: error: Permission denied: '/x/y.csv'\n")
