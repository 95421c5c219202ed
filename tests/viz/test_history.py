"""Convergence and learning curves: the numbers in the data and in the figure's artists."""

from __future__ import annotations

import numpy as np
import pytest

from treefarm import StudyError
from treefarm.viz import (
    StudyData,
    convergence,
    convergence_band,
    intermediate_curves,
    plot_convergence,
    plot_intermediate,
)

from .records import record, study


def test_best_so_far_keeps_exact_change_points_and_skips_failed_trials() -> None:
    data = study([5.0, 3.0, None, 4.0, 1.0, 2.0])
    c = convergence(data.trials, direction="minimize")
    assert c.x.tolist() == [0, 1, 3, 4, 5] and c.value.tolist() == [5, 3, 4, 1, 2]
    assert c.best_x.tolist() == [0, 1, 4, 5] and c.best.tolist() == [5, 3, 1, 1]
    up = convergence(study([1.0, 3.0, 2.0, 4.0], direction="maximize").trials, direction="maximize")
    assert up.best.tolist() == [1, 3, 4]


def test_time_axis_is_seconds_from_the_first_start() -> None:
    c = convergence(study([2.0, 1.0]).trials, direction="minimize", axis="time")
    assert c.x.tolist() == [1.0, 3.0]
    with pytest.raises(StudyError, match="axis must be one of"):
        convergence([], direction="minimize", axis="wall")


def test_the_figure_draws_the_best_line_and_the_values() -> None:
    fig = plot_convergence(study([5.0, 3.0, 4.0, 1.0]))
    ax = fig.axes[0]
    line = ax.lines[0]
    assert line.get_drawstyle() == "steps-post"
    assert list(line.get_ydata()) == [5, 3, 1, 1] and list(line.get_xdata()) == [0, 1, 3, 3]
    assert ax.collections[0].get_offsets()[:, 1].tolist() == [5, 3, 4, 1]


def test_a_large_study_is_sampled_and_says_so_but_its_best_stays_exact() -> None:
    values = np.random.default_rng(0).random(10_000)
    c = convergence(study(values.tolist()).trials, direction="minimize", max_points=500)
    assert c.shown == 500 and c.total == 10_000
    assert c.best[-1] == values.min() and np.all(np.diff(c.best) <= 0)
    fig = plot_convergence(study(values.tolist()))
    assert "showing 2,000 of 10,000 values (sampled)" in fig._supxlabel.get_text()


def test_several_studies_give_the_median_and_interquartile_band() -> None:
    studies = [study([4.0, 3.0, 2.0]), study([6.0, 1.0]), study([5.0, 5.0, 0.0, 0.0])]
    band = convergence_band([s.trials for s in studies], direction="minimize")
    assert band.n.tolist() == [1, 2, 3, 4]
    assert band.median.tolist() == [5.0, 3.0, 1.0, 0.0]  # n=3: median of (2, 0), the second study has ended
    assert band.low[0] == 4.5 and band.high[0] == 5.5
    fig = plot_convergence(studies)
    median_line = fig.axes[0].lines[-1]
    assert list(median_line.get_ydata()) == band.median.tolist()
    assert "median of 3 studies" in [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_learning_curves_keep_the_best_when_there_are_too_many() -> None:
    trials = [record(i, float(i), intermediate={0: 10.0 + i, 1: float(i)}) for i in range(5)]
    c = intermediate_curves(trials, direction="minimize", max_curves=2)
    assert c.numbers == [0, 1] and c.total == 5
    assert c.values[1].tolist() == [11.0, 1.0] and c.steps[1].tolist() == [0.0, 1.0]
    fig = plot_intermediate(StudyData("s", "minimize", trials))
    assert [list(line.get_ydata()) for line in fig.axes[0].lines][2] == [12.0, 2.0]
