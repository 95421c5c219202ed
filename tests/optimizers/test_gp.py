"""The GP optimizer: the contract, finding optima, batches, no repeats, clear errors."""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable

import numpy as np
import pytest

from treefarm import Choice, Config, History, Int, Join, Observation, Optimizer, Real, Study, Var, op, sample
from treefarm.bo.loop import STALL_DISTANCE, collapsed
from treefarm.bo.refits import REFIT_ALL, refit_point
from treefarm.exceptions import ConfigError
from treefarm.optimizers.base import variant
from treefarm.optimizers.gp import (
    _ACQUISITIONS,
    GP,
    evaluations_since_improvement,
    explores,
    startup_size,
)
from treefarm.space import convert
from treefarm.testing.optimizer_suite import OptimizerSuite


class TestGPConformance(OptimizerSuite):
    """Every acquisition through the contract (the optimizer is the same; the acquisition
    decides which candidates win, so each must keep batches distinct and avoid seen points)."""

    @pytest.fixture(params=sorted(_ACQUISITIONS))
    def optimizer_factory(self, request: pytest.FixtureRequest) -> Callable[[], Optimizer]:
        return lambda: GP(acquisition=request.param, n_candidates=64, n_local=32, n_starts=2)


def branin(v: dict[str, float]) -> float:
    x, y = v["x"], v["y"]
    b, c, t = 5.1 / (4 * math.pi**2), 5 / math.pi, 1 / (8 * math.pi)
    return (y - b * x**2 + c * x - 6) ** 2 + 10 * (1 - t) * math.cos(x) + 10


BRANIN = {"x": Real(-5, 10), "y": Real(0, 15)}
BRANIN_MIN = 0.397887


def _best(algo: object, seed: int, n: int = 30) -> float:
    study = Study.create(space=BRANIN, algo=algo, seed=seed)  # type: ignore[arg-type]
    study.optimize(branin, n_trials=n)
    return study.best_value


def test_gp_beats_random_search_on_branin() -> None:
    gp = [_best(GP(), s) - BRANIN_MIN for s in range(3)]
    rnd = [_best("random", s) - BRANIN_MIN for s in range(3)]
    assert np.median(gp) < 0.1
    assert np.median(gp) < np.median(rnd) / 5


def test_gp_tunes_integers_and_choices() -> None:
    space = {"n": Int(0, 20), "k": Choice("a", "b", "c"), "x": Real(-2, 2)}

    def f(v: dict) -> float:
        return (v["n"] - 13) ** 2 + (0 if v["k"] == "b" else 5) + (v["x"] - 0.7) ** 2

    study = Study.create(space=space, algo=GP(), seed=0)
    study.optimize(f, n_trials=35)
    assert study.best_params["n"] == 13 and study.best_params["k"] == "b"
    assert study.best_value < 0.1


def test_gp_on_a_conditional_space_finds_the_good_branch() -> None:
    space = {
        "model": Join(
            a={"u": Real(0, 1)},
            b={"v": Real(0, 1), "w": Int(1, 5)},
        )
    }

    def f(value: dict) -> float:
        m = value["model"]
        return 1.0 + (m["u"] - 0.3) ** 2 if "u" in m else (m["v"] - 0.7) ** 2 + 0.1 * (m["w"] - 2) ** 2

    study = Study.create(space=space, algo=GP(), seed=1)
    study.optimize(f, n_trials=35)
    assert study.best_value < 0.01


def test_gp_runs_on_a_grammar() -> None:
    add = op(operator.add, name="add", commutative=True, associative=True)
    mul = op(operator.mul, name="mul", commutative=True, associative=True)
    G = Var("G", max_depth=4)
    G.define(add(G, G) | mul(G, G) | Int(1, 9))
    study = Study.create(space=G, algo=GP(n_startup=8, n_candidates=64, n_local=64, n_starts=2), seed=0)
    study.optimize(lambda v: abs(v - 100), n_trials=25)
    assert len(study.trials) == 25 and study.best_value <= 10
    canonical = [t.system_attrs["canonical"] for t in study.trials]
    assert len(set(canonical)) == 25  # equal expressions are never evaluated twice


