"""What ``optimize`` tells its user: a log line per finished trial, warnings when every
trial fails or a stopping rule ends the run, and a progress bar.

Log records go to the ``treefarm`` logger (per-trial lines to its child
``treefarm.trials``), silenced the usual way:
``logging.getLogger("treefarm").setLevel(logging.WARNING)``. Without a logging
configuration of the user's, :mod:`treefarm.logs` prints them on standard error.

The bar is tqdm's (its notebook form inside Jupyter, when ``ipywidgets`` is
installed; its text form otherwise). ``progress=None`` shows it when standard
error is a terminal or the code runs in a notebook, and never in a worker
process (a process pool's or a multiprocessing child's), where it would
interleave with the parent's.
"""

from __future__ import annotations

import logging
import multiprocessing
import sys
from typing import TYPE_CHECKING, Any, Protocol

from ...exceptions import StudyError
from ...objectives import Objectives
from ...storage import Storage, TrialRecord, TrialState
from ...validation import check_bool

if TYPE_CHECKING:
    from .stopping import Stopper

__all__ = [
    "ALL_FAILED_AFTER",
    "Reported",
    "Reporter",
    "bar_class",
    "bar_total",
    "in_notebook",
    "say_if_spent",
    "show_progress",
]

log = logging.getLogger("treefarm")
trial_log = logging.getLogger("treefarm.trials")

ALL_FAILED_AFTER = 5
"""Finished trials after which a run in which every one failed is announced (and again at its end)."""
REASON_WIDTH = 120
"""Characters of a failure's first line quoted in a log line."""


class Reported(Protocol):
    """What the announcements read of a study (a :class:`~treefarm.Study`)."""

    @property
    def name(self) -> str: ...

    @property
    def objectives(self) -> Objectives: ...

    @property
    def best_trial(self) -> TrialRecord: ...

    @property
    def best_trials(self) -> list[TrialRecord]: ...


