"""The anytime curve: the best full-fidelity value against the cost spent, cheap
evaluations never counted as a result; the figure draws it; a study without cost is named."""

from __future__ import annotations

import math

import numpy as np
import pytest

import treefarm as tf
from treefarm.exceptions import StudyError
from treefarm.viz import anytime, plot_cost


def _study() -> tf.Study:
    space = {"x": tf.Real(-2.0, 2.0)}
    study = tf.Study.create(space=space, fidelity=tf.Fidelity(1 / 9, 1.0), seed=0, algo="random")
    study.optimize(lambda c, trial: (c["x"] - 0.5) ** 2 + (1 - trial.fidelity), max_cost=4.0, progress=False)
    return study


def test_the_anytime_curve_counts_only_full_evaluations_as_the_best() -> None:
    study = _study()
    a = anytime(study.trials, "minimize", full_fidelity=1.0)
    assert a.spent[-1] == pytest.approx(study.storage.spent_cost(study.study_id))
    assert np.all(np.diff(a.spent) >= 0)
    full = a.value[a.full]
    assert np.nanmin(a.best) == pytest.approx(full.min()) == pytest.approx(study.best_value)
    first_full = int(np.argmax(a.full))
    assert np.all(np.isnan(a.best[:first_full])) and not math.isnan(a.best[first_full])


def test_plot_cost_draws_the_curve_and_refuses_a_study_without_cost() -> None:
    pytest.importorskip("matplotlib")
    fig = plot_cost(_study())
    assert fig.axes[0].get_xlabel() == "cost spent"
    plain = tf.Study.create(space={"x": tf.Real(0, 1)}, seed=0, algo="random")
    plain.optimize(lambda c: c["x"], 3, progress=False)
    with pytest.raises(StudyError, match="needs trials that spent a cost"):
        plot_cost(plain)
