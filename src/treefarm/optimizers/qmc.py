"""Quasi-random search: a scrambled Sobol sequence over every decision of the space.

Sobol (1967); Owen's scrambling as SciPy's :class:`scipy.stats.qmc.Sobol`
implements it (linear matrix scramble and digital shift, Matoušek 1998).
Each decision address of the space (:func:`treefarm.space.addresses`, over
every branch) is one coordinate of the sequence, and point ``u`` is walked
through the space with each decision drawn at its coordinate by the inverse
of its prior's CDF (:func:`treefarm.space.sample.decision_at`): a number's
(truncated) prior, a choice's or a join's weights. On a conditional space
the coordinates of branches not taken are ignored, so every branch's
parameters are themselves a projection of the same low-discrepancy design.
A recursive space has no fixed number of decisions and is refused.

Trial ``i`` is point ``i`` of the sequence, with ``i`` the number of trials
in the history (complete, failed and pending): a resumed study and a second
worker continue the sequence. The scramble is seeded by the study seed
(:mod:`treefarm.optimizers.seeds`), or by ``seed`` when given. A point equal
to one already in the history (a finite space) is passed over for the next.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator

import numpy as np

from ..space import Config, Space, convert, walk
from ..space.config import ROOT_ADDRESS, Decision, Scalar
from ..space.sample import decision_at
from ..validation import check_int
from .base import History, Optimizer
from .scope import fixed_addresses
from .seeds import design_seed
from .unseen import unseen

__all__ = ["QMC", "sobol_points"]

#: Every point of a Sobol sequence lies in [0, 1); a coordinate is kept below 1 so an inverse CDF stays finite.
_BELOW_ONE = 1.0 - 2.0**-53


def sobol_points(dim: int, start: int, n: int, seed: int) -> np.ndarray:
    """(n, dim) points ``start, ..., start + n - 1`` of the scrambled Sobol sequence of ``seed``."""
    from scipy.stats import qmc

    sampler = qmc.Sobol(dim, scramble=True, seed=np.random.default_rng(seed))
    if start:
        sampler.fast_forward(start)
    with warnings.catch_warnings():
        # The balance of Sobol points needs a power of two of them: here it is the whole run that counts.
        warnings.filterwarnings("ignore", message=".*balance properties of Sobol.*")
        return np.minimum(sampler.random(n), _BELOW_ONE)


class QMC(Optimizer):
    """Scrambled Sobol points walked through the space (see the module docstring).

    Parameters
    ----------
    seed:
        The scramble's seed; ``None`` takes the study's seed.
    """

    def __init__(self, *, seed: int | None = None) -> None:
        if seed is not None:
            check_int("seed", seed, minimum=0)
        self.seed = seed
        self._columns: tuple[Space, Space, dict[str, int]] | None = None

    def _columns_of(self, space: Space) -> tuple[Space, dict[str, int]]:
        """The converted space and the coordinate of each address (kept for the last space: speed only)."""
        if self._columns is None or self._columns[0] is not space:
            root = convert(space)
            self._columns = (space, root, {a: j for j, (a, _) in enumerate(fixed_addresses(root, "qmc"))})
        return self._columns[1], self._columns[2]

    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        root, columns = self._columns_of(space)
        seed = self.seed if self.seed is not None else design_seed(rng, "qmc")
        start = len(history.complete) + len(history.failed) + len(history.pending)
        seen = [*history.seen()]
        out: list[Config] = []
        dim = max(len(columns), 1)
        for j in range(n):
            indices = itertools.count(start + j)

            def propose(indices: Iterator[int] = indices) -> Config:
                return _walk(root, columns, sobol_points(dim, next(indices), 1, seed)[0])

            out.append(unseen(root, propose, [*seen, *out], rng))
        return out


def _walk(root: Space, columns: dict[str, int], u: np.ndarray) -> Config:
    """The configuration whose decisions are drawn at the coordinates ``u`` (dim,)."""

    def decide(address: str, node: Decision, allowed: tuple[int, ...]) -> Scalar:
        return decision_at(node, allowed, float(u[columns[address or ROOT_ADDRESS]]))

    return walk(root, decide)[0]
