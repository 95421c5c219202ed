"""Scrambled Sobol points without importing ``scipy.stats``.

Why not ``scipy.stats.qmc.Sobol``: importing ``scipy.stats`` costs about
0.3 s of CPU (it builds the docstrings of every distribution), a tenth of a
whole 100-trial GP run. This module draws the
same points, bit for bit, and leaves the generator in the same state
(tests/bo/maximize/test_sobol.py checks both against SciPy): a GP's trials do not
depend on which of the two made its candidates.

Notation (shapes): d dimensions, B = ``BITS`` bits per coordinate, n points.

The construction (Bratley and Fox, "Algorithm 659", ACM TOMS 14(1), 1988;
direction numbers of Joe and Kuo, "Constructing Sobol sequences with better
two-dimensional projections", SIAM J. Sci. Comput. 30(5), 2008, search
criterion D(6), the table SciPy ships):

* direction numbers: dimension 0 has m_j = 1; dimension i with primitive
  polynomial p of degree s takes its first s numbers from the table and

      m_j = m_{j-s}  xor  XOR_{k=1..s} [bit s-k of p] 2^k m_{j-k}     (j >= s)

  and v_j = m_j 2^(B-1-j), a B-bit integer per (dimension, bit);
* scrambling (Owen's linear matrix scramble with a digital shift, as
  SciPy's): per dimension a random lower-triangular binary matrix L with a
  unit diagonal multiplies the bits of every v_j (most significant first),
  mod 2, and a random B-bit shift e is drawn; the random bits come from a
  child of the caller's generator (``rng.spawn(1)``, as SciPy >= 1.15 does),
  in SciPy's order (the shift's d x B, then L's d x B x B);
* the k-th point (Antonov-Saleev, Gray-code order) is
  ``(e xor XOR_{bits c of k xor (k >> 1)} v_c) / 2^B``.

Cost: O(d B^3) bit operations to scramble, O(n d log n) to draw.
"""

from __future__ import annotations

import functools
import importlib.util
import math
from pathlib import Path

import numpy as np

__all__ = ["BITS", "sobol_candidates"]

BITS = 30
"""Bits per coordinate (SciPy's default): 2^30 distinct points per dimension."""


@functools.cache
def _table() -> tuple[np.ndarray, np.ndarray]:
    """(poly (D,), vinit (D, 18)): the primitive polynomials and initial
    direction numbers of Joe and Kuo's D(6) table, read from SciPy's copy
    (``scipy/stats/_sobol_direction_numbers.npz``) without importing
    ``scipy.stats``."""
    spec = importlib.util.find_spec("scipy")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("scipy is required for Sobol points")
    path = Path(next(iter(spec.submodule_search_locations))) / "stats" / "_sobol_direction_numbers.npz"
    if not path.is_file():
        raise ImportError(f"SciPy's Sobol direction numbers are missing (expected {path}): reinstall scipy")
    with np.load(path) as table:
        return table["poly"].astype(np.int64), table["vinit"].astype(np.int64)


@functools.cache
def _direction_numbers(d: int) -> np.ndarray:
    """(d, BITS) unscrambled direction numbers v_j = m_j 2^(BITS-1-j), uint32."""
    poly, vinit = _table()
    if d > len(poly):
        raise ValueError(f"Sobol points exist for at most {len(poly)} dimensions, but got d={d}")
    m = np.zeros((d, BITS), dtype=np.int64)
    m[0] = 1
    p = poly[1:d]
    degree = np.array([int(q).bit_length() - 1 for q in p], dtype=np.int64)
    rows = np.arange(1, d)
    for j in range(BITS):
        initial = j < degree
        if initial.any():
            m[rows[initial], j] = vinit[rows[initial], j]
        rec = rows[~initial]
        if len(rec) == 0:
            continue
        s = degree[~initial]
        value = m[rec, j - s]
        for k in range(1, int(s.max()) + 1):
            taps = (k <= s) & (((p[rec - 1] >> np.maximum(s - k, 0)) & 1) == 1)
            value = np.where(taps, value ^ (m[rec, np.maximum(j - k, 0)] << k), value)
        m[rec, j] = value
    return (m << (BITS - 1 - np.arange(BITS))).astype(np.uint32)


def _bits(x: np.ndarray) -> np.ndarray:
    """(..., BITS) the bits of the integers ``x``, most significant first."""
    return ((x[..., None] >> (BITS - 1 - np.arange(BITS, dtype=np.uint32))) & 1).astype(np.uint32)


def _scrambled(d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(v (d, BITS), e (d,)): the scrambled direction numbers and the digital shift."""
    shift_bits = rng.integers(0, 2, size=(d, BITS), dtype=np.uint32)
    e = shift_bits @ (np.uint32(1) << np.arange(BITS, dtype=np.uint32))
    lower = np.tril(rng.integers(0, 2, size=(d, BITS, BITS), dtype=np.uint32))
    lower[:, np.arange(BITS), np.arange(BITS)] = 1
    new_bits = np.einsum("dpi,dji->djp", lower, _bits(_direction_numbers(d))) & 1
    v = new_bits @ (np.uint32(1) << (BITS - 1 - np.arange(BITS, dtype=np.uint32)))
    return v.astype(np.uint32), e.astype(np.uint32)


def sobol_candidates(d: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, d) points of a scrambled Sobol sequence in [0, 1)^d (more even than
    uniform draws, so a few hundred candidates cover the cube without clusters
    or holes), the first ``n`` of the smallest power-of-two block; equal to
    ``scipy.stats.qmc.Sobol(d, scramble=True, seed=rng).random_base2(k)[:n]``
    with ``2^k >= n``, the generator left in the same state."""
    v, e = _scrambled(d, rng.spawn(1)[0])
    k = np.arange(2 ** max(0, math.ceil(math.log2(max(n, 1)))), dtype=np.uint32)[:n]
    gray = k ^ (k >> 1)
    points = np.broadcast_to(e, (len(k), d)).copy()
    for c in range(int(gray.max(initial=0)).bit_length()):
        points ^= np.where(((gray >> c) & 1)[:, None] == 1, v[:, c], np.uint32(0))
    return points * (1.0 / 2**BITS)
