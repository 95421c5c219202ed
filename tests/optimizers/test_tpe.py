"""TPE: the seed's defaults, proposal distributions that match the prescription, tree structure."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from treefarm import Auto, Choice, Config, History, Int, Join, Observation, Optimizer, Real, Study, Var, op
from treefarm.bo.models.parzen import bandwidths
from treefarm.exceptions import ConfigError
from treefarm.optimizers.base import variant
from treefarm.optimizers.registry import from_spec, spec_of
from treefarm.optimizers.tpe import TPE
from treefarm.optimizers.tpe.parzen import Parzen
from treefarm.optimizers.tpe.split import rank_weights, weighted_columns
from treefarm.testing.optimizer_suite import OptimizerSuite


class TestTPEConformance(OptimizerSuite):
    @pytest.fixture
    def optimizer_factory(self) -> Callable[[], Optimizer]:
        return lambda: TPE(n_startup=5)


class TestMultivariateTPEConformance(OptimizerSuite):
    @pytest.fixture
    def optimizer_factory(self) -> Callable[[], Optimizer]:
        return lambda: TPE(n_startup=5, multivariate=True)


def test_hyperopt_is_the_seeds_settings() -> None:
    tpe = TPE.hyperopt()
    assert (tpe.gamma, tpe.n_candidates, tpe.n_startup, tpe.prior_weight) == (0.25, 24, 20, 1.0)
    assert tpe.tuned_settings()["bounds_as_neighbours"] is True and tpe.tuned_settings()["forget"] is None
    assert tpe.n_below(100) == 25
    assert TPE.hyperopt(n_startup=5).n_startup == 5


def test_the_default_differs_from_the_seed_by_forgetting_a_shorter_start_the_bounds_joint_turns_and_ranks() -> None:
    default, seed = spec_of(TPE())["options"], spec_of(TPE.hyperopt())["options"]
    changed = {k for k in default if default[k] != seed[k]}
    assert changed == {"forget", "n_startup", "bounds_as_neighbours", "joint_every", "rank_weights", "always_joint"}
    assert (default["forget"], default["n_startup"], default["bounds_as_neighbours"]) == (25, 10, False)
    assert default["joint_every"] == 4 and seed["joint_every"] is None
    assert default["rank_weights"] == 3.0 and seed["rank_weights"] == 0.0
    assert default["always_joint"] == 5 and seed["always_joint"] == 0


def _sphere_history(n: int, dims: int, seed: int = 0) -> tuple[dict[str, Real], History]:
    rng = np.random.default_rng(seed)
    space = {f"x{i}": Real(-1, 1) for i in range(dims)}
    points = rng.uniform(-1, 1, (n, dims))
    complete = tuple(
        Observation(Config({f"x{i}": float(v) for i, v in enumerate(p)}), float(np.sum(p**2))) for p in points
    )
    return space, History(complete=complete)


def test_every_fourth_suggestion_is_the_joint_views() -> None:
    """With 28 trials recorded, trials 28-30 are product turns and trial 31 the
    fourth: the joint view's (multivariate, good set min(ceil(0.1 n), 25)), draw
    for draw (three numbers, every turn would be joint without ``always_joint=0``)."""
    from treefarm.optimizers.tpe.split import tenth

    space, history = _sphere_history(28, 3)
    joint = variant(TPE, {"joint_every": None}, multivariate=True, gamma=tenth)
    product = variant(TPE, {"joint_every": None})
    for turn in range(4):
        pending = tuple(Config({"x0": 0.1 * i, "x1": 0.0, "x2": 0.0}) for i in range(turn))
        at = History(history.complete, (), pending)
        by_joint = joint.suggest(space, at, 1, np.random.default_rng(7))
        by_product = product.suggest(space, at, 1, np.random.default_rng(7))
        assert by_joint != by_product
        got = variant(TPE, {"always_joint": 0}).suggest(space, at, 1, np.random.default_rng(7))
        assert got == (by_joint if turn == 3 else by_product)
    assert tenth(30) == 3 and tenth(1000) == 25


def test_a_batch_takes_its_joint_turn_at_its_place_reproducibly() -> None:
    space, history = _sphere_history(31, 6)
    batch = TPE().suggest(space, history, 3, np.random.default_rng(3))
    assert batch == TPE().suggest(space, history, 3, np.random.default_rng(3))
    assert len({tuple(c.to_dict().values()) for c in batch}) == 3
    assert batch[0] == TPE(multivariate=True, gamma=lambda n: min(math.ceil(0.1 * n), 25)).suggest(
        space, history, 1, np.random.default_rng(3)
    )[0]


@pytest.mark.parametrize(("dims", "joint"), [(1, False), (2, False), (3, True), (10, True), (11, False)])
def test_joint_turns_need_three_to_ten_always_active_numbers(dims: int, joint: bool) -> None:
    """With one number the joint view would be the product with a smaller good set;
    with two and with more than ten the joint turns measured worse than the product
    (BBOB in 2-d and 20-d, bench/notes/tpe.md)."""
    space, history = _sphere_history(31, dims)
    got = TPE().suggest(space, history, 1, np.random.default_rng(1))
    product = variant(TPE, {"joint_every": None}).suggest(space, history, 1, np.random.default_rng(1))
    assert (got != product) == joint


@pytest.mark.parametrize(("dims", "always"), [(2, False), (3, True), (5, True), (6, False)])
def test_every_turn_is_joint_with_three_to_five_always_active_numbers(dims: int, always: bool) -> None:
    """Up to ``always_joint`` numbers (5), each turn is the multivariate
    estimator's at TPE()'s own gamma, draw for draw; with two there is no joint
    view, and from six on only every fourth turn (mixint 5-d and 10-d, docs/design/tpe.md)."""
    space, history = _sphere_history(28, dims)
    joint = TPE(multivariate=True)
    for turn in range(3):
        at = History(history.complete, (), tuple(Config({f"x{i}": 0.1 * j for i in range(dims)}) for j in range(turn)))
        got = TPE().suggest(space, at, 1, np.random.default_rng(5))
        assert (got == joint.suggest(space, at, 1, np.random.default_rng(5))) == always
        assert (got != variant(TPE, {"always_joint": 0}).suggest(space, at, 1, np.random.default_rng(5))) == always
    off = variant(TPE, {"always_joint": 0, "joint_every": None}).suggest(space, history, 1, np.random.default_rng(5))
    assert off == variant(TPE, {"joint_every": None}).suggest(space, history, 1, np.random.default_rng(5))


def test_a_number_under_a_join_is_no_joint_address() -> None:
    """x0 and x1 are always active, y only under option "a": two always-active
    numbers, too few for joint turns (three if y counted)."""
    space = {"x0": Real(-1, 1), "x1": Real(-1, 1), "c": Join(a={"y": Real(-1, 1)}, b={})}
    rng = np.random.default_rng(0)
    complete = []
    for i, (x0, x1) in enumerate(rng.uniform(-1, 1, (31, 2))):
        config: dict[str, object] = {"x0": float(x0), "x1": float(x1), "c": "b"}
        if i % 2:
            config |= {"c": "a", "c.a.y": float(x0) / 2}
        complete.append(Observation(Config(config), float(x0 * x0 + x1 * x1)))
    history = History(complete=tuple(complete))
    assert TPE().suggest(space, history, 1, np.random.default_rng(1)) == variant(TPE, {"joint_every": None}).suggest(
        space, history, 1, np.random.default_rng(1)
    )
    all_active = {"x0": Real(-1, 1), "x1": Real(-1, 1), "y": Real(-1, 1)}
    flat = History(
        complete=tuple(
            Observation(Config({"x0": o.config["x0"], "x1": o.config["x1"], "y": 0.0}), o.loss) for o in complete
        )
    )
    assert TPE().suggest(all_active, flat, 1, np.random.default_rng(1)) != variant(TPE, {"joint_every": None}).suggest(
        all_active, flat, 1, np.random.default_rng(1)
    )


def _lock_in_run(tpe: TPE, seed: int, n: int = 200) -> tuple[float, int]:
    """The issue's space and loss, direct optimizer calls: (best loss, largest
    count of one option among the draws after start-up)."""
    offset = {"a": 0.6, "b": 0.0, "c": 0.3}
    space = {"x": Real(-5, 5), "y": Int(0, 100), "c": Choice("a", "b", "c")}
    complete: list[Observation] = []
    for t in range(n):
        config = tpe.suggest(space, History(complete=tuple(complete)), 1, np.random.default_rng([seed, t]))[0]  # type: ignore[arg-type]
        x, y, c = config["x"], config["y"], config["c"]
        loss = (x - 1) ** 2 / 10 + ((y - 30) / 30) ** 2 + offset[c]  # type: ignore[operator]
        complete.append(Observation(config, float(loss)))
    drawn = [o.config["c"] for o in complete[tpe.n_startup :]]
    return min(o.loss for o in complete), max(drawn.count(k) for k in "abc")


def test_the_default_does_not_lock_onto_a_wrong_category() -> None:
    """Start-up trials of the best option with poor numbers stay in g without
    forgetting (l/g < 1 for that option), so the seed's settings stay on a
    wrong option in some seeds; the default leaves it in at most 1 of 10."""
    stuck = [_lock_in_run(TPE(), seed)[0] >= 0.3 for seed in range(10)]
    assert sum(stuck) <= 1
    # Two of the three seeds (4, 5, 9) where the seed's settings stay on option "c".
    assert all(_lock_in_run(TPE.hyperopt(), seed) == (pytest.approx(0.3, abs=0.05), 180) for seed in (4, 5))


def test_bandwidth_is_the_distance_to_the_farther_neighbour_bounds_included() -> None:
    np.testing.assert_allclose(bandwidths(np.array([0.5, 0.2, 0.55]), 0.0, 1.0), [0.3, 0.3, 0.45])
    assert bandwidths(np.linspace(0.4, 0.41, 5), 0.0, 1.0).min() == pytest.approx(1 / 6)


def test_without_bounds_as_neighbours_the_edge_points_take_their_inner_neighbour() -> None:
    points = np.linspace(0.3, 0.7, 20)
    clip = 1 / 21
    with_bounds = bandwidths(points, 0.0, 1.0)
    without = bandwidths(points, 0.0, 1.0, bounds_as_neighbours=False)
    np.testing.assert_allclose(with_bounds[[0, -1]], [0.3, 0.3])
    np.testing.assert_allclose(without, clip)
    np.testing.assert_allclose(bandwidths(np.array([0.4]), 0.0, 1.0, bounds_as_neighbours=False), [0.6])
    tpe = variant(TPE, {"bounds_as_neighbours": False})
    tuned = tpe.tuned_settings()
    parzen = Parzen(tpe.n_candidates, tpe.prior_weight, tuned["forget"], tuned["bounds_as_neighbours"])
    est = parzen.numeric(Real(0.0, 1.0), points.tolist())
    np.testing.assert_allclose(est.sigma[1:], clip)


def _history(values: list, losses: list, key: str) -> History:
    return History(complete=tuple(Observation(Config({key: v}), loss) for v, loss in zip(values, losses)))


def _reference_real(good: list[float], bad: list[float], n: int, rng: np.random.Generator) -> np.ndarray:
    """Direct sampling of the seed's prescription on [0, 1]: mixtures of the prior
    N(0.5, 1) and Gaussians at the points, sigma by the neighbour rule, equal weights,
    truncated; 24 draws from l, the largest l/g wins."""

    def mixture(points: list[float]) -> tuple[np.ndarray, np.ndarray]:
        p = np.array(points)
        return np.concatenate([[0.5], p]), np.concatenate([[1.0], bandwidths(p, 0.0, 1.0)])

    def pdf(x: np.ndarray, mu: np.ndarray, sd: np.ndarray) -> np.ndarray:
        a, b = (0 - mu) / sd, (1 - mu) / sd
        return stats.truncnorm.pdf(x[:, None], a, b, loc=mu, scale=sd).mean(1)

    (lm, ls), (gm, gs) = mixture(good), mixture(bad)
    out = np.empty(n)
    for i in range(n):
        k = rng.integers(len(lm), size=24)
        x = stats.truncnorm.rvs(
            (0 - lm[k]) / ls[k], (1 - lm[k]) / ls[k], loc=lm[k], scale=ls[k], random_state=rng
        )
        out[i] = x[np.argmax(pdf(x, lm, ls) / pdf(x, gm, gs))]
    return out


def test_real_proposals_follow_the_prescribed_distribution() -> None:
    good, bad = [0.2, 0.5, 0.55], [0.05, 0.8, 0.9, 0.95, 0.7]
    history = _history(good + bad, [0, 0, 0, 1, 1, 1, 1, 1], "x")
    tpe, space = TPE.hyperopt(n_startup=1, gamma=lambda n: 3), {"x": Real(0, 1)}
    ours = np.array([tpe.suggest(space, history, 1, np.random.default_rng(s))[0]["x"] for s in range(1500)])  # type: ignore[arg-type]
    reference = _reference_real(good, bad, 1500, np.random.default_rng(10_000))
    assert stats.ks_2samp(ours, reference).pvalue > 1e-3


def test_categorical_proposals_follow_the_prescribed_distribution() -> None:
    good, bad = ["a", "a", "b"], ["c", "c", "c", "b", "a"]
    history = _history(good + bad, [0, 0, 0, 1, 1, 1, 1, 1], "k")
    tpe = TPE.hyperopt(n_startup=1, gamma=lambda n: 3)
    space = {"k": Choice("a", "b", "c")}
    ours = [tpe.suggest(space, history, 1, np.random.default_rng(s))[0]["k"] for s in range(3000)]  # type: ignore[arg-type]
    # l ~ N p_i + c_i = 1 + (2, 1, 0); g ~ 1 + (1, 1, 3): best ratio a, then b, then c.
    pl = np.array([3.0, 2.0, 1.0]) / 6
    ratio = pl / (np.array([2.0, 2.0, 4.0]) / 8)
    rng = np.random.default_rng(0)
    draws = rng.choice(3, size=(20_000, 24), p=pl)
    winners = np.take_along_axis(draws, np.argmax(ratio[draws], axis=1)[:, None], axis=1)[:, 0]
    expected = np.bincount(winners, minlength=3) / 20_000
    observed = np.array([ours.count(k) for k in "abc"])
    mask = expected > 0
    if mask.sum() == 1:
        assert observed[mask][0] == len(ours)
    else:
        assert (
            stats.chisquare(observed[mask], expected[mask] / expected[mask].sum() * len(ours)).pvalue > 1e-3
        )


def test_a_candidate_is_a_whole_configuration_scored_by_its_summed_log_ratio() -> None:
    """Two parameters: each of the 24 candidates draws x from l_x and k from l_k,
    and the winner maximizes log l_x/g_x + log l_k/g_k (not each separately)."""
    xs = [0.2, 0.5, 0.55, 0.05, 0.8, 0.9, 0.95, 0.7, 0.35, 0.1]
    ks = ["a", "a", "b", "a", "a", "a", "b", "c", "c", "c"]
    losses = [0, 0, 0, 1, 1, 1, 1, 1, 1, 1]
    history = History(
        complete=tuple(Observation(Config({"x": x, "k": k}), loss) for x, k, loss in zip(xs, ks, losses))
    )
    tpe, space = TPE.hyperopt(n_startup=1, gamma=lambda n: 3), {"x": Real(0, 1), "k": Choice("a", "b", "c")}
    ours = [tpe.suggest(space, history, 1, np.random.default_rng(s))[0] for s in range(1500)]  # type: ignore[arg-type]

    rng = np.random.default_rng(10_000)
    lm, ls = (
        np.array([0.5, 0.2, 0.5, 0.55]),
        np.concatenate([[1.0], bandwidths(np.array([0.2, 0.5, 0.55]), 0, 1)]),
    )
    bad = np.array(xs[3:])
    gm, gs = np.concatenate([[0.5], bad]), np.concatenate([[1.0], bandwidths(bad, 0, 1)])
    # k alone would always be "b" (ratio 5/3 against 5/4 for "a"); with the sum, the winner's x is
    # the best of the candidates that drew "b" (about 8), not of all 24, so x's distribution shifts.
    pl, pg = np.array([3.0, 2.0, 1.0]) / 6, np.array([4.0, 2.0, 4.0]) / 10

    def pdf(x: np.ndarray, mu: np.ndarray, sd: np.ndarray) -> np.ndarray:
        return stats.truncnorm.pdf(x[:, None], -mu / sd, (1 - mu) / sd, loc=mu, scale=sd).mean(1)

    reference_x, reference_k = [], []
    for _ in range(1500):
        c = rng.integers(len(lm), size=24)
        x = stats.truncnorm.rvs(-lm[c] / ls[c], (1 - lm[c]) / ls[c], loc=lm[c], scale=ls[c], random_state=rng)
        k = rng.choice(3, size=24, p=pl)
        best = np.argmax(np.log(pdf(x, lm, ls) / pdf(x, gm, gs)) + np.log(pl[k] / pg[k]))
        reference_x.append(x[best])
        reference_k.append(k[best])
    assert stats.ks_2samp([float(c["x"]) for c in ours], reference_x).pvalue > 1e-3  # type: ignore[arg-type]
    observed = np.array([sum(c["k"] == label for c in ours) for label in "abc"])
    expected = np.bincount(reference_k, minlength=3)
    mask = expected > 0
    assert observed[~mask].sum() == 0
    assert stats.chisquare(observed[mask], expected[mask] / expected[mask].sum() * len(ours)).pvalue > 1e-3


def test_losses_tied_at_the_quantile_go_to_g_so_a_plateau_is_left() -> None:
    """l holds y < y* and g y >= y* (seeds/000). 20 of 40 trials on a plateau in
    [0.4, 0.5], the rest in [0.6, 1] and worse. With distinct plateau losses its best
    10 make l and proposals stay at its edge; when all 20 tie at the best loss, y* is
    that loss, l is left to the prior, and proposals move to the unexplored [0, 0.4)."""
    rng = np.random.default_rng(0)
    plateau, elsewhere = rng.uniform(0.4, 0.5, 20), rng.uniform(0.6, 1.0, 20)

    def median_proposal(plateau_losses: np.ndarray) -> float:
        complete = [Observation(Config({"x": float(x)}), float(y)) for x, y in zip(plateau, plateau_losses)]
        complete += [Observation(Config({"x": float(x)}), 1.0) for x in elsewhere]
        history = History(complete=tuple(complete))
        xs = [
            TPE().suggest({"x": Real(0, 1)}, history, 1, np.random.default_rng(s))[0]["x"] for s in range(100)
        ]  # type: ignore[arg-type]
        return float(np.median(xs))  # type: ignore[arg-type]

    assert median_proposal(np.arange(20) * 1e-9) > 0.25
    assert median_proposal(np.zeros(20)) < 0.15


def test_multivariate_tpe_proposes_when_ties_at_the_best_loss_leave_l_empty() -> None:
    """A plateau of equal best losses larger than the quantile sends every trial
    to g; the joint estimator of ``l`` is then the prior, as the product's is
    (it raised ``KeyError`` on a step function such as BBOB f7)."""
    rng = np.random.default_rng(0)
    space = {"x": Real(0, 1), "y": Real(0, 1)}
    complete = [Observation(Config({"x": float(x), "y": float(y)}), 0.0) for x, y in rng.uniform(0.4, 0.5, (20, 2))]
    complete += [Observation(Config({"x": float(x), "y": float(y)}), 1.0) for x, y in rng.uniform(0.6, 1.0, (20, 2))]
    history = History(complete=tuple(complete))
    xs = [TPE(multivariate=True).suggest(space, history, 1, np.random.default_rng(s))[0]["x"] for s in range(50)]
    assert all(0.0 <= x <= 1.0 for x in xs)  # type: ignore[operator]
    assert np.median(xs) < 0.3  # type: ignore[arg-type]


def test_a_space_without_joins_gets_the_same_proposals_from_its_array_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The one-walk path of a join-free space is only faster: with it switched off
    (every candidate walked), the same history and seeds give the same configs."""
    import treefarm.optimizers.tpe.proposal as proposal_module

    space = {"x": Real(-5, 10), "n": Int(1, 100, log=True), "k": Choice("a", "b", "c")}
    rng = np.random.default_rng(0)
    complete = tuple(
        Observation(Config({"x": float(x), "n": int(n), "k": str(k)}), float(abs(x - 2) + np.log(n)))
        for x, n, k in zip(rng.uniform(-5, 10, 40), rng.integers(1, 101, 40), rng.choice(list("abc"), 40))
    )
    history = History(complete=complete)

    def proposals() -> list[Config]:
        return [TPE().suggest(space, history, 2, np.random.default_rng(s))[1] for s in range(20)]  # type: ignore[arg-type]

    fast = proposals()
    monkeypatch.setattr(proposal_module, "flat_addresses", lambda root: None)
    assert proposals() == fast


