"""The handle of a running trial, as the user's code sees it."""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Sequence
from typing import Any, Protocol, cast

from ...exceptions import StudyError
from ...fidelity import Fidelity
from ...objectives import Objectives
from ...pruners import Pruner
from ...space import Config
from ...storage import Storage
from ...validation import check_integral
from ..state import artifacts, checkpoints

__all__ = ["Trial", "TrialHost"]


class TrialHost(Protocol):
    """What a trial needs of its study (a :class:`~treefarm.Study`): where to write its
    reports, attributes and artifacts, how many objectives it has, and its pruner's say."""

    @property
    def name(self) -> str: ...

    @property
    def study_id(self) -> int: ...

    @property
    def storage(self) -> Storage: ...

    @property
    def direction(self) -> str: ...

    @property
    def directions(self) -> tuple[str, ...]: ...

    @property
    def objectives(self) -> Objectives: ...

    @property
    def artifact_store(self) -> str: ...

    pruner: Pruner | None
    fidelity: Fidelity | None

    def should_prune(self, number: int) -> bool: ...

    def fidelity_of(self, number: int) -> float | None: ...

    def continued_from(self, number: int) -> int | None: ...

    def spend(self, number: int, cost: float) -> None: ...


class Trial:
    """A trial being evaluated: its ``number``, its ``config`` (the decisions,
    as stored) and its ``value`` (the Python value built from the config,
    which the objective receives).

    ``report(step, value)`` records an intermediate value (a learning curve),
    ``set_user_attr`` any JSON field; both are written to storage at once.
    With a pruner, ``should_prune()`` after a report says whether to stop
    (then ``raise TrialPruned()``), and ``budget`` is the most steps the
    pruner lets the trial take (the fidelity to train up to). In a study with a
    :class:`~treefarm.Fidelity`, ``fidelity`` is the one to evaluate at.

    Cost: a learning curve's trial spends one unit per step it reaches (a report at
    step 5 after one at step 3 spends 2); a trial at a fidelity spends the
    fidelity's cost, reserved when it was claimed; a trial that resumed from the
    checkpoint of the trial it continues (:meth:`load_checkpoint`) spends only what
    it adds.
    """

    __slots__ = ("_last_step", "_reached", "_resumed", "_study", "config", "number", "value")

    def __init__(self, study: TrialHost, number: int, config: Config, value: Any) -> None:
        self._study = study
        self.number = number
        self.config = config
        self.value = value
        self._reached = 0
        self._resumed = False
        self._last_step: int | None = None

    def report(self, step: int, value: float | Sequence[float]) -> None:
        """Record the objective's intermediate ``value`` at ``step`` (e.g. an epoch): a
        number, or in a study with several objectives one number per objective (which
        the successive-halving pruners compare as vectors). Steps never go backwards:
        a step below one reported before is refused (a curve read out of order would
        mislead the pruner); the same step again replaces its value."""
        step = check_integral("step", step, 0, error=StudyError)  # NumPy integers too
        if self._last_step is not None and step < self._last_step:
            raise StudyError(
                f"a report's step must not go backwards, but got step={step} after step={self._last_step} "
                f"on trial {self.number}"
            )
        self._spend_to(step)
        directions = self._study.directions
        if isinstance(value, (list, tuple)) or getattr(value, "ndim", 0) == 1:
            vector = list(cast("Sequence[float]", value))
            if len(vector) != len(directions) or not all(_number(v) for v in vector):
                raise StudyError(
                    f"an intermediate vector must hold {len(directions)} finite numbers or NaN (one per objective), "
                    f"but got value={vector!r:.120} at step={step}"
                )
            self._study.storage.report_intermediate(self._study.study_id, self.number, step, [float(v) for v in vector])
            self._last_step = step
            return
        if not _number(value):
            raise StudyError(
                "an intermediate value must be a finite number or NaN (a diverging run), "
                f"but got value={value!r} at step={step}"
            )
        self._study.storage.report_intermediate(self._study.study_id, self.number, step, float(cast(float, value)))
        self._last_step = step

    def _spend_to(self, step: int) -> None:
        """Count the steps from the furthest reached so far to ``step`` in the trial's cost
        (a learning curve's; a trial at a fidelity had its cost reserved when claimed)."""
        if self._study.fidelity is None and step > self._reached:
            self._study.spend(self.number, float(step - self._reached))
            self._reached = step

    @property
    def fidelity(self) -> float | None:
        """The fidelity to evaluate this trial at (None in a study without a :class:`~treefarm.Fidelity`)."""
        return self._study.fidelity_of(self.number)

    @property
    def continues(self) -> int | None:
        """The number of the trial this one continues: in a study with a
        :class:`~treefarm.Fidelity`, a promotion continues the same configuration's
        evaluation at the rung below; None for a new configuration (at the lowest
        rung), an enqueued one, or in a study without a fidelity."""
        return self._study.continued_from(self.number)

    def save_checkpoint(self, data: bytes | str | os.PathLike[str]) -> dict[str, Any]:
        """Keep the state a promotion of this trial resumes from (bytes, or a path to a
        file, as :meth:`save_artifact` takes), as this trial's artifact ``"checkpoint"``;
        a second save replaces the first. Needs a study with a fidelity (StudyError
        otherwise). For example, a model trained by epochs up to ``trial.fidelity``::

            state = trial.load_checkpoint()
            model = pickle.loads(state) if state is not None else make_model(params)
            while model.epochs < trial.fidelity:
                model.train_one_epoch()
            trial.save_checkpoint(pickle.dumps(model))
        """
        checkpoints.needs_fidelity(self._study.fidelity, "save_checkpoint")
        return self.save_artifact(data, name=checkpoints.CHECKPOINT)

    def load_checkpoint(self) -> bytes | None:
        """The checkpoint the trial this one :attr:`continues` saved, or None: a new
        configuration, or that trial saved none (then train from scratch). Loading it
        counts the trial as resumed: its cost becomes what it adds, ``cost(fidelity)``
        less the continued trial's, given back from the cost reserved when it was
        claimed (a study's ``max_cost`` counts added work only). Needs a study with a
        fidelity (StudyError otherwise); see :meth:`save_checkpoint` for an example."""
        study = self._study
        fidelity = checkpoints.needs_fidelity(study.fidelity, "load_checkpoint")
        refund_at = None if self._resumed else study.fidelity_of(self.number)
        content = checkpoints.load(
            study.storage,
            study.study_id,
            study.name,
            study.artifact_store,
            fidelity,
            self.number,
            self.continues,
            refund_at=refund_at,
        )
        self._resumed = self._resumed or content is not None
        return content

    def should_prune(self) -> bool:
        """Whether the study's pruner stops this trial at its last reported step
        (always False without a pruner); decided from stored values only."""
        return self._study.should_prune(self.number)

    @property
    def budget(self) -> int | None:
        """The most resource (epochs, iterations) the pruner allots; None without one."""
        pruner = self._study.pruner
        return None if pruner is None else pruner.budget(self.number)

    def save_artifact(self, data: bytes | str | os.PathLike[str], *, name: str | None = None) -> dict[str, Any]:
        """Keep a file this trial made (a path, or bytes with a ``name``) in the study's
        artifact store, beside the storage, and list it in the trial (name, size,
        SHA-256; never the content in the database). See :mod:`treefarm.study.state.artifacts`."""
        study = self._study
        return artifacts.save(
            study.storage, study.study_id, study.name, self.number, study.artifact_store, data, name
        )

    def set_user_attr(self, key: str, value: Any) -> None:
        """Attach a JSON-serializable field to the trial."""
        self._study.storage.set_trial_user_attr(self._study.study_id, self.number, key, value)

    @property
    def user_attrs(self) -> dict[str, Any]:
        """The trial's user attributes as stored now: those it was enqueued with (a warm
        start's, a hint's) and those set since."""
        return dict(self._study.storage.get_trial(self._study.study_id, self.number).user_attrs)

    @property
    def study(self) -> TrialHost:
        """The study this trial belongs to."""
        return self._study

    def __repr__(self) -> str:
        return f"Trial(number={self.number}, config={dict(self.config)!r})"


def _number(value: object) -> bool:
    """Whether a reported value is a real number, finite or NaN (``10**400`` is neither)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return False
    try:
        return not math.isinf(float(value))
    except OverflowError:
        return False
