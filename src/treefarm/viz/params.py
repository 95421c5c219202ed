"""Loss against the parameters: slices, importance and parallel coordinates (pure data).

The storage keeps configurations (address -> decision), not the space, so the
parameters are read from the trials: an address whose active values are all
numbers is numeric (drawn on a log axis when its values are positive, span two
decades or more and crowd the low end of their range, as log-uniform draws do), any other is categorical (its values as labels).
A conditional parameter appears only in the trials where it is active: its
slice and its importance use those trials only, and parallel coordinates
leave its axis blank for the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter

import numpy as np

from ..storage import JSON, TrialRecord
from .history import _even
from .source import complete_trials, losses

__all__ = ["Parallel", "ParamValues", "Slice", "average_ranks", "columns", "importance", "parallel_coordinates", "slices"]

#: Quantile bins of a numeric parameter in the importance estimate.
IMPORTANCE_BINS = 10


@dataclass(frozen=True)
class ParamValues:
    """One parameter's active values: ``numbers`` (numeric) or ``codes`` into
    ``categories`` (categorical), for the trials at ``rows`` of the complete ones."""

    address: str
    rows: np.ndarray
    numbers: np.ndarray
    categories: tuple[str, ...]
    log: bool

    @property
    def categorical(self) -> bool:
        return bool(self.categories)

    def unit(self) -> np.ndarray:
        """The values mapped to [0, 1] (log scale, category index, constant -> 0.5)."""
        v = np.log(self.numbers) if self.log else self.numbers
        lo, hi = (0.0, len(self.categories) - 1.0) if self.categorical else (float(v.min()), float(v.max()))
        return (v - lo) / (hi - lo) if hi > lo else np.full(len(v), 0.5)


@dataclass(frozen=True)
class Slice:
    """Loss against one parameter: ``x`` (numbers, or category codes) and ``y`` values."""

    column: ParamValues
    x: np.ndarray
    y: np.ndarray
    shown: int
    total: int


@dataclass(frozen=True)
class Parallel:
    """Parallel coordinates: ``unit`` (n, d) in [0, 1] (NaN where inactive) for
    ``addresses``, the trials' ``values`` (n,), and per axis its tick positions and labels."""

    addresses: list[str]
    unit: np.ndarray
    values: np.ndarray
    ticks: list[tuple[list[float], list[str]]]
    shown: int
    total: int


def _all_numbers(values: list[JSON]) -> bool:
    return {type(v) for v in values} <= {int, float}


def _looks_log(v: np.ndarray) -> bool:
    """Whether positive values spanning two decades or more crowd the low end of their
    range (median in its lowest tenth), as log-uniform draws do and uniform ones do not."""
    lo, hi = float(v.min()), float(v.max())
    return lo > 0 and hi >= 100 * lo and float(np.median(v)) - lo < 0.1 * (hi - lo)


def _column(address: str, rows: list[int], values: list[JSON]) -> ParamValues:
    if _all_numbers(values):
        numbers = np.array(values, dtype=float)
        log = _looks_log(numbers)
        return ParamValues(address, np.array(rows), numbers, (), log)
    labels = [str(v) for v in values]
    categories = tuple(sorted(set(labels)))
    index = {c: i for i, c in enumerate(categories)}
    return ParamValues(
        address, np.array(rows), np.array([index[c] for c in labels], dtype=float), categories, False
    )


def columns(done: Sequence[TrialRecord]) -> list[ParamValues]:
    """Every address of the complete trials ``done``, in order of first appearance
    (comprehensions per address: about 0.1 s for 100,000 trials of 4 parameters)."""
    configs = [t.params for t in done]
    found: dict[str, None] = {}
    for config in configs:
        if not found.keys() >= config.keys():
            found.update(dict.fromkeys(config))
    out = []
    for address in found:
        try:  # an address active in every trial: one C-level pass
            out.append(_column(address, list(range(len(configs))), list(map(itemgetter(address), configs))))
        except KeyError:
            rows = [i for i, config in enumerate(configs) if address in config]
            out.append(_column(address, rows, [configs[i][address] for i in rows]))
    return out


def slices(trials: Sequence[TrialRecord], *, max_points: int = 2000) -> list[Slice]:
    """Per parameter, the values of the complete trials where it is active
    against the parameter (an evenly spaced subsample of at most ``max_points``)."""
    done = complete_trials(trials)
    y = np.array([float(t.value or 0.0) for t in done])
    out = []
    for c in columns(done):
        keep = _even(len(c.rows), max_points)
        out.append(Slice(c, c.numbers[keep], y[c.rows[keep]], len(keep), len(c.rows)))
    return out


def _groups(c: ParamValues) -> np.ndarray:
    """Group labels: the category, or the quantile bin of a numeric value."""
    if c.categorical:
        return c.numbers.astype(int)
    edges = np.unique(np.quantile(c.numbers, np.linspace(0, 1, IMPORTANCE_BINS + 1)[1:-1]))
    return np.searchsorted(edges, c.numbers, side="right")


def average_ranks(x: np.ndarray) -> np.ndarray:
    """The ranks 0..n-1 of ``x`` (n,), tied values sharing the mean of their ranks
    (a constant ``x`` gives every entry the same rank, so it tells no group apart)."""
    from scipy.stats import rankdata

    return rankdata(x, method="average") - 1.0


OUTLIER_FENCE = 10.0
"""Losses beyond this many interquartile ranges outside the quartiles are clipped to that
fence before the importance is estimated: one diverged run must not be all the variance."""
BACKFIT_SWEEPS = 100
"""At most this many backfitting sweeps (each updates every main effect once)."""


