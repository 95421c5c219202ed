"""Methods under comparison: treefarm's optimizers and the peers', behind one call.

``run(method, problem, seed, budget)`` returns the losses in evaluation order
and the optimizer's own time per suggestion (never the objective's):

- treefarm: the time of ``study.ask()`` on in-memory storage (the suggestion
  plus the bookkeeping any user pays);
- Optuna: ``study.ask()`` plus the ``trial.suggest_*`` calls (relative
  samplers work in the first, independent ones in the second);
- Hyperopt: the time between the end of one objective call and the start of
  the next, inside ``fmin`` (its suggestion and bookkeeping);
- scikit-optimize: ``Optimizer.ask()`` plus ``tell()`` (the GP is refitted in ``tell``).

Optuna's TPE: ``optuna-tpe`` is the default ``TPESampler()``, which since
Optuna 5 is multivariate for one objective; ``optuna-tpe-uni`` forces the
univariate estimator (``multivariate=False``); ``optuna-tpe-mv`` adds
``group=True`` (the same as the default on spaces without conditions).

Conditional parameters: treefarm and Optuna and Hyperopt express them;
scikit-optimize gets every parameter, always active (the objective ignores
the inactive ones). Recursive grammar spaces: treefarm natively; Optuna
define-by-run over the same depth-limited decisions (named by address);
Hyperopt and scikit-optimize cannot express them (a recorded row).

gplearn (genetic programming) runs on the symbolic-regression problems only,
with the same function set, protected operators and variables, and the same
budget of evaluated programs: ``budget // 20`` generations of 20 programs
(its tournament of 20 / 10 = 2, gplearn's other defaults); its losses are
its programs' mean squared errors through the problem's ``log1p``, in the
order it evaluated them; its time per suggestion is its whole fit divided
by the budget (evaluation included: microseconds per program).

NePS 0.17 (``neps-re``: regularized evolution with one mutation per child,
``n_mutations=1``; ``neps-re-forget``: one forgotten, redrawn decision per
child instead, ``n_forgets=1``; ``neps-re-keyed``: ``neps-re`` with its
parents' decisions found, see :func:`bench.harness.neps_worker.optimizer`;
``neps-random``: random search) runs on the
symbolic-regression problems only, on the same grammar unrolled into its
``PipelineSpace`` (:mod:`bench.harness.neps_worker`), in NePS's own interpreter
(``TREEFARM_NEPS_PYTHON``, default ``/work/venv_neps/bin/python``; see
bench/notes/NEPS.md), since NePS needs PyTorch; its time per suggestion is
``AskAndTell.ask()`` plus ``tell()`` in that process.

Nevergrad's NGOpt (``nevergrad-ngopt``, in this process) and Ax's default
(``ax``, in Ax's interpreter) are adapted in :mod:`bench.harness.nevergrad_ax`.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .paths import ROOT
from .problems import Param, Problem

TREEFARM = {
    "tf-random": "random",
    "tf-tpe": "tpe",
    "tf-tpe-mv": "tpe-mv",
    "tf-anneal": "anneal",
    "tf-gp": "gp",
    "tf-grammar": "grammar",
    "tf-auto": "auto",
    "tf-cmaes": "cmaes",
    "tf-tpe-hyperopt": "tpe-hyperopt",
    "tf-gp-nostall": "gp-nostall",
    "tf-auto-trust": "auto-trust",
}
PEERS = (
    "optuna-random",
    "optuna-cmaes",
    "optuna-tpe",
    "optuna-tpe-uni",
    "optuna-tpe-mv",
    "optuna-gp",
    "hyperopt-tpe",
    "skopt-gp",
    "smac-gp",
    "smac-rf",
    "hebo",
    "gplearn",
    "neps-re",
    "neps-re-forget",
    "neps-re-keyed",
    "neps-random",
    "nevergrad-ngopt",
    "ax",
)
#: NePS's interpreter (its own venv, with PyTorch) unless ``TREEFARM_NEPS_PYTHON`` names another.
NEPS_PYTHON = "/work/venv_neps/bin/python"
#: HEBO's interpreter (its own venv, bench/notes/HEBO.md) unless ``TREEFARM_HEBO_PYTHON`` names another.
HEBO_PYTHON = "/work/venv_hebo/bin/python"
METHODS = (*TREEFARM, *PEERS)


class CannotExpressError(Exception):
    """The method has no way to express the problem's space."""