def test_conditional_parameters_use_only_trials_where_they_were_active() -> None:
    space = {"m": Join(a={"u": Real(0, 1)}, b={"u": Real(0, 1)})}
    rng = np.random.default_rng(0)
    complete = []
    for i in range(60):
        branch = "a" if i % 2 else "b"
        u = float(rng.random())
        loss = abs(u - 0.9) if branch == "a" else 0.2 + abs(u - 0.1)
        complete.append(Observation(Config({"m": branch, f"m.{branch}.u": u}), loss))
    history = History(complete=tuple(complete))
    proposals = TPE().suggest(space, history, 200, np.random.default_rng(1))  # type: ignore[arg-type]
    a = [float(c["m.a.u"]) for c in proposals if c["m"] == "a"]  # type: ignore[arg-type]
    assert len(a) > 100 and np.median(a) > 0.7
    assert all(("m.a.u" in c) != ("m.b.u" in c) for c in proposals)


def test_tpe_runs_on_a_grammar_and_beats_random_search() -> None:
    add = op(operator.add, name="add", commutative=True, associative=True)
    mul = op(operator.mul, name="mul", commutative=True, associative=True)
    G = Var("G", max_depth=4)
    G.define(add(G, G) | mul(G, G) | Int(1, 9))

    def best(algo: object, seed: int) -> float:
        study = Study.create(space=G, algo=algo, seed=seed)  # type: ignore[arg-type]
        study.optimize(lambda v: abs(v - 97), n_trials=40)
        return study.best_value

    assert np.median([best(TPE(), s) for s in range(3)]) <= np.median([best("random", s) for s in range(3)])


