"""The scale benchmark's simulation runs the real loop and storage on a virtual clock,
counts every trial once and reports what its table shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench.suites import scale, scale_sim


@pytest.mark.parametrize("prepared", [0, 2])
def test_a_simulated_run_counts_every_trial_once_on_a_virtual_clock(tmp_path: Path, prepared: int) -> None:
    row = scale_sim.simulate(
        workers=4, duration=100.0, algo="tpe", url=f"sqlite:///{tmp_path / 's.db'}", trials=24, seed=0,
        prepared=prepared, name="scale-test",
    )
    assert row["numbers_once"] and row["all_complete"] and row["sent_once"], row
    assert 0.0 <= row["wait"] < 0.01, "100-second objectives leave a 4-worker driver idle"
    assert row["trials_per_s"] <= row["ideal_per_s"] == 0.04
    assert row["real_s"] < 60, "the durations are virtual"
    assert row["claim_p50_ms"] <= row["claim_p99_ms"]


def test_workers_asking_for_themselves_are_simulated_and_reported(tmp_path: Path) -> None:
    row = scale_sim.simulate_shared(
        workers=3, duration=10.0, algo="random", url=f"sqlite:///{tmp_path / 's.db'}", trials=12, seed=0,
        name="scale-shared",
    )
    assert row["numbers_once"] and row["all_complete"] and row["sent_once"], row
    key = {"mode": "shared", "executor": "virtual", "policy": "none", "workers": 3, "duration": 10.0,
           "algo": "random", "storage": "sqlite", "trials": 12, "seed": 0}
    rows = tmp_path / "scale.jsonl"
    rows.write_text(json.dumps({**key, **row}) + "\n")
    table = scale.report(rows)
    assert "| shared | virtual | sqlite | random | 10 | 3 | none | 12 |" in table and table.endswith("yes |")
