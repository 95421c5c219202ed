"""The GP's posterior along one parameter with the acquisition below it.

The figure of Brochu, Cora & de Freitas (2010), "A tutorial on Bayesian
optimization of expensive cost functions" (their Figure 1).

Pure data on treefarm's own model code: the numeric parameters active in
every complete trial are mapped to [0, 1] (on a log scale where
:mod:`.params` draws a log axis), the losses are fitted by
:func:`treefarm.bo.models.gp.fit_gp` (Matérn-5/2 ARD, MAP hyperparameters,
robust output transform), and the posterior is read along ``address`` with
the other parameters held at the best trial's values
(:meth:`~treefarm.bo.models.gp.GaussianProcess.slice_1d`). Below it, the log
expected improvement (:func:`treefarm.bo.acquisition.log_ei`) over the best
observed loss. Categorical and conditional parameters are left out of the
model (their effect becomes noise to it); mean, band and observations are on
the model's scale (lower is better). A trial's stored ``loss_variance`` (its
folds' spread) is its own noise, as in the GP optimizer. On large studies the
GP is fitted to an evenly spaced subsample of ``max_points`` trials plus the best one.

Notation (shapes): n fitted trials, d numeric parameters, g grid points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..exceptions import ConfigError, StudyError, format_values
from ..storage import TrialRecord
from ..study.state.outcome import loss_variance
from .history import _even
from .params import ParamValues, _all_numbers, _column, importance
from .source import complete_trials, losses

__all__ = ["Posterior", "gp_posterior", "gp_posteriors", "numeric_addresses"]


@dataclass(frozen=True)
class Posterior:
    """Along ``address``: ``grid`` (g,) in the parameter's units, posterior ``mean``
    and ``std`` (g,) and log EI ``acquisition`` (g,); ``x``, ``y`` (n,) the fitted
    trials' values of the parameter and losses on the model scale; ``at`` the best trial."""

    address: str
    grid: np.ndarray
    mean: np.ndarray
    std: np.ndarray
    acquisition: np.ndarray
    x: np.ndarray
    y: np.ndarray
    log: bool
    at: int
    shown: int
    total: int


def _numeric(done: Sequence[TrialRecord]) -> list[ParamValues]:
    """The numeric parameters active in every trial of ``done``."""
    out = []
    configs = [t.params for t in done]
    for address in configs[0] if configs else ():
        values = [c.get(address) for c in configs]
        if _all_numbers(values):
            out.append(_column(address, list(range(len(done))), values))
    return out


def numeric_addresses(trials: Sequence[TrialRecord]) -> list[str]:
    """The parameters :func:`gp_posterior` can draw: numeric and active in every complete trial."""
    return [c.address for c in _numeric(complete_trials(trials))]


def _to_unit(c: ParamValues, v: np.ndarray) -> np.ndarray:
    t, ref = (np.log(v), np.log(c.numbers)) if c.log else (v, c.numbers)
    lo, hi = float(ref.min()), float(ref.max())
    return (t - lo) / (hi - lo) if hi > lo else np.full(len(v), 0.5)


def _from_unit(c: ParamValues, u: np.ndarray) -> np.ndarray:
    ref = np.log(c.numbers) if c.log else c.numbers
    t = float(ref.min()) + u * (float(ref.max()) - float(ref.min()))
    return np.exp(t) if c.log else t


def gp_posterior(
    trials: Sequence[TrialRecord],
    address: str | None = None,
    *,
    direction: str,
    max_points: int = 200,
    n_grid: int = 200,
    seed: int = 0,
) -> Posterior:
    """The 1-D posterior and acquisition along ``address`` (see the module docstring);
    ``None`` picks the numeric parameter that matters most (:func:`.params.importance`,
    ranked on at most 20,000 evenly spaced trials)."""
    done = complete_trials(trials)
    names = [c.address for c in _numeric(done)]
    if address is None and names:
        sample = [done[i] for i in _even(len(done), 20_000)]
        address = next(a for a, _ in importance(sample, direction=direction) if a in names)
    if address not in names:
        raise ConfigError(
            f"address must name a numeric parameter active in every complete trial ({names}), "
            f"but got {format_values(address=address)}"
        )
    found = gp_posteriors(trials, direction=direction, max_points=max_points, n_grid=n_grid, seed=seed)
    return next(p for p in found if p.address == address)


def gp_posteriors(
    trials: Sequence[TrialRecord],
    *,
    direction: str,
    at: int | None = None,
    max_points: int = 200,
    n_grid: int = 200,
    seed: int = 0,
) -> list[Posterior]:
    """The posterior along every numeric parameter from one GP fit, the others held at
    complete trial number ``at`` (None: the best trial), which is always among the fitted."""
    from ..bo.acquisition import log_ei
    from ..bo.models.domain import Domain
    from ..bo.models.gp import fit_gp

    done = complete_trials(trials)
    cols = _numeric(done)
    if len(done) < 3 or not cols:
        raise StudyError(
            "a GP posterior needs at least 3 complete trials with a numeric parameter, "
            f"but got {format_values(n=len(done), numeric=len(cols))}"
        )
    loss = np.array(losses(done, direction))
    numbers = [t.number for t in done]
    if at is not None and at not in numbers:
        raise StudyError(f"at must name a complete trial of the study, but got {format_values(at=at)}")
    held = int(np.argmin(loss)) if at is None else numbers.index(at)
    keep = np.union1d(_even(len(done), max_points - 1), [held])
    X = np.column_stack([_to_unit(c, c.numbers[keep]) for c in cols])
    y_var = np.array([loss_variance(t.user_attrs) or 0.0 for t in done])[keep]
    model = fit_gp(
        X,
        loss[keep],
        Domain.continuous_box(len(cols)),
        y_var=y_var if np.any(y_var > 0.0) else None,
        rng=np.random.default_rng(seed),
    )
    grid = np.linspace(0.0, 1.0, n_grid)
    point = np.array([_to_unit(c, c.numbers[held : held + 1])[0] for c in cols])
    out = []
    for j, c in enumerate(cols):
        mean, std = model.slice_1d(point, j, grid)
        acquisition = log_ei(mean, std, float(model.y.min()))[0]
        out.append(
            Posterior(
                c.address,
                _from_unit(c, grid),
                mean,
                std,
                acquisition,
                c.numbers[keep],
                model.y,
                c.log,
                done[held].number,
                len(keep),
                len(done),
            )
        )
    return out
