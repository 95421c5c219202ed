"""Choosing new configurations from every reported value: the GP across fidelities.

A study with fidelities (a budget-setting pruner's learning curves, or a
fidelity parameter) measures most configurations cheaply: stopped at a low
rung, or run at a small fidelity. :class:`FidelityGP` fits one GP on every
``(configuration, resource, loss)`` point of the history
(:mod:`treefarm.bo.models.fidelity`: an ARD Matérn-5/2 over the configuration
and the normalized log resource), reads it at the target fidelity and proposes the
configuration of highest log expected improvement there. A learning curve
counts at the rungs of successive halving (``r_min * 3**k``) and at its end,
so a model's points grow with the rungs reached, not with the steps.

With a declared fidelity, the same model picks which paused configuration a
rung continues (:meth:`FidelityGP.promotion`): the one of highest log expected
improvement at the target, as MOBSTER and DyHPO let the model choose the trial
to continue (Tiao et al., "Model-based Asynchronous Hyperparameter and Neural
Architecture Search", 2020; Wistuba, Kadra & Grabocka, "Supervising the
Multi-Fidelity Race of Hyperparameter Configurations", 2022).

Low fidelities that mislead are detected from the study's own curves
(:func:`rung_agreement`): when the configurations that reached the target
are ranked there unlike at the lower rungs (Kendall's tau below
``agreement_floor``), the lower rungs are dropped and the plain GP proposes
from the target points alone, as without fidelities.

Like every optimizer it is a function of the history: the hyperparameters
are fitted from scratch at refit points (:func:`treefarm.bo.refits.refit_point`
of the points) with a generator seeded by the points' hash, so a resumed or
parallel study suggests what an uninterrupted one would.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from ..bo.models.threads import one_blas_thread
from ..bo.refits import CACHED_FITS, refit_point
from ..encoding import UnitEncoding
from ..exceptions import ConfigError
from ..space import Config, Space, convert, sample
from .base import History, Observation, Optimizer
from .gp import GP
from .scope import fixed_addresses
from .variation import neighbours

if TYPE_CHECKING:
    from ..bo.loop import Rules
    from ..bo.models.domain import Domain
    from ..bo.models.fidelity import TargetModel
    from ..bo.models.gp import GPParams, Kernel, OutputTransform

__all__ = [
    "AGREEMENT_FLOOR",
    "FidelityGP",
    "FidelityPoints",
    "fidelity_points",
    "has_low_fidelity",
    "rung_agreement",
]

#: Below this rank agreement between the lower rungs and the target, the lower rungs are dropped
#: (the issue's definition of misleading low fidelities).
AGREEMENT_FLOOR = 0.3
_KERNELS = ("discrepancy", "matern52")


@dataclass(frozen=True)
class FidelityPoints:
    """A history's observations as points at fidelities.

    ``configs`` are the distinct configurations, in order of first
    observation; point ``i`` is configuration ``ids[i]`` at resource
    ``resources[i]`` with loss ``losses[i]``, ``at_target[i]`` when measured
    at the target (shapes (k,)). ``low`` and ``high`` span the resources."""

    configs: list[Config]
    ids: np.ndarray
    resources: np.ndarray
    losses: np.ndarray
    at_target: np.ndarray
    low: float
    high: float

    def target_losses(self) -> np.ndarray:
        """Each configuration's mean loss at the target, NaN where none, shape (n_configs,)."""
        sums = np.bincount(self.ids[self.at_target], self.losses[self.at_target], minlength=len(self.configs))
        counts = np.bincount(self.ids[self.at_target], minlength=len(self.configs))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def _observation_points(o: Observation, levels: np.ndarray, high: float) -> list[tuple[float, float]]:
    """``(resource, loss)`` of one observation: its curve at the rungs below where it
    ended, then its loss where it ended (the target for a full-fidelity one)."""
    from ..bo.models.fidelity import rung_points

    end = high if o.fidelity is None else min(float(o.fidelity), high)
    below = [(r, loss) for r, loss in o.curve if r < end and math.isfinite(loss)]
    steps = np.array([r for r, _ in below])
    picked = [below[int(i)] for i in rung_points(steps, levels)] if below else []
    return [*picked, (end, o.loss)]


def fidelity_points(history: History) -> FidelityPoints:
    """Every finite observation of ``history`` as points at fidelities (see
    :class:`FidelityPoints`); the target is ``history.max_fidelity`` (every
    observation counts at the target without one)."""
    from ..bo.models.fidelity import rung_levels

    complete = [o for o in history.complete if math.isfinite(o.loss)]
    high = history.max_fidelity if history.max_fidelity is not None else 1.0
    low = history.min_fidelity if history.min_fidelity is not None else 1.0
    if history.max_fidelity is None:
        complete = [replace(o, fidelity=None, curve=()) for o in complete]
    low = min(low, high)
    levels = rung_levels(low, high)
    index: dict[Config, int] = {}
    ids, resources, losses = [], [], []
    for o in complete:
        i = index.setdefault(o.config, len(index))
        for resource, loss in _observation_points(o, levels, high):
            ids.append(i)
            resources.append(resource)
            losses.append(loss)
    at = np.array(resources, dtype=float)
    return FidelityPoints(
        list(index),
        np.array(ids, dtype=int),
        at,
        np.array(losses, dtype=float),
        at >= high,
        float(low),
        float(high),
    )


