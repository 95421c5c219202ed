"""Interactive figures for a notebook: the plots of :mod:`treefarm.viz` as plotly figures.

    from treefarm.viz import interactive

    interactive.plot_convergence(study)          # shown by Jupyter; hover a point for its trial
    interactive.plot_slices(study).write_html("slices.html")

Each function takes what its static twin in :mod:`treefarm.viz` takes and
draws the same data (the pure NumPy functions beside them), as a
``plotly.graph_objects.Figure``: zoom, pan, and a hover label naming each
point's trial and value. The static matplotlib figures stay the default for
files and the documentation; plotly is imported here only, on first use
(``pip install 'treefarm[plotly]'``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..exceptions import StudyError, import_optional
from . import history, params, posterior
from .front import front, hypervolume_history
from .source import StudyLike, as_study_data

__all__ = [
    "KINDS",
    "plot_convergence",
    "plot_gp_posterior",
    "plot_hypervolume",
    "plot_importance",
    "plot_intermediate",
    "plot_parallel_coordinates",
    "plot_pareto_front",
    "plot_slices",
]

Figure = Any  # plotly.graph_objects.Figure, imported lazily


def _go() -> Any:
    return import_optional("plotly.graph_objects", needed="interactive figures need plotly", extra="plotly")


def _figure(title: str, x: str, y: str, shown: int = 0, total: int = 0, what: str = "trials") -> Figure:
    """An empty figure with its title and axis labels; a sampled plot says so under its title."""
    if shown < total:
        title += f"<br><sup>showing {shown:,} of {total:,} {what} (sampled)</sup>"
    return _go().Figure(
        layout={"title": {"text": title}, "xaxis": {"title": {"text": x}}, "yaxis": {"title": {"text": y}}}
    )


def plot_convergence(study: StudyLike, *, axis: str = "number") -> Figure:
    """Each trial's value and the best so far against the trial number (``axis="time"``: seconds)."""
    data = as_study_data(study)
    c = history.convergence(data.trials, direction=data.direction, axis=axis)
    label = "trial number" if axis == "number" else "seconds since the first trial"
    fig = _figure(data.name, label, "value", c.shown, c.total, "values")
    go = _go()
    fig.add_trace(
        go.Scatter(x=c.x, y=c.value, mode="markers", name="trial value", marker={"size": 4, "color": "gray"})
    )
    best_x = np.append(c.best_x, c.x[-1]) if len(c.x) else c.best_x
    best = np.append(c.best, c.best[-1]) if len(c.best) else c.best
    fig.add_trace(go.Scatter(x=best_x, y=best, mode="lines", name="best so far", line={"shape": "hv"}))
    return fig


