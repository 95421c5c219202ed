"""Benchmark problems: synthetic functions, scikit-learn tuning, grammars.

Each problem states its parameters once, in a neutral form (:class:`Param`),
from which every library's search space is made, so all methods search the
same space. Grammar problems have a treefarm space only (recursive spaces
have no equivalent elsewhere); peers get a row saying they cannot express it.

Optima: the synthetic functions' global minima are known (Surjanovic &
Bingham's Virtual Library of Simulation Experiments); symbolic regression's
is the loss of the formula that generated its data; for the others the
regret is measured against the best loss any method found in the results
file (:func:`bench.harness.report._optimum`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import treefarm as tf

from .paths import ROOT


@dataclass(frozen=True)
class Param:
    """One parameter: ``kind`` is "real", "int" or "cat"; ``when`` = (parent, value)
    makes it conditional on a categorical parent taking that value."""

    name: str
    kind: str
    low: float = 0.0
    high: float = 1.0
    log: bool = False
    choices: tuple[Any, ...] = ()
    when: tuple[str, Any] | None = None


@dataclass(frozen=True)
class Problem:
    name: str
    objective: Callable[[Mapping[str, Any]], float]
    params: tuple[Param, ...] = ()
    optimum: float | None = None
    budget: int = 100
    space: Any = None
    kind: str = "synthetic"
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def treefarm_space(self) -> Any:
        """The treefarm space: given, or made from the params (conditional
        params become join options of their categorical parent)."""
        if self.space is not None:
            return self.space
        return params_to_space(self.params)

    def flat_value(self, value: Any) -> dict[str, Any]:
        """A built treefarm value as the flat dict the objective takes."""
        if self.space is not None:
            return value
        out: dict[str, Any] = {}
        for k, v in value.items():
            if isinstance(v, dict):
                out[k] = v.pop("__choice__")
                out.update(v)
            else:
                out[k] = v
        return out


def params_to_space(params: tuple[Param, ...]) -> dict[str, Any]:
    space: dict[str, Any] = {}
    children: dict[str, dict[Any, dict[str, Any]]] = {}
    for p in params:
        node = _node(p)
        if p.when is None:
            space[p.name] = node
        else:
            parent, value = p.when
            children.setdefault(parent, {}).setdefault(value, {})[p.name] = node
    for parent, by_value in children.items():
        choices = next(p for p in params if p.name == parent).choices
        options = {str(c): {"__choice__": c, **by_value.get(c, {})} for c in choices}
        space[parent] = tf.Join(**options)
    return space


def _node(p: Param) -> Any:
    if p.kind == "real":
        return tf.Real(p.low, p.high, log=p.log)
    if p.kind == "int":
        return tf.Int(int(p.low), int(p.high), log=p.log)
    return tf.Choice(*p.choices)


# --------------------------------------------------------------------------- synthetic


def branin(v: Mapping[str, float]) -> float:
    x, y = v["x0"], v["x1"]
    b, c, t = 5.1 / (4 * math.pi**2), 5 / math.pi, 1 / (8 * math.pi)
    return (y - b * x**2 + c * x - 6) ** 2 + 10 * (1 - t) * math.cos(x) + 10


_H6_A = np.array(
    [
        [10, 3, 17, 3.5, 1.7, 8],
        [0.05, 10, 17, 0.1, 8, 14],
        [3, 3.5, 1.7, 10, 17, 8],
        [17, 8, 0.05, 10, 0.1, 14],
    ]
)
_H6_P = 1e-4 * np.array(
    [
        [1312, 1696, 5569, 124, 8283, 5886],
        [2329, 4135, 8307, 3736, 1004, 9991],
        [2348, 1451, 3522, 2883, 3047, 6650],
        [4047, 8828, 8732, 5743, 1091, 381],
    ]
)
_H6_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])


def _vec(v: Mapping[str, float], d: int) -> np.ndarray:
    return np.array([float(v[f"x{i}"]) for i in range(d)])


def hartmann6(v: Mapping[str, float]) -> float:
    x = _vec(v, 6)
    return -float(_H6_ALPHA @ np.exp(-(_H6_A * (x - _H6_P) ** 2).sum(1)))


def ackley(v: Mapping[str, float], d: int = 5) -> float:
    x = _vec(v, d)
    return float(
        -20 * np.exp(-0.2 * np.sqrt((x**2).mean())) - np.exp(np.cos(2 * np.pi * x).mean()) + 20 + np.e
    )


def rosenbrock(v: Mapping[str, float], d: int = 4) -> float:
    x = _vec(v, d)
    return float((100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum())


def levy(v: Mapping[str, float], d: int = 10) -> float:
    w = 1 + (_vec(v, d) - 1) / 4
    head = np.sin(np.pi * w[0]) ** 2
    mid = ((w[:-1] - 1) ** 2 * (1 + 10 * np.sin(np.pi * w[:-1] + 1) ** 2)).sum()
    tail = (w[-1] - 1) ** 2 * (1 + np.sin(2 * np.pi * w[-1]) ** 2)
    return float(head + mid + tail)


def styblinski_tang(v: Mapping[str, float], d: int = 8) -> float:
    x = _vec(v, d)
    return float(0.5 * (x**4 - 16 * x**2 + 5 * x).sum())


def _shift(d: int, low: float, high: float, seed: int) -> np.ndarray:
    """A fixed random point of ``[low, high]^d``: where a shifted function's optimum moves."""
    return np.random.default_rng(seed).uniform(low, high, d)


