"""The GP's trust region on spaces of reals (``GP(trust_after=...)``, ``Auto``'s numeric GP)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from treefarm import GP, Auto, History, Int, Join, Observation, Real, Study
from treefarm.bo.trust import LENGTH_INIT, LENGTH_MIN, failure_tolerance
from treefarm.encoding import UnitEncoding
from treefarm.exceptions import ConfigError
from treefarm.optimizers.base import variant
from treefarm.space import convert, sample
from treefarm.testing.optimizer_suite import SPACES as SUITE_SPACES

SPACE = {"x0": Real(-2.0, 2.0), "x1": Real(-2.0, 2.0), "x2": Real(-2.0, 2.0)}
RECURSIVE = SUITE_SPACES["recursive"]()


def _valley(v: dict[str, float]) -> float:
    """Rosenbrock's curved valley in 3-d, the minimum 0 at (1, 1, 1)."""
    x = np.array([v["x0"], v["x1"], v["x2"]])
    return float((100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum())


def _history(n: int, space: dict[str, object] = SPACE, seed: int = 0) -> History:
    configs = sample(space, np.random.default_rng(seed), n=n)  # type: ignore[arg-type]
    return History(complete=tuple(Observation(c, _valley(c)) for c in configs))  # type: ignore[arg-type]


@pytest.mark.parametrize("make", [lambda v: GP(trust_after=v), lambda v: variant(Auto, {"trust_after": v})])
@pytest.mark.parametrize("value", [-1, 2.5, "10"])
def test_a_bad_trust_after_names_the_parameter_and_the_value(make: Callable[[object], object], value: object) -> None:
    with pytest.raises(ConfigError) as info:
        make(value)
    assert str(info.value) == f"trust_after must be an integer >= 0 or None, but got trust_after={value!r}"


def test_suggestions_lie_in_the_trust_region_around_the_best_trial() -> None:
    gp, history = GP(trust_after=0), _history(20)
    root = convert(SPACE)  # type: ignore[arg-type]
    complete = list(history.complete)
    configs, losses = [o.config for o in complete], np.array([o.loss for o in complete])
    region = gp._trust_box(root, gp.parts(root, False), configs, losses, None)
    assert region is not None
    best = UnitEncoding(root).encode([configs[int(np.argmin(losses))]])[0][0]
    np.testing.assert_allclose(region.center, best)
    assert np.all(region.upper - region.lower < 1.0)  # a box inside the cube, not the cube
    X = UnitEncoding(root).encode(gp.suggest(SPACE, history, 3, np.random.default_rng(1)))[0]  # type: ignore[arg-type]
    assert np.all(region.lower - 1e-12 <= X)
    assert np.all(region.upper + 1e-12 >= X)


def test_before_trust_after_trials_and_on_a_space_with_integers_the_gp_is_unchanged() -> None:
    history = _history(20)
    plain = GP().suggest(SPACE, history, 2, np.random.default_rng(3))  # type: ignore[arg-type]
    assert GP(trust_after=21).suggest(SPACE, history, 2, np.random.default_rng(3)) == plain  # type: ignore[arg-type]
    mixed = {**SPACE, "k": Int(1, 5)}
    with_int = _history(20, mixed)
    plain = GP().suggest(mixed, with_int, 2, np.random.default_rng(3))  # type: ignore[arg-type]
    assert GP(trust_after=0).suggest(mixed, with_int, 2, np.random.default_rng(3)) == plain  # type: ignore[arg-type]


def test_a_trust_region_the_space_or_the_objectives_refuse_is_said_once_not_kept_silent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    mixed = {**SPACE, "k": Int(1, 5)}
    gp, with_int = GP(trust_after=0), _history(20, mixed)
    with caplog.at_level("WARNING", logger="treefarm"):
        for n in (1, 2):
            gp.suggest(mixed, with_int, n, np.random.default_rng(3))  # type: ignore[arg-type]
    said = [r.getMessage() for r in caplog.records]
    assert said == [
        "GP(trust_after=0) keeps a trust region on a space of reals with one objective only, but the space has "
        "decisions other than reals (k): the GP searches the whole space"
    ]
    caplog.clear()
    joined = {"x0": Real(-2.0, 2.0), "k": Join(a={}, b={"y": Real(0.0, 1.0)})}
    configs = sample(joined, np.random.default_rng(0), n=20)  # type: ignore[arg-type]
    with_join = History(complete=tuple(Observation(c, float(c["x0"]) ** 2) for c in configs))
    trees = sample(RECURSIVE, np.random.default_rng(0), n=20)  # type: ignore[arg-type]
    with_tree = History(complete=tuple(Observation(c, float(len(c))) for c in trees))
    with caplog.at_level("WARNING", logger="treefarm"):
        GP(trust_after=0).suggest(joined, with_join, 1, np.random.default_rng(3))  # type: ignore[arg-type]
        GP(trust_after=0).suggest(RECURSIVE, with_tree, 1, np.random.default_rng(3))  # type: ignore[arg-type]
    assert [r.getMessage().split(" only, but ")[1] for r in caplog.records] == [
        "the space has decisions other than reals (k): the GP searches the whole space",
        "the space is recursive: the GP searches the whole space",
    ]
    caplog.clear()
    history = _history(20)
    two = History(complete=tuple(Observation(o.config, o.loss, losses=(o.loss, -o.loss)) for o in history.complete))
    with caplog.at_level("WARNING", logger="treefarm"):
        for objectives in ("rank", "ehvi"):  # the Pareto order, or a model per objective
            GP(trust_after=0, objectives=objectives).suggest(SPACE, two, 1, np.random.default_rng(3))  # type: ignore[arg-type]
        GP(trust_after=0).suggest(SPACE, history, 1, np.random.default_rng(3))  # type: ignore[arg-type]
        GP().suggest(mixed, with_int, 1, np.random.default_rng(3))  # type: ignore[arg-type]
    assert [r.getMessage().split(" only, but ")[1] for r in caplog.records] == [
        "the trials carry several objectives: the GP searches the whole space"
    ] * 2


def test_after_a_restart_of_the_region_the_suggestion_is_the_gps_global_one() -> None:
    d, start = 3, 5
    halvings = int(np.ceil(np.log2(LENGTH_INIT / LENGTH_MIN)))
    configs = sample(SPACE, np.random.default_rng(4), n=start + halvings * failure_tolerance(d))  # type: ignore[arg-type]
    losses = [float(i) for i in range(start)] + [100.0] * (len(configs) - start)
    history = History(complete=tuple(Observation(c, y) for c, y in zip(configs, losses)))
    plain = GP().suggest(SPACE, history, 1, np.random.default_rng(5))  # type: ignore[arg-type]
    assert GP(trust_after=0).suggest(SPACE, history, 1, np.random.default_rng(5)) == plain  # type: ignore[arg-type]
    longer = History(complete=(*history.complete, Observation(configs[-1], 100.0)))
    assert GP(trust_after=0).suggest(SPACE, longer, 1, np.random.default_rng(5)) != GP().suggest(  # type: ignore[arg-type]
        SPACE, longer, 1, np.random.default_rng(5)  # type: ignore[arg-type]
    )


def test_the_same_seed_gives_the_same_suggestions() -> None:
    history = _history(25)
    first = GP(trust_after=0).suggest(SPACE, history, 3, np.random.default_rng(7))  # type: ignore[arg-type]
    assert GP(trust_after=0).suggest(SPACE, history, 3, np.random.default_rng(7)) == first  # type: ignore[arg-type]


def test_auto_on_reals_suggests_what_the_gp_with_its_trust_region_does_once_it_is_set() -> None:
    history = _history(30)
    auto = variant(Auto, {"trust_after": 12}).suggest(SPACE, history, 2, np.random.default_rng(8))  # type: ignore[arg-type]
    assert auto == GP(trust_after=12).suggest(SPACE, history, 2, np.random.default_rng(8))  # type: ignore[arg-type]
    assert Auto().suggest(SPACE, history, 2, np.random.default_rng(8)) == GP().suggest(  # type: ignore[arg-type]
        SPACE, history, 2, np.random.default_rng(8)  # type: ignore[arg-type]
    )


def test_auto_with_a_trust_region_is_stored_and_reopens_with_it() -> None:
    from treefarm.optimizers.registry import from_spec, spec_of

    assert Auto()._trust_after is None  # off by default
    reopened = from_spec(spec_of(variant(Auto, {"trust_after": 0})))
    assert isinstance(reopened, Auto) and reopened._trust_after == 0


def _best(algo: object, seed: int, budget: int) -> float:
    study, best = Study.create(space=SPACE, algo=algo, seed=seed), float("inf")  # type: ignore[arg-type]
    for _ in range(budget):
        trial = study.ask()
        loss = _valley(trial.value)
        study.tell(trial, loss)
        best = min(best, loss)
    return best


def test_auto_gets_further_down_a_curved_valley_with_its_trust_region_at_a_fixed_budget() -> None:
    # seeds 0-4, 60 evaluations of the 3-d Rosenbrock valley: the best loss with the trust region
    # was 0.045, 1.38, 0.075, 0.52, 0.77 (median 0.52), over the whole box 0.52, 0.37, 0.80,
    # 0.98, 0.72 (median 0.72)
    seeds, budget = range(5), 60
    local = np.median([_best(variant(Auto, {"trust_after": 0}), seed, budget) for seed in seeds])
    whole = np.median([_best(Auto(), seed, budget) for seed in seeds])
    assert local < whole
