"""treefarm's scrambled Sobol points: SciPy's, bit for bit, without importing scipy.stats."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from treefarm.bo.maximize import sobol_candidates


@pytest.mark.parametrize("d", [1, 2, 6, 19, 40, 300])
@pytest.mark.parametrize("n", [1, 3, 64, 768])
def test_points_and_generator_state_equal_scipys(d: int, n: int) -> None:
    from scipy.stats import qmc

    ours, theirs = np.random.default_rng(d * 1000 + n), np.random.default_rng(d * 1000 + n)
    got = sobol_candidates(d, n, ours)
    want = qmc.Sobol(d, scramble=True, seed=theirs).random_base2(max(0, math.ceil(math.log2(n))))[:n]
    assert np.array_equal(got, want)
    assert np.array_equal(ours.random(4), theirs.random(4))
    assert np.array_equal(ours.spawn(1)[0].random(4), theirs.spawn(1)[0].random(4))


def test_a_power_of_two_block_is_balanced() -> None:
    points = sobol_candidates(5, 256, np.random.default_rng(0))
    assert points.shape == (256, 5) and points.min() >= 0.0 and points.max() < 1.0
    for column in points.T:
        assert np.array_equal(np.bincount((column * 16).astype(int), minlength=16), np.full(16, 16))
    assert len({tuple(row) for row in points}) == 256


def test_too_many_dimensions_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="at most 21201 dimensions, but got d=21202"):
        sobol_candidates(21202, 2, np.random.default_rng(0))


def test_a_gp_study_never_imports_scipy_stats() -> None:
    code = (
        "import sys, treefarm as tf\n"
        "space = {'x': tf.Real(-5, 5), 'n': tf.Int(0, 10), 'c': tf.Choice('a', 'b')}\n"
        "tf.minimize(lambda v: (v['x'] - 1) ** 2 + v['n'] / 10 + (v['c'] == 'a'), space,"
        " algo='gp', max_evals=14, storage=None, seed=0)\n"
        "print(sorted(m for m in sys.modules if m.startswith('scipy.stats')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_scipy_without_its_direction_numbers_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util
    from types import SimpleNamespace

    from treefarm.bo.maximize import sobol

    fake_scipy = SimpleNamespace(submodule_search_locations=[str(tmp_path)])
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: fake_scipy)
    sobol._table.cache_clear()
    sobol._direction_numbers.cache_clear()
    try:
        with pytest.raises(ImportError, match=r"Sobol direction numbers are missing .*reinstall scipy"):
            sobol_candidates(3, 4, np.random.default_rng(0))
    finally:
        monkeypatch.undo()
        sobol._table.cache_clear()
        sobol._direction_numbers.cache_clear()
