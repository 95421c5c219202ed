"""Two parameters against the loss: the good trials' cells and the mean rank map."""

from __future__ import annotations

import numpy as np
import pytest

from treefarm import ConfigError
from treefarm.viz.relationship import relationship

from .records import record


def plane(n: int = 400, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        x, y = rng.uniform(0, 1, 2)
        kind = "a" if i % 2 else "b"
        out.append(record(i, float((x - 0.8) ** 2 + (y - 0.2) ** 2), {"x": float(x), "y": float(y), "kind": kind}))
    return out


def test_the_good_trials_sit_in_the_cells_near_the_optimum() -> None:
    r = relationship(plane(), "x", "y", direction="minimize", bins=10)
    assert r.mean_rank.shape == r.good.shape == (10, 10) and r.total == 400
    y_cell, x_cell = np.unravel_index(np.nanargmin(r.mean_rank), r.mean_rank.shape)
    assert (x_cell, y_cell) in {(7, 2), (8, 2), (7, 1), (8, 1), (7, 3), (8, 3)}, (x_cell, y_cell)
    assert r.good.sum() == r.shown == 80  # the best fifth of 400, all drawn
    assert np.all(np.abs(r.x - 0.8) < 0.5) and np.all(np.abs(r.y - 0.2) < 0.5)
    assert np.nanmin(r.mean_rank) >= 0 and np.nanmax(r.mean_rank) <= 1


def test_maximizing_turns_the_map_over_and_a_category_is_an_axis() -> None:
    lo = relationship(plane(), "x", "y", direction="minimize", bins=6)
    hi = relationship(plane(), "x", "y", direction="maximize", bins=6)
    np.testing.assert_allclose(lo.mean_rank + hi.mean_rank, 1.0, err_msg="ranks reverse with the direction")
    cat = relationship(plane(), "kind", "x", direction="minimize")
    assert cat.ticks[0][1] == ["a", "b"]


def test_bad_addresses_are_named() -> None:
    with pytest.raises(ConfigError, match="x='nope'"):
        relationship(plane(), "nope", "y", direction="minimize")
    with pytest.raises(ConfigError, match="two different parameters"):
        relationship(plane(), "x", "x", direction="minimize")