def test_a_position_no_trial_reached_learns_from_the_same_node_elsewhere_in_the_tree() -> None:
    """A chain grammar whose leaf is best near 0.9 at every depth, and deeper is better:
    when TPE first reaches a depth, that leaf address has no observation of its own,
    and its value comes from the leaf's estimators tied over all depths."""
    wrap = op(lambda x: ("wrap", x), name="wrap")
    G = Var("G", max_depth=12)
    G.define(wrap(G) | Real(0, 1))

    def depth_and_leaf(value: object) -> tuple[int, float]:
        depth = 0
        while isinstance(value, tuple):
            value, depth = value[1], depth + 1
        return depth, float(value)  # type: ignore[arg-type]

    first_visits = []
    for seed in range(3):
        tpe = TPE()
        study = Study.create(space=G, algo=tpe, seed=seed)
        reached: set[int] = set()
        for i in range(60):
            trial = study.ask()
            depth, leaf = depth_and_leaf(trial.value)
            if i >= tpe.n_startup and depth not in reached:
                first_visits.append(abs(leaf - 0.9))
            reached.add(depth)
            study.tell(trial, abs(leaf - 0.9) - 0.1 * depth)
    assert len(first_visits) >= 10
    assert np.median(first_visits) < 0.1


def _branin(v: dict) -> float:
    x, y = v["x"], v["y"]
    b, c, t = 5.1 / (4 * math.pi**2), 5 / math.pi, 1 / (8 * math.pi)
    return (y - b * x**2 + c * x - 6) ** 2 + 10 * (1 - t) * math.cos(x) + 10