def in_notebook() -> bool:
    """Whether this code runs in a Jupyter kernel (the test tqdm's ``autonotebook`` makes)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:
        return False
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def show_progress(progress: bool | None) -> bool:
    """``progress`` checked; None: a terminal or a notebook, never a worker process."""
    check_bool("progress", progress, error=StudyError, or_none=True)
    if progress is not None:
        return bool(progress)
    if multiprocessing.parent_process() is not None:
        return False
    return in_notebook() or bool(getattr(sys.stderr, "isatty", lambda: False)())


def bar_class() -> Any:
    """tqdm's notebook bar in a notebook with ipywidgets, its text bar otherwise
    (tqdm.auto's choice, without its warning when ipywidgets is missing)."""
    if in_notebook():
        try:
            import ipywidgets  # noqa: F401  (what tqdm.notebook needs to draw)
            from tqdm.notebook import tqdm as notebook_tqdm

            return notebook_tqdm
        except ImportError:
            pass
    from tqdm.std import tqdm

    return tqdm


def _first_line(text: object) -> str:
    line = str(text).strip().splitlines()[0] if str(text).strip() else ""
    return line if len(line) <= REASON_WIDTH else line[: REASON_WIDTH - 1] + "…"


def describe(record: TrialRecord) -> str:
    """The state and value of a finished trial, or why it did not complete."""
    if record.state is TrialState.COMPLETE:
        if record.values is not None and len(record.values) > 1:
            feasible = "" if record.constraints is None else (", feasible" if record.feasible else ", infeasible")
            return f"complete, values {list(record.values)!r}{feasible}"
        feasible = "" if record.constraints is None else (" (feasible)" if record.feasible else " (infeasible)")
        return f"complete, value {record.value!r}{feasible}"
    reason = record.system_attrs.get("fail_reason")
    why = f": {_first_line(reason)}" if reason else ""
    step = record.system_attrs.get("pruned_step")
    at = f" at step {step}" if record.state is TrialState.PRUNED and step is not None else ""
    return f"{record.state.value}{at}{why}"


def bar_total(storage: Storage, study_id: int, n_trials: int | None, n_new_trials: int | None) -> int | None:
    """How many trials an ``optimize`` call may add, the bar's length: what the study's
    total ``n_trials`` leaves, at most ``n_new_trials``."""
    left = None
    if n_trials is not None:
        claimed = (TrialState.RUNNING, TrialState.COMPLETE, TrialState.FAILED, TrialState.PRUNED)
        left = max(n_trials - storage.count_trials(study_id, states=claimed), 0)
    if n_new_trials is None:
        return left
    return n_new_trials if left is None else min(left, n_new_trials)


def say_if_spent(storage: Storage, study_id: int, n_trials: int | None, max_cost: float | None) -> None:
    """Warn when an ``optimize`` call can run no trial because the study already holds
    its total ``n_trials`` or has spent ``max_cost``: both are the study's totals, not
    the call's, so a second call with the same numbers (as in a notebook cell run
    twice) would otherwise return at once without a word."""
    if n_trials is not None:
        claimed = storage.count_trials(study_id, states=(TrialState.RUNNING, TrialState.COMPLETE, TrialState.FAILED, TrialState.PRUNED))
        if claimed >= n_trials:
            log.warning(
                "the study already has %d trials and n_trials=%d is the study's total: this call runs none "
                "(n_trials=%d runs %d more)",
                claimed, n_trials, claimed + n_trials, n_trials,
            )
            return
    if max_cost is not None and (spent := storage.spent_cost(study_id)) >= max_cost:
        log.warning(
            "the study's trials have spent %g and max_cost=%g is the study's total: this call runs none "
            "(max_cost=%g spends %g more)",
            spent, max_cost, spent + max_cost, max_cost,
        )


class Reporter:
    """Announces one ``optimize`` call's trials (see the module docstring)."""

    def __init__(self, study: Reported, *, total: int | None, progress: bool) -> None:
        self.study = study
        self.finished = 0
        self.failed = 0
        self.reasons: dict[str, int] = {}
        self.warned = False
        self.bar: Any = None
        if progress:
            self.bar = bar_class()(
                total=total, desc=study.name, unit="trial", file=sys.stderr, dynamic_ncols=True
            )

    def _best(self) -> tuple[str, float | None]:
        if self.study.objectives.several:
            front = self.study.best_trials
            return (f"front of {len(front)} trials" if front else "none yet"), None
        try:
            best = self.study.best_trial
        except Exception:  # none complete yet
            return "none yet", None
        return f"{best.value!r} (trial {best.number})", best.value

    def __call__(self, record: TrialRecord) -> None:
        """Announce a finished trial."""
        self.finished += 1
        if record.state is TrialState.FAILED:
            self.failed += 1
            reason = _first_line(record.system_attrs.get("fail_reason") or "no reason recorded")
            self.reasons[reason] = self.reasons.get(reason, 0) + 1
        best, value = self._best()
        trial_log.info("trial %d %s; best %s", record.number, describe(record), best)
        if self.bar is not None:
            self.bar.set_postfix_str(f"best {value:.6g}" if value is not None else f"best {best}", refresh=False)
            self.bar.update(1)
        if self.finished == ALL_FAILED_AFTER:
            self._warn_all_failed()

    def _warn_all_failed(self) -> None:
        if self.warned or self.finished == 0 or self.failed < self.finished:
            return
        self.warned = True
        quoted = "; ".join(
            f"{reason!r} x{n}" if n > 1 else repr(reason) for reason, n in self.reasons.items()
        )
        log.warning("every trial so far failed (%d of %d): %s", self.failed, self.finished, quoted)

    def close(self, stopper: Stopper | None) -> None:
        """The end of the run: the bar closed, an all-failed run and a stopping rule announced."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        self._warn_all_failed()
        why = None if stopper is None else stopper.why()
        if why is not None:
            log.warning("the run stopped after %d trials: %s", self.finished, why)
