"""A Ray Tune search algorithm suggesting from a treefarm study (``pip install 'treefarm[ray]'``).

Ray Tune's own Optuna example, with one name changed::

    from ray import tune
    from treefarm.integration.ray import TreefarmSearch

    tuner = tune.Tuner(
        easy_objective,
        tune_config=tune.TuneConfig(metric="mean_loss", mode="min", num_samples=100,
                                    search_alg=TreefarmSearch(storage="tune.db")),
        param_space={"steps": 100, "width": tune.uniform(0, 20), "height": tune.uniform(-100, 100),
                     "activation": tune.choice(["relu", "tanh"])},
    )
    tuner.fit()

Each Tune trial is one trial of a treefarm study: ``suggest`` asks the study
(its optimizer sees every finished trial, the running ones as pending, and
the study's hints), each reported result is the trial's intermediate value
at its ``training_iteration``, and the final result is told. With
``storage`` the study lives in that file or database, so the dashboard
(``treefarm dashboard tune.db``) shows it as it runs, hints given there
steer the next suggestions, and a second ``Tuner`` with the same
``study_name`` continues it.

Tune's search space converts as Ray's ``OptunaSearch`` converts it:
``tune.uniform`` / ``loguniform`` become :class:`~treefarm.Real`,
``tune.randint`` / ``lograndint`` (upper bound excluded) :class:`~treefarm.Int`,
``tune.choice`` :class:`~treefarm.Choice`, and a quantized one
(``quniform``, ``qrandint``, ...) a choice of its grid values; nested dicts
stay nested. A treefarm space can be given instead (``space=``). What has no
treefarm equivalent (``tune.randn``, ``tune.sample_from``,
``tune.grid_search``) is refused, naming the parameter.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Mapping
from typing import Any

import numpy as np
from ray.tune.search import Searcher
from ray.tune.search.sample import Categorical, Domain, Float, Integer, LogUniform, Quantized, Uniform
from ray.tune.search.variant_generator import parse_spec_vars

from ..exceptions import StudyError, TrialStateError, format_values
from ..objectives import Objectives
from ..optimizers import Optimizer
from ..space import Choice, Int, Real, Space, validate
from ..storage import Storage, TrialRecord, TrialState
from ..study import Study

__all__ = ["TreefarmSearch", "tune_space"]


def _grid(path: str, low: float, high: float, q: float, cast: type) -> Choice:
    values = np.round(np.arange(math.ceil(low / q), math.floor(high / q) + 1) * q, 12)
    if not 1 < len(values) <= 10_000:
        raise StudyError(
            f"a quantized range becomes a choice of 2 to 10000 values, but got {format_values(name=path, values=len(values))}"
        )
    return Choice(*(cast(v) for v in values))


def _domain(path: str, domain: Domain) -> Space:
    """The treefarm primitive of one Tune domain (see the module docstring)."""
    sampler = domain.get_sampler()
    q = sampler.q if isinstance(sampler, Quantized) else None
    base = sampler.sampler if isinstance(sampler, Quantized) else sampler
    log = isinstance(base, LogUniform)
    if isinstance(domain, Categorical) and isinstance(base, Uniform):
        return Choice(*domain.categories)
    if isinstance(domain, Float) and isinstance(base, (Uniform, LogUniform)):
        return (
            _grid(path, domain.lower, domain.upper, q, float)
            if q
            else Real(domain.lower, domain.upper, log=log)
        )
    if isinstance(domain, Integer) and isinstance(base, (Uniform, LogUniform)):
        if q:  # Tune's qrandint includes its upper bound
            return _grid(path, domain.lower, domain.upper, q, int)
        return Int(domain.lower, domain.upper - 1, log=log)
    raise StudyError(
        "a Tune parameter must be uniform, log-uniform or quantized (tune.uniform, loguniform, randint, "
        f"choice, quniform, ...), but got {format_values(name=path, domain=domain, sampler=sampler)}"
    )


def tune_space(config: Mapping[str, Any]) -> dict[str, Any]:
    """The treefarm space of a Tune ``param_space``: its sampled parameters, nested as
    they are (constants stay Tune's, merged into each trial's config by Tune)."""
    _, domains, grid = parse_spec_vars(dict(config))
    if grid:
        names = ["/".join(map(str, path)) for path, _ in grid]
        raise StudyError(
            f"a treefarm search has no grid search (use tune.choice), but got tune.grid_search at {names}"
        )
    space: dict[str, Any] = {}
    for path, domain in domains:
        node = space
        for key in path[:-1]:
            node = node.setdefault(str(key), {})
        node[str(path[-1])] = _domain("/".join(map(str, path)), domain)
    return space


class TreefarmSearch(Searcher):
    """A Ray Tune searcher asking a treefarm study; see the module docstring.

    ``space`` is a treefarm space, or a Tune ``param_space`` (else Tune's own, passed
    to the searcher by the ``Tuner``). ``metric`` and ``mode`` may be lists, one per
    objective. ``storage`` (a path, URL or :class:`~treefarm.Storage`; None: memory)
    and ``study_name`` name the study, continued if it exists; ``algo`` and ``seed``
    are those of :meth:`Study.create`; ``points_to_evaluate`` are configurations run first.
    """

    _metric: Any  # a name, or a list of names (Tune's Searcher annotates one)
    _mode: Any

    def __init__(
        self,
        space: Any = None,
        metric: str | list[str] | None = None,
        mode: str | list[str] | None = None,
        *,
        storage: str | Storage | None = None,
        study_name: str = "ray-tune",
        algo: str | Optimizer | None = None,
        seed: int | None = None,
        points_to_evaluate: list[dict[str, Any]] | None = None,
    ) -> None:
        _check_mode(mode)
        super().__init__()
        # Tune's Searcher annotates one metric and mode; its searchers (OptunaSearch) take lists too
        self.__dict__.update(_metric=metric, _mode=mode)
        self._space = tune_space(space) if isinstance(space, Mapping) and _has_domains(space) else space
        self._storage = storage
        self._study_name = study_name
        self._algo = algo
        self._seed = seed
        self._points = list(points_to_evaluate or [])
        self._study: Study | None = None
        self._live_trial_mapping: dict[str, int] = {}
        if self._space is not None and mode is not None:
            self._open()

    def _open(self) -> None:
        """Create (or continue) the study once the space and the mode are known."""
        modes = self._mode if isinstance(self._mode, list) else [self._mode]
        self._study = Study.create(
            self._study_name,
            space=self._space,
            storage=self._storage,
            algo=self._algo,
            directions=Objectives.of_maximized([m == "max" for m in modes]).directions,
            seed=self._seed,
            load_if_exists=True,
        )
        for point in self._points:
            self._study.enqueue(_addresses(point))
        self._points = []

    @property
    def study(self) -> Study:
        """The treefarm study the suggestions come from."""
        if self._study is None:
            raise StudyError("the searcher has no study yet: give space= and mode=, or pass it to a Tuner")
        return self._study

    def set_search_properties(
        self, metric: str | None, mode: str | None, config: dict[str, Any], **spec: Any
    ) -> bool:
        """Take the ``Tuner``'s metric, mode and ``param_space`` (unless given at construction)."""
        if self._study is not None:
            return False
        _check_mode(mode)
        self._metric = self._metric or metric
        self._mode = self._mode or mode or "min"
        if self._space is None:
            self._space = tune_space(config)
        self._open()
        return True

    def suggest(self, trial_id: str) -> dict[str, Any] | None:
        """Ask the study: the trial's configuration as a (nested) dict of parameters."""
        trial = self.study.ask()
        self._live_trial_mapping[trial_id] = trial.number
        value: dict[str, Any] = trial.value
        return value

    def _values(self, result: Mapping[str, Any] | None) -> list[float] | None:
        """The result's finite metric values, one per objective; None if one is missing or not finite."""
        metrics = self._metric if isinstance(self._metric, list) else [self._metric]
        found = [result.get(m) if result and m else None for m in metrics]
        values = [float(v) for v in found if isinstance(v, (int, float)) and math.isfinite(v)]
        return values if len(values) == len(found) else None

    def on_trial_result(self, trial_id: str, result: dict[str, Any]) -> None:
        """Record the metric as the trial's intermediate value at its ``training_iteration``."""
        number = self._live_trial_mapping.get(trial_id)
        values = self._values(result)
        if number is None or values is None:
            return
        storage, study_id = self.study.storage, self.study.study_id
        step = result.get("training_iteration", len(storage.get_trial(study_id, number).intermediate))
        storage.report_intermediate(study_id, number, int(step), values if len(values) > 1 else values[0])

    def on_trial_complete(
        self, trial_id: str, result: dict[str, Any] | None = None, error: bool = False
    ) -> None:
        """Tell the study the trial's final metric, or that it failed (an error, a missing
        or non-finite metric); a trial told already is left alone."""
        if result and not error:  # its last result, which a scheduler's stop kept from on_trial_result
            self.on_trial_result(trial_id, result)
        number = self._live_trial_mapping.pop(trial_id, None)
        values = None if error else self._values(result)
        if number is None:
            return
        try:
            if values is None:
                self.study.tell(number, state="failed")
            else:
                self.study.tell(number, values if len(values) > 1 else values[0])
        except TrialStateError:  # failed meanwhile by a recovery (the searcher was restored elsewhere)
            return

    def add_evaluated_point(
        self,
        parameters: dict[str, Any],
        value: float,
        error: bool = False,
        pruned: bool = False,
        intermediate_values: list[float] | None = None,
    ) -> None:
        """Record a configuration evaluated elsewhere as a finished trial of the study."""
        storage, study_id = self.study.storage, self.study.study_id
        config = validate(self.study.space, _addresses(parameters))
        number = storage.create_trial(study_id, params=config.to_dict()).number
        for step, reported in enumerate(intermediate_values or []):
            storage.report_intermediate(study_id, number, step, float(reported))
        state = TrialState.FAILED if error else TrialState.PRUNED if pruned else TrialState.COMPLETE
        storage.finish_trial(study_id, number, state=state, value=None if error else float(value))

    def save(self, checkpoint_path: str) -> None:
        """Save what a restored searcher needs: the study's name and storage, and with a
        storage that is not a path or URL (memory) its trials."""
        names = ("_metric", "_mode", "_space", "_study_name", "_algo", "_seed", "_live_trial_mapping")
        state: dict[str, Any] = {name: getattr(self, name) for name in names}
        state["_storage"] = self._storage if isinstance(self._storage, str) else None
        if not isinstance(self._storage, str):
            state["records"] = self.study.trials
        with open(checkpoint_path, "wb") as file:
            pickle.dump(state, file)

    def restore(self, checkpoint_path: str) -> None:
        """Continue the study a :meth:`save` named (its trials rebuilt in memory if it kept them)."""
        with open(checkpoint_path, "rb") as file:
            state = pickle.load(file)
        records = state.pop("records", None)
        for key, value in state.items():
            setattr(self, key, value)
        self._points = []
        self._open()
        if records is not None:
            _replay(self.study.storage, self.study.study_id, records)


