"""The benchmark harness: known optima, runs that resume, failures recorded as rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench.harness import runner
from bench.harness.problems import SYNTHETIC, hartmann6, levy, params_to_space
from bench.harness.report import (
    coverage_table,
    gap_table,
    parse_commits,
    problem_table,
    select,
    summary_table,
    versus_table,
)

from treefarm import sample


def test_synthetic_optima_are_attained_at_their_known_minimizers() -> None:
    h6 = [0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573]
    assert hartmann6({f"x{i}": v for i, v in enumerate(h6)}) == pytest.approx(
        SYNTHETIC["hartmann6"].optimum, abs=1e-4
    )
    assert levy({f"x{i}": 1.0 for i in range(10)}) == pytest.approx(0.0, abs=1e-12)
    for problem in SYNTHETIC.values():
        configs = sample(problem.treefarm_space(), 0, n=200)
        assert all(problem.objective(dict(c)) >= problem.optimum - 1e-6 for c in configs)


def test_conditional_params_become_join_options() -> None:
    from bench.harness.problems import TUNING

    from treefarm import build

    space = params_to_space(TUNING["svc_digits"].params)
    for config in sample(space, 1, n=30):
        flat = TUNING["svc_digits"].flat_value(build(space, config))
        assert ("degree" in flat) == (flat["kernel"] == "poly")
        assert ("gamma" in flat) == (flat["kernel"] != "linear")


def test_runs_resume_and_failures_are_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "r.jsonl"
    calls = []

    def fake_child(key: runner.Key, timeout: float) -> dict:
        calls.append(key)
        problem, method, seed, budget = key
        if method == "broken":
            return {
                "problem": problem,
                "method": method,
                "seed": seed,
                "budget": budget,
                "status": "error",
                "error": "exit 1: boom",
            }
        return runner.run_one(problem, method, seed, budget)

    monkeypatch.setattr(runner, "_child", fake_child)
    keys = [("branin", "tf-random", s, 8) for s in range(2)] + [("branin", "broken", 0, 8)]
    assert runner.run_all(keys, out, jobs=1) == 3
    out.write_text(out.read_text() + '{"torn line')
    assert runner.run_all(keys, out, jobs=1) == 0
    rows = runner.read_rows(out)
    assert len(rows) == 3 and sum(r["status"] == "error" for r in rows) == 1
    ok = [r for r in rows if r["status"] == "ok"]
    assert all(len(r["losses"]) == len(r["suggest_times"]) == len(r["suggest_cpu"]) == 8 for r in ok)
    assert "boom" in problem_table(rows, "branin")
    assert "tf-random" in summary_table(rows, ["branin"])


def test_a_recursive_problem_is_a_cannot_row_for_peers() -> None:
    row = runner.run_one("symbolic_regression", "hyperopt-tpe", 0, 5)
    assert row["status"] == "cannot"


def test_a_missing_optimizer_is_a_not_available_row(monkeypatch: pytest.MonkeyPatch) -> None:
    import treefarm as tf

    monkeypatch.setattr(tf.optimizers, "available", lambda: ["random"])
    row = runner.run_one("branin", "tf-gp", 0, 5)
    assert row["status"] == "unavailable" and "not available" in row["error"]
    assert runner.run_one("branin", "tf-random", 0, 5)["status"] == "ok"
    assert json.dumps(row)


def _row(method: str, seed: int, best: float, commit: str = "new", status: str = "ok") -> dict:
    losses = [best + 1.0, best] if status == "ok" else []
    return {
        "problem": "branin",
        "method": method,
        "seed": seed,
        "budget": 2,
        "status": status,
        "losses": losses,
        "commit": commit,
    }


def test_report_keeps_treefarm_rows_of_one_commit_and_counts_wins() -> None:
    rows = select(
        [
            _row("tf-gp", 0, 9.0, commit="old"),
            _row("tf-gp", 0, 1.0),
            _row("tf-gp", 1, 2.0),
            _row("tf-gp", 2, 5.0, commit="old"),
            _row("optuna-gp", 0, 3.0, commit="old"),
            _row("optuna-gp", 1, 4.0, commit="old"),
            _row("hyperopt-tpe", 0, 0.0, status="cannot"),
        ],
        "new",
    )
    assert sorted((r["method"], r["seed"]) for r in rows) == [
        ("hyperopt-tpe", 0),
        ("optuna-gp", 0),
        ("optuna-gp", 1),
        ("tf-gp", 0),
        ("tf-gp", 1),
    ]
    coverage = coverage_table(rows, ["branin"])
    assert "| branin | cannot | 2 | 2 |" in coverage
    versus = versus_table(rows, ["branin"], "tf-gp", ["optuna-gp"])
    assert "1/1" in versus.splitlines()[-1]


def test_report_takes_each_treefarm_method_from_its_own_commit() -> None:
    rows = [
        _row("tf-gp", 0, 1.0, commit="old"),
        _row("tf-tpe", 0, 9.0, commit="old"),
        _row("tf-tpe", 0, 2.0, commit="new"),
        _row("tf-gp", 0, 7.0, commit="new"),
        _row("tf-tpe", 1, 8.0, commit="old"),
    ]
    commits = parse_commits(["old", "tf-tpe=new"])
    assert commits == {"*": "old", "tf-tpe": "new"}
    kept = {(r["method"], r["seed"]): r["losses"][-1] for r in select(rows, commits)}
    assert kept == {("tf-gp", 0): 1.0, ("tf-tpe", 0): 2.0}


def test_the_gap_table_tells_a_real_gap_from_seed_noise() -> None:
    """20 seeds each, Branin's optimum (0.397887) added so regrets are the values below."""
    base = 0.397887
    spread = [0.1 * i for i in range(20)]
    rows = [
        *(_row("tf-tpe", s, base + 5.0 + x) for s, x in enumerate(spread)),
        *(_row("optuna-tpe", s, base + x) for s, x in enumerate(spread)),
        *(_row("tf-random", s, base + x + (0.05 if s % 2 else -0.05)) for s, x in enumerate(spread)),
    ]
    worse = gap_table(rows, ["branin"], "tf-tpe", "optuna-tpe").splitlines()[-1]
    assert worse.endswith("| worse |") and "| 0.000 |" in worse
    better = gap_table(rows, ["branin"], "optuna-tpe", "tf-tpe").splitlines()[-1]
    assert better.endswith("| better |")
    noise = gap_table(rows, ["branin"], "tf-random", "optuna-tpe")
    assert noise.splitlines()[-1].endswith("| not resolved |")
    assert noise == gap_table(rows, ["branin"], "tf-random", "optuna-tpe")
    assert len(gap_table(rows, ["branin"], "tf-tpe", "hyperopt-tpe").splitlines()) == 2


