"""A file given to the command that fails to import shows the user's own error, not
a traceback through the command's code; a script starting worker processes without
a ``__main__`` guard is refused in one line and exits non-zero."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from treefarm.cli.main import main

SRC = str(Path(__file__).resolve().parents[2] / "src")


def test_a_syntax_error_shows_the_users_file_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text('import treefarm as tf\nspace = {"x": tf.Real(0, 1)}\ndef objective(p:\n    return 1\n')
    assert main(["run", str(bad), "--n-trials", "2", "--storage", str(tmp_path / "a.db")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"treefarm: error: running {bad} raised:\n")
    assert f'File "{bad}", line 3' in err and "SyntaxError: '(' was never closed" in err
    assert "cli/main.py" not in err and "importlib" not in err


def test_an_error_at_import_shows_the_users_frames_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def helper():\n    return 1 / 0\nhelper()\n")
    assert main(["run", str(bad), "--storage", str(tmp_path / "a.db")]) == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last):" in err and "ZeroDivisionError: division by zero" in err
    assert f'File "{bad}", line 2, in helper' in err and "cli/main.py" not in err


def _run_script(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "script.py"
    script.write_text("import treefarm as tf\n\ndef f(p):\n    return p['x']\n\n" + body)
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )


RUN = "tf.minimize(f, {'x': tf.Real(0, 1)}, max_evals=2, n_jobs=2, storage=None, progress=False)\n"


def test_worker_processes_without_a_main_guard_are_refused_in_one_line(tmp_path: Path) -> None:
    done = _run_script(tmp_path, RUN)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "treefarm.exceptions.StudyError: n_jobs=2 starts worker processes that import script.py"
    )
    assert 'under `if __name__ == "__main__":`' in last and "line 6 of" in last
    assert "BrokenProcessPool" not in done.stderr and "bootstrapping" not in done.stderr


def test_a_guarded_script_runs(tmp_path: Path) -> None:
    done = _run_script(
        tmp_path, "if __name__ == '__main__':\n    print('best', " + RUN.strip() + ".best_value)\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("best ")


def test_a_file_rewritten_at_the_same_size_and_time_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from treefarm.cli.loading import load_file

    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as in a user's shell

    script = tmp_path / "same_size.py"
    script.write_text("VALUE = 1\n")
    stamp = script.stat().st_mtime_ns
    assert load_file(str(script))[0].VALUE == 1
    assert list((tmp_path / "__pycache__").glob("same_size*")) == []
    script.write_text("VALUE = 2\n")
    os.utime(script, ns=(stamp, stamp))
    assert load_file(str(script))[0].VALUE == 2