def close_input(worker: subprocess.Popen[str]) -> None:
    """Close a worker process's input. A worker that has already exited leaves unsent lines in
    the pipe's buffer, and closing it then raises BrokenPipeError: its exit status and error
    output tell what happened, so the broken pipe is not the error to report."""
    if worker.stdin is not None:
        with contextlib.suppress(BrokenPipeError):
            worker.stdin.close()


class NotAvailableError(Exception):
    """The method is not (yet) available in the installed libraries."""


class Stopwatch:
    """Wall and CPU seconds of the optimizer's own work, one lap per suggestion.

    ``start``/``pause`` bracket optimizer work (several brackets may make one
    lap); ``lap`` records the accumulated times. CPU time (of this process,
    all threads) is the steadier figure on a machine shared with other jobs.
    """

    def __init__(self) -> None:
        self.walls: list[float] = []
        self.cpus: list[float] = []
        self._wall = self._cpu = 0.0
        self._mark = (0.0, 0.0)

    def start(self) -> None:
        self._mark = (time.perf_counter(), time.process_time())

    def pause(self) -> None:
        self._wall += time.perf_counter() - self._mark[0]
        self._cpu += time.process_time() - self._mark[1]

    def lap(self) -> None:
        self.pause()
        self.walls.append(self._wall)
        self.cpus.append(self._cpu)
        self._wall = self._cpu = 0.0

    def result(self, losses: list[float], version: str) -> Result:
        return {"losses": losses, "suggest_times": self.walls, "suggest_cpu": self.cpus, "version": version}


Result = dict[str, Any]


def run(method: str, problem: Problem, seed: int, budget: int) -> Result:
    if method in TREEFARM:
        return run_treefarm(TREEFARM[method], problem, seed, budget)
    if method == "gplearn":
        return _gplearn(problem, seed, budget)
    if method.startswith("neps-"):
        return _neps(method, problem, seed, budget)
    if problem.space is not None and not method.startswith("optuna"):
        raise CannotExpressError(f"{method} cannot express the recursive space of {problem.name}")
    if method == "nevergrad-ngopt":
        from .nevergrad_ax import run_nevergrad

        return run_nevergrad(problem, seed, budget, Stopwatch())
    if method == "ax":
        from .nevergrad_ax import run_ax

        return run_ax(problem, seed, budget)
    runners: dict[str, Callable[[str, Problem, int, int], Result]] = {
        "optuna": _optuna,
        "hyperopt": _hyperopt,
        "skopt": _skopt,
        "smac": _smac,
        "hebo": _hebo,
    }
    return runners[method.split("-")[0]](method, problem, seed, budget)


def run_treefarm(algo: Any, problem: Problem, seed: int, budget: int) -> Result:
    """One treefarm study on ``problem``: ``algo`` is a method's algorithm name
    (:data:`TREEFARM`'s values) or an optimizer instance."""
    import treefarm as tf
    from treefarm.optimizers.base import variant

    if isinstance(algo, str):
        if algo.split("-")[0] not in tf.optimizers.available():
            raise NotAvailableError(
                f"treefarm optimizer not available: algo={algo!r}, registered={tf.optimizers.available()}"
            )
        variants = {
            "tpe-mv": lambda: tf.TPE(multivariate=True),
            "tpe-hyperopt": lambda: tf.TPE.hyperopt(),
            "gp-nostall": lambda: variant(tf.GP, {"explore_stalls": False}),
            "auto-trust": lambda: variant(tf.Auto, {"trust_after": 0}),
        }
        algo = variants[algo]() if algo in variants else algo
    study = tf.Study.create(space=problem.treefarm_space(), algo=algo, seed=seed)
    losses, clock = [], Stopwatch()
    for _ in range(budget):
        clock.start()
        trial = study.ask()
        clock.lap()
        value = problem.objective(problem.flat_value(trial.value))
        study.tell(trial, value)
        losses.append(value)
    return clock.result(losses, tf.__version__)


def _active(params: tuple[Param, ...], values: dict[str, Any], p: Param) -> bool:
    return p.when is None or values.get(p.when[0]) == p.when[1]


