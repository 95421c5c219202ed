"""The GP with one model per objective and constraint (``GP(objectives="ehvi")``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import treefarm as tf
from treefarm import ConfigError, History, Observation, Optimizer
from treefarm.bo.refits import Refits
from treefarm.optimizers.base import variant
from treefarm.optimizers.gp import GP
from treefarm.optimizers.gp_parts import GPParts
from treefarm.pareto import hypervolume, ranking_losses

SPACE = {f"x{i}": tf.Real(0, 1) for i in range(5)}
Outcome = tuple[tuple[float, ...], tuple[float, ...]]


def zdt1(config: tf.Config) -> Outcome:
    x = np.array([config[f"x{i}"] for i in range(5)])
    g = 1 + 9 * x[1:].mean()
    return (float(x[0]), float(g * (1 - np.sqrt(x[0] / g)))), ()


def constrained(config: tf.Config) -> Outcome:
    """Two objectives; feasible only where x0 + x1 >= 1.2 (a corner of the cube)."""
    (f1, f2), _ = zdt1(config)
    return (f1, f2), (1.2 - config["x0"] - config["x1"],)


def three(config: tf.Config) -> Outcome:
    x = np.array([config[f"x{i}"] for i in range(5)])
    return tuple(float(((x - c) ** 2).sum()) for c in (0.2, 0.5, 0.8)), ()


def _history(outcomes: list[tuple[tf.Config, Outcome]]) -> History:
    Y = np.array([f for _, (f, _) in outcomes])
    C = np.array([c for _, (_, c) in outcomes]) if outcomes[0][1][1] else None
    ranks = ranking_losses(Y, C)
    return History(
        complete=tuple(
            Observation(config, float(r), losses=f, constraints=c)
            for (config, (f, c)), r in zip(outcomes, ranks)
        )
    )


def _run(
    optimizer: Optimizer, f: Callable[[tf.Config], Outcome], seed: int, n: int, batch: int = 1
) -> History:
    outcomes: list[tuple[tf.Config, Outcome]] = []
    step = 0
    while len(outcomes) < n:
        rng = np.random.default_rng([seed, step])
        history = _history(outcomes) if outcomes else History()
        for config in optimizer.suggest(SPACE, history, batch, rng):  # type: ignore[arg-type]
            outcomes.append((config, f(config)))
        step += 1
    return _history(outcomes)


def test_ehvi_gp_reaches_a_larger_hypervolume_than_random_search_on_zdt1() -> None:
    ref = np.array([1.1, 7.0])
    for seed in range(3):
        gp = hypervolume(
            np.array([o.losses for o in _run(GP(objectives="ehvi"), zdt1, seed, 60).complete]), ref
        )
        rand = hypervolume(
            np.array([o.losses for o in _run(tf.RandomSearch(), zdt1, seed, 60).complete]), ref
        )
        assert gp > rand, f"seed {seed}: the EHVI GP's hypervolume {gp} must beat random search's {rand}"


def test_same_history_and_seed_give_the_same_batch() -> None:
    history = _run(tf.RandomSearch(), constrained, 0, 14)
    a = GP(objectives="ehvi").suggest(SPACE, history, 3, np.random.default_rng(7))  # type: ignore[arg-type]
    b = GP(objectives="ehvi").suggest(SPACE, history, 3, np.random.default_rng(7))  # type: ignore[arg-type]
    assert a == b
    assert len(set(a)) == 3, "the believer must spread a batch over distinct points"


def test_no_feasible_trial_yet_seeks_feasibility() -> None:
    rng = np.random.default_rng(0)
    outcomes = []
    for _ in range(12):
        config = tf.Config({f"x{i}": float(v) for i, v in enumerate(rng.random(5) * 0.5)})
        outcomes.append((config, constrained(config)))
    history = _history(outcomes)
    batch = GP(objectives="ehvi").suggest(SPACE, history, 2, np.random.default_rng(1))  # type: ignore[arg-type]
    sums = [c["x0"] + c["x1"] for c in batch]
    assert min(sums) > 0.9, (
        f"with nothing feasible the GP must head for x0 + x1 >= 1.2, but proposed sums {sums}"
    )


def four(config: tf.Config) -> Outcome:
    x = np.array([config[f"x{i}"] for i in range(5)])
    return tuple(float(((x - c) ** 2).sum()) for c in (0.2, 0.4, 0.6, 0.8)), ()


@pytest.mark.parametrize(
    "f, k, exact",
    [(three, 3, 2), (three, 3, 3), (four, 4, 3)],
    ids=["three: ParEGO", "three: EHVI", "four: ParEGO"],
)
def test_three_and_four_objectives_improve_on_random_search(
    f: Callable[[tf.Config], Outcome], k: int, exact: int
) -> None:
    ref = np.full(k, 3.0)
    optimizer = variant(GP, {"ehvi_exact": exact}, objectives="ehvi")
    gp = hypervolume(np.array([o.losses for o in _run(optimizer, f, 0, 30).complete]), ref)
    rand = hypervolume(np.array([o.losses for o in _run(tf.RandomSearch(), f, 0, 30).complete]), ref)
    assert gp > rand, f"the GP's hypervolume {gp} must beat random search's {rand} with {k} objectives"


def test_rank_remains_the_default_and_bad_values_name_the_option() -> None:
    assert GP().objectives == "rank"
    for bad in ("hypervolume", "ehvi3"):  # "ehvi3" is a tuned setting now: ehvi_exact=3
        with pytest.raises(ConfigError, match="objectives"):
            GP(objectives=bad)


def test_past_full_until_each_model_sees_the_subset_with_the_front_in_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 2-objective GP chosen by name stays bounded on a long study: past
    ``full_until`` every output's model is fitted on ``subset_size`` trials,
    the Pareto front among them; a fresh optimizer suggests what a running one does."""
    import treefarm.bo.models.gp as gp_models

    history = _run(tf.RandomSearch(), constrained, 0, 40)
    sizes: list[int] = []
    real = gp_models.gp_with_params

    def spy(X: np.ndarray, *args: object, **kwargs: object) -> object:
        sizes.append(len(X))
        return real(X, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gp_models, "gp_with_params", spy)
    running = GP(objectives="ehvi", full_until=20, subset_size=12)
    running.suggest(SPACE, History(complete=history.complete[:20]), 1, np.random.default_rng(0))  # type: ignore[arg-type]
    assert min(sizes) == 20, f"at full_until=20 trials every model fits all 20: {sizes}"
    sizes.clear()
    a = running.suggest(SPACE, history, 2, np.random.default_rng(7))  # type: ignore[arg-type]
    assert sizes and max(sizes) <= 12 + 2, f"the models must see at most 12 trials (+ the batch's believers): {sizes}"
    fresh = GP(objectives="ehvi", full_until=20, subset_size=12).suggest(
        SPACE, history, 2, np.random.default_rng(7)  # type: ignore[arg-type]
    )
    assert a == fresh, "a fresh worker must suggest what a running optimizer does"
    below = GP(objectives="ehvi", full_until=40).suggest(SPACE, history, 2, np.random.default_rng(7))  # type: ignore[arg-type]
    unbounded = GP(objectives="ehvi", full_until=None).suggest(SPACE, history, 2, np.random.default_rng(7))  # type: ignore[arg-type]
    assert below == unbounded, "at or below full_until the GP fits every trial"


