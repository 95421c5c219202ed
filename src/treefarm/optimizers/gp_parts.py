"""The GP's collaborators, shared by its single- and several-objective strategies.

:class:`~treefarm.optimizers.gp.GP` holds the options; a suggestion builds from
them the objects both strategies (:mod:`treefarm.optimizers.gp` for one loss,
:mod:`treefarm.optimizers.gp_objectives` for several) work with:

- :class:`SpaceEncoding`: the unit-cube encoding of the space, one for a flat
  space, or one per set of configurations for a recursive one;
- :class:`Candidates`: the configurations a suggestion scores (space-covering
  points, neighbours of the best, draws from the good hints' windows);
- :class:`Subset`: which trials a model sees past ``full_until`` complete trials
  (:func:`treefarm.bo.subset.bounded_rows`), and from which trials the
  hyperparameters are then fitted;
- :class:`HintPrior`: the search hints' log prior weighing the acquisition (πBO,
  Hvarfner et al. 2022, "πBO: Augmenting acquisition functions with user beliefs
  for Bayesian optimization");
- :class:`Refitter`: a model's hyperparameters and output transform, fitted from
  scratch at the refit points and kept in between (:class:`treefarm.bo.refits.Refits`);
- :class:`TrustBox` and :func:`trust_candidates`: a trust region's box and the candidates
  drawn in it (:mod:`treefarm.bo.trust`);
- :func:`kernel_for`: the kernel on a space's encoding (one length scale per choice or per column).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..bo.refits import Refits, refit_point
from ..bo.subset import EncodedRows, bounded_rows
from ..encoding import UnitEncoding
from ..space import Choice, Config, Real, Space, sample
from .hints import Hint, hint_log_density, hint_windows, window_draws
from .variation import neighbours

if TYPE_CHECKING:
    from ..bo.acquisition.weighted import LogPrior
    from ..bo.models.domain import Domain
    from ..bo.models.gp import GaussianProcess, GPParams, Kernel, OutputTransform

__all__ = [
    "HINT_CANDIDATES",
    "TRUST_STEP",
    "CandidateSet",
    "Candidates",
    "GPParts",
    "HintPrior",
    "Refitter",
    "SpaceEncoding",
    "Subset",
    "TrustBox",
    "kernel_for",
    "only_choices",
    "only_two_option_choices",
    "trust_candidates",
]

#: Candidates drawn from the good hints' windows per suggestion (split between the hints).
HINT_CANDIDATES = 64



@dataclass(frozen=True)
class SpaceEncoding:
    """The encoding of ``root``: ``flat``, one encoding of every configuration, for a
    non-recursive space; for a recursive one (``flat`` None) one per set of
    configurations, over the addresses they visit."""

    root: Space
    flat: UnitEncoding | None

    @classmethod
    def of(cls, root: Space, recursive: bool) -> SpaceEncoding:
        return cls(root, None if recursive else UnitEncoding(root))

    @property
    def recursive(self) -> bool:
        return self.flat is None

    def for_configs(self, configs: Sequence[Config]) -> UnitEncoding:
        """An encoding of ``configs`` (the flat one, on a non-recursive space)."""
        return self.flat if self.flat is not None else UnitEncoding.for_configs(self.root, configs)


class CandidateSet(NamedTuple):
    """The configurations a suggestion scores, the first ``n_cover`` covering the space."""

    configs: list[Config]
    n_cover: int


@dataclass(frozen=True)
class Candidates:
    """``n_cover`` space-covering candidates (scrambled Sobol points decoded by a flat
    space's encoding, or prior draws on a recursive space), ``n_local`` neighbours
    of the five best configurations and, when ``hinted``, draws from the windows of
    the good hints with a positive credibility (:data:`HINT_CANDIDATES`)."""

    n_cover: int
    n_local: int
    hinted: bool

    def draw(
        self,
        encoding: SpaceEncoding,
        configs: list[Config],
        losses: np.ndarray,
        hints: Sequence[Hint],
        rng: np.random.Generator,
    ) -> CandidateSet:
        root, flat = encoding.root, encoding.flat
        parents = [configs[i] for i in np.argsort(losses, kind="stable")[:5]]
        if flat is None:
            cover = sample(root, rng, n=self.n_cover)
        else:
            from ..bo.maximize import sobol_candidates

            cover = flat.decode_many(sobol_candidates(flat.dim, self.n_cover, rng))
        hinted = window_draws(root, hints, HINT_CANDIDATES, rng) if self.hinted else []
        return CandidateSet([*cover, *neighbours(root, parents, self.n_local, rng), *hinted], len(cover))


@dataclass(frozen=True)
class Subset:
    """The trials a model sees: all up to ``full_until`` complete trials (``None``:
    always all); past it, ``size`` of them (:func:`treefarm.bo.subset.bounded_rows`:
    the best, the incumbent's neighbours and a spread of the rest), chosen on the
    flat encoding's rows (kept in ``rows`` between suggestions) or, on a recursive
    space, by recency."""

    full_until: int | None
    size: int
    rows: EncodedRows

    def keep(self, encoding: SpaceEncoding, configs: list[Config], losses: np.ndarray) -> np.ndarray | None:
        """The indices of the rows the model sees, best first by ``losses``; None for all."""
        if self.full_until is None or len(configs) <= self.full_until:
            return None
        flat = encoding.flat
        return bounded_rows(None if flat is None else self.rows.encode(flat, configs), losses, self.size)

    def refit_head(self, n: int) -> int:
        """How many of ``n`` trials, the first, the hyperparameters are fitted on past
        ``full_until``: those of the last refit point at or before it."""
        return refit_point(self.full_until or n)


@dataclass(frozen=True)
class HintPrior:
    """How the acquisition weighs search hints: ``mode`` ``"judged"`` (each hint's
    credibility judged by the trials in its window), ``"plain"`` (as given) or
    ``"off"``; an ``acquisition`` that cannot be weighted ignores them."""

    mode: str
    acquisition: str

    def weighs(self, hints: Sequence[Hint]) -> bool:
        """Whether some hint weighs on the acquisition (a positive credibility)."""
        return self.mode != "off" and any(h.credibility > 0 for h in hints)

    def log_prior(
        self, encoding: UnitEncoding, hints: Sequence[Hint], configs: list[Config], losses: np.ndarray
    ) -> LogPrior | None:
        """log pi over encoded points, or None when no hint with a positive
        credibility is there or the acquisition cannot be weighted."""
        from ..bo.acquisition import WEIGHTABLE

        if self.mode == "off" or self.acquisition not in WEIGHTABLE:
            return None
        complete = list(zip(configs, losses.tolist()))
        windows = hint_windows(encoding, hints, complete, judged=self.mode == "judged")
        return hint_log_density(windows) if windows else None


@dataclass(frozen=True)
class Refitter:
    """One model's hyperparameters and output transform, fitted (Matérn or RBF
    ``kernel``, named ``kernel_name``; ``output`` the transform; ``deterministic``
    fixes the noise at its floor) from scratch at the refit points on the encoding
    of the trials up to there, and kept in ``refits`` in between."""

    encoding: SpaceEncoding
    kernel: Kernel
    kernel_name: str
    deterministic: bool
    output: str
    refits: Refits

    def fitted(
        self,
        configs: list[Config],
        y: np.ndarray,
        y_var: np.ndarray | None,
        encoding: UnitEncoding,
        *,
        tag: str = "",
    ) -> tuple[GPParams, OutputTransform]:
        """The fit for outputs ``y`` (n,) of ``configs`` (with their variances
        ``y_var``); ``tag`` names the output when several share ``refits``."""
        from ..bo.models.gp import fit_gp

        def fit(
            X: np.ndarray, y: np.ndarray, domain: Domain, y_var: np.ndarray | None, rng: np.random.Generator
        ) -> GaussianProcess:
            return fit_gp(
                X,
                y,
                domain,
                kernel=self.kernel,
                deterministic=self.deterministic,
                y_var=y_var,
                output=self.output,
                rng=rng,
            )

        return self.refits.fitted(
            configs,
            y,
            y_var,
            encoding,
            tag=f"{self.kernel_name} {self.deterministic}{tag}",
            output=self.output,
            encode=self.encoding.for_configs,
            fit=fit,
        )


@dataclass(frozen=True)
class GPParts:
    """What a strategy of the GP works with for one suggestion, built from its options
    (:meth:`treefarm.optimizers.gp.GP.parts`): the collaborators above, and the
    gradient starts per suggestion and πBO's beta."""

    encoding: SpaceEncoding
    candidates: Candidates
    subset: Subset
    hint_prior: HintPrior
    refitter: Refitter
    n_starts: int
    prior_beta: float

    def fitted(
        self,
        configs: list[Config],
        y: np.ndarray,
        y_var: np.ndarray | None,
        encoding: UnitEncoding,
        *,
        bounded: bool,
        tag: str = "",
    ) -> tuple[GPParams, OutputTransform]:
        """:meth:`Refitter.fitted` on every trial, or with ``bounded`` (past
        ``full_until``) on those up to the last refit point at or before it."""
        if bounded:
            head = self.subset.refit_head(len(configs))
            configs, y, y_var = configs[:head], y[:head], None if y_var is None else y_var[:head]
        return self.refitter.fitted(configs, y, y_var, encoding, tag=tag)


#: The scale of the trust region's local candidates: Gaussian steps of this fraction of the box's sides.
TRUST_STEP = 0.2


class TrustBox(NamedTuple):
    """A trust region's box in the unit cube (lower, upper, each (d,)) and its centre, the best trial."""

    lower: np.ndarray
    upper: np.ndarray
    center: np.ndarray


def region_refused(flat: UnitEncoding | None) -> str | None:
    """Why the trust region (``GP(trust_after=...)``, :mod:`treefarm.bo.trust`) is not kept on
    this space, in words for the user; None on a space of reals."""
    if flat is None:
        return "the space is recursive"
    others = sorted({c.address for c in flat.columns if type(c.node) is not Real})
    if others:
        return f"the space has decisions other than reals ({', '.join(others)})"
    return None


def say_region_refused(trust_after: int, reason: str, said: set[str]) -> None:
    """Warn once per ``reason`` (kept in ``said``) that ``trust_after`` has no effect: a silent
    no-op would leave the user believing the search is local."""
    if reason in said:
        return
    said.add(reason)
    logging.getLogger("treefarm").warning(
        "GP(trust_after=%d) keeps a trust region on a space of reals with one objective only, but %s: "
        "the GP searches the whole space", trust_after, reason,
    )


def trust_candidates(
    parts: GPParts, region: TrustBox, n_cover: int, n_local: int, rng: np.random.Generator
) -> CandidateSet:
    """The candidates of a suggestion in a trust region's box: ``n_cover`` scrambled
    Sobol points of the box, then ``n_local`` Gaussian steps from its centre
    (:data:`TRUST_STEP` of its sides, clipped to it), all on the flat encoding."""
    from ..bo.maximize import sobol_candidates
    from ..bo.trust import within

    flat = parts.encoding.flat
    assert flat is not None  # the region exists on flat spaces only
    lower, upper, center = region
    cover = within(sobol_candidates(flat.dim, n_cover, rng), lower, upper)
    steps = center[None, :] + TRUST_STEP * (upper - lower)[None, :] * rng.standard_normal((n_local, flat.dim))
    local = np.clip(steps, lower[None, :], upper[None, :])
    return CandidateSet(flat.decode_many(np.vstack([cover, local])), len(cover))


def kernel_for(name: str, flat: UnitEncoding | None, tie_choices: bool, two_option: float) -> Kernel:
    """The kernel: ARD (with ``tie_choices``, one length scale per choice,
    :func:`treefarm.bo.models.gp.decision_scales`, a two-option choice's counted in units of
    ``two_option``), or for a recursive space (no ``flat`` encoding) one shared length scale
    over the address-wise columns (there are more columns than observations, and most are
    inactive in most trees)."""
    from ..bo.models.gp import decision_scales, decision_units, make_kernel
    from ..bo.models.gp.kernels import Stationary

    kernel = make_kernel(name)
    if not isinstance(kernel, Stationary):
        return kernel
    if flat is None:
        return type(kernel)(ard=False)
    groups = flat.categorical_groups()
    if not (tie_choices and groups):
        return kernel
    tied = decision_scales(flat.dim, groups)
    units = decision_units(tied, two_option)
    return type(kernel)(tied=tied, units=None if np.all(units == 1.0) else units)


def only_choices(flat: UnitEncoding | None) -> bool:
    """Whether every column of a flat encoding is a choice's one-hot column (no number, no join)."""
    return flat is not None and bool(flat.columns) and all(isinstance(c.node, Choice) for c in flat.columns)


@functools.lru_cache(maxsize=256)
def only_two_option_choices(root: Space) -> bool:
    """Whether every decision of the non-recursive space ``root`` is a choice between two options
    (kept per space: asked at every suggestion, it would encode the space each time)."""
    flat = UnitEncoding(root)
    return only_choices(flat) and all(len(group) == 2 for group in flat.categorical_groups())
