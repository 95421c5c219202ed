"""The hints' prior in the GP (πBO): the density on encoded points, its gradient, the pull and its decay."""

from __future__ import annotations

import numpy as np
import pytest

from treefarm import GP, History, Join, Observation, Real, convert, sample
from treefarm.encoding import UnitEncoding
from treefarm.exceptions import ConfigError
from treefarm.optimizers.base import variant
from treefarm.optimizers.hints import Hint, hint_log_density, hint_log_prior, hint_windows, judged_credibility
from treefarm.space import Config

SPACE = {"x": Real(0.0, 1.0), "y": Real(1e-3, 1.0, log=True), "m": Join(a={"z": Real(0.0, 1.0)}, b={})}
HINTS = [
    Hint({"x": 0.2, "m": "a", "m.a.z": 0.7}, credibility=0.8, spread=0.15),
    Hint({"y": 0.5}, credibility=0.3),
    Hint({"x": 0.6}, credibility=0.6, weight=-1, spread=0.2),
]


def _points(n: int, seed: int) -> tuple[UnitEncoding, list[Config], np.ndarray]:
    space = convert(SPACE)
    encoding = UnitEncoding(space)
    configs = sample(space, np.random.default_rng(seed), n=n)
    return encoding, configs, encoding.encode(configs)[0]


def test_the_prior_on_encoded_points_is_the_prior_of_the_configurations() -> None:
    encoding, configs, X = _points(40, 0)
    log_pi, _ = hint_log_density(hint_windows(encoding, HINTS, [], judged=False))(X)
    expected = [hint_log_prior(encoding.space, HINTS, c) for c in configs]
    np.testing.assert_allclose(log_pi, expected, rtol=1e-10, atol=1e-12)
    assert np.ptp(log_pi) > 1.0  # the hints do tell the points apart


def test_the_prior_gradient_matches_finite_differences() -> None:
    encoding, _, X = _points(6, 1)
    log_pi = hint_log_density(hint_windows(encoding, HINTS, [], judged=False))
    _, grad = log_pi(X)
    eps = 1e-6
    fd = np.stack(
        [(log_pi(X + e)[0] - log_pi(X - e)[0]) / (2 * eps) for e in np.eye(X.shape[1]) * eps], axis=1
    )
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-7)
    assert np.abs(grad).max() > 0.1


def test_a_hint_of_credibility_zero_gives_no_prior() -> None:
    encoding, _, _ = _points(1, 0)
    assert hint_windows(encoding, [Hint({"x": 0.2}, credibility=0.0)], []) == []


def test_the_windows_trials_judge_a_hints_credibility() -> None:
    encoding = UnitEncoding(convert({"x": Real(0.0, 1.0)}))
    hint = Hint({"x": 0.2}, credibility=0.5)
    xs = [0.18, 0.2, 0.22, 0.6, 0.7, 0.8, 0.9]
    bad = [(Config({"x": x}), (x - 0.85) ** 2) for x in xs]
    good = [(Config({"x": x}), (x - 0.2) ** 2) for x in xs]
    assert judged_credibility(encoding, hint, []) == 0.5
    assert judged_credibility(encoding, hint, bad) < 0.25 < 0.75 < judged_credibility(encoding, hint, good)


def test_the_pull_takes_the_judged_credibility_squared() -> None:
    """A good guess (0.2) before any evidence pulls with 0.04, a hint of 1 with 1; a
    good hint whose window holds poor trials pulls with the square of its judged
    credibility; a bad hint keeps its judged credibility."""
    encoding = UnitEncoding(convert({"x": Real(0.0, 1.0)}))
    guess, sure = Hint({"x": 0.2}, credibility=0.2), Hint({"x": 0.2}, credibility=1.0)
    assert [w.credibility for w in hint_windows(encoding, [guess, sure], [])] == pytest.approx([0.04, 1.0])
    bad = [(Config({"x": x}), (x - 0.85) ** 2) for x in (0.18, 0.2, 0.22, 0.6, 0.7, 0.8, 0.9)]
    judged = judged_credibility(encoding, sure, bad)
    assert hint_windows(encoding, [sure], bad)[0].credibility == pytest.approx(judged**2)
    assert hint_windows(encoding, [sure], bad, judged=False)[0].credibility == 1.0
    avoid = Hint({"x": 0.2}, credibility=0.5, weight=-1)
    assert hint_windows(encoding, [avoid], [])[0].credibility == pytest.approx(0.5)  # a bad hint's is not squared


LINE = {"x": Real(0.0, 1.0)}


def _history(xs: np.ndarray, hints: tuple[Hint, ...]) -> History:
    return History(complete=[Observation(Config({"x": float(x)}), float((x - 0.85) ** 2)) for x in xs], hints=hints)


def _next(xs: np.ndarray, *hints: Hint) -> float:
    gp = GP(n_candidates=64, n_local=32, n_starts=4, deterministic=True)
    return float(gp.suggest(LINE, _history(xs, hints), 1, np.random.default_rng(0))[0]["x"])


def test_a_good_hint_pulls_the_next_suggestion_into_its_window_and_the_pull_decays() -> None:
    few = np.array([0.55, 0.62, 0.7, 0.78, 0.9, 0.96, 1.0])  # the model's optimum is near 0.85
    hint = Hint({"x": 0.2}, credibility=1.0, spread=0.1)
    assert abs(_next(few) - 0.85) < 0.1
    assert abs(_next(few, hint) - 0.2) < 0.1
    many = np.linspace(0.0, 1.0, 60)  # after 60 observations (beta / n = 1/6) the data decide
    assert abs(_next(many, hint) - 0.85) < 0.1


def test_a_bad_hint_pushes_the_next_suggestion_out_of_its_window() -> None:
    xs = np.array([0.05, 0.2, 0.35, 0.5, 0.65, 0.75, 0.95])
    assert abs(_next(xs) - 0.85) < 0.05
    assert abs(_next(xs, Hint({"x": 0.85}, credibility=1.0, weight=-1, spread=0.05)) - 0.85) > 0.05


@pytest.mark.parametrize(("kwargs", "name"), [({"hint_prior": "on"}, "hint_prior"), ({"prior_beta": -1.0}, "prior_beta")])
def test_bad_hint_prior_settings_are_named(kwargs: dict, name: str) -> None:
    with pytest.raises(ConfigError, match=name):
        variant(GP, kwargs)
