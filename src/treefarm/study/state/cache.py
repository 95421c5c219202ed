"""The study's view of its stored trials, read incrementally.

Finished trials never change, so they are kept, and each read fetches only
the trials that changed (:mod:`treefarm.storage.incremental`): the cost of an
``ask`` does not grow with the history for optimizers that need none, nor with
the number of trials running, and stays one indexed read for those that do. Each trial's configuration is
validated against the study's space once; one that no longer fits (written
for a wider space the caller explicitly accepted) is left out of what the
optimizer sees.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import replace

import numpy as np

from ...exceptions import ConfigError, StudyError
from ...fidelity import recorded_fidelity
from ...objectives import Objectives
from ...optimizers import History, Observation
from ...optimizers.hints import Hint
from ...pareto import ranking_losses
from ...pruners.promotion import Point
from ...space import Config, Space, validate
from ...space.partial import check_partial
from ...storage import HintRecord, Storage, TrialRecord, TrialState
from ...storage.incremental import TrialReader
from .objectives import constraint_matrix, feasible_front, loss_matrix
from .outcome import loss_variance
from .recovery import REQUEUE_LOST, was_lost
from .rows import full_evaluations
from .warm import gate_open, warm_source

__all__ = ["HINTS_PERIOD", "TrialCache"]

HINTS_PERIOD = 1.0
"""Seconds a study's list of hints is reused before it is read again."""

log = logging.getLogger("treefarm")


