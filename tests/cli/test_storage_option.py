"""Every command that reads a storage takes it as ``STORAGE`` or as ``--storage`` (as
``run`` does), and every command that takes ``--algo`` checks the name as ``run`` does."""

from __future__ import annotations

import pytest

from treefarm.cli.main import COMMANDS, main, parser
from treefarm.optimizers import available

#: Each command's required arguments besides the storage.
REST = {
    "studies": [],
    "show": ["--study", "s"],
    "export": ["--study", "s"],
    "hint": ["--study", "s", "--list"],
    "plot": ["--study", "s", "-o", "x.png"],
    "dashboard": [],
    "recover": [],
    "worker": ["--study", "s"],
    "create": ["--study", "s", "--space", "space.json"],
    "ask": ["--study", "s"],
    "tell": ["--study", "s", "--trial", "0", "--value", "1"],
}


#: Positionals before the storage.
BEFORE = {"recover": ["journal.jsonl"]}


def _argv(command: str, *storage: str) -> list[str]:
    return [command, *BEFORE.get(command, []), *storage, *REST[command]]


#: Commands that name two storages, each by its role: import-optuna's source (positional) and --to.
TWO_STORAGES = {"import-optuna"}


def test_every_command_but_run_is_listed() -> None:
    assert {c.name for c in COMMANDS} - {"run"} - TWO_STORAGES == set(REST)


@pytest.mark.parametrize("command", sorted(REST))
def test_the_storage_positional_or_as_an_option(command: str) -> None:
    p = parser()
    assert p.parse_args(_argv(command, "runs.db")).storage == "runs.db"
    assert p.parse_args(_argv(command, "--storage", "runs.db")).storage == "runs.db"
    assert p.parse_args([*_argv(command), "--storage", "runs.db"]).storage == "runs.db"
    assert p.parse_args(["recover", "--storage", "runs.db", "j.jsonl"]).journal == "j.jsonl"


@pytest.mark.parametrize("command", sorted(REST))
def test_both_or_neither_is_a_usage_error_naming_them(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as both:
        main(_argv(command, "a.db", "--storage", "b.db"))
    assert both.value.code == 2 and "argument --storage: not allowed with argument STORAGE" in capsys.readouterr().err
    with pytest.raises(SystemExit) as neither:
        main(_argv(command))
    assert neither.value.code == 2 and "one of the arguments STORAGE --storage is required" in capsys.readouterr().err


@pytest.mark.parametrize(("command", "rest"), [("run", ["f.py"]), ("worker", ["x.db", "--study", "s"]), ("create", ["x.db", *REST["create"]])])
def test_algo_is_checked_against_the_registry(command: str, rest: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert all(parser().parse_args([command, *rest, "--algo", algo]).algo == algo for algo in available())
    with pytest.raises(SystemExit) as bad:
        main([command, *rest, "--algo", "nope"])
    assert bad.value.code == 2 and "argument --algo: invalid choice: 'nope'" in capsys.readouterr().err
