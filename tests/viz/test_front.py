"""The front's data and figures: the front marked is the non-dominated feasible
set, the hypervolume never falls, and the figures draw 2 and 3 objectives."""

from __future__ import annotations

import numpy as np
import pytest

import treefarm as tf
from treefarm.pareto import hypervolume
from treefarm.viz import front, hypervolume_history, plot_hypervolume, plot_pareto_front

pytest.importorskip("matplotlib")

SPACE = {"x": tf.Real(0, 1), "y": tf.Real(0, 1)}


def _study(m: int = 2) -> tf.Study:
    study = tf.Study.create(space=SPACE, directions=["minimize", "maximize", "minimize"][:m], algo="random", seed=0)
    study.optimize(
        lambda c: {"loss": [c["x"], c["y"], c["x"] * c["y"]][:m], "constraints": [c["x"] + c["y"] - 1.5]}, n_trials=40
    )
    return study


def test_the_marked_front_is_the_studys_best_trials() -> None:
    study = _study()
    f = front(study.trials, study.objectives)
    assert set(f.numbers[f.on_front]) == {t.number for t in study.best_trials}
    assert not f.on_front[~f.feasible].any()


def test_the_hypervolume_history_rises_to_the_studys_hypervolume() -> None:
    study = _study()
    h = hypervolume_history(study.trials, study.objectives, [1.0, 0.0])
    assert np.all(np.diff(h.hypervolume) >= -1e-12)
    assert h.hypervolume[-1] == pytest.approx(study.hypervolume([1.0, 0.0]))
    with pytest.raises(tf.StudyError, match="reference"):
        hypervolume_history(study.trials, study.objectives, [1.0])


@pytest.mark.parametrize("m", [2, 3])
def test_the_figures_draw(m: int, tmp_path) -> None:
    study = _study(m)
    plot_pareto_front(study).savefig(tmp_path / "front.png")
    plot_hypervolume(study).savefig(tmp_path / "hv.png")
    assert (tmp_path / "front.png").stat().st_size > 1000


def test_a_single_objective_study_has_no_front() -> None:
    study = tf.Study.create(space=SPACE, algo="random", seed=0)
    study.optimize(lambda c: c["x"], n_trials=3)
    with pytest.raises(tf.StudyError, match="several objectives"):
        plot_pareto_front(study)
    assert hypervolume(np.zeros((0, 2)), np.ones(2)) == 0.0
