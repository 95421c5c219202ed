"""Multi-fidelity methods behind one call: ``run(method, problem, seed, max_cost)``.

Every method spends from a :class:`Ledger` in full-evaluation equivalents
(:meth:`bench.harness.fidelity_problems.MFProblem.cost`) and stops claiming
work once ``max_cost`` is spent. The ledger keeps, in the order they were
paid for, every evaluation at full fidelity and every evaluation that was the
best so far at the highest fidelity reached; :func:`best_at` reads from them
the measure, the best full-fidelity value within a cost.

How each method evaluates:

- ``tf-random-full``, ``tf-auto-full``: treefarm's random search and ``auto``,
  every trial a full evaluation (cost 1);
- ``tf-auto-hyperband``: ``auto`` with ``HyperbandPruner(min_resource=1,
  max_resource=27, reduction_factor=3)``, as a user runs it today;
- ``tf-auto-fidelity``: ``auto`` with fidelities and ``optimize(max_cost=...)``: on a
  fidelity parameter, a study with ``Fidelity(1, 27, integer=True, reduction_factor=3,
  cost=...)`` (the problem's cost), each trial one evaluation at ``trial.fidelity``; on
  a learning curve, the same Hyperband as ``tf-auto-hyperband``, the budget in steps;
- ``tf-auto-fidelity-model``: the same, with ``auto``'s tuned ``promotions="model"``: a
  rung of a declared fidelity continues the paused configuration of highest expected
  improvement at the top under the GP across fidelities rather than the best at the rung
  (a learning curve runs as ``tf-auto-fidelity``);
- ``optuna-tpe-hyperband``, ``optuna-tpe-sha``: Optuna's ``TPESampler(seed)``
  with its ``HyperbandPruner`` (the same resources) or
  ``SuccessiveHalvingPruner(min_resource=1, reduction_factor=3)``;
- ``dehb``: DEHB (Awad, Mallik & Hutter, "DEHB: Evolutionary Hyperband for
  Scalable, Robust and Efficient Hyperparameter Optimization", 2021) with
  fidelities 1..27, eta 3, through its ask/tell interface;
- ``synetune-bohb``: Syne Tune's ``BOHB`` (asynchronous successive halving, stopping
  trials, with BOHB's kernel densities; grace period 1, eta 3), driven by its
  scheduler's ``suggest`` / ``on_trial_result`` / ``on_trial_complete`` (as its tuner does);
- ``smac-mf``: SMAC3's ``MultiFidelityFacade`` (Hyperband with a random
  forest, the BOHB idea of Falkner, Klein & Hutter, 2018) with budgets 1..27, eta 3;
- ``neps-hyperband``, ``neps-priorband``: NePS 0.17's Hyperband (uniform
  sampling) and PriorBand (Mallik et al., "PriorBand: Practical Hyperparameter
  Optimization in the Age of Deep Learning", 2023; on Hyperband's brackets, its
  prior at the centre of every range with NePS's default, low, confidence), the
  fidelity an ``is_fidelity=True`` integer 1..27, eta 3, in NePS's interpreter
  (:mod:`bench.harness.neps_fidelity_worker`; bench/notes/NEPS.md).

With a pruner, a learning curve reports every step (each costs 1/27 and the
trial resumes); a fidelity parameter is evaluated at the rungs 1, 3, 9 and 27
only, each evaluation paid in full (nothing resumes). DEHB and SMAC3 evaluate
one (configuration, fidelity) pair per job: on a learning curve that job
trains from step 0 to its fidelity. NePS promotes a trial to the next rung
naming the trial it continues (``previous_trial_id``, which its examples use to
load a checkpoint): on a learning curve a promotion pays only the steps it adds.

Time per suggestion: treefarm's and Optuna's are the gaps between objective
calls inside ``optimize`` (the suggestion and the study's bookkeeping; the
pruner's decisions are in the objective), plus Optuna's ``suggest_*`` calls
(where its independent sampling happens); DEHB's and SMAC3's the ``ask`` and
``tell`` calls (NePS's measured in its worker, without the pipe); Syne Tune's the
scheduler's ``suggest``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

from .fidelity_problems import MAX_STEPS, MFProblem

RUNGS = (1, 3, 9, 27)
METHODS = ("tf-random-full", "tf-auto-full", "tf-auto-hyperband", "tf-auto-fidelity", "tf-auto-fidelity-model",
           "optuna-tpe-hyperband", "optuna-tpe-sha", "dehb", "smac-mf", "synetune-bohb", "neps-hyperband",
           "neps-priorband")


class BudgetSpentError(Exception):
    """The run's cost budget is spent: the method stops claiming work."""