def test_pending_points_are_avoided_and_batches_are_diverse() -> None:
    rng = np.random.default_rng(0)
    configs = sample(BRANIN, rng, n=12)  # type: ignore[arg-type]
    history = History(complete=tuple(Observation(c, branin(dict(c))) for c in configs))
    batch = GP().suggest(BRANIN, history, 4, np.random.default_rng(1))  # type: ignore[arg-type]
    assert len(set(batch)) == 4
    points = np.array([[c["x"], c["y"]] for c in batch])
    gaps = [np.linalg.norm(points[i] - points[j]) for i in range(4) for j in range(i)]
    assert min(gaps) > 1e-3
    again = GP().suggest(
        BRANIN, History(complete=history.complete, pending=tuple(batch[:1])), 1, np.random.default_rng(1)
    )  # type: ignore[arg-type]
    assert again[0] != batch[0]


def test_a_finite_space_is_never_repeated_until_exhausted() -> None:
    space = {"a": Int(0, 3), "b": Choice("x", "y")}
    study = Study.create(space=space, algo=GP(n_startup=3), seed=0)
    study.optimize(lambda v: (v["a"] - 2) ** 2 + (v["b"] == "x"), n_trials=8)
    configs = {tuple(sorted(t.params.items())) for t in study.trials}
    assert len(configs) == 8


def test_startup_design_spreads_out() -> None:
    space = {"x": Real(0, 1), "y": Real(0, 1)}
    study = Study.create(space=space, algo=GP(n_startup=6), seed=3)
    study.optimize(lambda v: v["x"], n_trials=6)
    pts = np.array([[t.params["x"], t.params["y"]] for t in study.trials])
    gaps = [np.linalg.norm(pts[i] - pts[j]) for i in range(6) for j in range(i)]
    assert min(gaps) > 0.1


def test_startup_size_scales_with_dimension() -> None:
    assert startup_size(2) == 5 and startup_size(10) == 11 and startup_size(100) == 20


@pytest.mark.parametrize("acquisition", ["ei", "logei", "pi", "logpi", "ucb", "ts", "mes"])
def test_every_acquisition_runs_and_improves(acquisition: str) -> None:
    """Median over 3 seeds at 20 evaluations; random search's is about 1.1 there.
    GP-UCB's schedule explores on purpose (about 1.5 here), so it only has to
    stay within the bound the others beat by far."""
    gaps = [
        _best(GP(acquisition=acquisition, n_candidates=128, n_local=64), s, n=20) - BRANIN_MIN
        for s in range(3)
    ]
    assert np.median(gaps) < (2.0 if acquisition == "ucb" else 0.3)


def test_refit_points_follow_the_history_at_a_tenth_of_its_size() -> None:
    points = [refit_point(n) for n in range(1, 3000)]
    assert points[:REFIT_ALL] == list(range(1, REFIT_ALL + 1))
    assert all(a <= b for a, b in itertools.pairwise(points))
    assert all(n - 1 - n // 10 <= p <= n for n, p in enumerate(points, 1))


def test_a_fresh_optimizer_suggests_what_a_cached_one_does() -> None:
    """The cache of fits never changes a suggestion: a process that resumes a
    study (empty cache) continues exactly as the one that ran it would have."""
    study = Study.create(space=BRANIN, algo=GP(n_candidates=64, n_local=32), seed=3)
    study.optimize(branin, n_trials=27)
    history = History(complete=tuple(Observation(Config(t.params), t.value) for t in study.trials))  # type: ignore[arg-type]
    warm = GP(n_candidates=64, n_local=32)
    for n in (24, 25, 26, 27):  # refit points 24 and 26: the warm optimizer reuses them at 25 and 27
        part = History(complete=history.complete[:n])
        first = warm.suggest(BRANIN, part, 1, np.random.default_rng(n))
        assert GP(n_candidates=64, n_local=32).suggest(BRANIN, part, 1, np.random.default_rng(n)) == first
        assert warm.suggest(BRANIN, part, 1, np.random.default_rng(n)) == first
    wider = {"x": Real(-5, 20), "y": Real(0, 15)}  # the same trials, encoded otherwise
    part = History(complete=history.complete[:25])
    fresh = GP(n_candidates=64, n_local=32).suggest(wider, part, 1, np.random.default_rng(0))
    assert warm.suggest(wider, part, 1, np.random.default_rng(0)) == fresh


def test_same_seed_same_study() -> None:
    a = Study.create(space=BRANIN, algo="gp", seed=5)
    b = Study.create(space=BRANIN, algo="gp", seed=5)
    a.optimize(branin, n_trials=14)
    b.optimize(branin, n_trials=14)
    assert [t.params for t in a.trials] == [t.params for t in b.trials]


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"acquisition": "foo"}, "acquisition"),
        ({"kernel": "linear"}, "kernel"),
        ({"n_startup": 0}, "n_startup"),
        ({"deterministic": "false"}, "deterministic"),
        ({"heteroscedastic": 1}, "heteroscedastic"),
        ({"objectives": "ehvi3"}, "objectives='ehvi3'"),
    ],
)
def test_bad_options_name_the_parameter(options: dict, name: str) -> None:
    with pytest.raises(ConfigError, match=name):
        GP(**options)


