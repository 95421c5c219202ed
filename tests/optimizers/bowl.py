"""A 2-d quadratic bowl and a history of random trials on it, for the bounded-cost tests."""

from __future__ import annotations

import numpy as np

from treefarm import Config, History, Observation, Real, sample

SPACE = {"x": Real(-1.0, 1.0), "y": Real(-1.0, 1.0)}


def bowl(v: Config | dict[str, float]) -> float:
    """Minimum 0 at (0.3, -0.2)."""
    return float((v["x"] - 0.3) ** 2 + (v["y"] + 0.2) ** 2)


def bowl_history(n: int, seed: int = 0) -> History:
    """``n`` uniform random trials of :data:`SPACE`, all complete, scored by :func:`bowl`."""
    configs = sample(SPACE, np.random.default_rng(seed), n=n)  # type: ignore[arg-type]
    return History(complete=tuple(Observation(c, bowl(c)) for c in configs))