class Ledger:
    """The cost a run has spent and the evaluations that can make its best value at any cost."""

    def __init__(self, problem: MFProblem, max_cost: float) -> None:
        self.problem, self.max_cost = problem, max_cost
        self.spent = 0.0
        self.evaluations = 0
        #: [cost spent after it, step, value at that step, the configuration's full-fidelity value]
        self.events: list[list[float]] = []
        self._top = (0, math.inf)  # the highest step reached and the best value there

    @property
    def done(self) -> bool:
        return self.spent >= self.max_cost - 1e-9

    def evaluate(self, config: Mapping[str, Any], step: float, *, resumed_from: int = 0) -> float:
        """The value at ``step``, paying its cost (a curve resumed from ``resumed_from`` pays only the steps added)."""
        if self.done:
            raise BudgetSpentError
        step = min(max(round(step), 1), MAX_STEPS)
        value = self.problem.value(config, step)
        cost = self.problem.cost(step)
        if self.problem.shape == "curve":
            cost -= self.problem.cost(resumed_from)
        self.spent += cost
        self.evaluations += 1
        top_step, top_value = self._top
        if step > top_step or (step == top_step and value < top_value) or step == MAX_STEPS:
            if step > top_step or (step == top_step and value < top_value):
                self._top = (step, value)
            self.events.append([round(self.spent, 6), step, value, self.problem.full(config)])
        return value


def best_at(events: list[list[float]], cost: float) -> float:
    """The best full-fidelity value found within ``cost``; before any full evaluation, the
    full-fidelity value of the best configuration at the highest fidelity reached (the incumbent
    a user would take), ``inf`` before any evaluation."""
    within = [e for e in events if e[0] <= cost + 1e-9]
    full = [e[2] for e in within if e[1] == MAX_STEPS]
    if full:
        return min(full)
    if not within:
        return math.inf
    top = max(e[1] for e in within)
    return min((e for e in within if e[1] == top), key=lambda e: e[2])[3]


class Clock:
    """Seconds between objective calls (a method's own work per suggestion)."""

    def __init__(self) -> None:
        self.laps: list[float] = []
        self._mark: float | None = None

    def enter(self) -> None:
        self.laps.append(0.0 if self._mark is None else time.perf_counter() - self._mark)

    def add(self, seconds: float) -> None:
        """Work of the method's inside the objective (Optuna's ``suggest_*`` calls) to the current lap."""
        self.laps[-1] += seconds

    def leave(self) -> None:
        self._mark = time.perf_counter()


def _reports(problem: MFProblem) -> tuple[int, ...]:
    return tuple(range(1, MAX_STEPS + 1)) if problem.shape == "curve" else RUNGS


def _staged(ledger: Ledger, config: Mapping[str, Any], report: Callable[[int, float], bool]) -> float:
    """Evaluate ``config`` step by step (a curve) or rung by rung (a parameter); ``report`` says
    whether to stop after a step. Returns the last value."""
    last, value = 0, math.nan
    for step in _reports(ledger.problem):
        value = ledger.evaluate(config, step, resumed_from=last)
        last = step
        if step < MAX_STEPS and report(step, value):
            break
    return value