@pytest.mark.parametrize(
    ("tuned", "name"),
    [
        ({"output": "log"}, "output='log'"),
        ({"explore_every": 0}, "explore_every=0"),
        ({"explore_stalls": "no"}, "explore_stalls='no'"),
        ({"hint_prior": "loud"}, "hint_prior='loud'"),
        ({"prior_beta": -1.0}, "prior_beta=-1.0"),
        ({"hint_draws": 1}, "hint_draws=1"),
        ({"ehvi_exact": 4}, "ehvi_exact=4"),
        ({"kernel_name": "rbf"}, "kernel_name='rbf'"),
    ],
)
def test_bad_tuned_settings_name_the_setting(tuned: dict, name: str) -> None:
    with pytest.raises(ConfigError, match=name):
        variant(GP, tuned)


def test_posterior_slice_follows_one_parameter() -> None:
    rng = np.random.default_rng(0)
    configs = sample(BRANIN, rng, n=15)  # type: ignore[arg-type]
    history = History(complete=tuple(Observation(c, branin(dict(c))) for c in configs))
    values, mean, std = GP().posterior_slice(BRANIN, history, "y", configs[0], n_grid=20)  # type: ignore[arg-type]
    assert values[0] == 0 and values[-1] == 15 and mean.shape == std.shape == (20,) and (std > 0).all()
    # through the observed point itself
    # the posterior's uncertainty dips there: the slice is the model's, along y only
    at = int(np.argmin(np.abs(values - configs[0]["y"])))
    assert 3 <= at <= 16 and min(std[at - 1 : at + 2]) < min(std[at - 3], std[at + 3])
    assert np.ptp(mean) > 0
    _, mean_x, _ = GP().posterior_slice(BRANIN, history, "x", configs[0], n_grid=20)  # type: ignore[arg-type]
    assert not np.allclose(mean_x, mean)
    with pytest.raises(ConfigError, match="address"):
        GP().posterior_slice(BRANIN, history, "nope", configs[0])  # type: ignore[arg-type]


def test_noisy_objective_recommends_the_best_posterior_mean() -> None:
    rng = np.random.default_rng(1)
    configs = sample({"x": Real(0, 1)}, rng, n=30)  # type: ignore[arg-type]
    noisy = tuple(
        Observation(c, 4 * (c["x"] - 0.5) ** 2 + 0.1 * float(rng.standard_normal())) for c in configs
    )
    recommended = GP().recommend({"x": Real(0, 1)}, History(complete=noisy))  # type: ignore[arg-type]
    assert recommended is not None and abs(recommended["x"] - 0.5) < 0.2
    exact = tuple(Observation(c, (c["x"] - 0.5) ** 2) for c in configs)
    assert GP(deterministic=True).recommend({"x": Real(0, 1)}, History(complete=exact)) is None  # type: ignore[arg-type]


