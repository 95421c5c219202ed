"""Constants fitted inside a structure: the 1/5th rule, steps that keep the structure, convergence."""

from __future__ import annotations

import math

import numpy as np

from treefarm import Config, GrammarSearch, Real, Study, Var, op
from treefarm.optimizers.structure_constants import (
    GROW,
    SHRINK,
    SIGMA_MAX,
    SIGMA_MIN,
    has_numbers,
    step_numbers,
    step_size,
    structure,
)


def _sums() -> Var:
    """Sums of constants in [-1, 1], depth <= 3."""
    add = op(lambda a, b: a + b, name="add")
    E = Var("E", max_depth=3)
    E.define(add(E, E) | Real(-1.0, 1.0))
    return E


def test_the_step_grows_on_success_and_shrinks_otherwise() -> None:
    assert step_size([], 0.2) == step_size([1.0], 0.2) == 0.2
    assert math.isclose(step_size([1.0, 0.5], 0.2), 0.2 * GROW)
    assert math.isclose(step_size([1.0, 1.5, 1.0], 0.2), 0.2 * SHRINK**2)
    # four failures undo one success: stationary at a success rate of 1/5
    assert math.isclose(step_size([1.0, 0.5, 0.6, 0.7, 0.8, 0.9], 0.2), 0.2)
    assert step_size([0.0, *[1.0] * 500], 0.2) == SIGMA_MIN
    assert step_size(list(-np.arange(100.0)), 0.2) == SIGMA_MAX


def test_a_step_moves_the_numbers_and_keeps_the_structure() -> None:
    E = _sums()
    config = Config({"E": "add", "E.add.0": "1", "E.add.0.1": 0.5, "E.add.1": "1", "E.add.1.1": -0.2})
    child = step_numbers(E, config, np.random.default_rng(0), 0.1)
    assert structure(E, child) == structure(E, config)
    assert child["E.add.0.1"] != 0.5 and child["E.add.1.1"] != -0.2
    assert has_numbers(E, config)


def test_same_seed_same_suggestions_on_a_space_with_constants() -> None:
    def run() -> list[dict]:
        study = Study.create(space=_sums(), algo=GrammarSearch(n_startup=4), seed=3)
        study.optimize(lambda v: (v - 0.37) ** 2, n_trials=30)
        return [dict(t.params) for t in study.trials]

    assert run() == run()
