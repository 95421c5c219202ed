"""Refits: the surrogate's hyperparameters fitted from scratch at refit points, and cached.

Fitting the hyperparameters (MAP, with restarts) is most of a suggestion's
cost; conditioning on new observations with fixed hyperparameters is one
Cholesky factorization. So the hyperparameters are fitted from scratch at
refit points only: every trial up to :data:`REFIT_ALL`, then every ``s``
trials with ``s`` doubling as the history doubles, about a tenth of it
(:func:`refit_point`; the "refit every k trials" of practical BO, e.g. Snoek
et al. 2012), and in between the model is conditioned on all observations
with the last refit point's hyperparameters and output transform.

The fit at a refit point ``m`` is a pure function of the first ``m``
complete trials: its restarts' generator is seeded by their hash, and they
are encoded on their own. Caching it (:class:`Refits`) therefore changes no
result: a resumed or parallel run that misses the cache recomputes the same
hyperparameters.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..encoding import UnitEncoding
from ..space import Config, Join
from .views import encoded_domain

if TYPE_CHECKING:
    from .models.domain import Domain
    from .models.gp import GaussianProcess, GPParams, OutputTransform

__all__ = ["CACHED_FITS", "REFIT_ALL", "Fit", "Refits", "refit_point"]

#: Up to this many complete trials the hyperparameters are refitted for every suggestion.
REFIT_ALL = 20
#: Scratch fits kept per cache (a study needs one; a few serve interleaved studies).
CACHED_FITS = 8
#: Configurations whose JSON text a cache keeps for the hash (it restarts empty beyond).
CACHED_TEXTS = 200_000

#: ``fit(X, y, domain, y_var, rng)``: the model fitted from scratch on rows X (m, d) and losses y (m,).
Fit = Callable[
    [np.ndarray, np.ndarray, "Domain", "np.ndarray | None", np.random.Generator], "GaussianProcess"
]


def refit_point(n: int) -> int:
    """The last refit point at or before ``n`` complete trials: ``n`` itself up
    to :data:`REFIT_ALL`, else the last multiple of ``s = 2^floor(log2(n / 10))``
    (s = 2 from 20 trials, 8 from 80, 64 from 640: about a tenth of n)."""
    if n <= REFIT_ALL:
        return n
    step = 2 ** math.floor(math.log2(n / 10))
    return n - n % step


class Refits:
    """Scratch fits at refit points, the oldest dropped beyond ``size``."""

    def __init__(self, size: int = CACHED_FITS) -> None:
        self.size = size
        self._fits: dict[tuple[str, str, tuple[str, ...]], tuple[GPParams, OutputTransform]] = {}
        self._texts: dict[Config, bytes] = {}

    def fitted(
        self,
        configs: Sequence[Config],
        losses: np.ndarray,
        y_var: np.ndarray | None,
        encoding: UnitEncoding,
        *,
        tag: str,
        output: str,
        encode: Callable[[Sequence[Config]], UnitEncoding],
        fit: Fit,
    ) -> tuple[GPParams, OutputTransform]:
        """The hyperparameters and output transform fitted from scratch on the
        first :func:`refit_point` of ``configs`` (with ``losses`` and raw
        variances ``y_var``), cached under their hash, the fit's ``tag`` and
        ``output``, and the columns of ``encoding`` (the suggestion's) that
        their addresses use (two spaces may share configurations). The trials
        are encoded by ``encode`` on their own and ``fit`` gets a generator
        seeded by the hash, so the result depends on them alone."""
        m = refit_point(len(configs))
        digest = hashlib.sha256(f"{tag} {losses[:m].tobytes().hex()}".encode())
        prefix_var = None if y_var is None or not np.any(y_var[:m] > 0.0) else y_var[:m]
        if prefix_var is not None:
            digest.update(prefix_var.tobytes())
        if len(self._texts) > CACHED_TEXTS:
            self._texts.clear()
        for config in configs[:m]:
            text = self._texts.get(config)
            if text is None:
                text = self._texts[config] = config.to_json().encode()
            digest.update(text)
        used = set().union(*(config.keys() for config in configs[:m]))
        key = (digest.hexdigest(), output, _fingerprint(encoding, used))
        if key not in self._fits:
            prefix = encode(configs[:m])
            X, _ = prefix.encode(configs[:m])
            rng = np.random.default_rng(int.from_bytes(digest.digest()[:8], "little"))
            model = fit(X, losses[:m], encoded_domain(prefix), prefix_var, rng)
            while len(self._fits) >= self.size:
                self._fits.pop(next(iter(self._fits)))
            self._fits[key] = (model.params, model.transform)
        return self._fits[key]


def _fingerprint(encoding: UnitEncoding, addresses: set[str]) -> tuple[str, ...]:
    """The encoding's columns of ``addresses`` as text: address and bounds or options of each."""
    return tuple(
        f"{c.address}={c.node.labels if isinstance(c.node, Join) else c.node!r}:{c.option}"
        for c in encoding.columns
        if c.address in addresses
    )
