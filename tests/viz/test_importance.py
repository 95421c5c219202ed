"""The importance estimate recovers first-order indices known in closed form, also on
trials a search sampled together, and its plot's label fits the figure."""

from __future__ import annotations

import numpy as np
import pytest

import treefarm as tf
from treefarm.viz import StudyData, importance, plot_importance

from .records import record

#: Y = 4 x1 + 2 x2 + sin(2 pi x3) + 0 x4, X uniform on [0, 1]^4 and independent:
#: Var = 16/12, 4/12, 1/2, 0, so S_j = Var_j / sum (Sobol' 1993).
VARIANCES = {"x1": 16 / 12, "x2": 4 / 12, "x3": 1 / 2, "x4": 0.0}
KNOWN = {k: v / sum(VARIANCES.values()) for k, v in VARIANCES.items()}


def _loss(x: dict[str, float]) -> float:
    return 4 * x["x1"] + 2 * x["x2"] + float(np.sin(2 * np.pi * x["x3"]))


def _trials(points: list[dict[str, float]]) -> list[tf.TrialRecord]:
    return [record(i, _loss(p), p) for i, p in enumerate(points)]


def _uniform(rng: np.random.Generator, n: int) -> list[dict[str, float]]:
    return [{k: float(v) for k, v in zip(VARIANCES, rng.random(4))} for _ in range(n)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_known_indices_are_recovered_within_005(seed: int) -> None:
    scores = dict(importance(_trials(_uniform(np.random.default_rng(seed), 600)), direction="minimize"))
    for name, expected in KNOWN.items():
        assert abs(scores[name] - expected) < 0.05, (name, scores[name], expected)
    assert sum(scores.values()) <= 1.0


def test_trials_a_search_sampled_together_keep_their_indices() -> None:
    """A model-based search samples good values of every parameter together late in a
    run; the shares must still be each parameter's own (and sum to at most 1)."""
    rng = np.random.default_rng(0)
    points = _uniform(rng, 300)
    for _ in range(300):  # exploitation: every parameter near the optimum at once
        t = rng.random() * 0.3
        points.append(
            {"x1": t, "x2": min(1.0, t + 0.05 * rng.random()), "x3": 0.75 + 0.1 * (t - 0.15), "x4": t}
        )
    scores = dict(importance(_trials(points), direction="minimize"))
    assert sum(scores.values()) <= 1.0
    assert scores["x4"] < 0.05, scores  # no effect, however correlated with the others
    assert scores["x1"] == max(scores.values())


def test_an_optuna_fanova_agrees_on_the_ranking() -> None:
    """Optuna's fANOVA (a random forest marginalized) ranks the parameters alike."""
    optuna = pytest.importorskip("optuna")
    pytest.importorskip("sklearn")
    points = _uniform(np.random.default_rng(3), 300)
    ours = dict(importance(_trials(points), direction="minimize"))
    study = optuna.create_study()
    dist = optuna.distributions.FloatDistribution(0.0, 1.0)
    for p in points:
        study.add_trial(
            optuna.trial.create_trial(params=p, distributions=dict.fromkeys(p, dist), value=_loss(p))
        )
    theirs = optuna.importance.get_param_importances(
        study, evaluator=optuna.importance.FanovaImportanceEvaluator(seed=0)
    )
    assert sorted(ours, key=ours.__getitem__) == sorted(theirs, key=theirs.__getitem__)


def test_the_plot_label_fits_the_figure() -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    names = {
        "x1": "optimizer.sgd.momentum",
        "x2": "learning_rate",
        "x3": "a_rather_long_parameter_name_indeed",
    }
    trials = [
        record(t.number, t.value, {names.get(k, k): v for k, v in t.params.items()})
        for t in _trials(_uniform(np.random.default_rng(0), 100))
    ]
    fig = plot_importance(StudyData("a study with a long name", "minimize", trials))
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    for text in (ax.xaxis.label, ax.title, *ax.get_yticklabels()):
        box = text.get_window_extent(renderer)
        assert box.x0 >= 0 and box.x1 <= fig.bbox.width, (text.get_text(), box, fig.bbox.width)