def run_treefarm(method: str, problem: MFProblem, seed: int, ledger: Ledger) -> Clock:
    import treefarm as tf

    from .problems import params_to_space

    algo = "random" if method == "tf-random-full" else "auto"
    pruner = tf.HyperbandPruner(min_resource=1, max_resource=MAX_STEPS, reduction_factor=3) \
        if method == "tf-auto-hyperband" else None
    study = tf.Study.create(space=params_to_space(problem.params), algo=algo, seed=seed, pruner=pruner)
    clock = Clock()

    def objective(config: dict[str, Any], trial: tf.Trial) -> float:
        clock.enter()
        try:
            if pruner is None:
                return ledger.evaluate(config, MAX_STEPS)

            def report(step: int, value: float) -> bool:
                trial.report(step, value)
                if trial.should_prune():
                    raise tf.TrialPruned()
                return False

            return _staged(ledger, config, report)
        except BudgetSpentError:
            raise tf.TrialPruned() from None
        finally:
            clock.leave()

    def stop(study: tf.Study, _record: Any) -> None:
        if ledger.done:
            study.stop()

    study.optimize(objective, callbacks=[stop], progress=False)
    return clock


def run_treefarm_fidelity(problem: MFProblem, seed: int, ledger: Ledger, promotions: str | None = None) -> Clock:
    """``auto`` with fidelities, stopped by ``optimize(max_cost=...)``: a declared fidelity for a
    fidelity parameter (the study chooses each trial's rung), Hyperband for a learning curve
    (the budget in steps; ``auto`` learns from every reported value); ``promotions``: ``auto``'s
    tuned setting of that name (None: its default)."""
    import treefarm as tf
    from treefarm.optimizers.base import variant

    from .problems import params_to_space

    curve = problem.shape == "curve"
    fidelity = None if curve else tf.Fidelity(1, MAX_STEPS, integer=True, reduction_factor=3, cost=problem.cost)
    pruner = tf.HyperbandPruner(min_resource=1, max_resource=MAX_STEPS, reduction_factor=3) if curve else None
    algo = "auto" if promotions is None else variant(tf.Auto, {"promotions": promotions})
    study = tf.Study.create(space=params_to_space(problem.params), algo=algo, seed=seed, fidelity=fidelity,
                            pruner=pruner)
    clock = Clock()

    def objective(config: dict[str, Any], trial: tf.Trial) -> float:
        clock.enter()
        try:
            if curve:
                def report(step: int, value: float) -> bool:
                    trial.report(step, value)
                    if trial.should_prune():
                        raise tf.TrialPruned()
                    return False

                return _staged(ledger, config, report)
            assert trial.fidelity is not None
            return ledger.evaluate(config, trial.fidelity)
        except BudgetSpentError:
            raise tf.TrialPruned() from None
        finally:
            clock.leave()

    def stop(study: tf.Study, _record: Any) -> None:
        if ledger.done:
            study.stop()

    max_cost = ledger.max_cost * (MAX_STEPS if curve else 1)
    study.optimize(objective, callbacks=[stop], max_cost=max_cost, progress=False)
    return clock


def run_optuna(method: str, problem: MFProblem, seed: int, ledger: Ledger) -> Clock:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    pruner = optuna.pruners.HyperbandPruner(min_resource=1, max_resource=MAX_STEPS, reduction_factor=3) \
        if method == "optuna-tpe-hyperband" else optuna.pruners.SuccessiveHalvingPruner(min_resource=1,
                                                                                         reduction_factor=3)
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed), pruner=pruner)
    clock = Clock()

    def objective(trial: Any) -> float:
        clock.enter()
        try:
            start = time.perf_counter()
            config = {p.name: trial.suggest_float(p.name, p.low, p.high) if p.kind == "real"
                      else trial.suggest_int(p.name, int(p.low), int(p.high)) for p in problem.params}
            clock.add(time.perf_counter() - start)

            def report(step: int, value: float) -> bool:
                trial.report(value, step)
                if trial.should_prune():
                    raise optuna.TrialPruned()
                return False

            return _staged(ledger, config, report)
        except BudgetSpentError:
            raise optuna.TrialPruned() from None
        finally:
            clock.leave()

    def stop(study: Any, _trial: Any) -> None:
        if ledger.done:
            study.stop()

    study.optimize(objective, callbacks=[stop])
    return clock


