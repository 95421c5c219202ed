"""A Hydra sweeper asking a treefarm study: ``hydra/sweeper=treefarm`` (``pip install 'treefarm[hydra]'``)::

    # conf/config.yaml                              python app.py --multirun
    defaults:
      - override hydra/sweeper: treefarm
    hydra:
      sweeper:
        n_trials: 40
        storage: sweep.db                           # the study lives here: run again to resume it
        params:
          lr: tag(log, interval(1e-5, 1e-1))
          layers: range(1, 7)
          optimizer: choice(adam, sgd)

Each job of the multirun is one trial: the sweeper asks the study for
``n_jobs`` trials, hands their parameters to Hydra's launcher as overrides,
and tells the study what each job's task function returned (a number; one
per objective with ``direction: [minimize, maximize]``); a job that raised
is a failed trial. The search space is read from ``params`` (and from the
command line's sweeps, ``x='interval(0,1)'``) as ``hydra-optuna-sweeper``
reads it:

=====================================  ==========================================
Hydra                                  treefarm
=====================================  ==========================================
``interval(a, b)``                     ``Real(a, b)``; ``Int`` when both are ints
``tag(log, interval(a, b))``           the same with ``log=True``
``range(a, b, step)``                  ``Int(a, b - 1)``; a choice of the values
                                       for another step (``b`` excluded, as Python's)
``choice(a, b, c)``, ``a,b,c``         ``Choice(a, b, c)``
=====================================  ==========================================

and from a treefarm space file (``space_file: space.yaml``,
:mod:`treefarm.space.files`), whose joins become Hydra's config-group
choices (``optimizer=sgd optimizer.momentum=0.9``). ``n_trials`` is the
study's total, so with a ``storage`` a second multirun continues the
first (its interrupted trials run again); the best parameters and value go
to ``optimization_results.yaml`` in the sweep directory.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import IntervalSweep, Override, RangeSweep, Transformer
from hydra.core.plugins import Plugins
from hydra.plugins.sweeper import Sweeper
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig, OmegaConf

from ..exceptions import StudyError, format_values
from ..objectives import MINIMIZE
from ..space import Choice, Chosen, Family, Int, Real, Space
from ..space.files import load_space_file
from ..study import Study, Trial

__all__ = ["StudySweeper", "TreefarmSweeperConf", "overrides_of", "space_of"]

log = logging.getLogger("treefarm")


@dataclass
class TreefarmSweeperConf:
    """The sweeper's settings (``hydra.sweeper.*``), as Hydra's config store holds them."""

    _target_: str = "hydra_plugins.treefarm_sweeper.treefarm_sweeper.TreefarmSweeper"
    n_trials: int = 20
    n_jobs: int = 1
    algo: str = "auto"
    direction: Any = MINIMIZE
    storage: Any = None
    study_name: str = "hydra"
    seed: Any = None
    params: Any = None
    space_file: Any = None


def _primitive(override: Override) -> Space:
    """The treefarm primitive of one sweep override (see the module's table)."""
    key, value = override.get_key_element(), override.value()
    if isinstance(value, IntervalSweep):
        start, end, log_scale = value.start, value.end, "log" in value.tags
        if start is None or end is None:
            raise StudyError(f"an interval needs both bounds, but got {format_values(key=key, sweep=value)}")
        if isinstance(start, int) and isinstance(end, int):
            return Int(start, end, log=log_scale)
        return Real(float(start), float(end), log=log_scale)
    if isinstance(value, RangeSweep):
        values: list[Any] = list(override.sweep_iterator())
        if value.step == 1 and len(values) > 1 and all(isinstance(v, int) for v in values):
            return Int(values[0], values[-1])
        return Choice(*values)
    if override.is_choice_sweep():
        return Choice(*override.sweep_iterator(transformer=Transformer.encode))
    raise StudyError(
        f"a sweep must be interval, range or choice, but got {format_values(key=key, sweep=value)}"
    )


def _place(space: dict[str, Any], key: str, node: Any) -> None:
    """Put ``node`` at the dotted ``key`` of the nested ``space``."""
    *groups, last = key.split(".")
    for group in groups:
        space = space.setdefault(group, {})
        if not isinstance(space, dict):
            raise StudyError(
                f"a swept key must not lie inside another swept key, but got {format_values(key=key)}"
            )
    if last in space:
        raise StudyError(f"a key must be swept once, but got {format_values(key=key)}")
    space[last] = node


def space_of(overrides: Sequence[str], space_file: str | None = None) -> tuple[dict[str, Any], list[str]]:
    """The treefarm space of the sweep ``overrides`` (``key=interval(0,1)``, ...) and
    ``space_file``, and the overrides that sweep nothing (passed to every job as they are)."""
    space: dict[str, Any] = {}
    if space_file is not None:
        loaded = load_space_file(space_file)
        if not isinstance(loaded, Family) or loaded.args:
            raise StudyError(
                f"a space file for Hydra must be a mapping of keys, but got {format_values(space_file=space_file)}"
            )
        space.update(loaded.kwargs)
    fixed = []
    for override in OverridesParser.create().parse_overrides(list(overrides)):
        if override.is_sweep_override():
            _place(space, override.get_key_element(), _primitive(override))
        else:
            fixed.append(
                override.input_line or f"{override.get_key_element()}={override.get_value_element_as_str()}"
            )
    return space, fixed


def _pairs(value: Any, prefix: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, Chosen):  # a join: Hydra's config-group choice, then its own keys
        yield prefix, value.option
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield from _pairs(item, f"{prefix}.{key}" if prefix else str(key))
    else:
        yield prefix, value


def overrides_of(params: Mapping[str, Any]) -> list[str]:
    """A configuration's built parameters as Hydra overrides (``optimizer.lr=0.01``)."""
    return [f"{key}={value}" for key, value in _pairs(params, "")]


class StudySweeper(Sweeper):
    """A sweep that asks a treefarm study; see the module docstring. Hydra accepts only
    plugins defined under its ``hydra_plugins`` package, so what it makes from
    :class:`TreefarmSweeperConf` (and calls :meth:`setup`, then :meth:`sweep` on) is this
    class's subclass there, ``hydra_plugins.treefarm_sweeper.treefarm_sweeper.TreefarmSweeper``."""

    def __init__(
        self,
        n_trials: int = 20,
        n_jobs: int = 1,
        algo: str = "auto",
        direction: Any = MINIMIZE,
        storage: Any = None,
        study_name: str = "hydra",
        seed: int | None = None,
        params: Mapping[str, str] | None = None,
        space_file: str | None = None,
    ) -> None:
        self.n_trials = n_trials
        self.n_jobs = n_jobs
        self.algo = algo
        self.direction = direction
        self.storage = storage
        self.study_name = study_name
        self.seed = seed
        self.params = dict(params or {})
        self.space_file = space_file
        self.launcher: Any = None
        self.config: DictConfig | None = None

    def setup(self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig) -> None:
        self.config = config
        self.launcher = Plugins.instance().instantiate_launcher(
            hydra_context=hydra_context, task_function=task_function, config=config
        )

    def _study(self, arguments: Sequence[str]) -> tuple[Study, list[str]]:
        params = [f"{key}={value}" for key, value in self.params.items()]
        space, fixed = space_of([*params, *arguments], self.space_file)
        if not space:
            raise StudyError(
                "the treefarm sweeper needs a space: hydra.sweeper.params, a sweep on the "
                "command line (x='interval(0,1)') or hydra.sweeper.space_file"
            )
        several = not isinstance(self.direction, str)
        study = Study.create(
            self.study_name,
            space=space,
            storage=self.storage,
            algo=self.algo,
            directions=list(self.direction) if several else None,
            direction=None if several else self.direction,
            seed=self.seed,
            load_if_exists=True,
            requeue_interrupted=True,
        )
        return study, fixed

    def sweep(self, arguments: list[str]) -> None:
        """Run the study to ``n_trials`` trials in all, ``n_jobs`` jobs at a time."""
        study, fixed = self._study(arguments)
        study.recover()  # an earlier multirun killed mid-job: its trial failed, its configuration queued again
        try:
            while batch := self._ask(study):
                jobs = [tuple(overrides_of(trial.value)) + tuple(fixed) for trial in batch]
                returns = self.launcher.launch(jobs, initial_job_idx=batch[0].number)
                for trial, job in zip(batch, returns):
                    self._tell(study, trial, job)
        except BaseException:  # Ctrl-C, a launcher's error: the running trials fail, saying why
            study.fail_running("interrupted")
            raise
        self._write_results(study)

    def _ask(self, study: Study) -> list[Trial]:
        """Up to ``n_jobs`` trials within the study's ``n_trials``."""
        study.recover_due()
        return [t for t in (study.ask_within(self.n_trials) for _ in range(self.n_jobs)) if t is not None]

    @staticmethod
    def _tell(study: Study, trial: Trial, job: Any) -> None:
        try:
            value = job.return_value
        except Exception as exc:
            study.tell(trial, exception=exc)
            return
        if isinstance(value, (Sequence, DictConfig)) and not isinstance(value, str):
            items: list[Any] = list(value)
            value = [float(v) for v in items]
        study.tell(trial, value)

    def _write_results(self, study: Study) -> None:
        if self.config is None or not any(t.state.value == "complete" for t in study.trials):
            return
        results: dict[str, Any] = {"name": "treefarm", "study": study.name, "trials": len(study.trials)}
        if len(study.directions) == 1:
            results["best_params"] = dict(p.split("=", 1) for p in overrides_of(study.best_params))
            results["best_value"] = study.best_value
        else:
            results["solutions"] = [
                {
                    "params": dict(p.split("=", 1) for p in overrides_of(t.params)),
                    "values": list(t.values or ()),
                }
                for t in study.best_trials
            ]
        path = Path(str(self.config.hydra.sweep.dir)) / "optimization_results.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        OmegaConf.save(OmegaConf.create(results), path)
        log.info("best parameters of study %r: %s", study.name, results.get("best_params"))
