"""Maximizing an acquisition over the encoded cube: candidates, gradient steps, local search."""

from .search import maximize
from .sobol import sobol_candidates
from .starts import perturb

__all__ = ["maximize", "perturb", "sobol_candidates"]
