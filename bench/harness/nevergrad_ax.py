"""Nevergrad's NGOpt and Ax's default as benchmark peers (methods ``nevergrad-ngopt`` and ``ax``).

NGOpt (Meunier et al., "Black-Box Optimization Revisited: Improving Algorithm
Selection Wizards through Massive Benchmarking", IEEE TEVC 2022) chooses an
algorithm from the space's kind, dimension and budget; it runs in this process
(``pip install nevergrad``). Its space: a real as ``Scalar`` (``Log`` when
log-scaled), an integer the same with integer casting, a choice as an unordered
``Choice``; it has no conditional spaces, so like scikit-optimize it gets every
parameter, always active (the objective ignores the inactive ones). Its time
per suggestion is ``ask()`` plus the ``tell()`` before it.

Ax (its ``Client`` and default generation strategy: a Sobol design, then
BoTorch's GP with qLogNEI; Balandat et al., "BoTorch: A Framework for
Efficient Monte-Carlo Bayesian Optimization", NeurIPS 2020; Ament et al.,
"Unexpected Improvements to Expected Improvement for Bayesian Optimization",
NeurIPS 2023) runs in its own interpreter (:mod:`bench.harness.ax_worker`,
``TREEFARM_AX_PYTHON``, default this interpreter), since it needs PyTorch and
pins its own versions; it suggests, this process evaluates. ``batch`` asks it
for that many suggestions at once (its batch acquisition), told together.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .methods import NotAvailableError, close_input
from .paths import ROOT
from .problems import Param, Problem

Result = dict[str, Any]


def distinct(params: tuple[Param, ...]) -> list[Param]:
    """Each parameter once (a conditional one may be declared under several parents)."""
    seen: dict[str, Param] = {}
    for p in params:
        seen.setdefault(p.name, p)
    return list(seen.values())


def nevergrad_space(params: tuple[Param, ...], seed: int) -> Any:
    """The problem's parameters as a Nevergrad ``Dict`` whose random state is seeded."""
    import nevergrad as ng
    import numpy as np

    def node(p: Param) -> Any:
        if p.kind == "cat":
            return ng.p.Choice(list(p.choices))
        made = ng.p.Log(lower=p.low, upper=p.high) if p.log else ng.p.Scalar(lower=p.low, upper=p.high)
        return made.set_integer_casting() if p.kind == "int" else made

    patch_metamodel()
    space = ng.p.Dict(**{p.name: node(p) for p in distinct(params)})
    space.random_state = np.random.RandomState(seed)
    return space


def plain(values: dict[str, Any]) -> dict[str, Any]:
    """NumPy scalars as Python values (the objectives compare choices by value)."""
    return {k: v.item() if hasattr(v, "item") else v for k, v in values.items()}


#: The expression in Nevergrad 1.0.12's ``learn_on_k_best`` that NumPy 2 refuses, and its fix.
UNSCALAR = "float(model.predict(trans(np.asarray(x, dtype=X[0].dtype).flatten()[None, :])))"
SCALAR = "float(model.predict(trans(np.asarray(x, dtype=X[0].dtype).flatten()[None, :]))[0])"


def patch_metamodel() -> None:
    """Let NGOpt's metamodel run under NumPy 2: Nevergrad 1.0.12 turns a one-element array
    into a float with ``float(array)``, which NumPy deprecated in 1.25 and now refuses (a
    ``TypeError`` that ends the run); its ``learn_on_k_best`` is recompiled with the element
    taken first, nothing else changed. A no-op once Nevergrad no longer has the expression."""
    import inspect

    from nevergrad.optimization import metamodel, optimizerlib

    source = inspect.getsource(metamodel.learn_on_k_best)
    if UNSCALAR not in source:
        return
    namespace = dict(vars(metamodel))
    exec(compile(source.replace(UNSCALAR, SCALAR), metamodel.__file__ or "metamodel", "exec"), namespace)
    metamodel.learn_on_k_best = optimizerlib.learn_on_k_best = namespace["learn_on_k_best"]