@pytest.mark.parametrize("multivariate", [False, True])
def test_tpe_beats_random_search_on_branin(multivariate: bool) -> None:
    space = {"x": Real(-5, 10), "y": Real(0, 15)}

    def best(algo: object, seed: int) -> float:
        study = Study.create(space=space, algo=algo, seed=seed)  # type: ignore[arg-type]
        study.optimize(_branin, n_trials=80)
        return study.best_value

    ours = np.median([best(TPE(multivariate=multivariate), s) for s in range(5)])
    assert ours < np.median([best("random", s) for s in range(5)])
    assert ours < 0.5


def test_pending_trials_push_proposals_apart() -> None:
    space = {"x": Real(0, 1)}
    rng = np.random.default_rng(0)
    xs = rng.random(30)
    history = History(complete=tuple(Observation(Config({"x": float(x)}), float(abs(x - 0.5))) for x in xs))

    def spread(constant_liar: bool, seed: int) -> float:
        batch = TPE(constant_liar=constant_liar).suggest(space, history, 6, np.random.default_rng(seed))  # type: ignore[arg-type]
        assert len(set(batch)) == 6
        return float(np.std([c["x"] for c in batch]))  # type: ignore[misc]

    # Without the liar the six draws come from one l/g and crowd the best point
    # (median std 0.009 over these seeds); each pending one pushes the next away (0.058).
    with_liar = np.median([spread(True, s) for s in range(30)])
    without = np.median([spread(False, s) for s in range(30)])
    assert with_liar > 3 * without