_ACKLEY5_SHIFT = _shift(5, -16.0, 16.0, 2027)
_LEVY10_SHIFT = _shift(10, -6.0, 6.0, 2028)


def ackley_shifted(v: Mapping[str, float], d: int = 5) -> float:
    """Ackley with its optimum moved from the box's centre to a fixed random point in the
    inner half of the box (:data:`_ACKLEY5_SHIFT`): a method that starts at the centre
    no longer starts at the optimum (the centre bias of Kudela, "A critical problem in
    benchmarking and analysis of evolutionary computation methods", 2022)."""
    x = _vec(v, d) - _ACKLEY5_SHIFT
    return ackley({f"x{i}": z for i, z in enumerate(x)}, d)


def levy_shifted(v: Mapping[str, float], d: int = 10) -> float:
    """Levy with its optimum moved from ``(1, ..., 1)``, 5 % of the range from the box's
    centre, to ``1 + s``, ``s`` a fixed random point of ``[-6, 6]^d`` (:data:`_LEVY10_SHIFT`)."""
    x = _vec(v, d) - _LEVY10_SHIFT
    return levy({f"x{i}": z for i, z in enumerate(x)}, d)


def _box(d: int, low: float, high: float, ints: int = 0) -> tuple[Param, ...]:
    return tuple(Param(f"x{i}", "int" if i >= d - ints else "real", low, high) for i in range(d))


SYNTHETIC = {
    "branin": Problem("branin", branin, (Param("x0", "real", -5, 10), Param("x1", "real", 0, 15)), 0.397887),
    "hartmann6": Problem("hartmann6", hartmann6, _box(6, 0, 1), -3.32237),
    "ackley5": Problem("ackley5", ackley, _box(5, -32.768, 32.768), 0.0),
    "rosenbrock4": Problem("rosenbrock4", rosenbrock, _box(4, -5, 10), 0.0),
    "levy10": Problem("levy10", levy, _box(10, -10, 10), 0.0),
    # 4 real and 4 integer dimensions; the integer optimum -2.9035... rounds to -3,
    # so the optimum is 4 * st(-2.903534) + 4 * st(-3) (st the 1-D term).
    "styblinski8": Problem(
        "styblinski8",
        styblinski_tang,
        _box(8, -5, 5, ints=4),
        4 * 0.5 * ((-2.903534) ** 4 - 16 * 2.903534**2 - 5 * 2.903534) + 4 * 0.5 * (81 - 144 - 15),
    ),
}