def _configspace(problem: MFProblem, seed: int) -> Any:
    from .methods import _smac_space
    from .problems import Problem

    return _smac_space(Problem(problem.name, lambda v: 0.0, problem.params), seed)


def run_dehb(problem: MFProblem, seed: int, ledger: Ledger) -> Clock:
    import tempfile

    from dehb import DEHB

    clock = Clock()
    with tempfile.TemporaryDirectory() as tmp:
        cs = _configspace(problem, seed)
        dehb = DEHB(cs=cs, dimensions=len(problem.params), min_fidelity=1, max_fidelity=MAX_STEPS, eta=3,
                    n_workers=1, seed=seed, output_path=tmp)
        while not ledger.done:
            start = time.perf_counter()
            job = dehb.ask()
            config = job["config"] if hasattr(job["config"], "keys") else dehb.vector_to_configspace(job["config"])
            config = dict(config)
            clock.laps.append(time.perf_counter() - start)
            value = ledger.evaluate(config, job["fidelity"])
            start = time.perf_counter()
            dehb.tell(job, {"fitness": value, "cost": problem.cost(job["fidelity"])})
            clock.laps[-1] += time.perf_counter() - start
    return clock


def run_smac(problem: MFProblem, seed: int, ledger: Ledger) -> Clock:
    import tempfile

    from smac import MultiFidelityFacade, Scenario
    from smac.runhistory.dataclasses import TrialValue

    clock = Clock()
    with tempfile.TemporaryDirectory() as tmp:
        scenario = Scenario(_configspace(problem, seed), deterministic=True, n_trials=100_000, seed=seed,
                            min_budget=1, max_budget=MAX_STEPS, output_directory=tmp)
        intensifier = MultiFidelityFacade.get_intensifier(scenario, eta=3)
        smac = MultiFidelityFacade(scenario, lambda config, seed=0, budget=1: 0.0, intensifier=intensifier,
                                   overwrite=True, logging_level=40)
        while not ledger.done:
            start = time.perf_counter()
            info = smac.ask()
            clock.laps.append(time.perf_counter() - start)
            value = ledger.evaluate(dict(info.config), round(info.budget))
            start = time.perf_counter()
            smac.tell(info, TrialValue(cost=value))
            clock.laps[-1] += time.perf_counter() - start
    return clock


def run_synetune(problem: MFProblem, seed: int, ledger: Ledger) -> Clock:
    import datetime

    from syne_tune.backend.trial_status import Trial
    from syne_tune.config_space import randint, uniform
    from syne_tune.optimizer.baselines import BOHB
    from syne_tune.optimizer.scheduler import SchedulerDecision

    space = {p.name: uniform(p.low, p.high) if p.kind == "real" else randint(int(p.low), int(p.high))
             for p in problem.params}
    scheduler = BOHB(space, metric="loss", time_attr="step", max_t=MAX_STEPS, do_minimize=True, random_seed=seed,
                     grace_period=1, reduction_factor=3)
    clock = Clock()
    number = 0
    while not ledger.done:
        clock.leave()
        suggestion = scheduler.suggest()
        trial = Trial(trial_id=number, config=suggestion.config, creation_time=datetime.datetime.now())
        scheduler.on_trial_add(trial)
        number += 1
        clock.enter()
        last: list[Any] = [0, math.nan]

        def report(step: int, value: float, trial: Any = trial, last: list[Any] = last) -> bool:
            last[:] = [step, value]
            return bool(scheduler.on_trial_result(trial, {"loss": value, "step": step}) == SchedulerDecision.STOP)

        try:
            value = _staged(ledger, dict(suggestion.config), report)
        except BudgetSpentError:
            break
        if last[0] == MAX_STEPS:
            scheduler.on_trial_complete(trial, {"loss": value, "step": MAX_STEPS})
        else:
            scheduler.on_trial_remove(trial)
    return clock


