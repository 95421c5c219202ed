"""CMA-ES: conformance, the strategy against a reference implementation, replay, restarts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import treefarm as tf
from treefarm import CMAES, Choice, History, Int, Join, Observation, Optimizer, Real
from treefarm.exceptions import ConfigError
from treefarm.optimizers.cmaes import draw, initial_state, mirror, strategy_params, update
from treefarm.testing.optimizer_suite import OptimizerSuite


class TestCMAESConformance(OptimizerSuite):
    supports_recursive = False

    @pytest.fixture
    def optimizer_factory(self) -> Callable[[], Optimizer]:
        return CMAES


class TestBIPOPConformance(OptimizerSuite):
    supports_recursive = False
    history_sizes = (0, 30)

    @pytest.fixture
    def optimizer_factory(self) -> Callable[[], Optimizer]:
        return lambda: CMAES(restarts="bipop", population=4)


def _sphere_space(d: int) -> dict[str, Real]:
    return {f"x{i}": Real(-5, 5) for i in range(d)}


def _sphere(config: dict) -> float:
    return float(sum((v - 1.0) ** 2 for v in config.values()))


def _run(
    optimizer: CMAES, space: dict, objective: Callable[[dict], float], n: int, seed: int = 0
) -> list[Observation]:
    complete: list[Observation] = []
    for t in range(n):
        (config,) = optimizer.suggest(
            space, History(complete=tuple(complete)), 1, np.random.default_rng([seed, t])
        )
        complete.append(Observation(config, objective(config)))
    return complete


@pytest.mark.parametrize(("d", "lam"), [(2, 6), (10, 10), (20, 12), (40, 80)])
def test_strategy_parameters_equal_the_reference_implementation(d: int, lam: int) -> None:
    cmaes = pytest.importorskip("cmaes", reason="the cmaes package is the reference implementation")
    ref = cmaes.CMA(mean=np.zeros(d), sigma=1.0, population_size=lam)
    p = strategy_params(d, lam)
    got = (p.mu, p.mu_eff, p.c_1, p.c_mu, p.c_c, p.c_sigma, p.d_sigma, p.chi_n)
    want = (ref._mu, ref._mu_eff, ref._c1, ref._cmu, ref._cc, ref._c_sigma, ref._d_sigma, ref._chi_n)
    assert np.allclose(got, want, rtol=1e-12), (got, want)
    assert np.allclose(p.weights, ref._weights, rtol=1e-12)
    assert np.isclose(p.weights[: p.mu].sum(), 1.0)


def test_one_generation_updates_as_the_reference_implementation() -> None:
    cmaes = pytest.importorskip("cmaes", reason="the cmaes package is the reference implementation")
    d, lam = 4, 8
    mean, sigma = np.full(d, 0.5), 0.2
    ref = cmaes.CMA(mean=mean.copy(), sigma=sigma, population_size=lam)
    rng = np.random.default_rng(3)
    X = mean + sigma * rng.standard_normal((lam, d)) * 0.5  # short steps: no clipping on either side
    f = rng.random(lam)
    ref.tell(list(zip(X, f)))
    state = update(initial_state(strategy_params(d, lam), mean, sigma), X, f)
    assert np.allclose(state.m, ref._mean)
    assert np.isclose(state.sigma, ref._sigma)
    assert np.allclose(state.C, ref._C, atol=1e-12)
    assert np.allclose(state.p_c, ref._pc) and np.allclose(state.p_s, ref._p_sigma)


def test_draws_stay_in_the_cube() -> None:
    state = initial_state(strategy_params(3, 7), np.array([0.0, 1.0, 0.5]), 2.0)
    rng = np.random.default_rng(0)
    points = np.array([draw(state, rng) for _ in range(200)])
    assert points.min() >= 0.0 and points.max() <= 1.0
    assert np.allclose(mirror(np.array([-0.25, 1.25, 2.5, 0.3])), [0.25, 0.75, 0.5, 0.3])


def test_it_converges_on_a_rotated_ill_conditioned_quadratic() -> None:
    d = 5
    q, _ = np.linalg.qr(np.random.default_rng(1).standard_normal((d, d)))
    scales = 10.0 ** np.arange(d)

    def ellipsoid(config: dict) -> float:
        z = q @ (np.array([config[f"x{i}"] for i in range(d)]) - 1.0)
        return float(scales @ z**2)

    complete = _run(CMAES(), _sphere_space(d), ellipsoid, 1200)
    assert min(o.loss for o in complete) < 1e-6


def _mixed(c: dict) -> float:
    return (c["x"] - 1) ** 2 + (c["n"] - 7) ** 2 / 10 + (c["c"] == "b") + abs(np.log10(c["lr"]) + 2)


def test_a_fresh_optimizer_replays_to_the_same_suggestion() -> None:
    space = {"x": Real(-5, 5), "n": Int(1, 20), "c": Choice("a", "b"), "lr": Real(1e-4, 1, log=True)}
    cached = CMAES()
    complete = _run(cached, space, _mixed, 90)
    for k in (0, 7, 30, 31, 64, 90):
        history = History(complete=tuple(complete[:k]), pending=tuple(o.config for o in complete[k : k + 2]))
        first = cached.suggest(space, history, 2, np.random.default_rng([5, k]))
        assert first == CMAES().suggest(space, history, 2, np.random.default_rng([5, k])), k


def test_a_resumed_study_suggests_what_an_uninterrupted_one_did(tmp_path: Path) -> None:
    space = {**_sphere_space(3), "k": Join(a={"u": Real(0, 1)}, b={})}
    straight = tf.Study.create(space=space, algo="cmaes", seed=2)
    objective = lambda c: _sphere({k: v for k, v in c.items() if k.startswith("x")}) + c.get("k.a.u", 0.5)  # noqa: E731
    straight.optimize(objective, n_trials=50)
    db = tmp_path / "c.db"
    tf.Study.create("c", space=space, algo="cmaes", seed=2, storage=db).optimize(objective, n_trials=23)
    tf.Study.load("c", space=space, storage=db).optimize(objective, n_trials=50)
    resumed = tf.Study.load("c", space=space, storage=db)
    assert [dict(t.params) for t in resumed.trials] == [dict(t.params) for t in straight.trials]


def test_a_flat_run_restarts_with_a_doubled_population_and_replay_agrees() -> None:
    space = _sphere_space(4)
    plateau = lambda c: 1.0  # noqa: E731
    optimizer = CMAES()
    complete = _run(optimizer, space, plateau, 120)
    fresh = CMAES()
    state = fresh.replay(space, list(space.items()), complete, seed=_seed(0))
    assert state.run >= 1 and state.params.lam == 8 * 2**state.doublings
    assert state.doublings == state.run
    cached = optimizer.replay(space, list(space.items()), complete, seed=_seed(0))
    assert (cached.run, cached.params.lam, cached.generation) == (
        state.run,
        state.params.lam,
        state.generation,
    )


def _seed(study_seed: int) -> int:
    from treefarm.optimizers.seeds import design_seed

    return design_seed(np.random.default_rng([study_seed, 0]), "cmaes")


def test_bipop_alternates_small_and_large_runs() -> None:
    space = _sphere_space(4)
    plateau = lambda c: 1.0  # noqa: E731
    optimizer = CMAES(restarts="bipop")
    complete = _run(optimizer, space, plateau, 300)
    state = optimizer.replay(space, list(space.items()), complete, seed=_seed(0))
    assert state.run >= 2 and state.spent[0] > 0 and state.spent[1] > 0


def test_failed_trials_are_left_out_of_the_generations() -> None:
    space = _sphere_space(2)
    complete = _run(CMAES(), space, _sphere, 12)
    with_failures = History(complete=tuple(complete), failed=tuple(o.config for o in complete[:3]))
    rng = lambda: np.random.default_rng(9)  # noqa: E731
    assert CMAES().suggest(space, with_failures, 1, rng()) == CMAES().suggest(
        space, History(complete=tuple(complete)), 1, rng()
    )


def test_choices_follow_the_better_half() -> None:
    space = {"x": Real(0, 1), "c": Choice("good", "bad")}
    complete = [
        Observation(tf.Config({"x": 0.5, "c": c}), loss)
        for c, loss in [("good", 0.0)] * 10 + [("bad", 1.0)] * 10
    ]
    configs = CMAES().suggest(space, History(complete=tuple(complete)), 200, np.random.default_rng(0))
    share = sum(c["c"] == "good" for c in configs) / 200
    assert 0.85 < share < 0.98  # weights 1 + 10 against 1 + 0


def test_options_are_checked_naming_them() -> None:
    with pytest.raises(ConfigError, match="population=1"):
        CMAES(population=1)
    with pytest.raises(ConfigError, match="restarts='never'"):
        CMAES(restarts="never")
    with pytest.raises(ConfigError, match="sigma0"):
        CMAES(sigma0=0)


def test_mean0_is_where_the_first_generation_is_drawn_around() -> None:
    space = _sphere_space(3)
    start = (0.9, 0.1, 0.5)
    points = CMAES(sigma0=0.01, mean0=start).suggest(space, History(), 6, np.random.default_rng(0))
    for point in points:
        u = np.array([(point[f"x{i}"] + 5) / 10 for i in range(3)])
        assert np.abs(u - start).max() < 0.1, point


@pytest.mark.parametrize(
    ("mean0", "message"),
    [((0.5, 1.5, 0.5), r"^mean0\[1\] must lie in \[0, 1\], but got mean0\[1\]=1.5$"),
     ((0.5, 0.5), r"^mean0 must have one coordinate per number of the space \(3\), but got mean0=\[0.5, 0.5\]$")],
)
def test_a_bad_mean0_is_named(mean0: tuple[float, ...], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        CMAES(mean0=mean0).suggest(_sphere_space(3), History(), 1, np.random.default_rng(0))
