"""The interactive figures: plotly figures holding the same data as the static plots,
each of which renders to HTML."""

from __future__ import annotations

import math

import numpy as np
import pytest

import treefarm as tf
from treefarm.viz import convergence, importance, interactive

pytest.importorskip("plotly", reason="interactive figures need plotly: pip install 'treefarm[plotly]'")

SPACE = {"x": tf.Real(1e-3, 1.0, log=True), "n": tf.Int(1, 6), "kind": tf.Choice("a", "b")}


def _objective(c: dict, trial: tf.Trial) -> float:
    loss = (math.log10(c["x"]) + 2) ** 2 + 0.1 * c["n"] + (c["kind"] == "b")
    for step in range(3):
        trial.report(step, loss + 3 - step)
    return loss


@pytest.fixture(scope="module")
def study() -> tf.Study:
    study = tf.Study.create(space=SPACE, algo="random", seed=0)
    study.optimize(_objective, 30, progress=False)
    return study


def test_every_kind_renders_to_html(study: tf.Study) -> None:
    for kind, plot in interactive.KINDS.items():
        if kind in ("front", "hypervolume"):
            continue
        html = plot(study).to_html(include_plotlyjs=False, full_html=False)
        assert "Plotly.newPlot" in html, kind


def test_convergence_holds_each_value_and_the_best_so_far(study: tf.Study) -> None:
    fig = interactive.plot_convergence(study)
    values, best = fig.data
    c = convergence(study.trials, direction="minimize")
    np.testing.assert_array_equal(values.x, c.x)
    np.testing.assert_array_equal(values.y, c.value)
    assert best.y[-1] == study.best_value and best.line.shape == "hv"


def test_slices_draw_one_panel_per_parameter_on_its_scale(study: tf.Study) -> None:
    fig = interactive.plot_slices(study)
    assert sorted(t.name for t in fig.data) == ["kind", "n", "x"]
    by_name = {t.name: t for t in fig.data}
    assert set(by_name["kind"].x) == {"a", "b"}
    assert len(by_name["x"].x) == len(study.trials)
    assert "log" in {
        getattr(axis, "type", None) for axis in (fig.layout.xaxis, fig.layout.xaxis2, fig.layout.xaxis3)
    }


def test_importance_and_parallel_coordinates_hold_the_static_data(study: tf.Study) -> None:
    (bar,) = interactive.plot_importance(study).data
    assert dict(zip(bar.y, bar.x)) == pytest.approx(dict(importance(study.trials, direction="minimize")))
    (lines,) = interactive.plot_parallel_coordinates(study).data
    assert [d.label for d in lines.dimensions][-1] == "value"
    assert len(lines.dimensions[-1].values) == len(study.trials)


def test_intermediate_curves_one_line_per_trial(study: tf.Study) -> None:
    fig = interactive.plot_intermediate(study)
    assert len(fig.data) == len(study.trials)
    assert list(fig.data[0].x) == [0, 1, 2]


def test_the_front_rings_the_best_trials_and_the_hypervolume_rises() -> None:
    two = tf.Study.create(
        space={"x": tf.Real(0, 1)}, directions=["minimize", "minimize"], algo="random", seed=0
    )
    two.optimize(lambda c: [c["x"], (1 - c["x"]) ** 2], 20, progress=False)
    fig = interactive.plot_pareto_front(two)
    ringed = next(t for t in fig.data if t.name == "Pareto front")
    assert sorted(ringed.hovertext) == sorted(f"trial {t.number}" for t in two.best_trials)
    (line,) = interactive.plot_hypervolume(two, reference=[1.0, 1.0]).data
    assert np.all(np.diff(np.asarray(line.y)) >= 0)
    with pytest.raises(tf.StudyError, match="two objective indices"):
        interactive.plot_pareto_front(two, objectives=(0, 2))
