"""Symbolic-regression benchmark problems: the Nguyen suite, Koza and Keijzer targets.

Targets, ranges and sample sizes as published: Nguyen-1 to 12 from Uy et al.
(2011), "Semantically-based crossover in genetic programming", in the form
tabulated by McDermott et al. (2012), "Genetic programming needs better
benchmarks", and Petersen et al. (2021), "Deep symbolic regression", Table:
``U[a, b, n]`` is ``n`` points drawn uniformly from ``[a, b]`` (per variable).
Koza-2 and Koza-3 from Koza (1994); Keijzer-1 from Keijzer (2003), on the
grid ``E[-1, 1, 0.1]``.

``HELD_OUT``: targets kept out of every design decision of grammar search,
to check that a change screened on the suite above holds elsewhere: formulas
of the Livermore set (Mundhenk et al. 2021, "Symbolic regression via neural-
guided genetic programming population seeding") that this grammar can
express without constants, on ``U[-1, 1, 20]`` for one variable and
``U[0, 1, 20]`` for two (``U[0, 4, 20]`` for the cube root, ``U[0, 2, 20]``
for Livermore-4, whose ``log x`` needs ``x > 0``): the sample ranges are
ours, the same for every method.

``FRESH``: a second held-out set, added when a design screened on the suite
had been checked on ``HELD_OUT`` once, so that the next choice is judged on
targets nothing was chosen on: the other eight Livermore formulas (1, 9, 11,
12, 15, 16, 18, 21: constants such as 1/3 and 5, powers 1/5 and 2/5, and
the degree-8 and degree-9 polynomials lie beyond this grammar's exact reach at
depth 5, so these are approximation problems), Keijzer-11, 14 and 15
(Keijzer 2003), and R1 to R3 of Krawiec & Pawlak (2013), "Approximating
geometric crossover by semantic backpropagation", on the same sample rules
as ``HELD_OUT`` (``U[0.5, 1.5, 20]`` for Livermore-12, whose ``y`` divides).

``SMALL``: a third held-out set of small targets nobody tuned on, drawn from
this benchmark's own grammar by a rule fixed before any method ran on them:
for ``n_vars`` in 1 then 2, draw expressions ``build(g, sample(g, rng))``
from ``g = grammar(n_vars, max_depth=5)`` (the space every method searches)
with ``rng = numpy.random.default_rng((44, n_vars))``, and keep a draw only
if it has 4 to 8 nodes, its values on the target's sample (``U[-1, 1, 20]``
for one variable, ``U[0, 1, 20]`` for two, ``sample_seed`` 0) are finite and
not constant (range above 1e-6), and it differs there from every earlier kept
draw and from every target of ``TARGETS``, ``HELD_OUT`` and ``FRESH`` in as
many variables (one would not recover the other exactly: ``loss`` at least
``EXACT``); the first six kept of each. The drawn trees are written out
below, so a later change of the grammar or of the prior cannot change the
set (:func:`draw_small` redraws them by the rule, to check).

``SMALL_DESIGN``: twelve more by the same rule with seed 45, each also
differing from every ``SMALL`` target: the set grammar search's moves for
exact recovery are designed on, so that ``SMALL`` stays held out.

Every problem searches the same grammar shape: an expression is

    E = E + E | E - E | E * E | E / E | sin(E) | cos(E) | exp(E) | log(E) | x [| y] [| c]

(the function set of Uy et al.; ``c ~ Uniform(-1, 1)`` only for Keijzer-1,
whose target needs constants), with the protected division, logarithm and
exponential of genetic programming (gplearn's rules: ``a / b = 1`` where
``|b| < 0.001``, ``log a = log |a|`` and ``0`` where ``|a| < 0.001``;
``exp`` clipped at 100), so every expression has a finite value and every
method scores the same function. The loss is ``log1p(MSE)`` on the sample;
an expression whose error is not finite scores ``log1p(1e6)``. ``+`` and ``*``
are commutative and associative, so ``x + y`` and ``y + x`` are one point.
A run recovers the target *exactly* when its loss falls below ``EXACT``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import treefarm as tf

#: A loss below this counts as an exact recovery (MSE ~ 1e-10: rounding error only).
EXACT = 1e-10
#: The loss of an expression whose error overflows.
WORST = math.log1p(1e6)


def protected_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a / b``, and 1 where ``|b| < 0.001`` (gplearn's protected division)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.abs(b) > 0.001, np.divide(a, b), 1.0)


def protected_log(a: np.ndarray) -> np.ndarray:
    """``log |a|``, and 0 where ``|a| < 0.001`` (gplearn's protected logarithm)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.abs(a) > 0.001, np.log(np.abs(a)), 0.0)


def protected_exp(a: np.ndarray) -> np.ndarray:
    """``exp(min(a, 100))``: finite for every finite input."""
    return np.exp(np.minimum(a, 100.0))


#: name -> (arity, numpy function) of the function set.
FUNCTIONS: dict[str, tuple[int, Callable[..., np.ndarray]]] = {
    "add": (2, np.add),
    "sub": (2, np.subtract),
    "mul": (2, np.multiply),
    "div": (2, protected_div),
    "sin": (1, np.sin),
    "cos": (1, np.cos),
    "exp": (1, protected_exp),
    "log": (1, protected_log),
}


@dataclass(frozen=True, repr=False)
class Expr:
    """An expression tree: ``kind`` is a function name, a variable (``x0``, ``x1``) or ``const``."""

    kind: str
    args: tuple[Expr, ...] = ()
    value: float = 0.0

    def __call__(self, data: np.ndarray) -> np.ndarray:
        if self.kind.startswith("x"):
            return data[:, int(self.kind[1:])]
        if self.kind == "const":
            return np.full(len(data), self.value)
        with np.errstate(all="ignore"):
            return FUNCTIONS[self.kind][1](*(a(data) for a in self.args))

    def __repr__(self) -> str:
        if self.kind.startswith("x"):
            return self.kind
        if self.kind == "const":
            return repr(self.value)
        return f"{self.kind}({', '.join(map(repr, self.args))})"


def grammar(n_vars: int, *, max_depth: int, constants: bool = False) -> tf.Var:
    """The expression grammar of the module docstring over ``n_vars`` variables."""
    ops = {
        name: tf.op(
            (lambda k: lambda *a: Expr(k, tuple(a)))(name),
            name=name,
            commutative=name in ("add", "mul"),
            associative=name in ("add", "mul"),
        )
        for name in FUNCTIONS
    }
    E = tf.Var("E", max_depth=max_depth)
    leaves: dict[str, Any] = {f"x{i}": tf.Const(Expr(f"x{i}")) for i in range(n_vars)}
    if constants:
        leaves["c"] = tf.op(lambda v: Expr("const", value=v), name="const")(tf.Real(-1.0, 1.0))
    options = [ops[name](*([E] * FUNCTIONS[name][0])) for name in FUNCTIONS]
    E.define(tf.Join(*options, tf.Join(**leaves)))
    return E


@dataclass(frozen=True)
class Target:
    """A symbolic-regression target: formula, input range, sample size (``tree``: the
    expression the formula evaluates, for targets drawn from the grammar)."""

    name: str
    formula: Callable[..., np.ndarray]
    n_vars: int
    low: float
    high: float
    n_points: int
    text: str
    max_depth: int = 5
    constants: bool = False
    grid: float | None = None
    sample_seed: int = 0
    tree: Expr | None = None

    def data(self) -> tuple[np.ndarray, np.ndarray]:
        """The sample ``(X, y)``: seeded uniform draws (seed ``sample_seed``), or the grid."""
        if self.grid is not None:
            X = np.arange(self.low, self.high + self.grid / 2, self.grid)[:, None]
        else:
            X = np.random.default_rng(self.sample_seed).uniform(self.low, self.high, size=(self.n_points, self.n_vars))
        return X, self.formula(*X.T)


TARGETS = [
    Target("nguyen1", lambda x: x**3 + x**2 + x, 1, -1, 1, 20, "x^3+x^2+x"),
    Target("nguyen2", lambda x: x**4 + x**3 + x**2 + x, 1, -1, 1, 20, "x^4+x^3+x^2+x"),
    Target("nguyen3", lambda x: x**5 + x**4 + x**3 + x**2 + x, 1, -1, 1, 20, "x^5+...+x"),
    Target("nguyen4", lambda x: x**6 + x**5 + x**4 + x**3 + x**2 + x, 1, -1, 1, 20, "x^6+...+x"),
    Target("nguyen5", lambda x: np.sin(x**2) * np.cos(x) - 1, 1, -1, 1, 20, "sin(x^2)cos(x)-1"),
    Target("nguyen6", lambda x: np.sin(x) + np.sin(x + x**2), 1, -1, 1, 20, "sin(x)+sin(x+x^2)"),
    Target("nguyen7", lambda x: np.log(x + 1) + np.log(x**2 + 1), 1, 0, 2, 20, "log(x+1)+log(x^2+1)"),
    Target("nguyen8", np.sqrt, 1, 0, 4, 20, "sqrt(x)"),
    Target("nguyen9", lambda x, y: np.sin(x) + np.sin(y**2), 2, 0, 1, 20, "sin(x)+sin(y^2)"),
    Target("nguyen10", lambda x, y: 2 * np.sin(x) * np.cos(y), 2, 0, 1, 20, "2sin(x)cos(y)"),
    Target("nguyen11", lambda x, y: x**y, 2, 0, 1, 20, "x^y"),
    Target("nguyen12", lambda x, y: x**4 - x**3 + y**2 / 2 - y, 2, 0, 1, 20, "x^4-x^3+y^2/2-y"),
    Target("koza2", lambda x: x**5 - 2 * x**3 + x, 1, -1, 1, 20, "x^5-2x^3+x"),
    Target("koza3", lambda x: x**6 - 2 * x**4 + x**2, 1, -1, 1, 20, "x^6-2x^4+x^2"),
    Target(
        "keijzer1",
        lambda x: 0.3 * x * np.sin(2 * np.pi * x),
        1,
        -1,
        1,
        21,
        "0.3x sin(2 pi x)",
        constants=True,
        grid=0.1,
    ),
]


HELD_OUT = [
    Target("livermore2", lambda x: np.sin(x**2) * np.cos(x) - 2, 1, -1, 1, 20, "sin(x^2)cos(x)-2"),
    Target("livermore3", lambda x: np.sin(x**3) * np.cos(x**2) - 1, 1, -1, 1, 20, "sin(x^3)cos(x^2)-1"),
    Target("livermore4", lambda x: np.log(x + 1) + np.log(x**2 + 1) + np.log(x), 1, 0, 2, 20, "log(x+1)+log(x^2+1)+log x"),
    Target("livermore5", lambda x, y: x**4 - x**3 + x**2 - y, 2, 0, 1, 20, "x^4-x^3+x^2-y"),
    Target("livermore6", lambda x: 4 * x**4 + 3 * x**3 + 2 * x**2 + x, 1, -1, 1, 20, "4x^4+3x^3+2x^2+x"),
    Target("livermore7", np.sinh, 1, -1, 1, 20, "sinh x"),
    Target("livermore8", np.cosh, 1, -1, 1, 20, "cosh x"),
    Target("livermore10", lambda x, y: 6 * np.sin(x) * np.cos(y), 2, 0, 1, 20, "6 sin(x)cos(y)"),
    Target("livermore13", np.cbrt, 1, 0, 4, 20, "x^(1/3)"),
    Target("livermore14", lambda x: x**3 + x**2 + x + np.sin(x) + np.sin(x**2), 1, -1, 1, 20, "x^3+x^2+x+sin x+sin x^2"),
    Target("livermore17", lambda x, y: 4 * np.sin(x) * np.cos(y), 2, 0, 1, 20, "4 sin(x)cos(y)"),
    Target("livermore19", lambda x: x**5 + x**4 + x**2 + x, 1, -1, 1, 20, "x^5+x^4+x^2+x"),
    Target("livermore20", lambda x: np.exp(-(x**2)), 1, -1, 1, 20, "exp(-x^2)"),
    Target("livermore22", lambda x: np.exp(-0.5 * x**2), 1, -1, 1, 20, "exp(-x^2/2)"),
]


def loss(prediction: np.ndarray, y: np.ndarray) -> float:
    """``log1p(MSE)``, or ``WORST`` where the error is not finite or beyond 1e6."""
    with np.errstate(all="ignore"):
        mse = float(np.mean((prediction - y) ** 2))
    return math.log1p(mse) if math.isfinite(mse) and mse < 1e6 else WORST


def objective_for(target: Target) -> Callable[[Expr], float]:
    """The loss of an expression on the target's sample."""
    X, y = target.data()

    def objective(expr: Expr) -> float:
        return loss(expr(X), y)

    return objective


FRESH = [
    Target("livermore1", lambda x: 1 / 3 + x + np.sin(x**2), 1, -1, 1, 20, "1/3+x+sin(x^2)"),
    Target("livermore9", lambda x: sum(x**k for k in range(1, 10)), 1, -1, 1, 20, "x^9+x^8+...+x"),
    Target("livermore11", lambda x, y: x**4 / (x + y), 2, 0, 1, 20, "x^2 x^2/(x+y)"),
    Target("livermore12", lambda x, y: x**5 / y**3, 2, 0.5, 1.5, 20, "x^5/y^3"),
    Target("livermore15", lambda x: x**0.2, 1, 0, 4, 20, "x^(1/5)"),
    Target("livermore16", lambda x: x**0.4, 1, 0, 4, 20, "x^(2/5)"),
    Target("livermore18", lambda x: np.sin(x**2) * np.cos(x) - 5, 1, -1, 1, 20, "sin(x^2)cos(x)-5"),
    Target("livermore21", lambda x: sum(x**k for k in range(1, 9)), 1, -1, 1, 20, "x^8+x^7+...+x"),
    Target("keijzer11", lambda x, y: x * y + np.sin((x - 1) * (y - 1)), 2, 0, 1, 20, "xy+sin((x-1)(y-1))"),
    Target("keijzer14", lambda x, y: 8 / (2 + x**2 + y**2), 2, 0, 1, 20, "8/(2+x^2+y^2)"),
    Target("keijzer15", lambda x, y: x**3 / 5 + y**3 / 2 - y - x, 2, 0, 1, 20, "x^3/5+y^3/2-y-x"),
    Target("r1", lambda x: (x + 1) ** 3 / (x**2 - x + 1), 1, -1, 1, 20, "(x+1)^3/(x^2-x+1)"),
    Target("r2", lambda x: (x**5 - 3 * x**3 + 1) / (x**2 + 1), 1, -1, 1, 20, "(x^5-3x^3+1)/(x^2+1)"),
    Target("r3", lambda x: (x**6 + x**5) / (x**4 + x**3 + x**2 + x + 1), 1, -1, 1, 20, "(x^6+x^5)/(x^4+...+1)"),
]


def size(expr: Expr) -> int:
    """The number of nodes of an expression tree."""
    return 1 + sum(size(a) for a in expr.args)


def tree_target(name: str, expr: Expr, n_vars: int, low: float, high: float) -> Target:
    """A target whose formula is the expression tree itself, on ``U[low, high, 20]``."""

    def formula(*columns: np.ndarray) -> np.ndarray:
        return expr(np.column_stack(columns))

    return Target(name, formula, n_vars, low, high, 20, repr(expr), tree=expr)


#: The sample range of the small targets, by number of variables.
SMALL_RANGES = {1: (-1.0, 1.0), 2: (0.0, 1.0)}
#: The seed of the small targets' draws (``default_rng((SMALL_SEED, n_vars))``).
SMALL_SEED = 44


def draw_small(n_vars: int, n: int = 6, *, seed: int = SMALL_SEED, avoid: Sequence[Expr] = ()) -> list[Expr]:
    """The first ``n`` draws from the grammar in ``n_vars`` variables that the
    rule of the module docstring keeps, each also differing from every tree of
    ``avoid`` (``SMALL`` and ``SMALL_DESIGN`` hold the results, written out)."""
    low, high = SMALL_RANGES[n_vars]
    X = np.random.default_rng(0).uniform(low, high, size=(20, n_vars))
    with np.errstate(all="ignore"):
        others = [t.formula(*X.T) for t in (*TARGETS, *HELD_OUT, *FRESH) if t.n_vars == n_vars]
        others += [a(X) for a in avoid]
    space, rng = grammar(n_vars, max_depth=5), np.random.default_rng((seed, n_vars))
    kept: list[Expr] = []
    while len(kept) < n:
        expr = tf.build(space, tf.sample(space, rng))
        y = expr(X)
        if not 4 <= size(expr) <= 8 or not np.all(np.isfinite(y)) or np.ptp(y) <= 1e-6:
            continue
        if all(loss(y, other) >= EXACT for other in [*others, *(k(X) for k in kept)]):
            kept.append(expr)
    return kept


def _f(kind: str, *args: Expr) -> Expr:
    return Expr(kind, args)


_x, _y = Expr("x0"), Expr("x1")

#: The small targets' trees, as :func:`draw_small` drew them (one variable, then two).
SMALL_TREES = {
    1: [
        _f("exp", _f("exp", _f("exp", _f("sin", _x)))),
        _f("div", _f("sin", _f("log", _f("log", _x))), _x),
        _f("sin", _f("exp", _f("cos", _f("mul", _x, _x)))),
        _f("sin", _f("log", _f("div", _f("sin", _x), _x))),
        _f("log", _f("div", _f("sin", _f("div", _x, _x)), _f("exp", _x))),
        _f("exp", _f("log", _f("log", _f("mul", _x, _x)))),
    ],
    2: [
        _f("div", _y, _f("log", _y)),
        _f("mul", _f("log", _f("sin", _f("mul", _y, _x))), _f("cos", _x)),
        _f("log", _f("mul", _f("exp", _f("exp", _y)), _f("cos", _f("exp", _x)))),
        _f("add", _f("mul", _x, _f("log", _y)), _f("exp", _f("exp", _x))),
        _f("cos", _f("cos", _f("add", _f("log", _x), _f("sub", _x, _y)))),
        _f("cos", _f("sin", _f("sub", _y, _f("div", _y, _x)))),
    ],
}

SMALL = [
    tree_target(f"small{6 * (n_vars - 1) + i + 1}", expr, n_vars, *SMALL_RANGES[n_vars])
    for n_vars, trees in SMALL_TREES.items()
    for i, expr in enumerate(trees)
]

#: The seed of the design set's draws.
SMALL_DESIGN_SEED = 45

#: The design set's trees, as ``draw_small(n_vars, seed=SMALL_DESIGN_SEED, avoid=SMALL_TREES[n_vars])`` drew them.
SMALL_DESIGN_TREES = {
    1: [
        _f("sin", _f("cos", _f("div", _f("div", _x, _x), _f("sin", _x)))),
        _f("cos", _f("div", _f("sin", _f("exp", _x)), _f("sin", _f("log", _x)))),
        _f("cos", _f("log", _f("add", _f("sin", _x), _f("exp", _x)))),
        _f("sin", _f("exp", _f("exp", _f("mul", _x, _x)))),
        _f("sin", _f("cos", _f("sub", _f("log", _x), _f("cos", _x)))),
        _f("sin", _f("log", _f("cos", _f("sin", _x)))),
    ],
    2: [
        _f("sin", _f("exp", _f("div", _f("cos", _y), _f("sub", _y, _x)))),
        _f("log", _f("cos", _f("sin", _f("mul", _y, _x)))),
        _f("cos", _f("sin", _f("add", _x, _x))),
        _f("exp", _f("log", _f("cos", _f("sub", _x, _y)))),
        _f("exp", _f("div", _f("add", _f("div", _y, _y), _y), _x)),
        _f("exp", _f("div", _y, _f("add", _f("mul", _x, _x), _x))),
    ],
}

SMALL_DESIGN = [
    tree_target(f"dsmall{6 * (n_vars - 1) + i + 1}", expr, n_vars, *SMALL_RANGES[n_vars])
    for n_vars, trees in SMALL_DESIGN_TREES.items()
    for i, expr in enumerate(trees)
]
