"""The trial an objective gets on an executor's worker: a detached copy that needs no storage.

An objective ``objective(params, trial)`` run on a Dask cluster, a Ray cluster, any
executor with ``submit``, or in a process pool (``n_jobs > 1, backend="process"``)
cannot reach the study: its storage and its artifact store are the study's process's.
So the study sends the worker a :class:`RemoteTrial`, made by :func:`detach` just
before the trial is submitted, holding what the objective reads: the trial's
``number``, ``config`` and ``value``, its ``fidelity``, ``budget`` and the trial it
``continues``, its ``user_attrs`` as they were when it was sent, and the checkpoint
of the trial it continues (read from the artifact store here, before the trial is
submitted). What the objective writes (``set_user_attr``, ``save_artifact``,
``save_checkpoint``, and whether it loaded its checkpoint) comes back with its
result, as :class:`Effects`, and :func:`settle` writes it in the study's process
before the result is recorded, as the trial's own calls would have during the run:
the artifacts to the study's artifact store, and a loaded checkpoint gives back
the continued trial's cost from the trial's reservation.

What needs the storage while the objective runs, a learning curve's
``report`` and ``should_prune`` (the pruner decides from every trial's stored
curve) and ``study``, opens the study on the worker from its database (a
:class:`StudyAddress`: the URL, the name, the space, the pruner and the cost
budget, sent with the trial), once per worker process: the worker then reports,
spends and asks the pruner as a ``treefarm worker`` process sharing the database
does, and the study's process reads the stored curve when it records the result.
A study in memory, or a SQLite file the worker does not see, has no address a
worker can open: there the call raises a :class:`~treefarm.StudyError` that
names it and the cause, since doing nothing would silently turn pruning off.
Cost stays exact across workers: a trial's cost is reserved in the study's
process when it is claimed, and given back there (:func:`settle`), never spent
on a worker. A worker that dies returns nothing: its trial is failed as lost,
keeps its reservation, and its promotion is offered again from the same
checkpoint (see :mod:`treefarm.study.state.checkpoints`).
"""

from __future__ import annotations

import functools
import os
import pickle
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...exceptions import StudyError
from ...execution.processes import call_in_worker
from ...pruners import Pruner
from ...space import Config, Space
from ...storage import NotFoundError, checks
from ..state import artifacts, checkpoints
from ..tell.trial import Trial, TrialHost

__all__ = ["Effects", "RemoteTrial", "StudyAddress", "call_with_trial", "detach", "settle"]

_NEEDS_STORAGE = (
    "{call} needs the study's storage while the objective runs, which this worker of an executor "
    "(Dask, Ray, a process pool) does not reach: {why}, and {cause}. Store the study in a database "
    "the workers can open (a SQLite file they all see, or PostgreSQL), or run the objective in the "
    "study's process (n_jobs=1, or n_jobs > 1 with backend='thread'), but got {call} on trial {number}"
)
_IN_MEMORY = "the study is in memory, in the process that sent the trial"
_WHY = {
    "trial.report": "its values are written to the storage for the pruner to compare with every other trial's",
    "trial.should_prune": "the pruner decides from every trial's stored curve",
    "trial.study": "the study is the one in the process that sent the trial",
}


@dataclass(frozen=True)
class StudyAddress:
    """Where a worker opens the study to report a learning curve: its database's ``url``,
    the study's ``name`` and ``space``, the ``pruner`` that decides and the cost budget
    ``max_cost`` of the run that sent the trial; ``opener`` opens it (the study's own
    ``load``, a function the worker imports, which refuses a SQLite file that is not there)."""

    url: str = field(repr=False)  # it holds a database server's password
    name: str
    space: Space
    pruner: Pruner | None
    max_cost: float | None
    opener: Callable[[StudyAddress], TrialHost]

    def key(self) -> tuple[str, str, float | None, bytes]:
        """One worker-side study per database, study, cost budget and pruner (its pickle)."""
        return self.url, self.name, self.max_cost, pickle.dumps(self.pruner)


_OPENED: dict[tuple[str, str, float | None, bytes], TrialHost] = {}
_OPENING = threading.Lock()
#: Studies a worker process keeps open, the oldest let go first (a long-lived cluster serves many
#: runs; a trial still running on one it let go keeps its own reference).
KEPT_OPEN = 8


