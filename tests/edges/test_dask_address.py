"""A Dask scheduler that does not answer is named within seconds, not after Dask's 30 s
and its traceback."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from treefarm.cli.main import main

pytest.importorskip("distributed")


def test_run_on_a_dead_scheduler_fails_fast_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "f.py"
    target.write_text("import treefarm as tf\nspace = {'x': tf.Real(0, 1)}\ndef objective(p):\n    return p['x']\n")
    start = time.monotonic()
    status = main(["run", str(target), "--storage", str(tmp_path / "s.db"), "--n-trials", "2", "--dask", "tcp://127.0.0.1:1"])
    assert status == 1 and time.monotonic() - start < 15
    err = capsys.readouterr().err
    assert "a Dask scheduler must answer at its address within 5 s, but got address='tcp://127.0.0.1:1'" in err
    assert "Traceback" not in err