def run_neps(method: str, problem: MFProblem, seed: int, ledger: Ledger) -> Clock:
    """NePS in its own interpreter (:mod:`bench.harness.neps_fidelity_worker`): it suggests
    (configuration, step, the step it resumes from), this process evaluates and pays; :class:`NotAvailableError`
    (from :func:`bench.harness.methods.neps_python`) where NePS's interpreter is missing."""
    import json
    import os
    import subprocess
    import tempfile

    from .methods import close_input, neps_python
    from .paths import ROOT

    python = neps_python()
    params = [{"name": p.name, "kind": p.kind, "low": p.low, "high": p.high, "log": p.log} for p in problem.params]
    # its working directory (whatever NePS writes) and its log, a file: a pipe could fill and block it
    with tempfile.TemporaryDirectory(prefix="neps-") as tmp, open(os.path.join(tmp, "stderr"), "w+") as log:
        worker = subprocess.Popen(
            [str(python), "-m", "bench.harness.neps_fidelity_worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=log, text=True, cwd=tmp, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert worker.stdin is not None and worker.stdout is not None

        def send(message: dict[str, Any]) -> None:
            assert worker.stdin is not None
            worker.stdin.write(json.dumps(message) + "\n")
            worker.stdin.flush()

        def receive() -> dict[str, Any]:
            assert worker.stdout is not None
            for line in worker.stdout:
                if line.startswith("{"):
                    message: dict[str, Any] = json.loads(line)
                    return message
            return {}

        send({"method": method, "params": params, "seed": seed, "max_steps": MAX_STEPS, "eta": 3})
        try:
            while (job := receive()) and "config" in job:
                if ledger.done:
                    send({"stop": True})
                    continue
                send({"loss": ledger.evaluate(job["config"], job["step"], resumed_from=job["resumed_from"])})
        finally:
            close_input(worker)
            code = worker.wait()
            log.seek(0)
            error = log.read()
    if code != 0 or "suggest_ms" not in job:
        raise RuntimeError(f"NePS's worker failed (exit {code}) after {ledger.evaluations} evaluations: {error[-1500:]}")
    clock = Clock()
    clock.laps = [0.0] + [ms / 1000 for ms in job["suggest_ms"]]
    return clock


def run(method: str, problem: MFProblem, seed: int, max_cost: float) -> dict[str, Any]:
    """One run: its ledger's events, evaluations, cost spent and times per suggestion (ms)."""
    import numpy as np

    np.random.seed(seed)  # peers that draw from NumPy's global generator
    ledger = Ledger(problem, max_cost)
    if method == "tf-auto-fidelity":
        clock = run_treefarm_fidelity(problem, seed, ledger)
    elif method == "tf-auto-fidelity-model":
        clock = run_treefarm_fidelity(problem, seed, ledger, promotions="model")
    elif method.startswith("tf-"):
        clock = run_treefarm(method, problem, seed, ledger)
    elif method.startswith("optuna-"):
        clock = run_optuna(method, problem, seed, ledger)
    elif method == "dehb":
        clock = run_dehb(problem, seed, ledger)
    elif method == "smac-mf":
        clock = run_smac(problem, seed, ledger)
    elif method == "synetune-bohb":
        clock = run_synetune(problem, seed, ledger)
    elif method.startswith("neps-"):
        clock = run_neps(method, problem, seed, ledger)
    else:
        raise ValueError(f"unknown method {method!r}; methods: {METHODS}")
    return {"events": ledger.events, "evaluations": ledger.evaluations, "spent": round(ledger.spent, 6),
            "suggest_ms": [round(1000 * t, 2) for t in clock.laps[1:]], "clock": 2}
