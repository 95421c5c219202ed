"""Random search: independent draws from the space's prior.

The baseline every other optimizer must beat, and the start-up design of the
model-based ones. It honours the priors of the space (weights of choices and
joins, truncated-normal priors of numbers) and needs no history, so its cost
per suggestion does not grow with the study.
"""

from __future__ import annotations

import numpy as np

from ..space import Config, Space, sample
from .base import History, Optimizer

__all__ = ["RandomSearch"]


class RandomSearch(Optimizer):
    """Draw each configuration independently from the prior of the space."""

    searches_recursive = True
    needs_history = False

    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        return sample(space, rng, n=n)