def test_ehvi_gp_still_improves_the_front_past_full_until() -> None:
    ref = np.array([1.1, 7.0])
    start = _run(tf.RandomSearch(), zdt1, 1, 30)
    hv_start = hypervolume(np.array([o.losses for o in start.complete]), ref)
    bounded = GP(objectives="ehvi", full_until=25, subset_size=16)
    outcomes = [(o.config, (o.losses, ())) for o in start.complete]
    for step in range(20):
        config = bounded.suggest(SPACE, _history(outcomes), 1, np.random.default_rng([1, step]))[0]  # type: ignore[arg-type]
        outcomes.append((config, zdt1(config)))
    hv_end = hypervolume(np.array([f for _, (f, _) in outcomes]), ref)
    assert hv_end > hv_start + 0.2, f"20 bounded EHVI steps must grow the front: {hv_start} -> {hv_end}"


def test_both_strategies_take_their_candidates_from_one_collaborator() -> None:
    """One GP's single- and several-objective strategies draw their candidates from
    the same collaborator: same seed, same configurations, the first ``n_cover``
    covering the space, then the best's neighbours."""
    space = {"x": tf.Real(0.0, 1.0), "k": tf.Choice("a", "b")}
    configs = [tf.Config({"x": i / 10, "k": "ab"[i % 2]}) for i in range(10)]
    losses = np.arange(10.0)
    gp = GP(n_candidates=16, n_local=8, objectives="ehvi")
    single, several = gp.parts(space), gp.parts(space, refits=Refits())  # each output's fits kept apart
    assert single.candidates == several.candidates and single.encoding.flat is not None

    def draw(parts: GPParts) -> list[tf.Config]:
        return parts.candidates.draw(parts.encoding, configs, losses, (), np.random.default_rng(4)).configs

    first = single.candidates.draw(single.encoding, configs, losses, (), np.random.default_rng(4))
    assert first.n_cover == 16 and len(first.configs) == 16 + 8
    assert draw(single) == draw(several) == first.configs