class TrialCache:
    """Finished trials of one study (see the module docstring); values become
    losses by the study's ``objectives``, so losses handed to optimizers are always minimized."""

    def __init__(
        self,
        storage: Storage,
        study_id: int,
        space: Space,
        *,
        name: str,
        objectives: Objectives,
        fidelities: tuple[float, float] | None = None,
    ) -> None:
        self._storage = storage
        self.fidelities = fidelities
        self._study_id = study_id
        self._space = space
        self._sign = objectives.sign(0)
        self.full_fidelity: float | None = None
        """The full evaluation's fidelity in a study with one (set by the study)."""
        self._name = name
        self._objectives = objectives
        self._reader = TrialReader(storage, study_id)
        self._configs: dict[int, Config | None] = {}
        self._curves: dict[int, tuple[float | None, tuple[tuple[float, float], ...]]] = {}
        self._checked_hints: dict[tuple[int, float], Hint | None] = {}
        self._hint_source: dict[int | None, str | None] = {}
        self._hints: tuple[float, tuple[Hint, ...]] | None = None

    @property
    def objectives(self) -> Objectives:
        """The study's objectives."""
        return self._objectives

    def remember(self, number: int, config: Config) -> None:
        """Record the configuration of a trial this process started (already valid)."""
        self._configs[number] = config

    def known_config(self, number: int) -> Config | None:
        """The configuration of trial ``number`` if this cache has seen it."""
        return self._configs.get(number)

    def config_of(self, record: TrialRecord) -> Config | None:
        """The record's configuration validated against the space (None if it does not fit)."""
        if record.number not in self._configs:
            try:
                self._configs[record.number] = validate(self._space, record.params)
            except ConfigError:
                self._configs[record.number] = None
        return self._configs[record.number]

    @property
    def _finished(self) -> dict[int, TrialRecord]:
        """Every finished trial read so far, by number (the reader's)."""
        return self._reader.finished

    @property
    def unsettled_from(self) -> int:
        """The number of the oldest trial unfinished at the last sync (or the next
        number): every trial below it was finished, with its params, when read."""
        return self._reader.unsettled_from

    def sync(self) -> list[TrialRecord]:
        """Read the trials changed since the last sync (:class:`~treefarm.storage.incremental.TrialReader`);
        return the unfinished ones."""
        return self._reader.read()

    def finished_and_unfinished(self) -> list[TrialRecord]:
        """Every trial: the finished ones from the cache, the others read afresh."""
        unfinished = self.sync()
        return [*self._finished.copy().values(), *unfinished]  # copy(): atomic under threads

    def history(self, *, exclude: int | None = None) -> History:
        """What the optimizer sees: completed, failed and pending configurations.

        A pruned trial counts as completed with the value it last reported.
        For a curve that improves with the budget that value is pessimistic,
        so a trial stopped early lands among the worse ones of TPE's split
        (as Optuna's TPE ranks pruned trials below completed ones) without
        any optimizer knowing about fidelities; ignoring it instead would let
        the optimizer propose its region again. Pruned before any report, it
        counts as failed. A trial's ``"loss_variance"`` user attribute (stored
        by :func:`~treefarm.evaluate_folds`, or returned by the objective) is
        its observation's ``loss_variance``; one that is not a finite number
        >= 0 (set by hand mid-trial) counts as 0. The hints are :meth:`hints`
        without the warm-start ones whose gate is closed on the trials read here.

        Each observation carries its trial's learning curve (its intermediate
        values as losses) and, for a pruned trial, the step it stopped at as its
        ``fidelity``; ``fidelities`` (the ``(min, max)`` resource of a
        budget-setting pruner, :func:`treefarm.study.tell.pruning.fidelity_range`)
        become the history's ``min_fidelity`` and ``max_fidelity``."""
        observed = self._observed(exclude)  # reads the trials the gate of warm-start hints needs
        return replace(observed, hints=self._gated(self.hints()))

    def seen(self, *, exclude: int | None = None) -> set[Config]:
        """The configurations evaluated, failed or pending, read afresh (hints are not read)."""
        return self._observed(exclude).seen()

    def _observed(self, exclude: int | None) -> History:
        unfinished = self.sync()
        complete, failed, scored = [], [], []
        for number in sorted(self._finished):
            r = self._finished[number]
            config = self.config_of(r)
            if config is None:
                continue
            if r.state in (TrialState.COMPLETE, TrialState.PRUNED) and r.value is not None:
                fidelity, curve = self._curve(r)
                declared = recorded_fidelity(r.system_attrs)
                variance = loss_variance(r.user_attrs) or 0.0
                observation = Observation(config, self._sign * r.value, variance, curve=curve)
                complete.append(replace(observation, fidelity=fidelity if declared is None else declared))
                scored.append(r)
            elif r.state is not TrialState.COMPLETE:
                failed.append(config)
        if self._objectives.several or any(r.constraints for r in scored):
            complete, more_failed = self._ranked(complete, scored)
            failed.extend(more_failed)
        pending = []
        for r in unfinished:
            config = self.config_of(r) if r.params and r.number != exclude else None
            if config is not None:
                pending.append(config)
        low, high = self.fidelities if self.fidelities is not None else (None, None)
        return History(tuple(complete), tuple(failed), tuple(pending), max_fidelity=high, min_fidelity=low)

    def _curve(self, r: TrialRecord) -> tuple[float | None, tuple[tuple[float, float], ...]]:
        """A finished trial's fidelity (the step a pruned trial stopped at, None for a
        complete one) and its curve of ``(step, loss)`` pairs, read once (it never changes)."""
        if r.number not in self._curves:
            curve = tuple((float(step), self._sign * value) for step, value in sorted(r.intermediate.items()))
            fidelity = None
            if r.state is TrialState.PRUNED and curve:
                step = r.system_attrs.get("pruned_step")
                fidelity = float(step) if isinstance(step, (int, float)) else curve[-1][0]
            self._curves[r.number] = (fidelity, curve)
        return self._curves[r.number]

    def fidelity_points(self) -> tuple[list[Point], list[tuple[Config, float]]]:
        """The evaluations made at a fidelity, read afresh: the finished ones as points
        (a loss, None when it failed or was pruned) and the running or waiting ones. An
        evaluation whose worker died is left out, so that the same promotion is offered
        again (and continued from the same checkpoint), unless the configuration's
        evaluations at that fidelity were lost more than ``REQUEUE_LOST`` times: a
        configuration that kills its worker is not run forever."""
        points: list[Point] = []
        pending: list[tuple[Config, float]] = []
        lost: list[Point] = []
        for r in self.finished_and_unfinished():
            fidelity = recorded_fidelity(r.system_attrs)
            config = self.config_of(r) if r.params else None
            if fidelity is None or config is None:
                continue
            if r.state in (TrialState.RUNNING, TrialState.WAITING):
                pending.append((config, fidelity))
            elif was_lost(r):
                lost.append(Point(config, fidelity, None))
            else:
                complete = r.state is TrialState.COMPLETE and r.value is not None
                points.append(Point(config, fidelity, self._sign * r.value if complete else None))  # type: ignore[operator]
        times = Counter((p.config, p.fidelity) for p in lost)
        return points + [p for p in lost if times[p.config, p.fidelity] > REQUEUE_LOST], pending

    def _ranked(
        self, complete: list[Observation], scored: list[TrialRecord]
    ) -> tuple[list[Observation], list[Config]]:
        """Observations of a study with several objectives or constraints: every
        objective's loss and the constraint values, and as the single ``loss`` the
        trial's place in the Pareto order (see :class:`~treefarm.optimizers.Observation`).
        A trial without a value for every objective (a pruned one that reported one
        number) counts as failed."""
        Y = loss_matrix(scored, self._objectives)
        whole = np.all(np.isfinite(Y), axis=1)
        kept = [o for o, ok in zip(complete, whole) if ok]
        C = constraint_matrix([r for r, ok in zip(scored, whole) if ok])
        keys = ranking_losses(Y[whole], C)
        # a curve reports the first objective alone: a ranked observation carries none
        ranked = [
            replace(o.ranked(key, row, () if c is None else c), curve=())
            for o, key, row, c in zip(kept, keys, Y[whole], C if C is not None else [None] * len(kept))
        ]
        return ranked, [o.config for o, ok in zip(complete, whole) if not ok]

    def hints(self) -> tuple[Hint, ...]:
        """The study's hints that fit the space. The list is read again when it is
        older than ``HINTS_PERIOD`` seconds (a person may add or remove one mid-run,
        from another process) or after :meth:`forget_hints` (this process changed it),
        not on every suggestion: that would be one more storage read per trial. Each
        is checked against the space once, as a stored hint never changes, and one
        that does not fit is left out and logged."""
        now = time.monotonic()
        if self._hints is not None and now - self._hints[0] < HINTS_PERIOD:
            return self._hints[1]
        out = []
        for record in self._storage.get_hints(self._study_id):
            # Keyed by id and creation time: a database may give a removed hint's id to a new one.
            key = (record.hint_id, record.created)
            if key not in self._checked_hints:
                self._checked_hints[key] = self._checked(record)
            hint = self._checked_hints[key]
            if hint is not None:
                out.append(hint)
        self._hints = (now, tuple(out))
        return self._hints[1]

    def _gated(self, hints: tuple[Hint, ...]) -> tuple[Hint, ...]:
        """``hints`` without the warm-start hints whose gate is closed
        (:func:`treefarm.study.state.warm.gate_open`) on the trials last read."""
        sources = {s for h in hints if (s := self._hint_source.get(h.hint_id)) is not None}
        if not sources:
            return hints
        finished = self._finished.copy().values()
        shut = {s for s in sources if not gate_open(s, finished, self._sign)}
        return tuple(h for h in hints if self._hint_source.get(h.hint_id) not in shut)

    def forget_hints(self) -> None:
        """Read the hints again at the next suggestion (this process added or removed one)."""
        self._hints = None

    def _checked(self, record: HintRecord) -> Hint | None:
        try:
            config = check_partial(self._space, record.config)
        except ConfigError as exc:
            log.warning("hint %d of study %r is ignored: %s", record.hint_id, self._name, exc)
            return None
        self._hint_source[record.hint_id] = warm_source(record.author)
        return Hint(config, record.credibility, record.weight, record.spread, record.hint_id)

    def completed(self) -> list[TrialRecord]:
        """The completed trials, by number; in a study with a fidelity, those evaluated at
        the full one (:attr:`full_fidelity`): a cheap evaluation's value is not a result."""
        self.sync()
        return full_evaluations([self._finished[n] for n in sorted(self._finished)], self.full_fidelity)

    def best(self) -> TrialRecord:
        """The completed trial with the best value (the lowest number among ties).

        With none, the error says why: how many trials failed, quoting the first
        and the most recent failure reasons."""
        done = self.completed()
        if done:
            if any(t.constraints for t in done):
                return feasible_front(done, self._objectives.pick(0))[0]
            values = np.array([t.value for t in done], dtype=float)
            return done[self._objectives.best_index(values) or 0]  # the first of ties: done is by number
        cheap = sum(t.state is TrialState.COMPLETE for t in self._finished.values())
        if cheap:
            raise StudyError(
                f"the study must have a trial completed at the full fidelity ({self.full_fidelity:g}), but got "
                f"name={self._name!r} with {cheap} completed at lower fidelities only (their values guide the "
                "search and are not results): run it on with a larger max_cost"
            )
        failed = [
            self._finished[n] for n in sorted(self._finished) if self._finished[n].state is TrialState.FAILED
        ]
        if not failed:
            raise StudyError(
                f"the study must have a completed trial, but got name={self._name!r} with none yet"
            )

        def reason(r: TrialRecord) -> str:
            return f"trial {r.number}: {r.system_attrs.get('fail_reason', 'no reason recorded')}"

        quoted = (
            reason(failed[0]) if len(failed) == 1 else f"first {reason(failed[0])}; last {reason(failed[-1])}"
        )
        raise StudyError(
            f"the study must have a completed trial, but got name={self._name!r} with all "
            f"{len(failed)} finished trials failed ({quoted})"
        )
