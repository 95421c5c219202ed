"""Four processes on one SQLite study spend one cost budget between them: claims and
reservations are counted in the claim's transaction, so the budget is overrun by at
most one trial's cost (a fidelity) or one step per running trial (a learning curve)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from treefarm.storage import open_storage

WORKER = Path(__file__).with_name("fidelity_worker.py")
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(WORKER.parents[2] / "src"), *sys.path])}


def _run_four(db: Path, shape: str, max_cost: float, *extra: str) -> None:
    runs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), str(db), "shared", str(max_cost), shape, *extra],
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    for run in runs:
        _, err = run.communicate(timeout=240)
        assert run.returncode == 0, err


@pytest.mark.parametrize("promotions", ["asha", "model"])
def test_four_processes_spend_a_fidelity_budget_once(tmp_path: Path, promotions: str) -> None:
    """Whichever rule picks the promotions (ASHA's, or the model's), four processes
    promote no configuration twice: the storage writes each on a uniqueness check."""
    db = tmp_path / "f.db"
    _run_four(db, "fidelity", 4.0, promotions)
    storage = open_storage(db)
    try:
        trials = storage.get_trials(storage.get_study("shared").study_id)
        spent = storage.spent_cost(trials[0].study_id)
    finally:
        storage.close()
    assert 4.0 <= spent < 4.0 + 1.0  # the top rung costs 1: one trial's reservation at most
    assert all(t.state.value == "complete" for t in trials)
    evaluations = Counter((tuple(sorted(t.params.items())), t.system_attrs["fidelity"]) for t in trials)
    repeated = [e for e, n in evaluations.items() if n > 1]
    assert not repeated, f"a configuration was evaluated twice at one rung: {repeated}"


@pytest.mark.parametrize("max_cost", [60])
def test_four_processes_stop_learning_curves_at_the_budget(tmp_path: Path, max_cost: int) -> None:
    db = tmp_path / "c.db"
    _run_four(db, "curve", max_cost)
    storage = open_storage(db)
    try:
        trials = storage.get_trials(storage.get_study("shared").study_id)
        spent = storage.spent_cost(trials[0].study_id)
    finally:
        storage.close()
    assert max_cost <= spent <= max_cost + 4  # one step for each of the four running trials at most
    assert spent == sum(max(t.intermediate, default=0) for t in trials)