def has_low_fidelity(history: History) -> bool:
    """Whether ``history`` has a target fidelity and some value measured below it."""
    high = history.max_fidelity
    if high is None:
        return False
    return any(
        (o.fidelity is not None and o.fidelity < high) or any(r < high for r, _ in o.curve)
        for o in history.complete
    )


def rung_agreement(history: History) -> float | None:
    """Kendall's tau between each configuration's loss at a lower rung and at
    the target, per rung and pooled over rungs weighted by their pairs
    (:func:`treefarm.bo.models.fidelity.agreement`); None when the history has
    no target fidelity or fewer than five pairs."""
    if history.max_fidelity is None:
        return None
    return _agreement(fidelity_points(history))


def _agreement(points: FidelityPoints) -> float | None:
    """:func:`rung_agreement` of the history ``points`` were read from."""
    from ..bo.models.fidelity import agreement

    low = ~points.at_target
    return agreement(points.resources[low], points.ids[low], points.losses[low], points.target_losses())


def _target_only(history: History, points: FidelityPoints) -> History:
    """``history`` with the observations at the target alone; the configurations
    measured only below it count as failed (seen, but not modelled)."""
    high = points.high
    top = [o for o in history.complete if o.fidelity is None or o.fidelity >= high]
    reached = {o.config for o in top}
    below = [o.config for o in history.complete if o.config not in reached]
    return replace(history, complete=tuple(top), failed=(*history.failed, *dict.fromkeys(below)))


