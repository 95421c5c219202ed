"""NePS's Hyperband and PriorBand as multi-fidelity peers: the bridge pays every suggestion from the
suite's ledger, stops at the cost budget, and leaves a clean row where NePS is missing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from bench.harness.fidelity_methods import MAX_STEPS, RUNGS, run
from bench.harness.fidelity_problems import problems
from bench.harness.methods import NEPS_PYTHON
from bench.suites import fidelity

#: A stand-in for NePS's interpreter: it speaks the worker's protocol, proposing one configuration at
#: step 1 and then continuing it at step 3 (as NePS promotes), until told to stop.
FAKE_WORKER = """
import json, sys
spec = json.loads(sys.stdin.readline())
config = {p["name"]: p["low"] for p in spec["params"]}
told = []
while True:
    for step, resumed_from in ((1, 0), (3, 1)):
        print("a line NePS logs to stdout")
        print(json.dumps({"config": config, "step": step, "resumed_from": resumed_from}), flush=True)
        answer = json.loads(sys.stdin.readline())
        if answer.get("stop"):
            print(json.dumps({"suggest_ms": [1.5] * len(told), "version": "fake"}), flush=True)
            sys.exit(0)
        told.append(answer["loss"])
"""


def fake_interpreter(tmp_path: Path) -> Path:
    path = tmp_path / "python"
    path.write_text(f"#!{sys.executable}\n{FAKE_WORKER}")
    path.chmod(0o755)
    return path


def test_a_missing_neps_interpreter_records_both_methods_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TREEFARM_NEPS_PYTHON", str(tmp_path / "no-python"))
    for method in ("neps-hyperband", "neps-priorband"):
        row = fidelity.one("branin", method, 0, 3)
        assert row["status"] == "unavailable"
        assert "TREEFARM_NEPS_PYTHON" in row["error"] and "no-python" in row["error"]


def test_the_bridge_pays_each_suggestion_stops_at_the_budget_and_a_continued_curve_pays_only_added_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TREEFARM_NEPS_PYTHON", str(fake_interpreter(tmp_path)))
    curve = problems()["mlp_wine_epochs"]
    out = run("neps-hyperband", curve, 0, 1)
    # each pair costs 1/27 (step 1) + 2/27 (steps 2-3): nine pairs reach 1 full evaluation exactly
    assert out["evaluations"] == 18
    assert out["spent"] == pytest.approx(1.0)
    assert out["suggest_ms"] == [1.5] * 18
    parameter = problems()["branin"]
    out = run("neps-priorband", parameter, 0, 1)
    # nothing resumes on a fidelity parameter: each evaluation pays its step's cost in full
    pair = parameter.cost(1) + parameter.cost(3)
    assert out["spent"] == pytest.approx(pair * (out["evaluations"] // 2) + parameter.cost(1) * (out["evaluations"] % 2))
    assert out["spent"] >= 1 > out["spent"] - parameter.cost(3)


def test_a_failing_worker_is_an_error_naming_what_it_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "python"
    path.write_text(f"#!{sys.executable}\nimport sys\nsys.stderr.write('no module named neps')\nsys.exit(3)\n")
    path.chmod(0o755)
    monkeypatch.setenv("TREEFARM_NEPS_PYTHON", str(path))
    with pytest.raises(RuntimeError, match=r"exit 3\b.*no module named neps"):
        run("neps-hyperband", problems()["branin"], 0, 1)


@pytest.mark.skipif(not Path(NEPS_PYTHON).is_file(), reason="NePS's interpreter (bench/notes/NEPS.md) is missing")
@pytest.mark.parametrize("method", ["neps-hyperband", "neps-priorband"])
def test_neps_evaluates_at_the_suites_rungs_and_the_same_seed_gives_the_same_run(method: str) -> None:
    problem = problems()["branin"]
    first, second = run(method, problem, 3, 2), run(method, problem, 3, 2)
    assert first["events"] == second["events"]
    assert {int(e[1]) for e in first["events"]} <= set(RUNGS)
    assert 2 <= first["spent"] < 2 + problem.cost(MAX_STEPS)


def test_the_report_marks_each_cell_against_the_method_asked_for_and_shows_only_the_columns_asked_for(
    tmp_path: Path,
) -> None:
    import json

    optimum = problems()["branin"].optimum
    regrets = {"tf-auto-fidelity": 0.01, "tf-auto-full": 1.0, "neps-hyperband": 5.0}

    def row(method: str, seed: int) -> dict[str, object]:
        value = optimum + regrets[method] * (1 + 0.01 * seed)
        return {"problem": "branin", "method": method, "seed": seed, "max_cost": 30, "status": "ok",
                "events": [[1.0, MAX_STEPS, value, value]]}

    rows = [row(m, seed) for m in regrets for seed in range(10)]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    table = fidelity.anytime_table([path], 30, against="tf-auto-full", only=["neps-hyperband", "tf-auto-full",
                                                                             "tf-auto-fidelity"])
    header, _, line = table.splitlines()[2:5]
    assert header == "| problem | tf-auto-fidelity | tf-auto-full | neps-hyperband |"
    fid, full, neps = line.split(" | ")[1:]
    assert fid.endswith("▼") and neps.rstrip(" |").endswith("▲") and not full.endswith(("▲", "▼"))
    assert "worse/better than tf-auto-full" in table
    assert "neps-hyperband" not in fidelity.anytime_table([path], 30, only=["tf-auto-full", "tf-auto-fidelity"])
