"""The GP past ``full_until`` trials: a bounded subset of the history, chosen from it alone."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from treefarm import Auto, Choice, Config, History, Int, Observation, Real, Study, Var, op, sample
from treefarm.bo.subset import EncodedRows, bounded_rows
from treefarm.encoding import UnitEncoding
from treefarm.exceptions import ConfigError
from treefarm.optimizers.gp import GP

from .bowl import SPACE, bowl
from .bowl import bowl_history as _history


def test_bounded_rows_keeps_the_best_the_incumbents_neighbours_and_a_spread() -> None:
    rng = np.random.default_rng(0)
    X, losses = rng.random((1000, 3)), rng.random(1000)
    rows = bounded_rows(X, losses, 40)
    assert len(rows) == 40 and len(set(rows.tolist())) == 40 and np.all(np.diff(rows) > 0)
    order = np.argsort(losses, kind="stable")
    assert set(order[:20].tolist()) <= set(rows.tolist()), "the best half of the subset is the best trials"
    others = np.setdiff1d(np.arange(1000), order[:20])
    nearest = others[np.argsort(np.sum((X[others] - X[order[0]]) ** 2, axis=1), kind="stable")[:10]]
    assert set(nearest.tolist()) <= set(rows.tolist()), "the incumbent's nearest neighbours are kept"
    assert rows.max() > 900 and rows.min() < 100, "the rest is spread over the whole history"
    assert np.array_equal(bounded_rows(X, losses, 40), rows), "the choice is a function of the rows"
    assert np.array_equal(bounded_rows(X[:30], losses[:30], 40), np.arange(30))


def test_bounded_rows_without_an_encoding_keeps_the_most_recent() -> None:
    losses = np.random.default_rng(1).random(100)
    rows = bounded_rows(None, losses, 20)
    assert len(rows) == 20
    best = set(np.argsort(losses, kind="stable")[:10].tolist())
    assert set(range(95, 100)) - best <= set(rows.tolist())


def test_encoded_rows_equal_the_encoding() -> None:
    configs = list(_history(50).complete)
    encoding = UnitEncoding(SPACE)  # type: ignore[arg-type]
    memo = EncodedRows()
    first = memo.encode(encoding, [o.config for o in configs[:30]])
    again = memo.encode(encoding, [o.config for o in configs])
    assert np.array_equal(first, encoding.encode([o.config for o in configs[:30]])[0])
    assert np.array_equal(again, encoding.encode([o.config for o in configs])[0])


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"full_until": 0}, "full_until must be an integer >= 1 or None, but got full_until=0"),
        ({"full_until": 10.5}, "full_until must be an integer >= 1 or None, but got full_until=10.5"),
        ({"subset_size": 3}, "subset_size must be an integer >= 4, but got subset_size=3"),
    ],
)
def test_bad_thresholds_name_the_parameter_the_value_and_the_expectation(
    kwargs: dict[str, object], expected: str
) -> None:
    with pytest.raises(ConfigError) as info:
        GP(**kwargs)  # type: ignore[arg-type]
    assert str(info.value) == expected


def test_suggestions_up_to_the_threshold_are_those_of_the_full_gp() -> None:
    history = _history(30)
    for n in (25, 30):
        head = History(complete=history.complete[:n])
        bounded = GP(full_until=30, subset_size=10).suggest(SPACE, head, 2, np.random.default_rng(n))  # type: ignore[arg-type]
        full = GP(full_until=None).suggest(SPACE, head, 2, np.random.default_rng(n))  # type: ignore[arg-type]
        assert bounded == full, f"at {n} trials, at or below full_until=30, the GP must fit every trial"


def test_past_the_threshold_a_fresh_worker_suggests_what_a_running_one_does() -> None:
    history = _history(45)
    running = GP(full_until=20, subset_size=12)
    for n in range(15, 45):  # the running optimizer's caches fill along the way
        running.suggest(SPACE, History(complete=history.complete[:n]), 1, np.random.default_rng(n))  # type: ignore[arg-type]
    resumed = GP(full_until=20, subset_size=12)
    for gp in (running, resumed):
        assert gp.suggest(SPACE, history, 2, np.random.default_rng(7)) == GP(  # type: ignore[arg-type]
            full_until=20, subset_size=12
        ).suggest(SPACE, history, 2, np.random.default_rng(7))  # type: ignore[arg-type]


def test_past_the_threshold_the_gp_sees_the_subset_only() -> None:
    history = _history(45)
    configs, losses = [o.config for o in history.complete], history.losses()
    parts, encoding = GP(full_until=20, subset_size=12).parts(SPACE), UnitEncoding(SPACE)  # type: ignore[arg-type]
    assert parts.subset.keep(parts.encoding, configs[:20], losses[:20]) is None
    rows = parts.subset.keep(parts.encoding, configs, losses)
    assert rows is not None and np.array_equal(rows, bounded_rows(encoding.encode(configs)[0], losses, 12))


def test_the_optimum_is_still_found_after_the_switch() -> None:
    space = {"x": Real(-5.0, 10.0), "y": Real(0.0, 15.0)}
    study = Study.create(space=space, algo=GP(full_until=12, subset_size=20), seed=0)
    study.optimize(branin, n_trials=45)
    early = min(t.value for t in study.trials[:12] if t.value is not None)
    assert study.best_value - BRANIN_MIN < 0.05 < early - BRANIN_MIN, (early, study.best_value)


def branin(v: Config | dict[str, float]) -> float:
    x, y = v["x"], v["y"]
    b, c, t = 5.1 / (4 * np.pi**2), 5 / np.pi, 1 / (8 * np.pi)
    return float((y - b * x**2 + c * x - 6) ** 2 + 10 * (1 - t) * np.cos(x) + 10)


BRANIN_MIN = 0.397887


def test_auto_bounds_its_gp_turns_on_a_space_with_choices() -> None:
    space = {"x": Real(-1.0, 1.0), "y": Real(-1.0, 1.0), "k": Choice("a", "b")}
    study = Study.create(space=space, algo=Auto(gp=GP(full_until=15, subset_size=10)), seed=0)
    study.optimize(lambda v: bowl(v) + (0.0 if v["k"] == "b" else 1.0), n_trials=40)
    assert study.best_value < 0.05 and study.best_params["k"] == "b"


def test_a_grammar_past_the_threshold_keeps_the_most_recent() -> None:
    add = op(operator.add, name="add", commutative=True, associative=True)
    G = Var("G", max_depth=3)
    G.define(add(G, G) | Int(1, 9))
    gp = GP(n_startup=6, n_candidates=32, n_local=32, n_starts=2, full_until=10, subset_size=8)
    study = Study.create(space=G, algo=gp, seed=0)
    study.optimize(lambda v: abs(v - 20), n_trials=18)
    assert len(study.trials) == 18 and study.best_value <= 5


def test_past_the_threshold_the_recommendation_comes_from_the_subset() -> None:
    configs = sample(SPACE, np.random.default_rng(2), n=60)  # type: ignore[arg-type]
    noise = np.random.default_rng(3).normal(0.0, 0.3, 60)
    history = History(complete=tuple(Observation(c, bowl(c) + e) for c, e in zip(configs, noise)))
    gp = GP(full_until=20, subset_size=12)
    rows = bounded_rows(UnitEncoding(SPACE).encode(configs)[0], history.losses(), 12)  # type: ignore[arg-type]
    recommended = gp.recommend(SPACE, history)  # type: ignore[arg-type]
    assert recommended is not None, "the noise is significant: the best posterior mean is recommended"
    assert recommended in {configs[i] for i in rows}