def _clipped(loss: np.ndarray) -> np.ndarray:
    q1, q3 = np.percentile(loss, [25.0, 75.0])
    spread = OUTLIER_FENCE * (q3 - q1)
    return np.clip(loss, q1 - spread, q3 + spread) if spread > 0 else loss


def _main_effects(groups: list[tuple[np.ndarray, np.ndarray]], y: np.ndarray) -> list[np.ndarray]:
    """The main effects ``f_j`` (each (n,)) of the additive model ``y ~ mean + sum_j f_j``,
    ``f_j`` constant on each group of parameter ``j`` (its ``(rows, labels)``, rows where
    it is active), zero where it is inactive and of mean zero where it is active, fitted
    by backfitting (Hastie & Tibshirani 1990, ch. 4): each effect in turn is the group
    mean of what the others leave. Each effect is thus the parameter's own, with the
    others held apart, even when a search sampled the parameters together."""
    residual = y - y.mean()
    effects = [np.zeros(len(y)) for _ in groups]
    tolerance = 1e-9 * max(float(np.abs(residual).max()), 1e-300)
    for _ in range(BACKFIT_SWEEPS):
        change = 0.0
        for j, (rows, labels) in enumerate(groups):
            partial = residual[rows] + effects[j][rows]
            counts = np.bincount(labels)
            means = np.bincount(labels, weights=partial) / np.maximum(counts, 1)
            fitted = means[labels] - float(partial.mean())
            change = max(change, float(np.abs(fitted - effects[j][rows]).max()))
            residual[rows] = partial - fitted
            effects[j][rows] = fitted
        if change <= tolerance:
            break
    return effects


def importance(trials: Sequence[TrialRecord], *, direction: str) -> list[tuple[str, float]]:
    """Each parameter's main-effect share of the variance of the loss, most important first.

    The share is the first-order index of the functional ANOVA decomposition under
    a product of the parameters' distributions, ``S_j = Var(f_j) / V`` (Sobol' 1993;
    Hutter, Hoos & Leyton-Brown 2014, fANOVA, which obtains the ``f_j`` by marginalizing
    a random forest). Here ``f_j`` are the main effects of an additive model fitted to
    the trials by backfitting (:func:`_main_effects`), a parameter's values grouped into
    its categories or :data:`IMPORTANCE_BINS` quantile bins, and ``V`` is the variance
    the decomposition splits: the effects' variances plus what no main effect explains
    (interactions and noise), so the shares sum to at most 1. Each effect's variance is
    corrected for fitting noise (``(k_j - 1) / n`` of the residual variance for ``k_j``
    groups), so a parameter without effect scores about 0.

    Fitting all effects together is what makes the shares right on the trials of a
    model-based search: it samples the parameters together (good learning rates with
    good layer counts, late in the run), and the correlation ratio of each parameter
    alone, the estimate used before, then credited every parameter with the others'
    effects (shares of 0.38 to 0.53 each, summing to 2.98). Losses far out (beyond
    :data:`OUTLIER_FENCE` interquartile ranges) are clipped first. A conditional
    parameter's effect is measured within the trials where it is active (its branch's
    own effect belongs to the choice that opens it) and weighted by how often it is.
    """
    done = complete_trials(trials)
    if not done:
        return []
    y = _clipped(np.array(losses(done, direction), dtype=float))
    cols = columns(done)
    groups = [(c.rows, np.unique(_groups(c), return_inverse=True)[1].ravel()) for c in cols]
    effects = _main_effects(groups, y)
    residual = y - y.mean() - np.sum(effects, axis=0)
    n = len(y)
    spent = 1 + sum(int(labels.max()) for _, labels in groups)
    noise = float((residual**2).sum()) / max(n - spent, 1)
    shares = [max(0.0, float((f**2).mean()) - int(labels.max()) / n * noise) for f, (_, labels) in zip(effects, groups)]
    total = sum(shares) + float((residual**2).mean())
    out = [(c.address, share / total if total > 0 else 0.0) for c, share in zip(cols, shares)]
    return sorted(out, key=lambda pair: -pair[1])


def _ticks(c: ParamValues) -> tuple[list[float], list[str]]:
    if c.categorical:
        k = len(c.categories)
        return ([i / (k - 1) if k > 1 else 0.5 for i in range(k)], list(c.categories))
    lo, hi = float(c.numbers.min()), float(c.numbers.max())
    return ([0.0, 1.0], [f"{lo:.3g}", f"{hi:.3g}"])


def parallel_coordinates(trials: Sequence[TrialRecord], *, direction: str, max_lines: int = 500) -> Parallel:
    """The complete trials as lines across one axis per parameter; past
    ``max_lines``, the best fifth of that budget plus evenly spaced others."""
    done = complete_trials(trials)
    cols = columns(done)
    unit = np.full((len(done), len(cols)), np.nan)
    for j, c in enumerate(cols):
        unit[c.rows, j] = c.unit()
    values = np.array([float(t.value or 0.0) for t in done])
    if len(done) > max_lines:
        order = np.argsort(np.array(losses(done, direction)), kind="stable")
        best = order[: max_lines // 5]
        rest = np.setdiff1d(np.arange(len(done)), best)
        keep = np.sort(np.concatenate([best, rest[_even(len(rest), max_lines - len(best))]]))
    else:
        keep = np.arange(len(done))
    return Parallel(
        [c.address for c in cols], unit[keep], values[keep], [_ticks(c) for c in cols], len(keep), len(done)
    )