def plot_slices(study: StudyLike) -> Figure:
    """Value against each parameter where it is active, one panel each (a log axis for a log parameter)."""
    from plotly.subplots import make_subplots

    data = as_study_data(study)
    found = params.slices(data.trials)
    if not found:
        raise StudyError(f"the study {data.name!r} has no complete trial to plot")
    cols = min(len(found), 3)
    rows = -(-len(found) // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[s.column.address for s in found])
    for i, s in enumerate(found):
        x = np.array(s.column.categories)[s.x.astype(int)] if s.column.categorical else s.x
        scatter = _go().Scatter(
            x=x, y=s.y, mode="markers", marker={"size": 5, "opacity": 0.6}, name=s.column.address
        )
        fig.add_trace(scatter, row=i // cols + 1, col=i % cols + 1)
        if s.column.log:
            fig.update_xaxes(type="log", row=i // cols + 1, col=i % cols + 1)
    fig.update_layout(title={"text": data.name}, showlegend=False)
    return fig


def plot_importance(study: StudyLike) -> Figure:
    """Each parameter's main-effect share of the loss variance, largest on top
    (see :func:`treefarm.viz.importance`)."""
    data = as_study_data(study)
    scores = params.importance(data.trials, direction=data.direction)[::-1]
    fig = _figure(f"{data.name}: parameter importance", "main-effect share of the loss variance", "")
    fig.add_trace(_go().Bar(x=[v for _, v in scores], y=[a for a, _ in scores], orientation="h"))
    return fig


def plot_parallel_coordinates(study: StudyLike) -> Figure:
    """One axis per parameter and one line per trial, coloured by value; drag along an
    axis to select the trials through a range. An inactive conditional parameter sits
    below its axis (plotly draws no gaps)."""
    data = as_study_data(study)
    p = params.parallel_coordinates(data.trials, direction=data.direction)
    dimensions = [
        {
            "label": a,
            "values": np.nan_to_num(p.unit[:, j], nan=-0.1),
            "range": [-0.1, 1.0],
            "tickvals": t,
            "ticktext": lab,
        }
        for j, (a, (t, lab)) in enumerate(zip(p.addresses, p.ticks))
    ]
    dimensions.append({"label": "value", "values": p.values})
    scale = "Viridis" if data.objectives.sign(0) > 0 else "Viridis_r"
    line = {"color": p.values, "colorscale": scale, "showscale": True}
    fig = _figure(data.name, "", "", p.shown, p.total)
    fig.add_trace(_go().Parcoords(line=line, dimensions=dimensions))
    return fig


def plot_intermediate(study: StudyLike) -> Figure:
    """The intermediate values each trial reported, one line per trial (click the legend to hide one)."""
    data = as_study_data(study)
    c = history.intermediate_curves(data.trials, direction=data.direction)
    title = f"{data.name}: {c.total:,} trials reported intermediate values"
    fig = _figure(title, "step", "intermediate value", c.shown, c.total, "curves (the best)")
    for number, steps, values in zip(c.numbers, c.steps, c.values):
        fig.add_trace(_go().Scatter(x=steps, y=values, mode="lines", name=f"trial {number}"))
    return fig


def plot_gp_posterior(study: StudyLike, address: str | None = None) -> Figure:
    """The GP posterior mean and 95% band along ``address`` (default: the most
    important numeric parameter), with the trials projected on it."""
    data = as_study_data(study)
    p = posterior.gp_posterior(data.trials, address, direction=data.direction)
    go = _go()
    fig = _figure(
        f"{data.name}: GP along {p.address} (others at trial {p.at})",
        p.address,
        "loss, model scale",
        p.shown,
        p.total,
        "trials fitted",
    )
    band = np.concatenate([p.mean + 1.96 * p.std, (p.mean - 1.96 * p.std)[::-1]])
    fig.add_trace(
        go.Scatter(
            x=np.concatenate([p.grid, p.grid[::-1]]),
            y=band,
            fill="toself",
            opacity=0.25,
            mode="none",
            name="95% band",
        )
    )
    fig.add_trace(go.Scatter(x=p.grid, y=p.mean, mode="lines", name="posterior mean"))
    fig.add_trace(
        go.Scatter(
            x=p.x, y=p.y, mode="markers", marker={"size": 4, "color": "black"}, name="trials (projected)"
        )
    )
    if p.log:
        fig.update_xaxes(type="log")
    return fig


def plot_pareto_front(study: StudyLike, *, objectives: Sequence[int] = (0, 1)) -> Figure:
    """Every completed trial's values on two objectives, the feasible front ringed,
    infeasible trials as crosses; hovering names the trial."""
    data = as_study_data(study)
    m = len(data.directions)
    if m < 2 or len(objectives) != 2 or any(not isinstance(i, int) or not 0 <= i < m for i in objectives):
        raise StudyError(
            f"a Pareto front needs two objective indices below the study's {m}, but got objectives={objectives!r}"
        )
    f = front(data.trials, data.objectives)
    i, j = objectives
    label = [f"objective {k} ({data.directions[k]})" for k in (i, j)]
    fig = _figure(
        f"{data.name}: {int(f.on_front.sum())} trials on the front of {len(f.numbers)}", label[0], label[1]
    )
    go = _go()
    for name, mask, marker in (
        ("feasible", f.feasible, {"color": f.numbers[f.feasible], "colorscale": "Viridis", "size": 7}),
        ("infeasible", ~f.feasible, {"symbol": "x", "color": "gray", "size": 7}),
        ("Pareto front", f.on_front, {"symbol": "circle-open", "color": "red", "size": 13}),
    ):
        text = [f"trial {n}" for n in f.numbers[mask]]
        fig.add_trace(
            go.Scatter(
                x=f.values[mask, i],
                y=f.values[mask, j],
                mode="markers",
                name=name,
                marker=marker,
                hovertext=text,
            )
        )
    return fig


def plot_hypervolume(study: StudyLike, *, reference: Sequence[float] | None = None) -> Figure:
    """The feasible front's hypervolume after each trial (see :func:`treefarm.viz.hypervolume_history`)."""
    data = as_study_data(study)
    h = hypervolume_history(data.trials, data.objectives, reference)
    fig = _figure(
        f"{data.name}: reference {[round(float(r), 4) for r in h.reference]}", "trial number", "hypervolume"
    )
    fig.add_trace(
        _go().Scatter(x=h.numbers, y=h.hypervolume, mode="lines", line={"shape": "hv"}, name="hypervolume")
    )
    return fig


KINDS = {
    "convergence": plot_convergence,
    "slices": plot_slices,
    "importance": plot_importance,
    "parallel": plot_parallel_coordinates,
    "intermediate": plot_intermediate,
    "gp": plot_gp_posterior,
    "front": plot_pareto_front,
    "hypervolume": plot_hypervolume,
}
"""The interactive kinds, named as ``treefarm plot --kind`` names the static ones."""
