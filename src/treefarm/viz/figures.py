"""The static plots: matplotlib figures drawn from the data of :mod:`treefarm.viz`.

Each function takes a study (a :class:`~treefarm.Study` or a
:class:`~treefarm.viz.StudyData`) and returns a
:class:`matplotlib.figure.Figure` built without pyplot (no global figure
state, any backend): save it with ``fig.savefig("out.png")``. Where a plot
shows a sample of a large study, the figure says so in its bottom line.
matplotlib is imported here only, on first use (``pip install treefarm[plot]``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..exceptions import StudyError, format_values
from . import history, params, posterior, structures
from .source import StudyData, StudyLike, as_study_data, check_plottable, complete_trials

__all__ = [
    "plot_convergence",
    "plot_gp_posterior",
    "plot_importance",
    "plot_intermediate",
    "plot_parallel_coordinates",
    "plot_slices",
    "plot_structures",
]

Figure = Any  # matplotlib.figure.Figure, imported lazily


def _figure(width: float = 7.0, height: float = 4.0) -> Figure:
    from matplotlib.figure import Figure as MplFigure

    return MplFigure(figsize=(width, height), layout="constrained")


def _note(fig: Figure, shown: int, total: int, what: str = "trials") -> None:
    if shown < total:
        fig.supxlabel(f"showing {shown:,} of {total:,} {what} (sampled)", fontsize=8, color="0.35")


def plot_convergence(study: StudyLike | Sequence[StudyLike], *, axis: str = "number") -> Figure:
    """Best value so far against the trial number (``axis="time"``: seconds).
    Several studies (a list): their median and interquartile band against the
    number of completed trials, each study's own curve faint behind."""
    fig = _figure()
    ax = fig.add_subplot()
    if isinstance(study, Sequence):
        datas = [as_study_data(s) for s in study]
        for d in datas:
            check_plottable(d, minimum=1)
        direction = _one_direction(datas)
        shown = datas[0].objectives
        band = history.convergence_band([d.trials for d in datas], direction=direction)
        for d in datas:
            best = history.best_so_far(
                np.array([t.value for t in complete_trials(d.trials)], dtype=float), direction
            )
            ax.plot(np.arange(1, len(best) + 1), best, color="0.8", linewidth=0.8, drawstyle="steps-post")
        ax.fill_between(band.n, band.low, band.high, alpha=0.3, step="post", label="interquartile range")
        ax.plot(band.n, band.median, drawstyle="steps-post", label=f"median of {band.n_studies} studies")
        ax.set_xlabel("completed trials")
    else:
        data = as_study_data(study)
        check_plottable(data)
        shown = data.objectives
        c = history.convergence(data.trials, direction=data.direction, axis=axis)
        ax.scatter(c.x, c.value, s=6, color="0.6", label="trial value")
        best_x = np.append(c.best_x, c.x[-1]) if len(c.x) else c.best_x
        best = np.append(c.best, c.best[-1]) if len(c.best) else c.best
        ax.plot(best_x, best, drawstyle="steps-post", color="C0", label="best so far")
        ax.set_xlabel("trial number" if axis == "number" else "seconds since the first trial")
        ax.set_title(data.name)
        _note(fig, c.shown, c.total, "values")
    # with several objectives, the one shown (the first) is named with its direction
    ax.set_ylabel(f"{shown.label(0)} ({shown.directions[0]})" if shown.several else shown.label(0))
    ax.legend(loc="upper right")
    return fig


def _one_direction(datas: Sequence[StudyData]) -> str:
    """The direction the studies share (of their first objective): a band of studies
    that do not share one would mix losses and scores."""
    found = {d.name: d.direction for d in datas}
    if not datas:
        raise StudyError("a convergence band needs at least one study, but got studies=[]")
    if len(set(found.values())) > 1:
        raise StudyError(f"studies plotted together must share one direction, but got {format_values(**found)}")
    return datas[0].direction


def plot_slices(study: StudyLike) -> Figure:
    """Value against each parameter, from the complete trials where it is active."""
    data = as_study_data(study)
    found = params.slices(data.trials)
    if not found:
        raise StudyError(f"the study {data.name!r} has no complete trial to plot")
    n = len(found)
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig = _figure(3.2 * cols, 2.8 * rows)
    axes = fig.subplots(rows, cols, squeeze=False)
    for ax, s in zip(axes.flat, found):
        ax.scatter(s.x, s.y, s=5, alpha=0.5)
        ax.set_xlabel(s.column.address)
        ax.set_ylabel("value")
        if s.column.categorical:
            ax.set_xticks(range(len(s.column.categories)), s.column.categories)
        elif s.column.log:
            ax.set_xscale("log")
            ax.minorticks_off()
        if s.shown < s.total:
            ax.set_title(f"{s.shown:,} of {s.total:,} shown", fontsize=8)
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    return fig


def plot_importance(study: StudyLike) -> Figure:
    """Each parameter's main-effect share of the loss variance (see
    :func:`treefarm.viz.importance`: the first-order index of an additive model
    fitted to the trials), largest on top. The figure widens with the longest
    parameter name so that no label is cut."""
    data = as_study_data(study)
    scores = params.importance(data.trials, direction=data.direction)
    longest = max((len(a) for a, _ in scores), default=0)
    fig = _figure(max(6.0, 4.0 + 0.09 * longest), 0.45 * max(len(scores), 2) + 1.2)
    ax = fig.add_subplot()
    names = [a for a, _ in scores][::-1]
    ax.barh(names, [v for _, v in scores][::-1])
    ax.set_xlabel("main-effect share of the loss variance (first-order index)")
    ax.set_title(f"{data.name}: parameter importance")
    return fig