def _optuna(method: str, problem: Problem, seed: int, budget: int) -> Result:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    samplers = {
        "optuna-random": lambda: optuna.samplers.RandomSampler(seed=seed),
        "optuna-tpe": lambda: optuna.samplers.TPESampler(seed=seed),
        "optuna-tpe-uni": lambda: optuna.samplers.TPESampler(seed=seed, multivariate=False),
        "optuna-tpe-mv": lambda: optuna.samplers.TPESampler(seed=seed, multivariate=True, group=True),
        "optuna-gp": lambda: optuna.samplers.GPSampler(seed=seed),
        "optuna-cmaes": lambda: optuna.samplers.CmaEsSampler(seed=seed),
    }
    study = optuna.create_study(sampler=samplers[method]())
    propose = _optuna_params if problem.space is None else _optuna_grammar
    losses, clock = [], Stopwatch()
    for _ in range(budget):
        clock.start()
        trial = study.ask()
        values = propose(problem, trial)
        clock.lap()
        value = problem.objective(values if problem.space is None else _build(problem.space, values))
        study.tell(trial, value)
        losses.append(value)
    return clock.result(losses, optuna.__version__)


def _smac_space(problem: Problem, seed: int) -> Any:
    """The problem's parameters as a ConfigSpace space: a conditional one active when its
    parent takes the value of any of its ``when`` entries (the SVC's gamma: rbf or poly)."""
    from ConfigSpace import Categorical, ConfigurationSpace, EqualsCondition, Float, Integer, OrConjunction

    cs = ConfigurationSpace(seed=seed)
    made: dict[str, Any] = {}
    whens: dict[str, list[tuple[str, Any]]] = {}
    for p in problem.params:
        if p.when:
            whens.setdefault(p.name, []).append(p.when)
        if p.name in made:
            continue
        if p.kind == "real":
            made[p.name] = Float(p.name, (float(p.low), float(p.high)), log=p.log)
        elif p.kind == "int":
            made[p.name] = Integer(p.name, (int(p.low), int(p.high)), log=p.log)
        else:
            made[p.name] = Categorical(p.name, list(p.choices))
    cs.add(list(made.values()))
    for child, conditions in whens.items():
        equal = [EqualsCondition(made[child], made[parent], value) for parent, value in conditions]
        cs.add(equal[0] if len(equal) == 1 else OrConjunction(*equal))
    return cs


def _smac(method: str, problem: Problem, seed: int, budget: int) -> Result:
    """SMAC3's GP (``BlackBoxFacade``) or random-forest (``HyperparameterOptimizationFacade``)
    facade through its ask/tell interface, with its own initial design; only flat and
    conditional spaces (:func:`run` turns a grammar away)."""
    import tempfile

    import smac
    from smac import BlackBoxFacade, HyperparameterOptimizationFacade, Scenario
    from smac.runhistory.dataclasses import TrialValue

    facades = {"smac-gp": BlackBoxFacade, "smac-rf": HyperparameterOptimizationFacade}
    losses, clock = [], Stopwatch()
    with tempfile.TemporaryDirectory() as tmp:
        scenario = Scenario(_smac_space(problem, seed), deterministic=True, n_trials=budget, seed=seed,
                            output_directory=tmp)
        optimizer = facades[method](scenario, lambda config, seed=0: 0.0, overwrite=True, logging_level=40)
        for _ in range(budget):
            clock.start()
            info = optimizer.ask()
            clock.lap()
            value = float(problem.objective(dict(info.config)))
            optimizer.tell(info, TrialValue(cost=value))
            losses.append(value)
    return clock.result(losses, getattr(smac, "version", "2.4"))


def _optuna_params(problem: Problem, trial: Any) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for p in problem.params:
        if p.name in values or not _active(problem.params, values, p):
            continue
        if p.kind == "real":
            values[p.name] = trial.suggest_float(p.name, p.low, p.high, log=p.log)
        elif p.kind == "int":
            values[p.name] = trial.suggest_int(p.name, int(p.low), int(p.high), log=p.log)
        else:
            values[p.name] = trial.suggest_categorical(p.name, list(p.choices))
    return values


def _optuna_grammar(problem: Problem, trial: Any) -> Any:
    """A recursive space, define-by-run: every decision treefarm's walker meets
    becomes an Optuna parameter named by its address, with the options that can
    finish within the depth bound (fixed per address, as Optuna requires), so
    Optuna searches the same depth-limited grammar; returns the configuration."""
    import treefarm as tf
    from treefarm.space import walk

    def decide(address: str, node: Any, allowed: tuple[int, ...]) -> Any:
        if isinstance(node, tf.Real):
            return trial.suggest_float(address, node.low, node.high, log=node.log)
        if isinstance(node, tf.Int):
            return trial.suggest_int(address, int(node.low), int(node.high), log=node.log)
        if isinstance(node, tf.Choice):
            return trial.suggest_categorical(address, list(node.decisions()))
        return trial.suggest_categorical(address, [node.labels[i] for i in allowed])

    return walk(problem.space, decide)[0]


