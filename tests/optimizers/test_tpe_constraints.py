"""c-TPE: one density ratio per constraint; the candidates drawn are TPE's own, only the winner changes."""

from __future__ import annotations

import math

import numpy as np
import pytest

import treefarm as tf
from treefarm import TPE, History, Observation, Real
from treefarm.exceptions import ConfigError
from treefarm.optimizers.base import variant
from treefarm.optimizers.tpe.constraints import constrained_scores, constraint_splits
from treefarm.space import Config, sample

SPACE = {"x": Real(0.0, 1.0), "y": Real(0.0, 1.0)}


def _observations(constraints: list[tuple[float, ...]]) -> list[Observation]:
    return [Observation(Config({"x": i / 10, "y": 0.5}), float(i), constraints=c) for i, c in enumerate(constraints)]


def test_a_constraint_splits_at_feasibility_or_at_the_good_set_size_when_few_satisfy_it() -> None:
    complete = _observations([(-1.0, 2.0, -1.0), (0.0, 1.0, -1.0), (3.0, -1.0, -1.0), (2.0, math.nan, -1.0)])
    splits = constraint_splits(complete, lambda n: 1)
    assert [s.gamma for s in splits] == [0.5, 0.25]  # the third holds everywhere: no say
    assert [c["x"] for c in splits[0].good] == [0.0, 0.1] and [c["x"] for c in splits[0].worse] == [0.2, 0.3]
    assert [c["x"] for c in splits[1].good] == [0.2]
    few = constraint_splits(complete, lambda n: 3)
    assert few[0].gamma == 0.75 and [c["x"] for c in few[0].good] == [0.0, 0.1, 0.3]
    assert [c["x"] for c in few[1].good] == [0.0, 0.1, 0.2]


def test_the_score_is_the_objective_ratio_alone_without_constraints_and_cTPEs_product_with() -> None:
    r = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -3.0]])
    assert np.array_equal(constrained_scores(r[:1], [0.25]), r[0])
    gammas = [0.25, 0.6]
    expected = sum(-np.log(g + (1 - g) * np.exp(-row)) for g, row in zip(gammas, r))
    np.testing.assert_allclose(constrained_scores(r, gammas), expected, rtol=1e-12)


def _history(rng: np.random.Generator, n: int = 30) -> History:
    configs = [sample(SPACE, rng) for _ in range(n)]
    return History(
        complete=[
            Observation(c, c["x"] + (10.0 if (c["x"] - 0.7) ** 2 + (c["y"] - 0.7) ** 2 > 0.04 else 0.0),
                        constraints=((c["x"] - 0.7) ** 2 + (c["y"] - 0.7) ** 2 - 0.04,))
            for c in configs
        ]
    )


def test_ctpe_draws_tpes_candidates_and_only_chooses_among_them_otherwise() -> None:
    history = _history(np.random.default_rng(1))
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    variant(TPE, {"constraints": "ctpe"}).suggest(SPACE, history, 3, a)
    variant(TPE, {"constraints": "rank"}).suggest(SPACE, history, 3, b)
    assert a.bit_generator.state == b.bit_generator.state
    again = TPE().suggest(SPACE, history, 3, np.random.default_rng(5))
    assert again == TPE().suggest(SPACE, history, 3, np.random.default_rng(5))


def test_the_constraints_ratio_moves_suggestions_into_the_feasible_region() -> None:
    history = _history(np.random.default_rng(1))

    def inside(mode: str) -> int:
        # equal weights: the best trials are feasible, so their rank weights alone pull the draws into the disk
        tpe = variant(TPE, {"constraints": mode, "rank_weights": 0.0})
        points = [tpe.suggest(SPACE, history, 1, np.random.default_rng(s))[0] for s in range(40)]
        return sum((p["x"] - 0.7) ** 2 + (p["y"] - 0.7) ** 2 <= 0.04 for p in points)

    ctpe, rank = inside("ctpe"), inside("rank")
    assert ctpe >= 35 and rank <= 20, f"{ctpe} of 40 c-TPE suggestions in the feasible disk, {rank} by the order alone"


@pytest.mark.parametrize("seed", range(3))
def test_a_study_with_a_small_feasible_disk_mostly_suggests_inside_it(seed: int) -> None:
    def objective(p: dict) -> dict:
        c = (p["x"] - 0.7) ** 2 + (p["y"] - 0.7) ** 2 - 0.04
        return {"loss": p["x"], "constraints": [c]}

    study = tf.Study.create(space=SPACE, algo="tpe", seed=seed)
    study.optimize(objective, 60)
    later = study.trials[20:]
    feasible = sum(all(v <= 0 for v in t.constraints) for t in later)
    assert feasible >= 0.5 * len(later)
    assert all(v <= 0 for v in study.best_trial.constraints)


def test_a_bad_constraints_setting_is_named() -> None:
    with pytest.raises(ConfigError, match=r"constraints must be 'rank' or 'ctpe'.*'cTPE'"):
        variant(TPE, {"constraints": "cTPE"})
