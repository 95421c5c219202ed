"""Maximizing an acquisition over the encoded cube: candidates, gradient steps, local search."""

from .candidates import perturb
from .maximize import maximize
from .sobol import sobol_candidates

__all__ = ["maximize", "perturb", "sobol_candidates"]