def _runs(xs: np.ndarray, ys: np.ndarray) -> list[np.ndarray]:
    """The polyline through ``(xs, ys)`` cut where ``ys`` is NaN: its runs of 2+ points, (k, 2) each."""
    out, start = [], 0
    for end in [*np.flatnonzero(np.isnan(ys)), len(ys)]:
        if end - start >= 2:
            out.append(np.column_stack([xs[start:end], ys[start:end]]))
        start = end + 1
    return out


def plot_parallel_coordinates(study: StudyLike) -> Figure:
    """One vertical axis per parameter, one line per trial coloured by value
    (darker is better, drawn on top); a conditional parameter's axis is blank
    where inactive. The lines are one LineCollection (fast on 500 lines)."""
    from matplotlib import colormaps
    from matplotlib.cm import ScalarMappable
    from matplotlib.collections import LineCollection
    from matplotlib.colors import Normalize

    data = as_study_data(study)
    p = params.parallel_coordinates(data.trials, direction=data.direction)
    fig = _figure(max(4.0, 1.6 * len(p.addresses) + 1.5), 4.5)
    ax = fig.add_subplot()
    norm = Normalize(float(p.values.min()), float(p.values.max())) if len(p.values) else Normalize()
    maximize = data.objectives.maximizes(0)
    cmap = colormaps["viridis_r" if maximize else "viridis"]
    order = np.argsort(p.values if maximize else -p.values, kind="stable")
    xs = np.arange(len(p.addresses), dtype=float)
    segments, colors = [], []
    for i in order:
        for run in _runs(xs, p.unit[i]):
            segments.append(run)
            colors.append(cmap(norm(p.values[i])))
    ax.add_collection(LineCollection(segments, colors=colors, linewidths=0.7, alpha=0.6))
    for j, (ticks, labels) in enumerate(p.ticks):
        ax.axvline(j, color="0.2", linewidth=0.8)
        for y, label in zip(ticks, labels):
            ax.text(j + 0.03, y, label, fontsize=7, va="center")
    ax.set_xticks(xs, p.addresses)
    ax.set_yticks([])
    ax.set_xlim(-0.2, max(len(xs) - 0.6, 0.8))
    ax.set_ylim(-0.05, 1.05)
    fig.colorbar(ScalarMappable(norm, cmap), ax=ax, label="value")
    _note(fig, p.shown, p.total)
    return fig


def plot_intermediate(study: StudyLike) -> Figure:
    """The intermediate values each trial reported, one line per trial."""
    data = as_study_data(study)
    c = history.intermediate_curves(data.trials, direction=data.direction)
    fig = _figure()
    ax = fig.add_subplot()
    for number, steps, values in zip(c.numbers, c.steps, c.values):
        ax.plot(steps, values, linewidth=0.8, alpha=0.7, label=f"trial {number}")
    ax.set_xlabel("step")
    ax.set_ylabel("intermediate value")
    ax.set_title(f"{data.name}: {c.total:,} trials reported intermediate values")
    _note(fig, c.shown, c.total, "curves (the best)")
    return fig


def plot_structures(study: StudyLike, *, k: int = 10) -> Figure:
    """A table of the ``k`` best distinct expressions: rank, trial, value, depth, expression."""
    data = as_study_data(study)
    rows = structures.best_structures(data.trials, direction=data.direction, k=k)
    fig = _figure(9.0, 0.35 * (len(rows) + 1) + 0.8)
    ax = fig.add_subplot()
    ax.axis("off")
    cells = [
        [str(i + 1), str(r.number), f"{r.value:.6g}", str(r.depth), r.expression[:90]]
        for i, r in enumerate(rows)
    ]
    if cells:
        table = ax.table(
            cellText=cells,
            colLabels=["rank", "trial", "value", "depth", "expression"],
            loc="upper center",
            cellLoc="left",
            colWidths=[0.06, 0.08, 0.12, 0.07, 0.67],
        )
        table.auto_set_font_size(False)
        table.set_fontsize(8)
    ax.set_title(f"{data.name}: best structures")
    return fig


def plot_gp_posterior(study: StudyLike, address: str | None = None) -> Figure:
    """The GP posterior mean and 95% band along ``address`` (default: the most
    important numeric parameter) with the log expected improvement below it."""
    data = as_study_data(study)
    p = posterior.gp_posterior(data.trials, address, direction=data.direction)
    address = p.address
    fig = _figure(7.0, 5.0)
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=[3, 1])
    top.fill_between(p.grid, p.mean - 1.96 * p.std, p.mean + 1.96 * p.std, alpha=0.25, label="95% band")
    top.plot(p.grid, p.mean, label="posterior mean")
    top.scatter(p.x, p.y, s=6, color="k", alpha=0.5, label="trials (projected)")
    top.set_ylabel("loss, model scale")
    top.set_title(f"{data.name}: GP along {address} (others at trial {p.at})")
    top.legend(loc="upper right", fontsize=8)
    bottom.plot(p.grid, p.acquisition, color="C3")
    bottom.set_ylabel("log EI")
    bottom.set_xlabel(address)
    if p.log:
        bottom.set_xscale("log")
        bottom.minorticks_off()  # minor log ticks cost seconds of layout and add nothing here
    _note(fig, p.shown, p.total, "trials fitted")
    return fig


KINDS = {
    "convergence": plot_convergence,
    "slices": plot_slices,
    "importance": plot_importance,
    "parallel": plot_parallel_coordinates,
    "intermediate": plot_intermediate,
    "structures": plot_structures,
    "gp": plot_gp_posterior,
}
"""The plot kinds of ``treefarm plot --kind``."""
