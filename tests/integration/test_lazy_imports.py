"""``import treefarm`` (and the command line's parser) loads none of the frameworks the
integrations bridge to: each is imported only when its integration is used."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FRAMEWORKS = ("ray", "hydra", "omegaconf", "keras", "plotly", "optuna", "torch", "lightning", "dask", "distributed")


@pytest.mark.parametrize("statement", ["import treefarm", "import treefarm.cli.main; treefarm.cli.main.parser()"])
def test_no_framework_is_imported_until_used(statement: str) -> None:
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement], capture_output=True, text=True, check=True, env=env
    )
    imported = {line.rpartition("|")[2].strip().split(".")[0] for line in done.stderr.splitlines() if "|" in line}
    assert "treefarm" in imported
    assert not imported & set(FRAMEWORKS), sorted(imported & set(FRAMEWORKS))