def test_report_rejects_a_malformed_gap_pair(capsys: pytest.CaptureFixture[str]) -> None:
    from bench.__main__ import main

    with pytest.raises(SystemExit):
        main(["report", "missing.jsonl", "--gap", "tf-tpe", "--gap", "tf-tpe:optuna-tpe"])
    err = capsys.readouterr().err
    assert "OURS:PEER" in err and "['tf-tpe']" in err


def test_tpe_ablation_table_counts_the_problems_no_worse_than_optuna_and_beyond_noise() -> None:
    from bench.harness.problems import SYNTHETIC
    from bench.screens.tpe_ablation import table, variants

    seeds = range(10)
    peers = [
        {
            "problem": p,
            "method": "optuna-tpe",
            "seed": s,
            "budget": 1,
            "status": "ok",
            "losses": [f.optimum + 1.0 + 0.01 * s],
        }
        for p, f in SYNTHETIC.items()
        for s in seeds
    ]
    offset = {"seed defaults": -0.5, "multivariate": 1.0}
    rows = [
        {"variant": v, "problem": p, "seed": s, "regret": 1.0 + offset.get(v, 0.0) + 0.01 * (9 - s)}
        for v in variants()
        for p in SYNTHETIC
        for s in seeds
    ]
    lines = table(rows, peers).splitlines()

    def row(name: str) -> str:
        return next(line for line in lines if line.startswith(f"| {name} |"))

    assert row("seed defaults").endswith("| 6/6 | 6 / 0 |")
    assert row("multivariate").endswith("| 0/6 | 0 / 6 |")
    assert row("10 start-up").endswith("| 6/6 | 0 / 0 |")