def test_evaluations_since_improvement_ignores_negligible_gains() -> None:
    assert evaluations_since_improvement(np.array([5.0, 4.0, 3.0, 3.5, 3.0])) == 2
    # 3 -> 2.9999999 is below 1e-3 of the range (2): not an improvement
    assert evaluations_since_improvement(np.array([5.0, 4.0, 3.0, 3.0, 2.9999999])) == 2
    assert evaluations_since_improvement(np.array([1.0])) == 0


def test_an_improvement_is_measured_on_the_models_scale() -> None:
    """One diverged evaluation (1e7) does not make every later improvement
    negligible: 40 -> 5 counts, though it is far below 1e-3 of the raw range."""
    losses = np.array([1e7, 300.0, 80.0, 40.0, 41.0, 45.0, 5.0, 5.5, 6.0])
    assert evaluations_since_improvement(losses) == 2


def test_a_stall_needs_both_no_improvement_and_a_proposal_on_an_evaluated_point() -> None:
    """The GP explores when ``explores`` of the evaluations since the last
    improvement and ``collapsed`` of its proposal both hold."""
    X = np.array([[0.2, 0.5], [0.8, 0.1]])
    flat = np.array([0.0] + [1.0] * 10)
    improving = np.linspace(1.0, 0.0, 11)
    near, far = np.array([0.2 + STALL_DISTANCE / 2, 0.5]), np.array([0.5, 0.5])
    assert explores(evaluations_since_improvement(flat)) and collapsed(near, X)
    assert not collapsed(far, X)
    assert not explores(evaluations_since_improvement(improving))


def _clustered(n_cluster: int) -> tuple[list[float], History]:
    """Eleven spread evaluations of (x - 0.2)^2 (the third, x = 0.2, exact),
    then ``n_cluster`` around it, none better: stalled for 8 + n_cluster."""
    xs = [*np.linspace(0, 1, 11), *(0.2 + np.linspace(-2e-3, 2e-3, n_cluster))]
    return xs, History(complete=tuple(Observation(Config({"x": float(x)}), float((x - 0.2) ** 2)) for x in xs))


def _gaps(gp: GP, xs: list[float], history: History) -> list[float]:
    """Distances of three seeded suggestions to the nearest evaluated point."""
    proposals = [gp.suggest({"x": Real(0, 1)}, history, 1, np.random.default_rng(s))[0]["x"] for s in range(3)]
    return [min(abs(float(p) - x) for x in xs) for p in proposals]  # type: ignore[arg-type]


def test_a_stalled_gp_explores_away_from_every_evaluated_point() -> None:
    """Stalled for 20 evaluations on a cluster around the best point:
    log-EI's maximizer sits on the cluster; with the stall rule (exploring on
    every stalled suggestion) the suggestion is a Thompson draw kept away from
    every evaluated point."""
    xs, history = _clustered(12)

    def gp(explore: bool) -> GP:
        return variant(GP, {"explore_stalls": explore, "explore_every": 1}, n_candidates=128, n_local=64, n_starts=2)

    assert max(_gaps(gp(False), xs, history)) < STALL_DISTANCE
    assert min(_gaps(gp(True), xs, history)) >= STALL_DISTANCE


def test_a_stalled_gp_explores_on_one_suggestion_in_three_and_refines_in_between() -> None:
    assert [explores(s) for s in range(9, 17)] == [False, True, False, False, True, False, False, True]
    assert [explores(s, 1) for s in range(9, 12)] == [False, True, True]
    gp = GP(n_candidates=128, n_local=64, n_starts=2)
    xs, history = _clustered(11)  # stalled for 19: explores
    assert min(_gaps(gp, xs, history)) >= STALL_DISTANCE
    xs, history = _clustered(12)  # stalled for 20: refines the incumbent
    assert max(_gaps(gp, xs, history)) < STALL_DISTANCE
    with pytest.raises(ConfigError, match="explore_every=0"):
        variant(GP, {"explore_every": 0})


BRANCHED = {"x": Real(0, 1), "b": Join(a={}, c={"m": Real(0, 1)})}