def open_on_worker(address: StudyAddress, call: str, number: int) -> TrialHost:
    """The study at ``address``, opened once per worker process (threads of one worker share
    it, as threads of the study's process share theirs; the last :data:`KEPT_OPEN` are kept
    open); a study the worker cannot find (a SQLite file it does not see, which is not
    created) is refused naming the call and the cause."""
    key = address.key()
    with _OPENING:
        study = _OPENED.get(key)
        if study is None:
            try:
                study = address.opener(address)
            except NotFoundError as exc:
                cause = f"this worker cannot find the study: {exc}"
                raise StudyError(_NEEDS_STORAGE.format(call=call, why=_WHY[call], cause=cause, number=number)) from exc
            while len(_OPENED) >= KEPT_OPEN:
                _OPENED.pop(next(iter(_OPENED)))
            _OPENED[key] = study
        return study


@dataclass
class Effects:
    """What an objective wrote to its :class:`RemoteTrial`, carried back with its result."""

    user_attrs: dict[str, Any] = field(default_factory=dict)
    """``set_user_attr`` calls, the last value of each key."""
    artifacts: dict[str, bytes] = field(default_factory=dict)
    """``save_artifact`` and ``save_checkpoint`` calls: each name's last content."""
    resumed: bool = False
    """Whether ``load_checkpoint`` returned the continued trial's checkpoint."""


class RemoteTrial:
    """A trial as an objective on an executor's worker sees it (see the module docstring):
    read ``number``, ``config``, ``value``, ``fidelity``, ``budget``, ``continues`` and
    ``user_attrs``; ``load_checkpoint``, ``save_checkpoint``, ``save_artifact`` and
    ``set_user_attr`` as on a :class:`~treefarm.Trial`; ``report``, ``should_prune``
    and ``study`` work on the study opened on the worker from its :class:`StudyAddress`
    (a :class:`~treefarm.StudyError` saying why where it has none)."""

    __slots__ = (
        "_address",
        "_checkpoint",
        "_effects",
        "_error",
        "_has_fidelity",
        "_local",
        "_user_attrs",
        "budget",
        "config",
        "continues",
        "fidelity",
        "number",
        "value",
    )

    def __init__(
        self,
        number: int,
        config: Config,
        value: Any,
        *,
        fidelity: float | None,
        budget: int | None,
        continues: int | None,
        user_attrs: dict[str, Any],
        checkpoint: bytes | StudyError | None,
        has_fidelity: bool,
        address: StudyAddress | None = None,
    ) -> None:
        self.number = number
        self.config = config
        self.value = value
        self.fidelity = fidelity
        self.budget = budget
        self.continues = continues
        self._user_attrs = user_attrs
        self._checkpoint = checkpoint
        self._has_fidelity = has_fidelity
        self._effects = Effects()
        self._address = address
        self._local: Trial | None = None

    @property
    def user_attrs(self) -> dict[str, Any]:
        """The trial's user attributes when it was sent, with those set on the worker since."""
        return {**self._user_attrs, **self._effects.user_attrs}

    def load_checkpoint(self) -> bytes | None:
        """The checkpoint of the trial this one :attr:`continues`, read by the study before
        the trial was sent (None: a new configuration, or that trial saved none). Loading
        it makes the trial's cost what it adds, given back in the study's process."""
        if not self._has_fidelity:
            checkpoints.needs_fidelity(None, "load_checkpoint")
        if isinstance(self._checkpoint, StudyError):
            raise self._checkpoint
        self._effects.resumed = self._effects.resumed or self._checkpoint is not None
        return self._checkpoint

    def save_checkpoint(self, data: bytes | str | os.PathLike[str]) -> dict[str, Any]:
        """Keep the state a promotion of this trial resumes from (bytes, or a path to a
        file on this worker, read here): written to the study's artifact store with the result."""
        if not self._has_fidelity:
            checkpoints.needs_fidelity(None, "save_checkpoint")
        return self.save_artifact(data, name=checkpoints.CHECKPOINT)

    def save_artifact(self, data: bytes | str | os.PathLike[str], *, name: str | None = None) -> dict[str, Any]:
        """Keep a file this trial made (bytes with a ``name``, or a path on this worker, read
        here); written to the study's artifact store with the result. Returns what the trial lists."""
        checked, content = artifacts.content_of(data, name)
        self._effects.artifacts.pop(checked, None)  # a second save replaces the first, as the last one
        self._effects.artifacts[checked] = content
        return artifacts.entry_of(checked, content)

    def set_user_attr(self, key: str, value: Any) -> None:
        """Attach a JSON-serializable field to the trial (checked here, written with the result)."""
        checks.encode_attrs({key: value}, what="user_attrs")
        self._effects.user_attrs[key] = value

    def report(self, step: int, value: float | Sequence[float]) -> None:
        """:meth:`treefarm.Trial.report`, written to the study's database from the worker."""
        self._on_worker("trial.report").report(step, value)

    def should_prune(self) -> bool:
        """:meth:`treefarm.Trial.should_prune`, decided on the worker from the stored curves."""
        return self._on_worker("trial.should_prune").should_prune()

    @property
    def study(self) -> TrialHost:
        """The study, opened on this worker from its database."""
        return open_on_worker(self._reach("trial.study"), "trial.study", self.number)

    def effects(self) -> Effects:
        """What the objective wrote, to carry back."""
        return self._effects

    def _reach(self, call: str) -> StudyAddress:
        if self._address is None:
            raise StudyError(_NEEDS_STORAGE.format(call=call, why=_WHY[call], cause=_IN_MEMORY, number=self.number))
        return self._address

    def _on_worker(self, call: str) -> Trial:
        """This trial as the study opened on the worker sees it (one per trial: it counts
        the steps its reports have spent)."""
        if self._local is None:
            study = open_on_worker(self._reach(call), call, self.number)
            self._local = Trial(study, self.number, self.config, self.value)
        return self._local

    def __repr__(self) -> str:
        return f"RemoteTrial(number={self.number}, config={dict(self.config)!r})"