#: Ackley-5 and Levy-10 with their optima moved off the box's centre (the batch suites).
SHIFTED = {
    "ackley5_shifted": Problem("ackley5_shifted", ackley_shifted, _box(5, -32.768, 32.768), 0.0),
    "levy10_shifted": Problem("levy10_shifted", levy_shifted, _box(10, -10, 10), 0.0),
}


def _rotated_rosenbrock_parts(d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A fixed random rotation (d, d) and optimum (d,) in [-3, 3]^d (away from the centre)."""
    rng = np.random.default_rng(seed)
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diag(r))[None, :], rng.uniform(-3.0, 3.0, d)


_ROT10, _OPT10 = _rotated_rosenbrock_parts(10, 2026)


def rotated_rosenbrock(v: Mapping[str, float], d: int = 10) -> float:
    """Rosenbrock's valley rotated and moved off centre: ``rosenbrock(R (x - x*) + 1)``,
    the optimum 0 at ``x*``, a fixed point in [-3, 3]^d, in the box [-5, 5]^d."""
    x = _vec(v, d)
    return rosenbrock({f"x{i}": z for i, z in enumerate(_ROT10 @ (x - _OPT10) + 1.0)}, d)


#: Design problems for rules about curved, ill-conditioned valleys (not in the synthetic set's
#: reports): Rosenbrock in 10-d, rotated, its optimum off the box's centre.
VALLEYS = {"rosenbrock10r": Problem("rosenbrock10r", rotated_rosenbrock, _box(10, -5, 5), 0.0)}


# --------------------------------------------------------------------------- tuning


def _svc_digits(v: Mapping[str, Any]) -> float:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import cross_val_score
    from sklearn.svm import SVC

    X, y = load_digits(return_X_y=True)
    X, y = X[::2] / 16.0, y[::2]
    kwargs = {"C": v["C"], "kernel": v["kernel"]}
    if v["kernel"] != "linear":
        kwargs["gamma"] = v["gamma"]
    if v["kernel"] == "poly":
        kwargs["degree"] = v["degree"]
    return 1.0 - float(cross_val_score(SVC(**kwargs), X, y, cv=3).mean())


def _hgb_cancer(v: Mapping[str, Any]) -> float:
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    X, y = load_breast_cancer(return_X_y=True)
    model = HistGradientBoostingClassifier(
        learning_rate=v["learning_rate"],
        max_leaf_nodes=v["max_leaf_nodes"],
        max_iter=v["max_iter"],
        min_samples_leaf=v["min_samples_leaf"],
        l2_regularization=v["l2_regularization"],
        random_state=0,
    )
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    return 1.0 - float(cross_val_score(model, X, y, cv=cv).mean())


def _mlp_digits(v: Mapping[str, Any]) -> float:
    import warnings

    from sklearn.datasets import load_digits
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPClassifier

    X, y = load_digits(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X / 16.0, y, test_size=0.3, random_state=0)
    layers = tuple(int(v[f"units{i}"]) for i in range(int(v["n_layers"])))
    model = MLPClassifier(layers, learning_rate_init=v["lr"], alpha=v["alpha"], max_iter=60, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(Xtr, ytr)
    return 1.0 - float(model.score(Xte, yte))


_MLP_PARAMS = (
    Param("lr", "real", 1e-4, 1e-1, log=True),
    Param("alpha", "real", 1e-6, 1e-1, log=True),
    Param("n_layers", "cat", choices=(1, 2, 3)),
    *(Param(f"units{i}", "int", 4, 128, log=True, when=("n_layers", n)) for n in (1, 2, 3) for i in range(n)),
)


TUNING = {
    "svc_digits": Problem(
        "svc_digits",
        _svc_digits,
        (
            Param("C", "real", 1e-3, 1e3, log=True),
            Param("kernel", "cat", choices=("rbf", "poly", "linear")),
            Param("gamma", "real", 1e-4, 1.0, log=True, when=("kernel", "rbf")),
            Param("gamma", "real", 1e-4, 1.0, log=True, when=("kernel", "poly")),
            Param("degree", "int", 2, 5, when=("kernel", "poly")),
        ),
        budget=50,
        kind="tuning",
        notes="3-fold CV error of SVC on every second digits image",
    ),
    "hgb_cancer": Problem(
        "hgb_cancer",
        _hgb_cancer,
        (
            Param("learning_rate", "real", 1e-3, 1.0, log=True),
            Param("max_leaf_nodes", "int", 4, 64, log=True),
            Param("max_iter", "int", 10, 100),
            Param("min_samples_leaf", "int", 2, 64, log=True),
            Param("l2_regularization", "real", 1e-6, 10.0, log=True),
        ),
        budget=50,
        kind="tuning",
        notes="3-fold CV error of HistGradientBoosting on breast cancer",
    ),
    "mlp_digits": Problem(
        "mlp_digits",
        _mlp_digits,
        _MLP_PARAMS,
        budget=50,
        kind="tuning",
        notes="held-out error of an MLP with 1-3 layers, each with its own size",
    ),
}


# --------------------------------------------------------------------------- grammar


def _example(name: str) -> Any:
    """A module of examples/ (the thesis's experiments), loaded by path."""
    import importlib.util
    import sys

    path = ROOT / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"examples_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _grammar(name: str, notes: str) -> Problem:
    """The example's space and objective; the optimum is the loss of its known
    true configuration (``TRUTH``) where it has one."""
    ex = _example(name)
    truth = getattr(ex, "TRUTH", None)
    optimum = None if truth is None else float(ex.objective(tf.build(ex.space, truth)))
    return Problem(
        name, ex.objective, space=ex.space, optimum=optimum, budget=100, kind="grammar", notes=notes
    )


GRAMMAR = {
    "symbolic_regression": _grammar(
        "symbolic_regression",
        "MSE of an expression over {+, *, sin, exp, x0, x1, c}, depth <= 4 (noise MSE 0.0025)",
    ),
    "kernel_search": _grammar(
        "kernel_search",
        "forecast RMSE of a GP whose kernel is a sum/product grammar of base kernels, depth <= 3",
    ),
}


def _symbolic(target: Any) -> Problem:
    """A published symbolic-regression target (see :mod:`bench.harness.symbolic`) on its grammar."""
    from .symbolic import EXACT, grammar, objective_for

    constants = ", c" if target.constants else ""
    return Problem(
        target.name,
        objective_for(target),
        space=grammar(target.n_vars, max_depth=target.max_depth, constants=constants != ""),
        optimum=0.0,
        budget=100,
        kind="grammar",
        notes=f"log1p(MSE) of {target.text} over {{+,-,*,/,sin,cos,exp,log, x{constants}}}, "
        f"depth <= {target.max_depth}, {target.n_points} points",
        extra={"target": target, "exact": EXACT},
    )


def _symbolic_problems(group: str = "suite") -> dict[str, Problem]:
    from .symbolic import FRESH, HELD_OUT, SMALL, SMALL_DESIGN, TARGETS

    targets = {"suite": TARGETS, "held_out": HELD_OUT, "fresh": FRESH, "small": SMALL, "small_design": SMALL_DESIGN}[group]
    return {t.name: _symbolic(t) for t in targets}


SYMBOLIC = _symbolic_problems()
#: Symbolic targets kept out of grammar search's design decisions (bench.harness.symbolic.HELD_OUT).
HELD_OUT = _symbolic_problems("held_out")
#: A second held-out set, for choices checked on HELD_OUT once (bench.harness.symbolic.FRESH).
FRESH = _symbolic_problems("fresh")
#: A third held-out set: small expressions drawn from the grammar by a fixed rule (bench.harness.symbolic.SMALL).
SMALL = _symbolic_problems("small")
#: Small expressions drawn by the same rule and another seed: where exact recovery is designed on.
SMALL_DESIGN = _symbolic_problems("small_design")


def all_problems() -> dict[str, Problem]:
    from .bbob import bbob_problems
    from .mixint import mixint_problems

    return {**SYNTHETIC, **SHIFTED, **VALLEYS, **TUNING, **GRAMMAR, **SYMBOLIC, **HELD_OUT, **FRESH, **SMALL, **SMALL_DESIGN, **bbob_problems(),
            **mixint_problems()}
