"""Maximizing an acquisition over the encoded cube: candidates, gradient steps, local search."""

from .candidates import perturb, sobol_candidates
from .maximize import maximize

__all__ = ["maximize", "perturb", "sobol_candidates"]