def _branched(n_cluster: int, extra: tuple[Observation, ...] = ()) -> History:
    """:func:`_clustered` on branch ``c`` of a join (its own ``m`` irrelevant), and
    branch ``a`` tried three times, far from the incumbent's ``x`` and worse than
    ``c`` there by 0.3: the model believes ``a`` worse everywhere, though no trial
    tells how ``a`` does at the incumbent's ``x``."""
    _, history = _clustered(n_cluster)
    ms = np.random.default_rng(0).uniform(size=len(history.complete))
    on_c = tuple(
        Observation(Config({"x": o.config["x"], "b": "c", "b.c.m": float(m)}), o.loss)
        for o, m in zip(history.complete, ms)
    )
    on_a = tuple(Observation(Config({"x": x, "b": "a"}), (x - 0.2) ** 2 + 0.3) for x in (0.9, 0.6, 0.45))
    return History(complete=(*on_c[:5], *on_a, *on_c[5:], *extra))


def test_a_stalled_gp_first_tries_the_incumbent_on_the_other_branch() -> None:
    """Stalled on branch c, the exploring suggestion is the incumbent's x on branch
    a, not a Thompson draw; once that swap is evaluated the next explore is one."""
    gp = variant(GP, {"explore_every": 1}, n_candidates=128, n_local=64, n_starts=2)
    history = _branched(12)
    incumbent = min(history.complete, key=lambda o: o.loss).config
    for seed in range(3):
        locked = variant(GP, {"explore_stalls": False}, n_candidates=128, n_local=64, n_starts=2)
        assert locked.suggest(BRANCHED, history, 1, np.random.default_rng(seed))[0]["b"] == "c"
        assert gp.suggest(BRANCHED, history, 1, np.random.default_rng(seed))[0] == Config(
            {"x": incumbent["x"], "b": "a"}
        )
    tried = _branched(12, (Observation(Config({"x": incumbent["x"], "b": "a"}), 0.3),))
    suggestion = gp.suggest(BRANCHED, tried, 1, np.random.default_rng(0))[0]
    assert min(abs(float(suggestion["x"]) - float(o.config["x"])) for o in tried.complete) >= STALL_DISTANCE


def test_a_pending_trial_counts_as_a_suggestion_made_while_stalled() -> None:
    """Two workers at one stalled history do not both explore: the second
    sees the first's trial pending, one suggestion later in the schedule."""
    gp = GP(n_candidates=128, n_local=64, n_starts=2)
    xs, history = _clustered(11)  # stalled for 19: explores
    busy = History(complete=history.complete, pending=(Config({"x": 0.9}),))
    assert max(_gaps(gp, [*xs, 0.9], busy)) < STALL_DISTANCE
    xs, history = _clustered(10)  # stalled for 18: refines, but with one pending, 19: explores
    busy = History(complete=history.complete, pending=(Config({"x": 0.9}),))
    assert max(_gaps(gp, xs, history)) < STALL_DISTANCE
    assert min(_gaps(gp, [*xs, 0.9], busy)) >= STALL_DISTANCE


def _quadratic_with_a_lucky_trial(lucky_variance: float) -> History:
    """Ten exact losses of (x - 0.7)^2, and at x = 0.15 one far better loss whose
    own variance says it is a mean over folds that disagree wildly."""
    exact = [Observation(Config({"x": float(x)}), float((x - 0.7) ** 2)) for x in np.linspace(0.02, 0.98, 10)]
    return History(complete=(*exact, Observation(Config({"x": 0.15}), -0.3, lucky_variance)))


def test_an_imprecise_lucky_trial_does_not_pull_the_gp() -> None:
    space = {"x": Real(0, 1)}
    history = _quadratic_with_a_lucky_trial(1.0)
    weighed = GP().suggest(space, history, 1, np.random.default_rng(0))[0]  # type: ignore[arg-type]
    ignored = GP(heteroscedastic=False).suggest(space, history, 1, np.random.default_rng(0))[0]  # type: ignore[arg-type]
    assert abs(weighed["x"] - 0.7) < 0.05
    assert abs(ignored["x"] - 0.7) > 0.1  # the same losses, taken at face value, mislead it
    # the recommendation is the best precise trial, not the lucky imprecise one
    recommended = GP().recommend(space, history)  # type: ignore[arg-type]
    assert recommended is not None and recommended["x"] == pytest.approx(0.66)


