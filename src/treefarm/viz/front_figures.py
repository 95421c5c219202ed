"""Figures of a study with several objectives: the Pareto front (two or three
objectives, feasible and infeasible marked, coloured by trial number so the
front's progress over time shows) and the hypervolume by trial."""

from __future__ import annotations

from collections.abc import Sequence

from ..exceptions import StudyError
from .figures import Figure, _figure
from .front import front, hypervolume_history
from .source import StudyLike, as_study_data

__all__ = ["plot_hypervolume", "plot_pareto_front"]


def _label(i: int, directions: Sequence[str]) -> str:
    return f"objective {i} ({directions[i]})"


def plot_pareto_front(study: StudyLike, *, objectives: Sequence[int] | None = None) -> Figure:
    """Every completed trial's values, the feasible front ringed and joined,
    infeasible trials as crosses, colour by trial number. ``objectives`` picks two
    or three of them (default: the first two, or all three of three)."""
    data = as_study_data(study)
    m = len(data.directions)
    if m < 2:
        raise StudyError(f"a Pareto front needs a study with several objectives, but got directions={list(data.directions)!r}")
    chosen = list(objectives) if objectives is not None else list(range(min(m, 3)))
    if len(chosen) not in (2, 3) or any(not isinstance(i, int) or not 0 <= i < m for i in chosen):
        raise StudyError(f"objectives must be two or three indices below {m}, but got objectives={objectives!r}")
    f = front(data.trials, data.directions)
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
        ax.plot(cols[0][on][order], cols[1][on][order], color="C3", linewidth=0.8, drawstyle="steps-post" if data.directions[chosen[1]] == "minimize" else "steps-pre")
    for axis, i in zip(("x", "y", "z"), chosen):
        getattr(ax, f"set_{axis}label")(_label(i, data.directions))
    fig.colorbar(scatter, ax=ax, label="trial number", shrink=0.8)
    ax.set_title(f"{data.name}: {int(on.sum())} trials on the front of {len(f.numbers)}")
    ax.legend(loc="best", fontsize=8)
    return fig


def plot_hypervolume(study: StudyLike, *, reference: Sequence[float] | None = None) -> Figure:
    """The feasible front's hypervolume after each trial, up to ``reference``
    (default: just beyond the worst feasible value of each objective)."""
    data = as_study_data(study)
    if len(data.directions) < 2:
        raise StudyError(
            f"a hypervolume needs a study with several objectives, but got directions={list(data.directions)!r} "
            "(plot the convergence of one objective)"
        )
    h = hypervolume_history(data.trials, data.directions, reference)
    fig = _figure()
    ax = fig.add_subplot()
    ax.plot(h.numbers, h.hypervolume, drawstyle="steps-post")
    ax.set_xlabel("trial number")
    ax.set_ylabel("hypervolume")
    ax.set_title(f"{data.name}: reference {[round(float(r), 4) for r in h.reference]}")
    return fig