class FidelityGP(Optimizer):
    """New configurations from a GP across fidelities (see the module docstring).

    Parameters
    ----------
    gp:
        The GP of the space-filling start, of the histories without lower
        fidelities and of those whose lower rungs mislead (by default ``GP()``);
        its ``output``, ``deterministic``, ``n_candidates``, ``n_local`` and
        ``n_starts`` serve the model across fidelities too.
    kernel:
        ``"matern52"`` (default; one ARD Matérn-5/2 over the configuration and
        the fidelity) or ``"discrepancy"``
        (:class:`treefarm.bo.models.fidelity.TargetDiscrepancy`: the target plus
        a discrepancy that vanishes there), which ended behind it beyond noise on
        two of the five design problems of the screen and ahead on none (the
        design page ``docs/design/multi-fidelity-model.md``).
    agreement_floor:
        Below this rank agreement of the lower rungs with the target
        (:func:`rung_agreement`) only the target points are modelled.
    """

    def __init__(
        self, *, gp: GP | None = None, kernel: str = "matern52", agreement_floor: float = AGREEMENT_FLOOR
    ) -> None:
        if kernel not in _KERNELS:
            raise ConfigError(f"kernel must be one of {_KERNELS}, but got kernel={kernel!r}")
        if not (isinstance(agreement_floor, (int, float)) and -1.0 <= agreement_floor <= 1.0):
            raise ConfigError(
                f"agreement_floor must be a number in [-1, 1], but got agreement_floor={agreement_floor!r}"
            )
        self.gp = gp if gp is not None else GP()
        self.kernel = kernel
        self.agreement_floor = float(agreement_floor)
        self._fits: dict[str, tuple[GPParams, OutputTransform]] = {}
        self._last: tuple[str, TargetModel] | None = None
        self._judged_last: tuple[History, FidelityPoints, float | None] | None = None

    def suggest(self, space: Space, history: History, n: int, rng: np.random.Generator) -> list[Config]:
        root = convert(space)
        points, tau = self._judged(history)
        if len(points.configs) < self.gp.startup(root) or not (~points.at_target).any():
            return self.gp.suggest(root, history, n, rng)
        if tau is not None and tau < self.agreement_floor:
            return self.gp.suggest(root, _target_only(history, points), n, rng)
        fixed_addresses(root, "auto with fidelities")
        with one_blas_thread():
            return self._model_points(root, points, history, n, rng)

    def promotion(self, space: Space, history: History, paused: Sequence[Config]) -> int | None:
        """The paused configuration of highest log expected improvement at the target
        (against the best posterior mean there, as a new configuration is chosen): the
        one whose continuation the model expects to improve most, wherever the rungs
        ranked it (MOBSTER's and DyHPO's model-based promotion; see
        :func:`treefarm.pruners.promotion.next_evaluation`). None, the rung's own pick,
        when the model does not propose: before the space-filling start is done,
        without lower fidelities, or when they mislead."""
        from ..bo.acquisition import log_ei

        root = convert(space)
        points, tau = self._judged(history)
        if len(paused) < 2 or len(points.configs) < self.gp.startup(root) or not (~points.at_target).any():
            return None
        if tau is not None and tau < self.agreement_floor:
            return None
        fixed_addresses(root, "auto with fidelities")
        with one_blas_thread():
            encoding = UnitEncoding(root)
            X, _ = encoding.encode(points.configs)
            model = self._model(encoding, X, points)
            best = float(model.predict(X)[0].min())
            mean, var = model.predict(encoding.encode(list(paused))[0])
        return int(np.argmax(log_ei(mean, np.sqrt(var), best)[0]))

    def _judged(self, history: History) -> tuple[FidelityPoints, float | None]:
        """``history``'s points and their rung agreement (:func:`rung_agreement`; None
        without lower fidelities), kept for the last history read: a claim asks the same
        history at each rung's promotion."""
        last = self._judged_last
        if last is not None and last[0] is history:
            return last[1], last[2]
        points = fidelity_points(history)
        tau = _agreement(points) if (~points.at_target).any() else None
        self._judged_last = (history, points, tau)
        return points, tau

    def _model_points(
        self, root: Space, points: FidelityPoints, history: History, n: int, rng: np.random.Generator
    ) -> list[Config]:
        from ..bo.loop import suggest_batch
        from ..bo.maximize import sobol_candidates
        from ..bo.target import TargetView

        encoding = UnitEncoding(root)
        X, _ = encoding.encode(points.configs)
        model = self._model(encoding, X, points)
        means = model.predict(X)[0]
        parents = [points.configs[i] for i in np.argsort(means, kind="stable")[:5]]
        cover = encoding.decode_many(sobol_candidates(encoding.dim, self.gp.n_candidates, rng))
        candidates = [*cover, *neighbours(root, parents, self.gp.n_local, rng)]
        view = TargetView(encoding, points.configs, list(history.pending), candidates, len(cover), model)
        return suggest_batch(view, self._rules(root, len(points.losses), rng), n, history.seen(), rng)

    def _rules(self, root: Space, n_observed: int, rng: np.random.Generator) -> Rules:
        """Log expected improvement at the target; no explores (the start and the rungs explore)."""
        from ..bo.acquisition import make_acquisition
        from ..bo.loop import Rules

        def draw_unseen(seen: set[Config]) -> Config:
            draws = sample(root, rng, n=32)
            return next((c for c in draws if c not in seen), draws[0])

        return Rules(
            acquire=lambda model, best, Xc: make_acquisition(
                "logei", model, best=best, n_observed=n_observed, rng=rng
            ),
            n_starts=self.gp.n_starts,
            candidates_only=False,
            explores=lambda i: False,
            swaps=list,
            draw_unseen=draw_unseen,
        )

    def _model(self, encoding: UnitEncoding, X: np.ndarray, points: FidelityPoints) -> TargetModel:
        """The GP on every point, read at the target, with the hyperparameters of
        the refit point's prefix of the points (:meth:`_fitted`)."""
        from ..bo.models.fidelity import TargetModel, fidelity_domain, normalized, with_fidelity
        from ..bo.models.gp import gp_with_params
        from ..bo.views import encoded_domain

        rows = with_fidelity(X[points.ids], normalized(points.resources, points.low, points.high))
        digest = hashlib.sha256(self.kernel.encode())
        digest.update(np.ascontiguousarray(rows).tobytes())
        digest.update(np.ascontiguousarray(points.losses).tobytes())
        key = digest.hexdigest()
        last = self._last
        if last is not None and last[0] == key:
            # one claim asks the same points at each rung's promotion and for its new configuration
            return last[1]
        domain = fidelity_domain(encoded_domain(encoding))
        params, transform = self._fitted(rows, points.losses, domain)
        model = TargetModel(gp_with_params(rows, points.losses, domain, params, transform, kernel=self._kernel()))
        self._last = (key, model)
        return model

    def _kernel(self) -> Kernel:
        from ..bo.models.fidelity import TargetDiscrepancy
        from ..bo.models.gp import Matern52

        return TargetDiscrepancy() if self.kernel == "discrepancy" else Matern52()

    def _fitted(
        self, rows: np.ndarray, losses: np.ndarray, domain: Domain
    ) -> tuple[GPParams, OutputTransform]:
        """MAP hyperparameters and output transform fitted from scratch on the
        first :func:`refit_point` of the points, seeded by their hash, and cached
        (the cache changes no result: a miss recomputes the same fit)."""
        from ..bo.models.gp import fit_gp

        m = refit_point(len(losses))
        digest = hashlib.sha256(f"{self.kernel} {self.gp.output} {self.gp.deterministic}".encode())
        digest.update(np.ascontiguousarray(rows[:m]).tobytes())
        digest.update(np.ascontiguousarray(losses[:m]).tobytes())
        key = digest.hexdigest()
        if key not in self._fits:
            model = fit_gp(
                rows[:m],
                losses[:m],
                domain,
                kernel=self._kernel(),
                deterministic=self.gp.deterministic,
                output=self.gp.output,
                rng=np.random.default_rng(int.from_bytes(digest.digest()[:8], "little")),
            )
            while len(self._fits) >= CACHED_FITS:
                self._fits.pop(next(iter(self._fits)))
            self._fits[key] = (model.params, model.transform)
        return self._fits[key]
