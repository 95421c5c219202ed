"""Sampling follows the priors, and a seed fixes the sequence."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from treefarm.space import Choice, Config, Int, Join, Normal, R, Real, sample, within_support


def draws(space: object, address: str, n: int = 4000, seed: int = 0) -> np.ndarray:
    return np.array([c[address] for c in sample(space, seed, n=n)])


def test_same_seed_same_configs_and_generator_continues() -> None:
    space = {"x": Real(0, 1), "k": Choice("a", "b"), "n": Int(1, 9)}
    assert sample(space, 7, n=20) == sample(space, 7, n=20)
    rng = np.random.default_rng(7)
    first, second = sample(space, rng), sample(space, rng)
    assert first != second


def test_uniform_real_matches_its_distribution() -> None:
    x = draws({"x": Real(-2, 3)}, "x")
    assert stats.kstest(x, stats.uniform(-2, 5).cdf).pvalue > 1e-3


def test_log_real_is_log_uniform() -> None:
    x = draws({"x": R[1e-4:1:"log"]}, "x")
    assert stats.kstest(np.log(x), stats.uniform(math.log(1e-4), -math.log(1e-4)).cdf).pvalue > 1e-3


def test_truncated_normal_prior() -> None:
    x = draws({"x": Real(0, 10, prior=Normal(2.0, 3.0))}, "x")
    a, b = (0 - 2) / 3, (10 - 2) / 3
    assert stats.kstest(x, stats.truncnorm(a, b, loc=2, scale=3).cdf).pvalue > 1e-3


def test_lognormal_prior_on_a_log_real() -> None:
    x = draws({"x": Real(1e-5, 1.0, log=True, prior=Normal(math.log(1e-3), 1.0))}, "x")
    lo, hi = (math.log(1e-5) - math.log(1e-3)), (0 - math.log(1e-3))
    assert stats.kstest(np.log(x), stats.truncnorm(lo, hi, loc=math.log(1e-3), scale=1).cdf).pvalue > 1e-3


def test_integers_are_uniform_including_both_ends() -> None:
    x = draws({"n": Int(1, 6)}, "n", n=6000)
    counts = np.bincount(x, minlength=7)[1:]
    assert stats.chisquare(counts).pvalue > 1e-3


def test_log_integers_follow_the_log_uniform_mass() -> None:
    x = draws({"n": Int(1, 100, log=True)}, "n", n=6000)
    edges = np.arange(1, 102) - 0.5
    p = np.diff(np.log(edges)) / (math.log(100.5) - math.log(0.5))
    counts = np.bincount(x, minlength=101)[1:]
    top = counts[:10], p[:10] * len(x)
    assert stats.chisquare(top[0], top[1] / top[1].sum() * top[0].sum()).pvalue > 1e-3


def test_choice_and_join_weights() -> None:
    x = draws({"c": Choice("a", "b", "c", weights=[1, 2, 5])}, "c", n=8000)
    counts = [int(np.sum(x == v)) for v in "abc"]
    assert stats.chisquare(counts, np.array([1, 2, 5]) / 8 * 8000).pvalue > 1e-3
    y = draws({"j": Join(a=1, b=2, weights=[3, 1])}, "j", n=8000)
    assert stats.binomtest(int(np.sum(y == "a")), 8000, 0.75).pvalue > 1e-3


def test_nested_weighted_join_keeps_its_mass() -> None:
    inner = Join(a=1, b=2, weights=[1, 1])
    space = Join(inner, c=3, weights=[1, 1])
    y = draws(space, "_", n=8000)
    assert stats.binomtest(int(np.sum(y == "c")), 8000, 0.5).pvalue > 1e-3


def test_within_support_redraws_only_options_of_weight_zero() -> None:
    space = {
        "c": Choice("a", "b", "c", weights=[1, 1, 0]),
        "j": Join(p={"u": Real(0, 1)}, q={"v": Real(0, 1)}, weights=[0, 1]),
    }
    kept = Config({"c": "b", "j": "q", "j.q.v": 0.5})
    assert within_support(space, kept, np.random.default_rng(0)) is kept
    for seed in range(20):
        moved = within_support(space, Config({"c": "c", "j": "p", "j.p.u": 0.5}), np.random.default_rng(seed))
        assert moved["c"] in ("a", "b") and moved["j"] == "q" and 0 <= moved["j.q.v"] <= 1 and "j.p.u" not in moved
    plain = Config({"x": 0.5})
    assert within_support({"x": Real(0, 1)}, plain, np.random.default_rng(0)) is plain


def test_within_support_keeps_a_none_value_and_tells_true_from_one() -> None:
    space = {"act": Choice(None, "relu"), "c": Choice(1, True, weights=[1, 0])}
    kept = Config({"act": None, "c": 1})
    assert all(within_support(space, kept, np.random.default_rng(s)) is kept for s in range(20))
    assert all(within_support(space, Config({"act": None, "c": True}), np.random.default_rng(s))["c"] is not True
               for s in range(20))
