"""The summary of ``treefarm run`` reads as the user wrote the space, and a run that
completed every trial exits 0 even when a narrowed space leaves its best trial outside."""

from __future__ import annotations

from pathlib import Path

import pytest

from treefarm.cli.main import main

FILE = """import treefarm as tf
space = {{"x": tf.Real({low}, 10), "opt": tf.Join(adam={{}}, sgd={{"m": tf.Real(0, 1)}})}}
def objective(p):
    return p["x"]
"""


def _file(tmp_path: Path, name: str, low: int) -> str:
    path = tmp_path / name
    path.write_text(FILE.format(low=low))
    return str(path)


def test_the_summary_says_adam_and_a_narrowed_space_still_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "s.db")
    wide, narrow = _file(tmp_path, "wide.py", 0), _file(tmp_path, "narrow.py", 9)
    common = ["--storage", db, "--study", "s", "--algo", "random", "--seed", "0"]
    assert main(["run", wide, "--n-trials", "4", *common]) == 0
    out = capsys.readouterr().out
    assert "Chosen(" not in out and ("'opt': 'adam'" in out or "'opt': {'sgd': {'m':" in out)
    assert main(["run", narrow, "--n-trials", "6", "--allow-space-change", *common]) == 0
    out = capsys.readouterr().out
    assert "6 trials (complete 6)" in out and "the best trial lies outside the space as changed" in out
