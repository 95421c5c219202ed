"""The release check: sdist and wheel built, the wheel installed in a fresh virtual environment,
and the smoke test (the getting-started page included) run against it. CI runs ``.ci/release``
directly; this test runs the same script on demand (``-m slow``): it builds, creates a venv and
installs the wheel's dependencies, which takes about a minute."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_installed_wheel_passes_the_smoke_test(tmp_path: Path) -> None:
    pytest.importorskip(
        "build", reason="building the wheel needs the release extra (pip install -e '.[release]')"
    )
    if shutil.which("bash") is None:
        pytest.skip("the release check is a bash script")
    done = subprocess.run(
        ["bash", str(ROOT / ".ci" / "release"), str(tmp_path / "dist")], capture_output=True, text=True
    )
    assert done.returncode == 0, (
        f"the release check should pass, but got:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    )
    assert "smoke test of the installed wheel: passed" in done.stdout