def detach(trial: Trial, address: StudyAddress | None = None) -> RemoteTrial:
    """``trial``'s :class:`RemoteTrial`, made in the study's process: the checkpoint of the
    trial it continues is read now (an error reading it is raised by ``load_checkpoint``
    on the worker, as it would be in the study's process); ``address``: where the worker
    opens the study (None: a study in memory, which it cannot)."""
    study = trial.study
    continues = trial.continues
    checkpoint: bytes | StudyError | None = None
    if study.fidelity is not None:
        try:
            checkpoint = checkpoints.read(study.storage, study.study_id, study.name, study.artifact_store, continues)
        except StudyError as exc:
            checkpoint = exc
    return RemoteTrial(
        trial.number,
        trial.config,
        trial.value,
        fidelity=trial.fidelity,
        budget=trial.budget,
        continues=continues,
        user_attrs=trial.user_attrs,
        checkpoint=checkpoint,
        has_fidelity=study.fidelity is not None,
        address=address,
    )


def call_with_trial(objective: Callable[..., Any], trial: RemoteTrial) -> tuple[str, Any, Effects]:
    """Run on a worker: :func:`~treefarm.execution.processes.call_in_worker` of
    ``objective(value, trial=trial)``, with what the objective wrote to ``trial``."""
    kind, payload = call_in_worker(functools.partial(objective, trial=trial), trial.value)
    return kind, payload, trial.effects()


def settle(trial: Trial, effects: Effects) -> bool:
    """Write in the study's process what the objective wrote on its worker, before the
    trial's result is recorded (while it runs): the cost given back for a loaded
    checkpoint, the user attributes, the artifacts. Whether cost was given back."""
    study = trial.study
    continues, at, fidelity = trial.continues, trial.fidelity, study.fidelity
    resumed = False
    if effects.resumed and fidelity is not None and continues is not None and at is not None:
        checkpoints.give_back(study.storage, study.study_id, fidelity, trial.number, continues, at)
        resumed = True
    for key, value in effects.user_attrs.items():
        trial.set_user_attr(key, value)
    for name, content in effects.artifacts.items():
        trial.save_artifact(content, name=name)
    return resumed