def test_the_ablations_per_address_tpe_keeps_each_addresss_own_best_draw() -> None:
    """The ablation's "per-address choice" row stands for Hyperopt's rule: on a history
    where "b" has the best l/g ratio of k on its own, each address's own best draw is
    "b" whenever one of the 24 draws is (all but (2/3)^24 of the time); treefarm's
    whole-configuration choice trades k's ratio against x's and also takes "a"."""
    import numpy as np
    from bench.screens.tpe_ablation import per_address_tpe

    from treefarm import Choice, Config, History, Observation, Real
    from treefarm.optimizers.tpe import TPE

    xs = [0.2, 0.5, 0.55, 0.05, 0.8, 0.9, 0.95, 0.7, 0.35, 0.1]
    ks = ["a", "a", "b", "a", "a", "a", "b", "c", "c", "c"]
    losses = [0, 0, 0, 1, 1, 1, 1, 1, 1, 1]
    history = History(
        complete=tuple(Observation(Config({"x": x, "k": k}), loss) for x, k, loss in zip(xs, ks, losses))
    )
    space = {"x": Real(0, 1), "k": Choice("a", "b", "c")}

    def share_b(optimizer: TPE) -> float:
        configs = [optimizer.suggest(space, history, 1, np.random.default_rng(s))[0] for s in range(300)]  # type: ignore[arg-type]
        return sum(c["k"] == "b" for c in configs) / len(configs)

    assert share_b(per_address_tpe(n_startup=1, gamma=lambda n: 3)) == 1.0
    assert share_b(TPE(n_startup=1, gamma=lambda n: 3)) < 0.995


def test_smacs_space_keeps_bounds_log_scales_and_a_conditional_parameter() -> None:
    """SMAC3 sees the problem's parameters as ConfigSpace does: the SVC's degree only with the poly kernel."""
    pytest.importorskip("ConfigSpace")
    from bench.harness.methods import _smac_space
    from bench.harness.problems import all_problems

    cs = _smac_space(all_problems()["svc_digits"], seed=0)
    assert cs["C"].log and (cs["C"].lower, cs["C"].upper) == (0.001, 1000.0)
    configs = cs.sample_configuration(60)
    assert all(("degree" in dict(c)) == (c["kernel"] == "poly") for c in configs)
    assert all(("gamma" in dict(c)) == (c["kernel"] in ("rbf", "poly")) for c in configs)
    assert {c["kernel"] for c in configs} == {"rbf", "poly", "linear"}


def test_hebos_design_space_and_what_it_cannot_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Log-scaled numbers become HEBO's power types; conditional spaces are a cannot row; a missing
    interpreter is a not-available row naming the variable that sets it."""
    from bench.harness.hebo_worker import design
    from bench.harness.methods import NotAvailableError, _hebo
    from bench.harness.problems import all_problems

    params = [{"name": "C", "kind": "real", "low": 1e-3, "high": 1e3, "log": True, "choices": []},
              {"name": "k", "kind": "int", "low": 1, "high": 9, "log": False, "choices": []},
              {"name": "c", "kind": "cat", "low": 0, "high": 1, "log": False, "choices": ["a", "b"]}]
    assert design(params) == [{"name": "C", "type": "pow", "lb": 1e-3, "ub": 1e3},
                              {"name": "k", "type": "int", "lb": 1, "ub": 9},
                              {"name": "c", "type": "cat", "categories": ["a", "b"]}]
    assert runner.run_one("svc_digits", "hebo", 0, 5)["status"] == "cannot"
    monkeypatch.setenv("TREEFARM_HEBO_PYTHON", str(tmp_path / "no-python"))
    with pytest.raises(NotAvailableError, match="TREEFARM_HEBO_PYTHON"):
        _hebo("hebo", all_problems()["branin"], 0, 5)