def _build(space: Any, config: Any) -> Any:
    import treefarm as tf

    return tf.build(space, config)


def _hyperopt_space(params: tuple[Param, ...]) -> dict[str, Any]:
    from hyperopt import hp

    def node(p: Param, label: str) -> Any:
        if p.kind == "real":
            return (
                hp.loguniform(label, _log(p.low), _log(p.high)) if p.log else hp.uniform(label, p.low, p.high)
            )
        if p.kind == "int":
            if p.log:
                return hp.qloguniform(label, _log(p.low - 0.5), _log(p.high + 0.5), 1)
            return hp.quniform(label, p.low - 0.5, p.high + 0.5, 1)
        return hp.choice(label, list(p.choices))

    space: dict[str, Any] = {}
    for p in params:
        if p.when is None and not any(q.when and q.when[0] == p.name for q in params):
            space[p.name] = node(p, p.name)
    for parent in {q.when[0] for q in params if q.when}:
        choices = next(p for p in params if p.name == parent).choices
        options = []
        for c in choices:
            option = {parent: c}
            for q in params:
                if q.when == (parent, c):
                    option[q.name] = node(q, f"{q.name}|{parent}={c}")
            options.append(option)
        space[f"__{parent}"] = hp.choice(parent, options)
    return space


def _log(x: float) -> float:
    import math

    return math.log(x)


def _hyperopt(method: str, problem: Problem, seed: int, budget: int) -> Result:
    import hyperopt
    import numpy as np

    losses: list[float] = []
    clock = Stopwatch()
    ints = {p.name for p in problem.params if p.kind == "int"}
    clock.start()

    def objective(sampled: dict[str, Any]) -> float:
        clock.lap()
        values: dict[str, Any] = {}
        for k, v in sampled.items():
            if k.startswith("__"):
                values.update(v)
            else:
                values[k] = v
        values = {k: round(v) if k in ints else v for k, v in values.items()}
        loss = problem.objective(values)
        losses.append(loss)
        clock.start()
        return loss

    hyperopt.fmin(
        objective,
        _hyperopt_space(problem.params),
        algo=hyperopt.tpe.suggest,
        max_evals=budget,
        trials=hyperopt.Trials(),
        rstate=np.random.default_rng(seed),
        show_progressbar=False,
    )
    return clock.result(losses, hyperopt.__version__)


def _skopt(method: str, problem: Problem, seed: int, budget: int) -> Result:
    import skopt
    from skopt.space import Categorical, Integer, Real

    names, dims = [], []
    for p in problem.params:
        if p.name in names:
            continue
        names.append(p.name)
        prior = "log-uniform" if p.log else "uniform"
        if p.kind == "real":
            dims.append(Real(p.low, p.high, prior=prior))
        elif p.kind == "int":
            dims.append(Integer(int(p.low), int(p.high), prior=prior))
        else:
            dims.append(Categorical(list(p.choices)))
    opt = skopt.Optimizer(
        dims, base_estimator="GP", acq_func="gp_hedge", n_initial_points=10, random_state=seed
    )
    losses, clock = [], Stopwatch()
    for _ in range(budget):
        clock.start()
        x = opt.ask()
        clock.pause()
        values = dict(zip(names, x))
        values = {k: (v.item() if hasattr(v, "item") else v) for k, v in values.items()}
        loss = problem.objective(values)
        clock.start()
        opt.tell(x, loss)
        clock.lap()
        losses.append(loss)
    return clock.result(losses, skopt.__version__)