def _check_mode(mode: Any) -> None:
    modes = mode if isinstance(mode, list) else [mode]
    if not modes or any(m not in (None, "min", "max") for m in modes):
        raise StudyError(f"mode must be 'min' or 'max', or a list of them, but got mode={mode!r}")


def _addresses(parameters: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested parameters (``{"opt": {"lr": 0.1}}``) as a configuration's addresses (``opt.lr``)."""
    out: dict[str, Any] = {}
    for key, value in parameters.items():
        if isinstance(value, Mapping):
            out.update(_addresses(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _replay(storage: Storage, study_id: int, records: list[TrialRecord]) -> None:
    """Write saved trial records into a fresh study of ``storage``, in order."""
    for record in records:
        waiting = record.state is TrialState.WAITING
        number = storage.create_trial(
            study_id,
            params=dict(record.params),
            state=TrialState.WAITING if waiting else TrialState.RUNNING,
            system_attrs=dict(record.system_attrs),
            user_attrs=dict(record.user_attrs),
        ).number
        if waiting:
            continue
        for step in sorted(record.intermediate):
            storage.report_intermediate(
                study_id, number, step, record.intermediate_vectors.get(step, record.intermediate[step])
            )
        if record.state.is_finished:
            storage.finish_trial(
                study_id, number, state=record.state, values=record.values, constraints=record.constraints
            )


def _has_domains(config: Mapping[str, Any]) -> bool:
    """Whether ``config`` is a Tune ``param_space`` (it holds Tune's sampled domains)."""
    _, domains, grid = parse_spec_vars(dict(config))
    return bool(domains or grid)
