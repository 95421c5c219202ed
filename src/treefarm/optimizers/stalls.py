"""The GP's stall rule: when a search counts as stuck, and how often it may then explore.

Used by :class:`treefarm.optimizers.gp.GP` (a collapsed acquisition's
proposal replaced by an explore) and by ``algo="auto"`` (TPE's extra turns
while stalled); the design and its figures are on the design page
``docs/design/gp.md`` ("Stalls").
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "EXPLORE_EVERY",
    "STALL_IMPROVEMENT",
    "STALL_PATIENCE",
    "evaluations_since_improvement",
    "explores",
]

#: Evaluations without a significant improvement before a collapsed acquisition counts as a stall
#: (ten: stuck runs seen proposed nothing better for 50).
STALL_PATIENCE = 10
#: An improvement smaller than this fraction of the losses' range (max - min) is not one.
STALL_IMPROVEMENT = 1e-3
#: While stalled, one suggestion in this many explores; the others keep refining the incumbent.
EXPLORE_EVERY = 3


def evaluations_since_improvement(
    losses: np.ndarray, *, relative: float = STALL_IMPROVEMENT, warped: bool = True
) -> int:
    """How many of the last losses (n,) came after the last significant
    improvement of the best: one that lowers the running best by more than
    ``relative`` times the range of the losses, on the model's scale (the
    warp of :mod:`treefarm.bo.models.gp.transform`, fitted on all of them) or,
    with ``warped=False``, on the raw scale. On the raw scale one diverged
    evaluation sets the range, and on a heavy-tailed objective (an
    ill-conditioned quadratic spans 1e7) every later refinement counts as no
    improvement at all, so the GP's stall rule uses the model's scale."""
    from ..bo.models.gp.transform import OutputTransform

    if len(losses) == 0:
        return 0
    t = OutputTransform.fit(losses)(losses) if warped else np.asarray(losses, dtype=float)
    threshold = relative * float(np.ptp(t))
    last, best = 0, math.inf
    for i, y in enumerate(t):
        if y < best - threshold:
            last, best = i, float(y)
    return len(losses) - 1 - last


def explores(since: int, every: int = EXPLORE_EVERY, *, patience: int = STALL_PATIENCE) -> bool:
    """Whether a suggestion made ``since`` evaluations after the last
    significant improvement may explore (if its proposal has also collapsed):
    at ``patience`` evaluations, and one in ``every`` after. Rate-limited so that
    the suggestions in between keep refining the incumbent, which on a
    one-bowl objective is still the way to a lower loss."""
    return since >= patience and (since - patience) % every == 0