def test_without_loss_variances_the_gp_suggests_exactly_as_the_homoscedastic_one() -> None:
    """No trial has folds (every loss_variance 0): the option changes nothing, to the bit."""
    rng = np.random.default_rng(0)
    configs = sample(BRANIN, rng, n=12)  # type: ignore[arg-type]
    history = History(complete=tuple(Observation(c, branin(dict(c))) for c in configs))
    for n in (1, 3):
        on = GP().suggest(BRANIN, history, n, np.random.default_rng(n))  # type: ignore[arg-type]
        off = GP(heteroscedastic=False).suggest(BRANIN, history, n, np.random.default_rng(n))  # type: ignore[arg-type]
        assert on == off
    assert GP().recommend(BRANIN, history) == GP(heteroscedastic=False).recommend(BRANIN, history)  # type: ignore[arg-type]


def _same_config(a: Config, b: Config) -> bool:
    """The same tree, numbers equal to L-BFGS-B's precision (rounding-level
    differences in the acquisition move where it stops by ~1e-6)."""
    return a.keys() == b.keys() and all(
        a[k] == pytest.approx(b[k], rel=1e-4, abs=1e-6) if isinstance(a[k], float) else a[k] == b[k] for k in a
    )


def _grammar_with_numbers() -> Var:
    add = op(operator.add, name="add")
    mul = op(operator.mul, name="mul")
    G = Var("G", max_depth=4)
    G.define(add(G, G) | mul(G, G) | Real(-2.0, 2.0) | Choice(0.7, -1.3))
    return G


