"""The design screen: its stall count and mean ranks, a report that counts a
seed once, runner rows imported as a variant, a resumable run keyed by
budget, the tree cycles screened for ``auto`` on recursive spaces, and
optimizer settings named as variants."""

from __future__ import annotations

import json
import math
import operator
from pathlib import Path

import numpy as np
import pytest
from bench.harness.bbob import stalled_for
from bench.harness.screen import _parametrized, _tree_cycle, _variants, imported, main, mean_ranks, report

import treefarm as tf


def test_a_run_is_stalled_for_the_evaluations_after_its_last_one_percent_cut() -> None:
    assert stalled_for([10.0, 5.0, 4.99, 4.98, 4.97]) == 3  # the last cuts are under 1 % of the regret
    assert stalled_for([10.0, 5.0, 2.0]) == 0
    assert stalled_for([10.0, 1e-9, 1e-9]) == 0  # solved, not stuck


def test_mean_ranks_average_over_the_problems_every_variant_ran() -> None:
    ranks = mean_ranks({"p": {"a": 1.0, "b": 2.0, "c": 0.5}, "q": {"a": 3.0, "b": 1.0}, "r": {"a": 1, "b": 5, "c": 2}})
    assert ranks == {"a": 1.5, "b": 3.0, "c": 1.5}  # q, where c did not run, is left out
    assert mean_ranks({"p": {"a": math.nan, "b": 2.0}})["a"] == 2.0  # a NaN median ranks last
    disjoint = mean_ranks({"p": {"a": 1.0}, "q": {"b": 1.0}})  # no problem where both ran
    assert set(disjoint) == {"a", "b"} and all(math.isnan(v) for v in disjoint.values())
    assert mean_ranks({}) == {}


def _row(seed: int, variant: str, final: float) -> dict[str, object]:
    return {"problem": "branin", "dim": 0, "seed": seed, "variant": variant, "budget": 3,
            "regret": [9.0, 5.0, final], "cpu": 0.0}


def test_the_report_counts_a_seed_once_however_many_files_hold_it_and_the_lowest_medians(tmp_path: Path) -> None:
    rows = [_row(s, "base", 1.0 + s) for s in range(6)] + [_row(s, "new", 0.1 + s / 100) for s in range(6)]
    one, two = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (one, two):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = report([one, two], "base")
    assert "| branin | 3.5 (6) | 0.125 (6) |" in text
    assert "| new | 1 | 1 | 1 | 0 | none | 1.00 | 1 |" in text and "| base | 1 | 0 | 0 | 0 | none | 2.00 | 0 |" in text


def test_the_report_keeps_only_the_problems_and_seeds_asked_for(tmp_path: Path) -> None:
    """A variant judged on a target set, or on seeds it was not chosen on, from the same rows file."""
    rows = [_row(s, "base", 1.0 + s) for s in range(12)] + [_row(s, "new", 0.1 + s / 100) for s in range(12)]
    rows += [{**r, "problem": "hartmann6"} for r in rows]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = report([path], "base", problems=["hartmann6"], seeds=range(6, 12))
    assert "| hartmann6 | 9.5 (6) | 0.185 (6) |" in text and "branin" not in text
    assert main(["report", str(path), "--base", "base", "--problems", "branin", "--seeds", "0-5"]) == 0


def test_numeric_as_reads_one_variants_rows_as_anothers_on_numeric_problems_only(tmp_path: Path) -> None:
    """``auto`` is the GP on numeric spaces: there its column is the GP's rows; on a space with a choice its own."""
    rows = [_row(s, "gp", 1.0) for s in range(6)] + [_row(s, "auto", 2.0) for s in range(6)]
    rows += [{**r, "problem": "svc_digits"} for r in rows]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = report([path], "gp", numeric_as={"auto": "gp"})
    assert "| branin | 1 (6) | 1 (6) |" in text and "| svc_digits | 1 (6) | 2 (6) |" in text


def test_runner_rows_join_a_screen_as_a_variant() -> None:
    runner = {"problem": "branin", "method": "tf-gp", "seed": 4, "status": "ok", "losses": [3.0, 1.0, 2.0],
              "suggest_cpu": [0.5, 0.25, 0.25]}
    (row,) = imported([runner, {**runner, "method": "optuna-gp"}], {"tf-gp": "gp-old"}, 100)
    assert row["problem"] == "branin" and row["dim"] == 0 and row["variant"] == "gp-old" and row["cpu"] == 1.0
    optimum = 3.0 - row["regret"][0]  # Branin's minimum, 0.397887
    assert abs(optimum - 0.397887) < 1e-6
    assert row["regret"] == pytest.approx([3.0 - optimum, 1.0 - optimum, 1.0 - optimum])  # best so far


def test_a_run_is_resumed_per_budget(tmp_path: Path) -> None:
    out = tmp_path / "screen.jsonl"
    args = ["run", "--problems", "branin", "--variants", "gp", "--seeds", "1", "--out", str(out)]
    main([*args, "--budget", "3"])
    main([*args, "--budget", "3"])
    main([*args, "--budget", "4"])
    budgets = [json.loads(line)["budget"] for line in out.read_text().splitlines()]
    assert budgets == [3, 4]


def test_a_tree_cycle_hands_each_trial_to_its_optimizer_in_turn() -> None:
    add = tf.op(operator.add, name="add")
    E = tf.Var("E", max_depth=3)
    E.define(add(E, E) | tf.Int(1, 9))
    study = tf.Study.create(space=E, algo="grammar", seed=0)
    study.optimize(lambda v: abs(v - 20), n_trials=11)
    history = study.history()  # 11 trials: trial 11 is the cycle's index 1, annealing's
    cycle = _tree_cycle("grammar", "anneal")
    got = cycle.suggest(E, history, 1, np.random.default_rng(3))
    assert got == tf.Anneal().suggest(E, history, 1, np.random.default_rng(3))
    short = tf.History(history.complete[:5])  # before grammar search's prior draws are done
    assert cycle.suggest(E, short, 1, np.random.default_rng(3)) == tf.GrammarSearch().suggest(
        E, short, 1, np.random.default_rng(3)
    )


def test_a_variant_names_an_optimizer_with_its_settings() -> None:
    made = _parametrized("grammar[greed=4;n_startup=5]")
    assert made is not None
    opt = made()
    assert isinstance(opt, tf.GrammarSearch) and opt.tuned_settings()["greed"] == 4 and opt.n_startup == 5
    assert _parametrized("grammar") is None and _parametrized("cycle-ga") is None



def test_every_named_variant_builds_and_is_not_the_default() -> None:
    """The settings that lost stay runnable by name (tuned settings included): each variant
    of an optimizer builds, and its repr, which names changed tuned settings, is not the
    default's."""
    for name, make in _variants().items():
        made = make()
        if "-" in name and type(made) in (tf.GP, tf.TPE, tf.Auto):
            assert repr(made) != repr(type(made)()), name