def test_same_seed_same_study() -> None:
    space = {"x": Real(-5, 10), "y": Real(0, 15), "k": Choice("a", "b")}
    runs = []
    for _ in range(2):
        study = Study.create(space=space, algo="tpe", seed=3)
        study.optimize(lambda v: _branin(v) + (v["k"] == "a"), n_trials=30)
        runs.append([t.params for t in study.trials])
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    ("options", "name"),
    [
        ({"gamma": 1.5}, "gamma"),
        ({"n_candidates": 0}, "n_candidates"),
        ({"prior_weight": -1}, "prior_weight"),
        ({"multivariate": "yes"}, "multivariate"),
        ({"constant_liar": 1}, "constant_liar"),
    ],
)
def test_bad_options_name_the_parameter(options: dict, name: str) -> None:
    with pytest.raises(ConfigError, match=name):
        TPE(**options)


@pytest.mark.parametrize(
    ("tuned", "name"),
    [
        ({"forget": 0}, "forget=0"),
        ({"joint_every": 0}, "joint_every=0"),
        ({"always_joint": -1}, "always_joint=-1"),
        ({"always_joint": 4.5}, "always_joint=4.5"),
        ({"bounds_as_neighbours": "no"}, "bounds_as_neighbours='no'"),
        ({"rank_weights": -1.0}, "rank_weights=-1.0"),
        ({"rank_weights": float("inf")}, "rank_weights=inf"),
        ({"constraints": "cTPE"}, "constraints='cTPE'"),
        ({"bandwidth": 2}, "bandwidth=2"),
    ],
)
def test_bad_tuned_settings_name_the_setting(tuned: dict, name: str) -> None:
    with pytest.raises(ConfigError, match=name):
        variant(TPE, tuned)