def _small_gp() -> GP:
    return GP(n_startup=8, n_candidates=64, n_local=32, n_starts=3)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_on_a_grammar_candidates_score_on_narrowed_columns_as_on_all_of_them(seed: int) -> None:
    """The columns of addresses only candidates use are one column per candidate
    (treefarm.encoding.trees): every acquisition value, pending points included, is the same."""
    from treefarm.bo.acquisition import make_acquisition
    from treefarm.bo.models.gp import Matern52, gp_with_params
    from treefarm.bo.views import Scene, TreeView
    from treefarm.encoding import TreeColumns

    G = _grammar_with_numbers()
    study = Study.create(space=G, algo=_small_gp(), seed=seed)
    study.optimize(lambda v: abs(v - 1.234), n_trials=14)
    configs = [o.config for o in study.history().complete]
    losses = np.array([o.loss for o in study.history().complete])
    gp, rng = _small_gp(), np.random.default_rng(seed)
    parts = gp.parts(G, recursive=True)
    candidates, n_cover = parts.candidates.draw(parts.encoding, configs, losses, (), rng)
    trees = TreeColumns(G, [*configs, *candidates])
    fitted = parts.refitter.fitted(configs, losses, None, trees.encoding(configs))
    view = TreeView(
        trees,
        configs,
        candidates[:1],
        candidates,
        n_cover,
        lambda X, domain: gp_with_params(X, losses, domain, *fitted, kernel=Matern52(ard=False)),
    )

    def log_ei(scene: Scene) -> np.ndarray:
        acq = make_acquisition("logei", scene.model, best=scene.best, n_observed=len(losses), rng=rng)
        return acq(scene.Xc, grad=False)[0]

    narrow, full = view.scene(), view.scene(candidates)
    assert narrow.Xc.shape[1] < full.Xc.shape[1] and np.all(full.Xc[:, -1] == 0.0)
    np.testing.assert_allclose(log_ei(narrow), log_ei(full), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("deterministic", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_on_a_grammar_the_narrowed_columns_suggest_what_the_full_encoding_does(
    seed: int, deterministic: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The batch beside pending trials, numbers tuned by the acquisition
    optimizer, is the full encoding's (the incumbent is the observations'
    and pending points', not the batch's believed values)."""
    import treefarm.optimizers.gp as gp_module

    G = _grammar_with_numbers()
    study = Study.create(space=G, algo=_small_gp(), seed=seed)
    study.optimize(lambda v: abs(v - 1.234), n_trials=16)
    complete = study.history().complete
    history = History(complete=complete[:14], pending=tuple(o.config for o in complete[14:]))

    def gp() -> GP:
        return GP(n_startup=8, n_candidates=64, n_local=32, n_starts=3, deterministic=deterministic)

    narrowed = gp().suggest(G, history, 3, np.random.default_rng(seed))
    monkeypatch.setattr(gp_module, "NARROWABLE", frozenset())
    full = gp().suggest(G, history, 3, np.random.default_rng(seed))
    assert all(_same_config(a, b) for a, b in zip(narrowed, full)), (narrowed, full)


def _choice_plan(v: dict) -> float:
    """Eight three-way choices: each option has its own cost, and equal neighbours a discount."""
    plan = [v[f"s{i}"] for i in range(8)]
    cost = {"a": 1.0, "b": 0.4, "c": 0.7}
    return sum(cost[p] for p in plan) - 0.25 * sum(p == q == "c" for p, q in itertools.pairwise(plan))


def test_gp_with_a_length_scale_per_choice_finds_the_optimum_of_a_space_of_choices() -> None:
    space = {f"s{i}": Choice("a", "b", "c") for i in range(8)}
    best = min(_choice_plan(dict(zip(space, p))) for p in itertools.product("abc", repeat=8))
    study = Study.create(space=space, algo=GP(choice_scales="decision"), seed=0)
    study.optimize(_choice_plan, n_trials=45)
    assert study.best_value == pytest.approx(best)


def test_gp_with_a_length_scale_per_choice_is_reproducible() -> None:
    space = {f"s{i}": Choice("a", "b", "c") for i in range(8)}
    runs = []
    for _ in range(2):
        study = Study.create(space=space, algo=GP(choice_scales="decision"), seed=3)
        study.optimize(_choice_plan, n_trials=15)
        runs.append([t.params for t in study.trials])
    assert runs[0] == runs[1]


def test_an_unknown_choice_scale_is_named() -> None:
    with pytest.raises(ConfigError, match=r"choice_scales must be one of .* but got choice_scales='per'"):
        GP(choice_scales="per")


def test_a_gp_stored_before_choice_scales_reopens_with_a_scale_per_option() -> None:
    """A spec stored before the option (alone or as auto's GP) rebuilds as it ran, not as ``auto`` now builds it."""
    from treefarm import Auto
    from treefarm.optimizers.registry import from_spec, spec_of

    spec = spec_of(GP(choice_scales="decision"))
    del spec["options"]["choice_scales"]
    assert from_spec(spec).choice_scales == "option"
    auto = spec_of(Auto())
    assert auto["options"]["gp"]["optimizer"]["options"]["choice_scales"] == "auto"
    del auto["options"]["gp"]["optimizer"]["options"]["choice_scales"]
    assert from_spec(auto).gp.choice_scales == "option"


def test_a_two_option_choice_can_count_its_scale_in_other_units() -> None:
    """With one scale per choice, ``two_option_scale`` is the unit of a two-option choice's
    scale, a choice among more keeping 1; by default every unit is 1 (no units at all)."""
    from treefarm.encoding import UnitEncoding

    space = {"flag": Choice(True, False), "mode": Choice("a", "b", "c")}
    encoding = UnitEncoding(convert(space))
    stretched = variant(GP, {"two_option_scale": 2.0}, choice_scales="auto")._kernel(encoding)
    np.testing.assert_array_equal(stretched.units, [2.0, 1.0])  # type: ignore[attr-defined]
    assert GP(choice_scales="auto")._kernel(encoding).units is None
    mixed = UnitEncoding(convert({"x": Real(0, 1), "flag": Choice(True, False)}))
    assert variant(GP, {"two_option_scale": 2.0}, choice_scales="auto")._kernel(mixed).tied is None


def test_a_bad_two_option_scale_is_named() -> None:
    for bad in (0.0, -1.0, "2", True):
        with pytest.raises(ConfigError, match=r"two_option_scale must be a finite number > 0, but got two_option_scale="):
            variant(GP, {"two_option_scale": bad})
    with pytest.raises(ConfigError, match=r"but got two_option_scale=inf"):
        variant(GP, {"two_option_scale": float("inf")})
