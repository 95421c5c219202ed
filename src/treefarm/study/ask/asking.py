"""Asking: claiming a trial in the storage and choosing its configuration.

A claim takes the oldest enqueued configuration, else a new trial whose
configuration the optimizer suggests from the history with the trial's own
generator, a function of the study seed and the trial number only (so a
resumed study or a second worker suggests what the first would have). An
enqueued configuration that no longer fits the space fails its trial and the
next one is taken. Suggestions are kept new to the history by the
:class:`~treefarm.study.state.dedupe.Deduplicator` where the optimizer reads it,
and written on condition that no trial another worker started meanwhile holds
them (the storage checks and writes in one transaction:
:meth:`Storage.set_trial_params`'s ``unique_from``; a space with rules is also
checked by canonical form just before): a suggestion taken meanwhile is made
again, so workers suggesting from the same history at the same moment differ.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from ...exceptions import ConfigError, DuplicateParamsError, StorageError, SuggestionError, TrialStateError
from ...execution.liveness import identity
from ...fidelity import Fidelity
from ...optimizers import GridExhaustedError, History, Optimizer
from ...optimizers.hints import apply_hints
from ...pruners.promotion import (
    TRUSTED_TAU,
    Chooser,
    Next,
    agreements,
    all_at_top,
    next_evaluation,
    untrusted,
)
from ...space import Config, sample, validate, within_support
from ...storage import JSON, REQUEUED, NotFoundError, Storage, TrialRecord, TrialState
from ..state.cache import TrialCache
from ..state.checkpoints import CONTINUES
from ..state.dedupe import Deduplicator
from ..state.recovery import was_lost
from .fidelities import CHECKS, FIDELITY, finite_size, view_for

__all__ = ["RECHECKS", "Asker", "Plan"]

log = logging.getLogger("treefarm")

RECHECKS = 10
"""How many suggestions a claim may make while concurrent workers take each one first."""


@dataclass(frozen=True)
class Plan:
    """The next trial of a study with a fidelity: its rung and the configuration it
    promotes (``next``), and whether the lower rungs mislead (``misleading``, judged
    once from the evaluations read for the plan: the new configuration's view needs it too)."""

    next: Next
    misleading: bool


class Asker:
    """Claims trials of one study for this process and fixes their configurations."""

    def __init__(
        self,
        storage: Storage,
        study_id: int,
        optimizer: Optimizer,
        cache: TrialCache,
        dedupe: Deduplicator,
        *,
        seed: int,
        stale_after: float,
        fidelity: Fidelity | None = None,
    ) -> None:
        self._storage = storage
        self._study_id = study_id
        self._space = dedupe.space
        self._size: float | None = None  # the space's number of configurations, once a fidelity needs it
        self._optimizer = optimizer
        self._cache = cache
        self._seed = seed
        self._stale_after = stale_after
        self._fidelity = fidelity
        self._said_misled = False  # the verdict that the lower rungs mislead is logged once
        self._said_exhausted = False  # so is a finite space evaluated at the top in full
        self.fidelities: dict[int, float] = {}
        """The fidelity of each trial this process claimed (a study with a fidelity)."""
        self.continued: dict[int, int] = {}
        """The trial each promotion this process claimed continues (see :mod:`.checkpoints`)."""
        self.dedupe = dedupe
        self._check_dupes = dedupe.rules or optimizer.needs_history or dedupe.draws_repeat

    def rng_for(self, number: int) -> np.random.Generator:
        """The generator of trial ``number``: a function of the study seed and the number only."""
        return np.random.default_rng([self._seed, number])

    def claim(
        self,
        budget: int | None,
        *,
        max_cost: float | None = None,
        claimed: Callable[[int], None],
        lost: Callable[[int], None],
        fail: Callable[[int, str], object],
    ) -> tuple[int, Config, bool] | None:
        """Claim a RUNNING trial (None when ``budget`` is spent) and fix its configuration;
        the trial's number, configuration and whether it re-runs a lost evaluation;
        ``claimed(number)`` is called as soon as the storage has given the trial,
        ``lost(number)`` when the storage refuses its configuration because the claim
        did not survive (a database server crash; the next claim is then made),
        ``fail(number, reason)`` for an enqueued configuration that does not fit (the
        next one is taken) and for a suggestion that raised (:class:`SuggestionError`,
        which then propagates). ``max_cost`` is the study's cost budget (the claim
        returns None when it is spent); in a study with a fidelity, the trial's rung is
        chosen first and its cost reserved by the claim."""
        worker = identity()
        attrs: dict[str, JSON] = {"worker": worker, "stale_after": self._stale_after}
        while True:
            if self._exhausted():
                return None
            plan = self._plan()
            record = self._storage.claim_trial(
                self._study_id,
                system_attrs=attrs if plan is None else {**attrs, FIDELITY: plan.next.fidelity},
                budget=budget,
                max_cost=max_cost,
                cost=0.0 if plan is None or self._fidelity is None else self._fidelity.cost_of(plan.next.fidelity),
            )
            if record is None:
                return None
            claimed(record.number)
            if plan is not None:
                self.fidelities[record.number] = plan.next.fidelity
            if not record.params:
                try:
                    config = self._record(record.number, str(worker["token"]), plan)
                except (NotFoundError, TrialStateError) as exc:
                    lost(record.number)
                    log.warning("trial %d was lost before its configuration was written; claiming another: %s", record.number, exc)
                    continue
                except SuggestionError as exc:
                    fail(record.number, str(exc))
                    if isinstance(exc.__cause__, GridExhaustedError):  # another worker took the last point
                        log.info("trial %d found every point of the grid taken; the run stops", record.number)
                        return None
                    raise
                except StorageError:  # the storage's own (an outage, a replaced file): not a suggestion's
                    raise
                except Exception as exc:  # raised around the optimizer: hint draws, the dedupe
                    error = _suggestion_error(record.number, exc)
                    fail(record.number, str(error))
                    raise error from exc
                break
            try:
                config = validate(self._space, record.params)
                break
            except ConfigError as exc:
                fail(record.number, str(exc))
        self._cache.remember(record.number, config)
        return record.number, config, REQUEUED in record.system_attrs

    def _exhausted(self) -> bool:
        """Whether the optimizer has nothing left to suggest (every point of a grid in
        the study) and no enqueued trial waits: the run then stops, saying so."""
        if type(self._optimizer).exhausted is Optimizer.exhausted:
            return False
        if not self._optimizer.exhausted(self._space, self._cache.history()):
            return False
        if self._storage.count_trials(self._study_id, states=[TrialState.WAITING]):
            return False
        log.info("every configuration %s suggests is in the study; the run stops", type(self._optimizer).__name__)
        return True

    def _plan(self) -> Plan | None:
        """The next trial's rung, the configuration it promotes, if any, and whether the
        lower rungs mislead (a study with a fidelity)."""
        if self._fidelity is None:
            return None
        points, pending = self._cache.fidelity_points()
        fidelity = self._fidelity
        if self._size is None:
            self._size = finite_size(self._space)
        exhausted = len({p.config for p in points} | {config for config, _ in pending}) >= self._size
        taus = agreements(points, fidelity.rungs, CHECKS)
        misled = untrusted(taus)
        if misled and not self._said_misled:
            self._said_misled = True
            checks, promoted = taus
            log.warning(
                "the fidelity's lower rungs rank configurations unlike the top (Kendall's tau %s over the %d checks, "
                "%s over the promoted configurations; below %g misleads): every new configuration now starts at the "
                "top, none is promoted, and the optimizer models the top's evaluations alone",
                _tau(checks), CHECKS, _tau(promoted), TRUSTED_TAU,
            )
        choose = self._chooser(fidelity) if self._optimizer.uses_fidelities else None
        planned = next_evaluation(
            points, pending, fidelity.rungs, fidelity.reduction_factor, CHECKS, exhausted, misled=misled, choose=choose
        )
        if exhausted and not self._said_exhausted and all_at_top(points, pending, fidelity.rungs):
            self._said_exhausted = True
            log.warning(
                "every configuration of the space (%d) is evaluated, or being evaluated, at the full fidelity: the next "
                "trials repeat them there; stop the run, or widen the space, for anything new", self._size,
            )
        return Plan(planned, misled)

    def _chooser(self, fidelity: Fidelity) -> Chooser:
        """The optimizer's pick of the configuration a rung continues
        (:meth:`Optimizer.promotion`), from the history it models, read when a
        promotion is due (the lower rungs are then trusted)."""

        views: list[History] = []  # read once, at the first rung that offers a choice

        def choose(paused: Sequence[Hashable]) -> int | None:
            if not views:
                views.append(view_for(self._optimizer, self._cache.history(), fidelity))
            return self._optimizer.promotion(self._space, views[0], [cast(Config, c) for c in paused])

        return choose

    def _record(self, number: int, owner: str, plan: Plan | None = None) -> Config:
        """Suggest trial ``number``'s configuration and write it. A suggestion new to
        the history it was made from is written on condition that no trial started
        since holds it (for a space with rules, checked again by canonical form
        first; then by the storage, in the write's own transaction: ``unique_from``).
        Taken meanwhile by another worker (with k workers suggesting at one instant,
        k - 1 lose the first race), it is suggested again from the history with that
        trial in it, up to :data:`RECHECKS` times. A suggestion that is not new (an
        exhausted finite space, or no dedupe) is written as it is. A promotion (``plan``)
        is written on condition that no trial numbered after the latest one holding its
        configuration below the plan's rung holds it too (the storage's ``unique_from``,
        atomic): such a trial can only be the same promotion, written first by another
        worker, or a later one; this trial then evaluates a new configuration at the rung
        its cost was reserved for. The same write records the trial a promotion continues."""
        if plan is not None and plan.next.promote is not None:
            promoted = cast(Config, plan.next.promote)
            continued = self._continued(plan.next)
            try:
                self._storage.set_trial_params(
                    self._study_id,
                    number,
                    promoted.to_dict(),
                    owner=owner,
                    unique_from=self._source(plan.next) + 1,
                    system_attrs={CONTINUES: continued},
                )
                self.continued[number] = continued
                return promoted
            except DuplicateParamsError:
                log.debug("trial %d: another worker promoted the same configuration first; a new one instead", number)
        for _ in range(RECHECKS):
            config, new = self._suggest(number, misled=plan is not None and plan.misleading)
            if not new:
                break
            if self.dedupe.rules and self._taken(number, config):
                continue
            try:
                self._storage.set_trial_params(
                    self._study_id, number, config.to_dict(), owner=owner, unique_from=self._cache.unsettled_from
                )
                return config
            except DuplicateParamsError:
                continue
        self._storage.set_trial_params(self._study_id, number, config.to_dict(), owner=owner)
        return config

    def _fresh(self, history: History, rng: np.random.Generator) -> tuple[Config, bool]:
        """A configuration drawn from the space that no evaluation at any rung holds, when
        the optimizer, shown one rung, keeps proposing one that another rung holds."""
        seen = {self.dedupe.key(c) for c in history.seen()}
        config = sample(self._space, rng)
        for _ in range(self.dedupe.max_redraws):
            if self.dedupe.key(config) not in seen:
                return config, True
            config = sample(self._space, rng)
        return config, False

    def _source(self, plan: Next) -> int:
        """The number of the latest trial holding the configuration ``plan`` promotes at a
        rung below the plan's, or whose evaluation was lost (its worker died: the plan
        offers it again): every trial after it holding the configuration is at the
        plan's rung or above, so a promotion planned before another worker's was written
        (and the configuration even promoted further since) is refused all the same."""
        return max(r.number for r in self._holding(plan) if was_lost(r) or _below(r, plan))

    def _continued(self, plan: Next) -> int:
        """The number of the evaluation ``plan`` promotes: the latest complete trial
        holding its configuration at a rung below the plan's."""
        return max(r.number for r in self._holding(plan) if r.state is TrialState.COMPLETE and _below(r, plan))

    def _holding(self, plan: Next) -> list[TrialRecord]:
        """The trials at a fidelity holding the configuration ``plan`` promotes."""
        return [
            r
            for r in self._cache.finished_and_unfinished()
            if r.params and _at_fidelity(r) and self._cache.config_of(r) == plan.promote
        ]

    def _taken(self, number: int, config: Config) -> bool:
        """Whether a trial read afresh holds ``config``'s canonical expression."""
        return self.dedupe.key(config) in {self.dedupe.key(c) for c in self._cache.seen(exclude=number)}

    def _suggest(self, number: int, *, misled: bool = False) -> tuple[Config, bool]:
        """Trial ``number``'s suggestion from the history read now, and whether it is
        new to that history (always False when the dedupe is off); in a study with a
        fidelity, ``misled`` is the plan's verdict on the lower rungs."""
        rng = self.rng_for(number)
        space, optimizer = self._space, self._optimizer

        def propose(history: History) -> tuple[Config, Config]:
            """The suggestion, with every option of prior weight 0 drawn again, and
            the proposal it was made from."""

            def draw() -> Config:
                """The optimizer's suggestion, checked against the space: one outside it
                (a bound crossed, a decision missing) is the optimizer's error, not the
                objective's."""
                try:
                    return validate(space, optimizer.suggest(space, history, 1, rng)[0])
                except Exception as exc:
                    raise _suggestion_error(number, exc, optimizer) from exc

            if not optimizer.hint_draws:
                proposed = draw()
            else:
                complete = [(o.config, o.loss) for o in history.complete]
                tried = [*(o.config for o in history.complete), *history.failed, *history.pending]
                proposed = apply_hints(space, history.hints, draw(), complete, rng, draw, tried)
            return within_support(space, proposed, rng), proposed

        if self._fidelity is not None:
            every = self._cache.history(exclude=number)
            view = view_for(optimizer, every, self._fidelity, misleading=misled)
            config, new = self.dedupe.suggest(propose, view, taken=every.seen())
            return (config, True) if new else self._fresh(every, rng)
        if not self._check_dupes:
            if optimizer.needs_history:
                return propose(self._cache.history(exclude=number))[0], False
            hints = self._cache.hints()
            if any(h.credibility > 0 for h in hints):
                # The hints' draws are judged by, and fade with, the completed trials (apply_hints);
                # the history gates the warm-start hints with the trials it reads.
                return propose(self._cache.history(exclude=number))[0], False
            return propose(History(hints=hints))[0], False
        return self.dedupe.suggest(propose, self._cache.history(exclude=number))


def _at_fidelity(record: TrialRecord) -> bool:
    value = record.system_attrs.get(FIDELITY)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _below(record: TrialRecord, plan: Next) -> bool:
    """Whether ``record`` was evaluated at a rung below ``plan``'s."""
    return cast(float, record.system_attrs[FIDELITY]) < plan.fidelity


def _suggestion_error(number: int, exc: Exception, optimizer: Optimizer | None = None) -> SuggestionError:
    """The error of choosing trial ``number``'s configuration: the optimizer's, or one
    raised around it (hint draws, the dedupe)."""
    who = f"the optimizer {type(optimizer).__name__}" if optimizer is not None else "choosing the configuration"
    return SuggestionError(f"{who} raised while suggesting trial {number}: {type(exc).__name__}: {exc}")


def _tau(value: float | None) -> str:
    return "not yet known" if value is None else f"{value:.2f}"
