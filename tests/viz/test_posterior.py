"""The GP's 1-D posterior along a parameter, with log EI below it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from treefarm import ConfigError
from treefarm.viz import StudyData, gp_posterior, plot_gp_posterior

from .records import record


def bowl(n: int = 40, seed: int = 0) -> StudyData:
    rng = np.random.default_rng(seed)
    trials = []
    for i in range(n):
        x, y = rng.uniform(-2, 2, 2)
        trials.append(record(i, float((x - 0.5) ** 2 + 0.1 * y**2), {"x": float(x), "y": float(y), "c": "a"}))
    return StudyData("bowl", "minimize", trials)


def test_the_posterior_mean_is_lowest_near_the_optimum() -> None:
    p = gp_posterior(bowl().trials, "x", direction="minimize", n_grid=81)
    assert p.grid[0] == pytest.approx(p.x.min()) and p.grid[-1] == pytest.approx(p.x.max())
    assert abs(p.grid[np.argmin(p.mean)] - 0.5) < 0.25
    assert np.all(p.std > 0) and np.all(np.isfinite(p.acquisition))
    assert abs(p.grid[np.argmax(p.acquisition)] - 0.5) < 0.5
    assert p.shown == p.total == 40


def test_a_lucky_trial_with_a_large_loss_variance_does_not_move_the_posterior() -> None:
    trials = bowl().trials
    lucky = record(40, -3.0, {"x": -1.5, "y": 0.0, "c": "a"})
    weighed = gp_posterior(
        [*trials, replace(lucky, user_attrs={"loss_variance": 100.0})], "x", direction="minimize"
    )
    ignored = gp_posterior([*trials, lucky], "x", direction="minimize")
    assert abs(weighed.grid[np.argmin(weighed.mean)] - 0.5) < 0.25
    at = int(np.argmin(np.abs(weighed.grid + 1.5)))
    assert weighed.mean[at] > ignored.mean[at] + 0.3  # taken at face value, it drags the mean down there


def test_a_categorical_or_unknown_parameter_is_refused_by_name() -> None:
    with pytest.raises(ConfigError, match="address='c'"):
        gp_posterior(bowl().trials, "c", direction="minimize")


def test_the_figure_draws_mean_band_and_acquisition() -> None:
    data = bowl()
    fig = plot_gp_posterior(data, "x")
    top, bottom = fig.axes
    p = gp_posterior(data.trials, "x", direction="minimize")
    assert np.allclose(top.lines[0].get_ydata(), p.mean)
    assert np.allclose(bottom.lines[0].get_ydata(), p.acquisition)
    assert bottom.get_xlabel() == "x" and "GP along x" in top.get_title()


def test_one_fit_gives_every_parameter_and_agrees_with_the_single_posterior() -> None:
    from treefarm.viz.posterior import gp_posteriors

    trials = bowl().trials
    both = gp_posteriors(trials, direction="minimize", n_grid=81)
    assert [p.address for p in both] == ["x", "y"]
    single = gp_posterior(trials, "y", direction="minimize", n_grid=81)
    np.testing.assert_allclose(both[1].mean, single.mean, err_msg="the same fit read along y must agree")
    at = gp_posteriors(trials, direction="minimize", at=7, n_grid=81)
    assert all(p.at == 7 for p in at) and at[0].at != both[0].at
    here = trials[7].params["y"]
    assert not np.allclose(at[0].mean, both[0].mean), "holding y at another trial must move the x slice"
    assert at[1].grid.min() <= here <= at[1].grid.max()
    with pytest.raises(Exception, match="at must name a complete trial"):
        gp_posteriors(trials, direction="minimize", at=999)
