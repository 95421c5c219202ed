"""A screen: longer correlation lengths for the choices of a space of choices only.

``auto``'s GP ties the one-hot columns of each choice to one length scale (``2 / l**2`` apart
whichever two options); its prior holds that scale near 1 through half a run (bench/notes/choices.md,
"Max cut against Optuna's GP"). The variant multiplies tied scales by a factor (the first
argument), the prior and the fit unchanged otherwise: ``sqrt 2`` is Optuna's distance of 1 per
changed choice, ``2`` the scale Optuna's fit reaches by half a run. ``two:F`` stretches the scales
of two-option choices alone (a group of two one-hot columns), where the gap to Optuna's GP was
seen. The patch is made in this process only, before any run:

    python -m bench.screens.choice_stretch 1.4142 run --problems pest25,pest15,hartmann6_grid,styblinski5_grid \\
        --methods treefarm-auto --label tf-auto-stretch1.4142 --seeds 10 --rows bench/results/choice_stretch.jsonl
    python -m bench.screens.choice_stretch two:2 run --problems maxcut30 --methods treefarm-auto \\
        --label tf-auto-two2 --seeds 10 --rows bench/results/choice_stretch.jsonl
"""

from __future__ import annotations

import sys

import numpy as np

from ..suites import categorical


def stretch(factor: float, *, two_only: bool = False) -> None:
    """Multiply the tied length scales of :class:`~treefarm.bo.models.gp.kernels.Stationary` by
    ``factor``: every column's when a space has choices, or with ``two_only`` the columns of
    two-option choices alone."""
    from treefarm.bo.models.gp import kernels

    scales = kernels.Stationary._scales

    def stretched(self: kernels.Stationary, theta: np.ndarray) -> np.ndarray:
        ell = scales(self, theta)
        if self.tied is None or not self.ard:
            return ell
        if not two_only:
            return ell * factor
        two = np.bincount(self.tied)[self.tied] == 2
        return np.where(two, ell * factor, ell)

    kernels.Stationary._scales = stretched  # type: ignore[method-assign]


def parse(argument: str) -> tuple[float, bool]:
    """``"2"`` -> every tied scale by 2; ``"two:2"`` -> two-option choices' alone."""
    two_only = argument.startswith("two:")
    return float(argument.removeprefix("two:")), two_only


if __name__ == "__main__":
    factor, two_only = parse(sys.argv[1])
    stretch(factor, two_only=two_only)
    categorical.main(sys.argv[2:])
