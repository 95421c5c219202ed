"""The held-out symbolic targets: the small set is what its rule draws, and its counts are the issue's."""

from __future__ import annotations

import numpy as np
from bench.harness.problems import SMALL, all_problems
from bench.harness.symbolic import (
    EXACT,
    FRESH,
    HELD_OUT,
    SMALL_DESIGN_SEED,
    SMALL_DESIGN_TREES,
    SMALL_TREES,
    TARGETS,
    draw_small,
    loss,
    size,
)
from bench.suites.grammars import head_to_head, recoveries


def test_the_small_targets_are_what_the_rule_draws_from_the_grammar() -> None:
    for n_vars, trees in SMALL_TREES.items():
        drawn = draw_small(n_vars)
        assert drawn == trees, (
            f"draw_small({n_vars}) drew {drawn}, not the committed SMALL_TREES[{n_vars}] {trees}: the grammar or "
            "the prior changed; the committed trees stay the set (a changed set would not be held out)"
        )


def test_the_small_design_targets_are_drawn_by_the_same_rule_apart_from_the_held_out_ones() -> None:
    for n_vars, trees in SMALL_DESIGN_TREES.items():
        assert draw_small(n_vars, seed=SMALL_DESIGN_SEED, avoid=SMALL_TREES[n_vars]) == trees


def test_the_small_targets_keep_the_rule() -> None:
    assert list(SMALL) == [f"small{i}" for i in range(1, 13)]
    others = [*TARGETS, *HELD_OUT, *FRESH]
    seen: list[np.ndarray] = []
    for name, problem in SMALL.items():
        target = problem.extra["target"]
        X, y = target.data()
        assert target.tree is not None and 4 <= size(target.tree) <= 8, f"{name} must have 4 to 8 nodes"
        assert np.all(np.isfinite(y)) and np.ptp(y) > 1e-6, f"{name} must be finite and not constant on its sample"
        with np.errstate(all="ignore"):
            alike = [t.name for t in others if t.n_vars == target.n_vars and loss(t.formula(*X.T), y) < EXACT]
        assert not alike, f"{name} is one function with {alike} on its sample"
        assert all(loss(earlier, y) >= EXACT for earlier in seen), f"{name} repeats an earlier small target"
        seen.append(y)
        assert name in all_problems(), f"{name} must be a benchmark problem"


def test_the_tree_itself_scores_an_exact_recovery() -> None:
    for name, problem in SMALL.items():
        assert problem.objective(problem.extra["target"].tree) < EXACT, f"the target's own tree must recover {name} exactly"


def test_recoveries_and_medians_are_counted_on_the_seeds_both_ran() -> None:
    finals = {
        ("a", "ours"): {0: 0.0, 1: 0.0, 2: 0.5, 3: 0.5},
        ("a", "peer"): {0: 0.0, 1: 1.0, 2: 1.0, 3: 1.0, 4: 0.0, 5: 0.0},
        ("b", "ours"): {0: 1.0, 1: 1.0},
        ("b", "peer"): {0: 0.0, 1: 2.0},
    }
    assert recoveries(finals, "a", "peer") == 3
    assert recoveries(finals, "a", "peer", seeds=range(4)) == 1
    assert head_to_head(finals, "ours", ["peer"]) == (2, 1, 1), "seeds 4 and 5 of the peer must not count"
    finals |= {("a", "other"): {0: 0.1, 1: 0.1, 2: 0.1, 3: 0.1}, ("b", "other"): {0: 2.0, 1: 2.0}}
    assert head_to_head(finals, "ours", ["peer", "other"]) == (2, 1, 0), "ahead must mean ahead of every peer"