def _gplearn(problem: Problem, seed: int, budget: int) -> Result:
    """gplearn's ``SymbolicRegressor`` on a symbolic-regression problem (see the module docstring)."""
    target = problem.extra.get("target")
    if target is None:
        raise CannotExpressError(f"gplearn runs symbolic regression only, not {problem.name}")
    import time

    import gplearn
    import numpy as np
    from gplearn.fitness import make_fitness
    from gplearn.functions import make_function
    from gplearn.genetic import SymbolicRegressor

    from .symbolic import FUNCTIONS, loss

    losses: list[float] = []

    def recorded_mse(truth: Any, prediction: Any, weight: Any) -> float:
        """gplearn's fitness (the MSE), with each evaluation's loss recorded in order."""
        losses.append(loss(prediction, truth))
        return float(np.average((prediction - truth) ** 2, weights=weight))

    native = {"add", "sub", "mul", "div", "sin", "cos", "log"}
    functions = [
        name if name in native else make_function(function=FUNCTIONS[name][1], name=name, arity=arity)
        for name, (arity, _) in FUNCTIONS.items()
    ]
    X, y = target.data()
    population = 20
    model = SymbolicRegressor(
        population_size=population,
        generations=budget // population,
        tournament_size=2,
        function_set=functions,
        metric=make_fitness(function=recorded_mse, greater_is_better=False, wrap=False),
        const_range=(-1.0, 1.0) if target.constants else None,
        init_depth=(1, target.max_depth - 1),
        stopping_criteria=-1.0,
        low_memory=False,
        random_state=seed,
    )
    losses.clear()  # make_fitness checks the metric on a dummy call (MSE 1): not a program of the run
    start = time.process_time(), time.perf_counter()
    model.fit(X, y)
    cpu, wall = time.process_time() - start[0], time.perf_counter() - start[1]
    losses = losses[:budget]
    return {
        "losses": losses,
        "suggest_times": [wall / len(losses)] * len(losses),
        "suggest_cpu": [cpu / len(losses)] * len(losses),
        "version": gplearn.__version__,
        "best": str(model._program),
    }


def _interpreter(variable: str, default: str, name: str, doc: str) -> Path:
    """A peer's own interpreter: the environment variable's path or ``default``;
    :class:`NotAvailableError` when it is not there."""
    path = Path(os.environ.get(variable) or default)
    if not path.is_file():
        raise NotAvailableError(f"{name}'s interpreter is missing (set {variable}, see {doc}): python={str(path)!r}")
    return path


def _hebo(method: str, problem: Problem, seed: int, budget: int) -> Result:
    """HEBO in its own interpreter (:mod:`bench.harness.hebo_worker`): it suggests, this process evaluates."""
    if any(p.when for p in problem.params):
        raise CannotExpressError(f"HEBO has no conditional spaces: {problem.name}")
    python = _interpreter("TREEFARM_HEBO_PYTHON", HEBO_PYTHON, "HEBO", "bench/notes/HEBO.md")
    root = ROOT
    params = [{"name": p.name, "kind": p.kind, "low": p.low, "high": p.high, "log": p.log, "choices": list(p.choices)}
              for p in problem.params]
    worker = subprocess.Popen(
        [str(python), "-m", "bench.harness.hebo_worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(json.dumps({"params": params, "seed": seed, "budget": budget}) + "\n")
    worker.stdin.flush()
    losses: list[float] = []
    try:
        for _ in range(budget):
            line = worker.stdout.readline()
            if not line:
                break
            config = json.loads(line)["config"]
            losses.append(float(problem.objective(config)))
            worker.stdin.write(json.dumps({"loss": losses[-1]}) + "\n")
            worker.stdin.flush()
        last = worker.stdout.readline()
    finally:
        close_input(worker)
        error = worker.stderr.read() if worker.stderr else ""
        code = worker.wait()
    if code != 0 or len(losses) < budget or not last.startswith("{"):
        raise RuntimeError(f"HEBO's worker failed (exit {code}) after {len(losses)} evaluations: {error[-1500:]}")
    result: Result = {"losses": losses, **json.loads(last)}
    return result


def neps_python() -> Path:
    """NePS's interpreter: ``TREEFARM_NEPS_PYTHON`` or :data:`NEPS_PYTHON`."""
    return _interpreter("TREEFARM_NEPS_PYTHON", NEPS_PYTHON, "NePS", "bench/notes/NEPS.md")


def _neps(method: str, problem: Problem, seed: int, budget: int) -> Result:
    """NePS on a symbolic-regression problem, in NePS's interpreter (see :mod:`bench.harness.neps_worker`)."""
    target = problem.extra.get("target")
    if target is None:
        raise CannotExpressError(f"{method} runs symbolic regression only, not {problem.name}")
    python = neps_python()
    root = ROOT
    done = subprocess.run(
        [str(python), "-m", "bench.harness.neps_worker", method, target.name, str(seed), str(budget)],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), str(root)])},
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"NePS's worker failed (exit {done.returncode}): {done.stderr[-1500:]}")
    result: Result = json.loads(lines[-1])
    return result
