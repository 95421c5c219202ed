"""Figures of a study with several objectives: the Pareto front (two or three
objectives, feasible and infeasible marked, coloured by trial number so the
front's progress over time shows) and the hypervolume by trial; and of a study
at several fidelities: its best value against the cost spent."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..exceptions import StudyError
from ..objectives import Objectives
from .cost import anytime
from .figures import Figure, _figure
from .front import front, hypervolume_history
from .source import StudyLike, as_study_data

__all__ = ["plot_cost", "plot_hypervolume", "plot_pareto_front"]


def _label(i: int, objectives: Objectives) -> str:
    return f"{objectives.label(i)} ({objectives.directions[i]})"


def plot_pareto_front(study: StudyLike, *, objectives: Sequence[int] | None = None) -> Figure:
    """Every completed trial's values, the feasible front ringed and joined,
    infeasible trials as crosses, colour by trial number. ``objectives`` picks two
    or three of them (default: the first two, or all three of three)."""
    data = as_study_data(study)
    every = data.objectives
    m = len(every)
    if m < 2:
        raise StudyError(f"a Pareto front needs a study with several objectives, but got directions={every.argument!r}")
    chosen = list(objectives) if objectives is not None else list(range(min(m, 3)))
    if len(chosen) not in (2, 3) or any(not isinstance(i, int) or not 0 <= i < m for i in chosen):
        raise StudyError(f"objectives must be two or three indices below {m}, but got objectives={objectives!r}")
    f = front(data.trials, every)
    fig = _figure(6.0, 5.0)
    three = len(chosen) == 3
    ax = fig.add_subplot(projection="3d") if three else fig.add_subplot()
    cols = [f.values[:, i] for i in chosen]
    ok, bad = f.feasible, ~f.feasible
    scatter = ax.scatter(*(c[ok] for c in cols), c=f.numbers[ok], cmap="viridis", s=14, label="feasible")
    if bad.any():
        ax.scatter(*(c[bad] for c in cols), marker="x", color="0.55", s=14, label="infeasible")
    on = f.on_front
    ax.scatter(*(c[on] for c in cols), facecolors="none", edgecolors="C3", s=60, linewidths=1.2, label="Pareto front")
    if not three and on.any():
        order = cols[0][on].argsort()
        ax.plot(cols[0][on][order], cols[1][on][order], color="C3", linewidth=0.8, drawstyle="steps-pre" if every.maximizes(chosen[1]) else "steps-post")
    for axis, i in zip(("x", "y", "z"), chosen):
        getattr(ax, f"set_{axis}label")(_label(i, every))
    fig.colorbar(scatter, ax=ax, label="trial number", shrink=0.8)
    ax.set_title(f"{data.name}: {int(on.sum())} trials on the front of {len(f.numbers)}")
    ax.legend(loc="best", fontsize=8)
    return fig


def plot_hypervolume(study: StudyLike, *, reference: Sequence[float] | None = None) -> Figure:
    """The feasible front's hypervolume after each trial, up to ``reference``
    (default: just beyond the worst feasible value of each objective)."""
    data = as_study_data(study)
    if not data.objectives.several:
        raise StudyError(
            f"a hypervolume needs a study with several objectives, but got directions={list(data.directions)!r} "
            "(plot the convergence of one objective)"
        )
    h = hypervolume_history(data.trials, data.objectives, reference)
    fig = _figure()
    ax = fig.add_subplot()
    ax.plot(h.numbers, h.hypervolume, drawstyle="steps-post")
    ax.set_xlabel("trial number")
    ax.set_ylabel("hypervolume")
    ax.set_title(f"{data.name}: reference {[round(float(r), 4) for r in h.reference]}")
    return fig


def plot_cost(study: StudyLike) -> Figure:
    """The best full-fidelity value against the cost spent (the anytime curve), every
    evaluation behind it coloured by the fidelity it was made at (see :mod:`.cost`)."""
    data = as_study_data(study)
    stored = data.fidelity
    a = anytime(data.trials, data.direction, full_fidelity=stored)
    fig = _figure()
    ax = fig.add_subplot()
    cheap = ~a.full & np.isfinite(a.value)
    if cheap.any():
        points = ax.scatter(a.spent[cheap], a.value[cheap], c=a.fidelity[cheap], s=10, cmap="viridis", alpha=0.7)
        fig.colorbar(points, ax=ax, label="fidelity (cheaper evaluations)")
    ax.scatter(a.spent[a.full], a.value[a.full], s=12, color="k", alpha=0.6, label="full evaluations")
    ax.step(a.spent, a.best, where="post", color="C3", label="best full evaluation")
    ax.set_xlabel("cost spent")
    ax.set_ylabel("value")
    ax.set_title(f"{data.name}: best value against cost")
    ax.legend(loc="upper right", fontsize=8)
    return fig