def test_a_tuned_setting_is_not_a_constructor_option() -> None:
    """What the benchmark chose between is not a user's option: the constructor refuses it by name."""
    with pytest.raises(TypeError, match="rank_weights"):
        TPE(rank_weights=0.0)  # type: ignore[call-arg]


def test_failed_trials_count_as_bad_observations() -> None:
    space = {"x": Real(0, 1)}
    xs = np.random.default_rng(0).random(40)
    complete = tuple(Observation(Config({"x": float(x)}), float(abs(x - 0.5))) for x in xs)
    crashed = tuple(Config({"x": float(x)}) for x in np.linspace(0.46, 0.54, 40))

    def mean_distance(failed: tuple[Config, ...]) -> float:
        configs = [
            TPE().suggest(space, History(complete=complete, failed=failed), 1, np.random.default_rng(s))[0]  # type: ignore[arg-type]
            for s in range(150)
        ]
        return float(np.mean([abs(float(c["x"]) - 0.5) for c in configs]))  # type: ignore[arg-type]

    assert mean_distance(crashed) > mean_distance(()) + 0.03


def test_rank_weights_favour_the_best_keep_mean_one_and_share_ties() -> None:
    losses = np.array([3.0, 1.0, 2.0, 5.0])
    w = rank_weights(losses, 2.0)
    assert np.argmax(w) == 1 and np.argmin(w) == 3 and np.all(w > 0)
    assert np.mean(w) == pytest.approx(1.0)
    cma = np.log(4.5) - np.log([3.0, 1.0, 2.0, 4.0])  # CMA-ES's recombination weights (Hansen 2016)
    np.testing.assert_allclose(rank_weights(losses, 1.0), cma / cma.mean())
    np.testing.assert_allclose(rank_weights(losses, 0.0), np.ones(4))
    tied = rank_weights(np.array([1.0, 1.0, 2.0]), 2.0)
    assert tied[0] == tied[1] > tied[2]
    steep = rank_weights(losses, 1e6)  # all on the best, without overflow
    assert np.all(np.isfinite(steep)) and steep[1] == pytest.approx(4.0)


