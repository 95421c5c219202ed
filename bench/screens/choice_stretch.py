"""A screen: longer correlation lengths for the choices of a space of choices only.

``auto``'s GP ties the one-hot columns of each choice to one length scale (``2 / l**2`` apart
whichever two options); its prior holds that scale near 1 through half a run (bench/notes/choices.md,
"Max cut against Optuna's GP"). The variant multiplies every tied scale by ``STRETCH`` (the first
argument), the prior and the fit unchanged otherwise: ``sqrt 2`` is Optuna's distance of 1 per
changed choice, ``2`` the scale Optuna's fit reaches by half a run. The patch is made in this
process only, before any run:

    python -m bench.screens.choice_stretch 1.4142 run --problems pest25,pest15,hartmann6_grid,styblinski5_grid \\
        --methods treefarm-auto --label tf-auto-stretch1.4142 --seeds 10 --rows bench/results/choice_stretch.jsonl
"""

from __future__ import annotations

import sys

import numpy as np

from ..suites import categorical


def stretch(factor: float) -> None:
    """Multiply every tied length scale of :class:`~treefarm.bo.models.gp.kernels.Stationary` by ``factor``."""
    from treefarm.bo.models.gp import kernels

    scales = kernels.Stationary._scales

    def stretched(self: kernels.Stationary, theta: np.ndarray) -> np.ndarray:
        ell = scales(self, theta)
        return ell * factor if self.tied is not None and self.ard else ell

    kernels.Stationary._scales = stretched  # type: ignore[method-assign]


if __name__ == "__main__":
    stretch(float(sys.argv[1]))
    categorical.main(sys.argv[2:])
