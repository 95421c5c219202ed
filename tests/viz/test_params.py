"""Slices, importance and parallel coordinates: conditional parameters only where active."""

from __future__ import annotations

import numpy as np

from treefarm.storage import TrialState
from treefarm.viz import (
    StudyData,
    importance,
    parallel_coordinates,
    plot_importance,
    plot_parallel_coordinates,
    plot_slices,
    slices,
)

from .records import record


def conditional_study(n: int = 400, seed: int = 0) -> StudyData:
    """lr (log-uniform) drives the loss, noise is irrelevant, momentum exists only for sgd."""
    rng = np.random.default_rng(seed)
    trials = []
    for i in range(n):
        lr = float(np.exp(rng.uniform(np.log(1e-5), np.log(1e-1))))
        opt = str(rng.choice(["adam", "sgd"]))
        params = {"lr": lr, "noise": float(rng.random()), "optimizer": opt}
        if opt == "sgd":
            params["momentum"] = float(rng.random())
        loss = (np.log10(lr) + 3) ** 2 + 0.05 * rng.normal()
        trials.append(record(i, float(loss), params))
    trials.append(record(n, None, {"lr": 1e-3, "noise": 0.5, "optimizer": "adam"}, state=TrialState.FAILED))
    return StudyData("conditional", "minimize", trials)


def test_a_conditional_parameter_is_sliced_only_where_active() -> None:
    data = conditional_study()
    found = {s.column.address: s for s in slices(data.trials)}
    sgd = [t for t in data.trials if t.params.get("optimizer") == "sgd" and t.value is not None]
    assert found["momentum"].total == len(sgd) < 400 and found["lr"].total == 400
    assert found["momentum"].x.tolist() == [t.params["momentum"] for t in sgd]
    assert found["momentum"].y.tolist() == [t.value for t in sgd]
    assert found["lr"].column.log and not found["noise"].column.log
    assert found["optimizer"].column.categories == ("adam", "sgd")


def test_the_slices_figure_holds_each_parameter_s_points() -> None:
    data = conditional_study()
    fig = plot_slices(data)
    by_label = {ax.get_xlabel(): ax for ax in fig.axes if ax.get_visible()}
    assert set(by_label) == {"lr", "noise", "optimizer", "momentum"}
    offsets = by_label["momentum"].collections[0].get_offsets()
    assert len(offsets) == sum(t.params.get("optimizer") == "sgd" for t in data.trials if t.value is not None)
    assert by_label["lr"].get_xscale() == "log"
    assert [t.get_text() for t in by_label["optimizer"].get_xticklabels()] == ["adam", "sgd"]


def test_importance_ranks_the_parameter_that_drives_the_loss_first() -> None:
    scores = dict(importance(conditional_study().trials, direction="minimize"))
    assert scores["lr"] > 0.8
    assert scores["noise"] < 0.05 and scores["optimizer"] < 0.05 and scores["momentum"] < 0.1
    fig = plot_importance(conditional_study())
    labels = fig.axes[0].get_yticklabels()
    bars = {label.get_text(): patch.get_width() for label, patch in zip(labels, fig.axes[0].patches)}
    assert bars["lr"] == scores["lr"] and max(bars, key=bars.__getitem__) == "lr"


def test_importance_is_the_same_for_maximizing_the_negated_values() -> None:
    data = conditional_study()
    flipped = [record(t.number, -t.value if t.value is not None else None, t.params) for t in data.trials]
    assert importance(flipped, direction="maximize") == importance(data.trials, direction="minimize")


def test_parallel_coordinates_leave_inactive_axes_blank_and_keep_the_best() -> None:
    data = conditional_study()
    p = parallel_coordinates(data.trials, direction="minimize", max_lines=100)
    assert p.shown == 100 and p.total == 400
    j = p.addresses.index("momentum")
    active = ~np.isnan(p.unit[:, j])
    assert 0 < active.sum() < 100 and np.nanmin(p.unit) >= 0.0 and np.nanmax(p.unit) <= 1.0
    best = min(t.value for t in data.trials if t.value is not None)
    assert best in p.values.tolist()
    assert p.ticks[p.addresses.index("optimizer")] == ([0.0, 1.0], ["adam", "sgd"])
    fig = plot_parallel_coordinates(data)
    (lines,) = fig.axes[0].collections
    segments = lines.get_segments()
    sgd = sum(t.params.get("optimizer") == "sgd" for t in data.trials if t.value is not None)
    assert len(segments) == 400 and sum(len(s) == 4 for s in segments) == sgd  # momentum only for sgd
    every = parallel_coordinates(data.trials, direction="minimize")
    best_row = every.unit[np.argmin(every.values)]
    assert np.array_equal(segments[-1][:, 1], best_row[~np.isnan(best_row)])  # the best is drawn on top


def test_a_constant_loss_makes_no_parameter_important() -> None:
    """Tied losses share their rank: a parameter that drifted over the trials
    (as a search's proposals do) is not read as explaining a constant."""
    trials = [record(i, 1.0, {"x": i / 60, "c": "ab"[i >= 30]}) for i in range(60)]
    assert dict(importance(trials, direction="minimize")) == {"x": 0.0, "c": 0.0}


def test_average_ranks_share_ties() -> None:
    from treefarm.viz.params import average_ranks

    assert average_ranks(np.array([3.0, 1.0, 3.0, 2.0])).tolist() == [2.5, 0.0, 2.5, 1.0]