def test_rank_weights_follow_the_trials_where_an_address_was_active() -> None:
    configs = [Config({"a": 1, "x": 0.1}), Config({"a": 2}), Config({"a": 1, "x": 0.3})]
    columns, weights = weighted_columns(configs, np.array([3.0, 2.0, 1.0]))
    assert columns.size == 3 and columns.values == {"a": [1, 2, 1], "x": [0.1, 0.3]}
    np.testing.assert_array_equal(weights["a"], [3.0, 2.0, 1.0])
    np.testing.assert_array_equal(weights["x"], [3.0, 1.0])
    assert weighted_columns(configs, None)[1] == {}


@pytest.mark.parametrize(
    ("view", "options"),
    [("product", {"joint_every": None}), ("joint", {}), ("under a join", {"joint_every": None})],
)
def test_the_default_rank_weights_draw_the_proposals_towards_the_best_good_points(view: str, options: dict) -> None:
    """Every path that builds l's numeric estimators takes the weights: the flat
    product, the joint view and the walk of a space with a join."""
    space: dict[str, Real | Join]
    space, history = _sphere_history(60, 5)
    if view == "under a join":  # the same trials, in a space whose proposals walk a join
        space = {**space, "c": Join(a={}, b={})}
        history = History(complete=tuple(Observation(Config({**o.config, "c": "a"}), o.loss) for o in history.complete))
    best = min(history.complete, key=lambda o: o.loss).config
    numbers = [f"x{i}" for i in range(5)]

    def distance(tpe: TPE) -> float:
        points = [tpe.suggest(space, history, 1, np.random.default_rng(s))[0] for s in range(60)]
        return float(np.median([math.dist([p[a] for a in numbers], [best[a] for a in numbers]) for p in points]))

    multivariate = view == "joint"
    ranked = variant(TPE, options, multivariate=multivariate)
    equal = variant(TPE, options | {"rank_weights": 0.0}, multivariate=multivariate)
    assert distance(ranked) < 0.85 * distance(equal)


@pytest.mark.parametrize(("option", "before", "default"), [("rank_weights", 0.0, 3.0), ("always_joint", 0, 5)])
def test_a_tpe_stored_before_an_option_reopens_as_it_ran(tmp_path: Path, option: str, before: object, default: object) -> None:
    """A spec stored by a release without ``option`` rebuilds with the value that
    behaves as that release did, not today's default (alone, inside ``auto``, in a study)."""
    spec = spec_of(TPE())
    assert from_spec(spec).tuned_settings()[option] == default
    del spec["options"][option]  # what a release before the option stored
    assert from_spec(spec).tuned_settings()[option] == before
    auto = spec_of(Auto())
    del auto["options"]["tpe"]["optimizer"]["options"][option]
    assert from_spec(auto).tpe.tuned_settings()[option] == before

    space = {"x": Real(0, 1)}
    study = Study.create(name="s", space=space, storage=tmp_path / "s.db", algo="tpe", seed=0)
    stored = spec_of(study.optimizer)
    del stored["options"][option]
    study.storage.set_study_attr(study.study_id, "optimizer", stored)
    assert Study.load("s", space=space, storage=tmp_path / "s.db").optimizer.tuned_settings()[option] == before
