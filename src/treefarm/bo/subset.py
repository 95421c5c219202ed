"""A bounded set of observations for a large history: the GP's cost per suggestion stays flat.

An exact GP on ``n`` observations costs O(n^3) per fit and per
factorization, and O(n^2) per candidate scored, so a study that keeps
suggesting from one GP slows down as it grows: at 1,000 trials a fresh
suggestion takes seconds. Past a threshold the GP is fitted on at most
``size`` of the observations instead (:func:`bounded_rows`), chosen from
the history alone:

- the best half of ``size`` by loss (where the acquisition looks: log-EI's
  maximum lies near the good points);
- a quarter: the others nearest to the incumbent in the encoded cube (the
  incumbent's neighbourhood as a whole, the region of a trust region,
  TuRBO, Eriksson et al. 2019, "Scalable global optimization via local
  Bayesian optimization"), or the most recent trials where rows have no
  common encoding (a recursive space);
- the rest spread evenly over the remaining trials in the order they were
  made (the model keeps the objective's coarse shape, so that the far
  regions already seen to be bad do not look unexplored).

This is the "subset of data" approximation of a GP (Rasmussen & Williams
2006, section 8.3.3), with the subset chosen for the acquisition's region
rather than at random. The selection is a function of the rows and losses
only (ties broken by trial order), so a resumed study or a second worker
fits the same model. The GP keeps the hyperparameters of its last refit on
every trial (fitted on a subset instead, they came out too smooth: the
subset's losses are bimodal, its best half crowding the optimum).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..encoding import UnitEncoding
from ..space import Config

__all__ = ["CACHED_ROWS", "SUBSET_SIZE", "EncodedRows", "bounded_rows"]

#: Observations the GP is fitted on past its threshold (``GP(full_until=...)``).
SUBSET_SIZE = 400
#: Encoded rows an :class:`EncodedRows` keeps (it restarts empty beyond).
CACHED_ROWS = 200_000


def bounded_rows(X: np.ndarray | None, losses: np.ndarray, size: int = SUBSET_SIZE) -> np.ndarray:
    """Indices, ascending, of at most ``size`` of the observations with
    encoded rows ``X`` (n, d) and ``losses`` (n,), chosen as the module
    docstring says; every index when ``n <= size``. ``X=None`` (no common
    encoding) takes the most recent trials in place of the incumbent's
    nearest neighbours."""
    n = len(losses)
    if n <= size:
        return np.arange(n)
    order = np.argsort(losses, kind="stable")
    n_best, n_near = size // 2, size // 4
    free = np.ones(n, dtype=bool)
    free[order[:n_best]] = False
    rest = np.flatnonzero(free)
    if X is None:
        near = rest[-n_near:]
    else:
        distances = np.sum((X[rest] - X[order[0]]) ** 2, axis=1)
        near = rest[np.argsort(distances, kind="stable")[:n_near]]
    free[near] = False
    rest = np.flatnonzero(free)
    n_spread = size - n_best - n_near
    spread = rest[np.unique(np.linspace(0, len(rest) - 1, n_spread).round().astype(int))]
    return np.sort(np.concatenate([order[:n_best], near, spread]))


class EncodedRows:
    """The encoded rows of configurations, kept between suggestions: choosing
    the subset needs every observation's row, and encoding 10,000 of them
    anew takes a quarter of a second. A row is a function of the
    configuration and the encoding's columns alone (the cache restarts when
    those change), so keeping it changes no result."""

    def __init__(self, size: int = CACHED_ROWS) -> None:
        self.size = size
        self._columns: tuple[str, ...] = ()
        self._rows: dict[Config, np.ndarray] = {}

    def encode(self, encoding: UnitEncoding, configs: Sequence[Config]) -> np.ndarray:
        """The (n, d) encoded rows of ``configs`` (:meth:`UnitEncoding.encode`'s ``X``)."""
        columns = tuple(f"{c.address}={c.node!r}:{c.option}" for c in encoding.columns)
        if columns != self._columns or len(self._rows) > self.size:
            self._columns, self._rows = columns, {}
        missing = list(dict.fromkeys(c for c in configs if c not in self._rows))
        if missing:
            X, _ = encoding.encode(missing)
            self._rows.update(zip(missing, X))
        if not configs:
            return np.zeros((0, encoding.dim))
        return np.array([self._rows[c] for c in configs])
