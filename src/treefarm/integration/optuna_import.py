"""An Optuna study's trials copied into a treefarm study, to continue with treefarm's optimizers.

    import optuna
    from treefarm.integration.optuna import import_study

    source = optuna.load_study(study_name="resnet", storage="sqlite:///optuna.db")
    study = import_study(source, storage="treefarm.db")    # a new treefarm study "resnet"
    study.optimize(objective, 300)                          # objective(params): the 200 old trials count

The space is the one the trials reveal (:mod:`treefarm.integration.optuna_tree`),
written in treefarm's own terms so that an objective receives Optuna's values:

==================================  ===================================================
Optuna                              treefarm (space-file form, :mod:`treefarm.space.files`)
==================================  ===================================================
``FloatDistribution(a, b, log)``    ``Real(a, b, log=log)``
``IntDistribution(a, b, log)``      ``Int(a, b, log=log)``
a stepped float or int range        ``Choice`` of its grid values (treefarm has no steps)
``CategoricalDistribution(cs)``     ``Choice(*cs)``; a join over ``cs`` when other
                                    parameters exist only for one choice each
a single-valued distribution        a constant
``"model.lr"``                      ``{"model": {"lr": ...}}`` (a group: the same address)
==================================  ===================================================

A categorical with conditional parameters becomes a :class:`~treefarm.Join`
whose options are named by its choices (``str(choice)``, a ``.`` written
``_``): the objective then receives ``params["kind"]`` as a
:class:`~treefarm.Chosen` (its ``option`` the choice, its items the
parameters of that choice).

Every finished trial is copied with its state, values, constraints,
intermediate values and user attributes; its Optuna number, times, full
parameters and system attributes are kept in ``system_attrs["optuna"]``.
What treefarm cannot express is named in a warning (logger ``treefarm``)
and in the study attribute ``"imported_from"``, never dropped silently:
a parameter no one space can hold (nested deeper than one categorical) is
left out of the space (its values stay in each trial's ``system_attrs``),
a running or waiting trial is not copied (it has no outcome), and a
complete trial with an infinite value is copied as failed. A parameter
drawn from several distributions is refused (StudyError naming it).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.study import StudyDirection
from optuna.trial import FrozenTrial, TrialState

from ..exceptions import StudyError, format_values
from ..objectives import Objectives
from ..optimizers import Optimizer
from ..space import Space
from ..space.files import space_from_data
from ..storage import JSON, Storage, open_storage
from ..storage import TrialState as State
from ..study import Study
from .optuna_space import from_decision, single_value, to_decision
from .optuna_tree import Tree, infer_tree

__all__ = ["IMPORTED_ATTR", "MAX_GRID", "import_study", "imported_space", "space_data"]

log = logging.getLogger("treefarm")

IMPORTED_ATTR = "imported_from"
#: Where Optuna keeps a trial's constraints among its system attributes: the list a
#: ``constraints_func`` stored under this key, or each ``trial.set_constraint(name, value)``
#: under ``"constraints:name"`` (read through the public ``FrozenTrial.constraints``; the key
#: only keeps them out of the copied system attributes, and a test checks it against Optuna).
OPTUNA_CONSTRAINTS_ATTR = "constraints"
"""The study attribute saying where the trials came from and what could not be expressed."""
MAX_GRID = 10_000
"""The most grid values a stepped range may have to become a choice of them."""

_STATES = {
    TrialState.COMPLETE: State.COMPLETE,
    TrialState.PRUNED: State.PRUNED,
    TrialState.FAIL: State.FAILED,
}


def _union(trials: Sequence[FrozenTrial]) -> dict[str, BaseDistribution]:
    """Every parameter of ``trials`` with its one distribution, sorted by name;
    StudyError naming a parameter drawn from several."""
    seen: dict[str, BaseDistribution] = {}
    for trial in trials:
        for name, distribution in trial.distributions.items():
            if seen.setdefault(name, distribution) != distribution:
                raise StudyError(
                    "a parameter must be drawn from one distribution in every trial to become one treefarm "
                    f"parameter, but got {format_values(name=name, first=seen[name], trial=trial.number, then=distribution)}"
                )
    return dict(sorted(seen.items()))


def _grid(name: str, distribution: FloatDistribution | IntDistribution) -> list[Any]:
    n = int(to_decision(distribution, distribution.high)) + 1
    if n > MAX_GRID:
        raise StudyError(
            f"a stepped range becomes a choice of at most MAX_GRID={MAX_GRID} values, but got "
            f"{format_values(name=name, distribution=distribution, values=n)}"
        )
    return [from_decision(distribution, k) for k in range(n)]


def _parameter(name: str, distribution: BaseDistribution, notes: list[str]) -> JSON:
    """The space-file form of one distribution (see the module's table)."""
    if distribution.single():
        value: JSON = single_value(distribution)
        return value
    if isinstance(distribution, CategoricalDistribution):
        return {"type": "choice", "values": list(distribution.choices)}
    if isinstance(distribution, (FloatDistribution, IntDistribution)):
        stepped = distribution.step is not None and not (
            isinstance(distribution, IntDistribution) and distribution.step == 1
        )
        if stepped:
            values = _grid(name, distribution)
            notes.append(
                f"{name!r}: a range with step {distribution.step} is searched as a choice of its {len(values)} values"
            )
            return {"type": "choice", "values": values}
        kind = "real" if isinstance(distribution, FloatDistribution) else "int"
        return {"type": kind, "low": distribution.low, "high": distribution.high, "log": distribution.log}
    raise StudyError(
        f"a parameter's distribution must be Optuna's Float, Int or Categorical, but got {format_values(name=name, distribution=distribution)}"
    )


def _label(name: str, choice: Any) -> str:
    """The name of the join option of a categorical's ``choice``."""
    label = str(choice).replace(".", "_")
    if not label or label.startswith("@"):
        raise StudyError(
            "a choice with conditional parameters must have a name that can label a join option, "
            f"but got {format_values(name=name, choice=choice)}"
        )
    return label


def _nest(flat: Mapping[str, JSON], where: str) -> dict[str, JSON]:
    """``{"a.b": x}`` as ``{"a": {"b": x}}``: a dotted Optuna name becomes a group with the same address."""
    out: dict[str, Any] = {}
    for name, spec in flat.items():
        *groups, last = name.split(".")
        node = out
        for group in groups:
            node = node.setdefault(group, {})
            if not isinstance(node, dict) or "type" in node:
                raise StudyError(
                    f"a parameter's name must not also name a group of others, but got {format_values(name=name, where=where)}"
                )
        if last in node or not all([*groups, last]):
            raise StudyError(
                f"a parameter's name must be dotted words naming it alone, but got {format_values(name=name, where=where)}"
            )
        node[last] = spec
    return out


def _tree(trials: Sequence[FrozenTrial], notes: list[str]) -> Tree:
    """The structure the trials reveal; parameters no one space can hold are noted and left out."""
    union = _union(trials)
    complete = [t for t in trials if t.state == TrialState.COMPLETE] or list(trials)
    tree = infer_tree(union, complete)
    left_out = sorted(set(union) - set(tree.names()))
    if left_out:
        notes.append(
            f"parameters {left_out} are neither in every trial nor present exactly for one choice of a "
            "categorical: left out of the space (their values are kept in each trial's system_attrs['optuna'])"
        )
    return tree


def space_data(tree: Tree, notes: list[str]) -> dict[str, JSON]:
    """The treefarm space of ``tree`` in space-file form (see the module docstring)."""
    top: dict[str, JSON] = {}
    for name in tree.top:
        distribution = tree.distributions[name]
        if name not in tree.children:
            top[name] = _parameter(name, distribution, notes)
            continue
        assert isinstance(distribution, CategoricalDistribution)
        options: dict[str, JSON] = {}
        for k, choice in enumerate(distribution.choices):
            label = _label(name, choice)
            if label in options:
                raise StudyError(
                    f"the choices of a categorical with conditional parameters must have distinct names, but got {format_values(name=name, choice=choice)}"
                )
            children = {
                c: _parameter(c, tree.distributions[c], notes) for c in tree.children[name].get(k, ())
            }
            options[label] = _nest(children, f"{name}={choice!r}")
        top[name] = {"type": "join", "options": options}
    return _nest(top, "the study")


def _config(tree: Tree, trial: FrozenTrial) -> dict[str, JSON]:
    """The trial's configuration in the space of :func:`space_data` (a failed trial's may be partial)."""
    config: dict[str, JSON] = {}
    for name in tree.top:
        if name not in trial.params:
            continue
        distribution = tree.distributions[name]
        if distribution.single():
            continue
        value = from_decision(distribution, to_decision(distribution, trial.params[name]))
        if name not in tree.children:
            config[name] = value
            continue
        label = _label(name, value)
        config[name] = label
        k = int(to_decision(distribution, value))
        for child in tree.children[name].get(k, ()):
            d = tree.distributions[child]
            if child in trial.params and not d.single():
                config[f"{name}.{label}.{child}"] = from_decision(d, to_decision(d, trial.params[child]))
    return config


def _jsonable(attrs: Mapping[str, Any], where: str, notes: list[str]) -> dict[str, JSON]:
    """The attributes that JSON holds; any other is noted, by name."""
    import json

    out: dict[str, JSON] = {}
    for key, value in attrs.items():
        try:
            json.dumps(value, allow_nan=True)
        except (TypeError, ValueError):
            notes.append(f"{where}: attribute {key!r} is not JSON ({type(value).__name__}): not copied")
            continue
        out[key] = value
    return out


def _constraints(trial: FrozenTrial) -> dict[str, float]:
    """The trial's constraint values by name (``FrozenTrial.constraints``: those a
    ``constraints_func`` stored are named by position)."""
    return {str(k): float(v) for k, v in trial.constraints.items()}


def _provenance(trial: FrozenTrial, notes: list[str]) -> dict[str, JSON]:
    """What the trial was in Optuna, kept in ``system_attrs["optuna"]``."""
    system = {k: v for k, v in trial.system_attrs.items() if not _is_constraint_attr(k)}
    return {
        "number": trial.number,
        "constraint_names": list(_constraints(trial)),
        "params": _jsonable(trial.params, f"trial {trial.number} params", notes),
        "datetime_start": trial.datetime_start.isoformat() if trial.datetime_start else None,
        "datetime_complete": trial.datetime_complete.isoformat() if trial.datetime_complete else None,
        "system_attrs": _jsonable(system, f"trial {trial.number}", notes),
    }


def _is_constraint_attr(key: str) -> bool:
    """Whether Optuna keeps a constraint value under the system attribute ``key``."""
    return key == OPTUNA_CONSTRAINTS_ATTR or key.startswith(OPTUNA_CONSTRAINTS_ATTR + ":")


def _outcome(trial: FrozenTrial, notes: list[str]) -> tuple[State, tuple[float, ...] | None, dict[str, JSON]]:
    """The treefarm state, values and system attributes of a finished Optuna trial."""
    values = tuple(float(v) for v in trial.values) if trial.values is not None else None
    finite = values is not None and all(map(math.isfinite, values))
    state = _STATES[trial.state]
    attrs: dict[str, JSON] = {}
    if state is State.COMPLETE and not finite:
        notes.append(
            f"trial {trial.number}: complete with the non-finite values {list(values or ())}: copied as failed"
        )
        state = State.FAILED
        attrs["fail_reason"] = (
            f"imported from Optuna: complete with the non-finite values {list(values or ())}"
        )
    elif state is State.FAILED:
        reason = trial.system_attrs.get("fail_reason")
        attrs["fail_reason"] = f"failed in Optuna: {reason}" if reason else "failed in Optuna"
    return state, values if finite else None, attrs


def _copy(storage: Storage, study_id: int, tree: Tree, trial: FrozenTrial, notes: list[str]) -> None:
    """One finished Optuna trial as a finished treefarm trial (see the module docstring)."""
    state, values, attrs = _outcome(trial, notes)
    record = storage.create_trial(
        study_id,
        params=_config(tree, trial),
        system_attrs={"optuna": _provenance(trial, notes)},
        user_attrs=_jsonable(trial.user_attrs, f"trial {trial.number} user_attrs", notes),
    )
    for step, value in sorted(trial.intermediate_values.items()):
        storage.report_intermediate(study_id, record.number, int(step), float(value))
    constraints = _constraints(trial)
    storage.finish_trial(
        study_id,
        record.number,
        state=state,
        values=values,
        system_attrs=attrs,
        constraints=list(constraints.values()) or None,
    )


def import_study(
    source: optuna.Study,
    *,
    storage: str | Storage | None = None,
    name: str | None = None,
    algo: str | Optimizer | None = None,
    seed: int | None = None,
) -> Study:
    """A new treefarm study ``name`` (default: the Optuna study's name) in
    ``storage`` holding the finished trials of ``source``, in the space they
    reveal (see the module docstring); continue it with :meth:`Study.optimize`
    or ``ask``/``tell``, where every copied trial is in the history the
    optimizer reads. ``algo`` and ``seed`` are those of :meth:`Study.create`.
    The study's ``space`` is the new study's; :func:`space_data` is its
    space-file form, stored in the study attribute ``"imported_from"``.
    """
    trials = source.get_trials(deepcopy=False)
    finished = [t for t in trials if t.state in _STATES]
    unfinished = [t.number for t in trials if t.state not in _STATES]
    notes: list[str] = []
    if unfinished:
        notes.append(f"trials {unfinished} are running or waiting in Optuna (no outcome yet): not copied")
    tree = _tree(finished, notes)
    data = space_data(tree, notes)
    objectives = Objectives.of_maximized([d == StudyDirection.MAXIMIZE for d in source.directions])
    study = Study.create(
        name or source.study_name,
        space=space_from_data(data),
        storage=storage,
        algo=algo,
        directions=objectives.directions,
        seed=seed,
    )
    for trial in finished:
        _copy(study.storage, study.study_id, tree, trial, notes)
    for note in notes:
        log.warning("importing Optuna study %r: %s", source.study_name, note)
    said: list[JSON] = list(notes)
    record: dict[str, JSON] = {
        "optuna_study": source.study_name,
        "trials": len(finished),
        "space": data,
        "notes": said,
    }
    study.storage.set_study_attr(study.study_id, IMPORTED_ATTR, record)
    return study


def imported_space(storage: str | Storage, name: str) -> Space:
    """The space of the imported study ``name``, rebuilt from what :func:`import_study`
    stored: pass it to :meth:`Study.load` to reopen the study in another process."""
    record = (open_storage(storage, read_only=True) if isinstance(storage, str) else storage).get_study(name)
    imported = record.attrs.get(IMPORTED_ATTR)
    if not isinstance(imported, dict) or "space" not in imported:
        raise StudyError(f"the study must be one made by import_study, but got {format_values(study=name)}")
    return space_from_data(imported["space"])
