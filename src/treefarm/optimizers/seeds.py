"""The study's seed, for designs that must be one sequence across trials.

The study makes each trial's generator as ``default_rng([seed, number])``
(:meth:`treefarm.study.ask.asking.Asker.rng_for`): every trial draws from its own
stream, so a resumed study and a second worker agree. A design that is one
object over the whole study (a scrambled Sobol sequence, a shuffled grid, the
restart points of CMA-ES) needs one seed for all trials instead: the study's,
which is the first word of that generator's entropy. A generator made
otherwise (``default_rng(5)``, a caller's own) gives its whole entropy.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["design_seed"]


def design_seed(rng: np.random.Generator, salt: str) -> int:
    """A 63-bit seed shared by every trial of a study, distinct per ``salt``
    (the design's name), from the study seed that made ``rng``."""
    entropy = getattr(rng.bit_generator.seed_seq, "entropy", None)
    if isinstance(entropy, (list, tuple)) and len(entropy) >= 2:
        entropy = entropy[0]
    text = f"{salt}:{entropy!r}"
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1
