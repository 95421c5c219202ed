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
    numbers,
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


def _sizes(losses: list[float], sigma0: float = 0.2) -> float:
    """The rule over evaluations that all sit at one point (every one local)."""
    return step_size(np.zeros((len(losses), 1)), losses, sigma0)


def test_the_step_grows_on_success_and_shrinks_otherwise() -> None:
    assert _sizes([]) == _sizes([1.0]) == 0.2
    assert math.isclose(_sizes([1.0, 0.5]), 0.2 * GROW)
    assert math.isclose(_sizes([1.0, 1.5, 1.0]), 0.2 * SHRINK**2)
    # four failures undo one success: stationary at a success rate of 1/5
    assert math.isclose(_sizes([1.0, 0.5, 0.6, 0.7, 0.8, 0.9]), 0.2)
    assert _sizes([0.0, *[1.0] * 500]) == SIGMA_MIN
    assert _sizes(list(-np.arange(100.0))) == SIGMA_MAX


def test_evaluations_far_from_the_best_do_not_count() -> None:
    """A wide probe's failure says nothing about the local step; the best still moves to a far success."""
    points = np.array([[0.5], [0.5 + 4 * 0.2], [0.5 + 0.1]])
    assert math.isclose(step_size(points, [1.0, 2.0, 1.5], 0.2), 0.2 * SHRINK)
    points = np.array([[0.5], [0.9], [0.95]])
    assert math.isclose(step_size(points, [1.0, 0.5, 0.4], 0.1), 0.1 * GROW)


def test_a_step_moves_the_numbers_and_keeps_the_structure() -> None:
    E = _sums()
    config = Config({"E": "add", "E.add.0": "1", "E.add.0.1": 0.5, "E.add.1": "1", "E.add.1.1": -0.2})
    child = step_numbers(E, config, np.random.default_rng(0), 0.1)
    assert structure(E, child) == structure(E, config)
    assert child["E.add.0.1"] != 0.5 and child["E.add.1.1"] != -0.2
    assert has_numbers(E, config)
    assert np.allclose(numbers(E, config), [0.75, 0.4])


def _pair_study(seed: int, n_trials: int) -> Study:
    """One structure, two constants: loss (a - 0.7)^2 + (b + 1.3)^2."""
    space = op(lambda a, b: (a, b), name="pair")(Real(-2.0, 2.0), Real(-2.0, 2.0))
    study = Study.create(space=space, algo=GrammarSearch(), seed=seed)
    study.optimize(lambda v: (v[0] - 0.7) ** 2 + (v[1] + 1.3) ** 2, n_trials=n_trials)
    return study


def test_a_structures_constants_converge() -> None:
    for seed in range(3):
        study = _pair_study(seed, 200)
        assert study.best_value < 1e-4, (seed, study.best_value)
        a, b = study.best_params
        assert abs(a - 0.7) < 1e-2 and abs(b + 1.3) < 1e-2


def test_same_seed_same_suggestions_on_a_space_with_constants() -> None:
    def run() -> list[dict]:
        study = Study.create(space=_sums(), algo=GrammarSearch(n_startup=4), seed=3)
        study.optimize(lambda v: (v - 0.37) ** 2, n_trials=30)
        return [dict(t.params) for t in study.trials]

    assert run() == run()