def run_nevergrad(problem: Problem, seed: int, budget: int, clock: Any) -> Result:
    """NGOpt, sequential: one ``ask``, one evaluation, one ``tell``."""
    import nevergrad as ng

    patch_metamodel()

    optimizer = ng.optimizers.NGOpt(parametrization=nevergrad_space(problem.params, seed), budget=budget)
    losses: list[float] = []
    pending: tuple[Any, float] | None = None
    for _ in range(budget):
        clock.start()
        if pending is not None:
            optimizer.tell(*pending)
        candidate = optimizer.ask()
        clock.lap()
        loss = float(problem.objective(plain(candidate.value)))
        pending = (candidate, loss)
        losses.append(loss)
    return clock.result(losses, ng.__version__)


def ax_params(params: tuple[Param, ...]) -> list[dict[str, Any]]:
    """The parameters as the Ax worker reads them (:func:`bench.harness.ax_worker.parameter_configs`)."""
    return [{"name": p.name, "kind": p.kind, "low": p.low, "high": p.high, "log": p.log, "choices": list(p.choices)}
            for p in distinct(params)]


def ax_python() -> Path:
    """Ax's interpreter: ``TREEFARM_AX_PYTHON``, or this one."""
    return Path(os.environ.get("TREEFARM_AX_PYTHON") or sys.executable)


def run_ax(problem: Problem, seed: int, budget: int, batch: int = 1) -> Result:
    """Ax in its own interpreter: ``budget`` evaluations in rounds of ``batch`` suggestions."""
    return ask_worker(problem.params, seed, budget, batch,
                      lambda configs: [float(problem.objective(c)) for c in configs])


def ask_worker(params: tuple[Param, ...], seed: int, budget: int, batch: int,
               evaluate: Callable[[list[dict[str, Any]]], list[float]]) -> Result:
    """Drive :mod:`bench.harness.ax_worker`: each round it prints configurations, ``evaluate``
    scores them, their losses go back; the last line is its times and version. Its standard
    error goes to a file (a pipe that Ax's warnings filled would block it)."""
    spec = {"params": ax_params(params), "seed": seed, "budget": budget, "batch": batch}
    with tempfile.TemporaryFile(mode="w+") as log:
        worker = subprocess.Popen(
            [str(ax_python()), "-m", "bench.harness.ax_worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=log, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        try:
            losses, last = _converse(worker, spec, evaluate)
        finally:
            code = worker.wait()
        log.seek(0)
        error = log.read()
    if "No module named 'ax'" in error:
        raise NotAvailableError(f"Ax is not installed for its interpreter (set TREEFARM_AX_PYTHON): "
                                f"python={str(ax_python())!r}")
    if code != 0 or len(losses) < budget or not last.startswith("{"):
        raise RuntimeError(f"Ax's worker failed (exit {code}) after {len(losses)} evaluations: {error[-1500:]}")
    result: Result = {"losses": losses, **json.loads(last)}
    return result


def _converse(worker: subprocess.Popen[str], spec: dict[str, Any],
              evaluate: Callable[[list[dict[str, Any]]], list[float]]) -> tuple[list[float], str]:
    """The losses of every round the worker asked for, and its last line; its input closed at the end."""
    assert worker.stdin is not None and worker.stdout is not None
    losses: list[float] = []
    try:
        worker.stdin.write(json.dumps(spec) + "\n")
        worker.stdin.flush()
        while len(losses) < spec["budget"]:
            line = worker.stdout.readline()
            if not line.startswith("{"):
                return losses, ""
            scored = evaluate(json.loads(line)["configs"])
            losses.extend(scored)
            worker.stdin.write(json.dumps({"losses": scored}) + "\n")
            worker.stdin.flush()
        return losses, worker.stdout.readline()
    except BrokenPipeError:
        return losses, ""
    finally:
        close_input(worker)
