"""NePS's regularized evolution and random search on a symbolic-regression target (run in NePS's own venv).

``python -m bench.harness.neps_worker METHOD TARGET SEED BUDGET`` prints one JSON line:
the losses in evaluation order, the wall and CPU seconds of each suggestion
(``AskAndTell.ask`` plus ``tell``), NePS's version, the best expression and
how many distinct expressions were evaluated. ``python -m bench.harness.neps_worker
check`` compares, on every target, NePS's sampled expressions with the same
expressions built from :func:`bench.harness.symbolic.grammar` (equal losses, within
the depth bound).

The grammar of :mod:`bench.harness.symbolic`, in NePS 0.17's ``PipelineSpace``: NePS
has no depth bound on recursion, so the grammar is unrolled into levels
(:func:`grammar_levels`): level ``i`` (from the root) offers every function
with arguments from level ``i + 1`` and every terminal; the last level offers
the terminals only. ``max_depth`` levels give the expression trees of height
at most ``max_depth`` (a terminal alone has height 1), exactly the trees
``Var("E", max_depth=max_depth)`` admits, and each level's choice is uniform
over functions and terminals together, as treefarm's prior draws the
flattened join. Each argument is a ``Resample`` of the next level and each
option a resampled ``Operation`` (NePS caches a resolved object by identity,
so without them two arguments of one node would share one draw); Keijzer-1's
constant is a resampled ``Float(-1, 1)`` inside the ``const`` operation.

Only :mod:`bench.harness.symbolic` is imported from this repository: the worker
runs with NePS's interpreter (``TREEFARM_NEPS_PYTHON``), see bench/notes/NEPS.md.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Sequence
from typing import Any

from .symbolic import FUNCTIONS, TARGETS, Expr, Target, objective_for

#: A level's options: (name, arity); terminals have arity 0 (``const`` carries a Float).
Level = tuple[tuple[str, int], ...]
#: An expression as nested tuples: ``"x0"``, ``("const", 0.5)`` or ``(name, child, ...)``.
Tree = str | tuple[Any, ...]
METHODS = ("neps-re", "neps-re-forget", "neps-re-keyed", "neps-random")


def terminals(n_vars: int, *, constants: bool) -> Level:
    """The terminals of the grammar: the variables, and ``const`` where the target has constants."""
    return (*((f"x{i}", 0) for i in range(n_vars)), *((("const", 0),) if constants else ()))


def grammar_levels(n_vars: int, *, max_depth: int, constants: bool = False) -> list[Level]:
    """The depth-unrolled grammar: ``max_depth`` levels, every function and
    terminal at each but the last, the terminals alone at the last."""
    leaves = terminals(n_vars, constants=constants)
    functions = tuple((name, arity) for name, (arity, _) in FUNCTIONS.items())
    return [*([functions + leaves] * (max_depth - 1)), leaves]


def levels_for(target: Target) -> list[Level]:
    return grammar_levels(target.n_vars, max_depth=target.max_depth, constants=target.constants)


def grammar_text(levels: Sequence[Level]) -> str:
    """The unrolled grammar as productions, one level a line (``L5`` the last)."""

    def option(name: str, arity: int, i: int) -> str:
        if name == "const":
            return "const(Float(-1, 1))"
        return name if arity == 0 else f"{name}({', '.join([f'L{i + 1}'] * arity)})"

    return "\n".join(
        f"L{i} = " + " | ".join(option(name, arity, i) for name, arity in level)
        for i, level in enumerate(levels, start=1)
    )


def expr_of(tree: Tree) -> Expr:
    """The :class:`bench.harness.symbolic.Expr` of a tree, so NePS's expressions are scored by the same loss."""
    if isinstance(tree, str):
        return Expr(tree)
    if tree[0] == "const":
        return Expr("const", value=float(tree[1]))
    return Expr(tree[0], tuple(expr_of(child) for child in tree[1:]))


def height(tree: Tree) -> int:
    """Levels of the tree, a terminal (or a constant) alone being 1."""
    if isinstance(tree, str) or tree[0] == "const":
        return 1
    return 1 + max(height(child) for child in tree[1:])


def treefarm_config(tree: Tree, address: str = "E") -> dict[str, Any]:
    """The configuration of :func:`bench.harness.symbolic.grammar` for the same expression
    (addresses ``E``, ``E.add.0``, ..., a constant's value at ``<address>.c.0``)."""
    if isinstance(tree, str):
        return {address: tree}
    if tree[0] == "const":
        return {address: "c", f"{address}.c.0": float(tree[1])}
    config: dict[str, Any] = {address: tree[0]}
    for i, child in enumerate(tree[1:]):
        config.update(treefarm_config(child, f"{address}.{tree[0]}.{i}"))
    return config


def neps_space(levels: Sequence[Level]) -> Any:
    """The unrolled grammar as a NePS ``PipelineSpace`` with one attribute, ``expr``."""
    import neps

    def option(name: str, arity: int, below: Any) -> Any:
        if name == "const":
            return neps.Operation("const", args=(neps.Float(lower=-1.0, upper=1.0).resample(),)).resample()
        if arity == 0:
            return name
        return neps.Operation(name, args=tuple(neps.Resample(below) for _ in range(arity))).resample()

    below: Any = None
    for level in reversed(levels):
        below = neps.Categorical(choices=tuple(option(name, arity, below) for name, arity in level))
    return type("SymbolicGrammar", (neps.PipelineSpace,), {"expr": below})()


def tree_of(resolved: Any) -> Tree:
    """A resolved NePS value (an ``Operation``, a terminal's name) as a :data:`Tree`."""
    if isinstance(resolved, str):
        return resolved
    if resolved.operator == "const":
        return ("const", float(resolved.args[0]))
    return (resolved.operator, *(tree_of(a) for a in resolved.args))


def resolve_config(space: Any, config: dict[str, Any]) -> Tree:
    """The expression of a NePS configuration (as ``neps.run`` resolves one for its evaluation)."""
    from neps.space.neps_spaces.neps_space import NepsCompatConverter, resolve
    from neps.space.neps_spaces.sampling import OnlyPredefinedValuesSampler

    data = NepsCompatConverter.from_neps_config(config)
    pipeline, _ = resolve(
        pipeline=space,
        domain_sampler=OnlyPredefinedValuesSampler(predefined_samplings=data.predefined_samplings),
        environment_values=data.environment_values,
    )
    return tree_of(pipeline.expr)


def optimizer(method: str, space: Any) -> Any:
    """NePS's regularized evolution or random search on ``space``.

    ``neps-re`` mutates one decision per child (``n_mutations=1``): the default
    ``"random"`` draws ``randint(1, len(config) // 2)``, an error when the parent
    is a lone terminal (one decision). ``neps-re-forget`` forgets one decision
    per child instead (``n_forgets=1``).

    NePS 0.17's regularized evolution hands its parents' configurations, whose
    keys carry the ``SAMPLING__`` prefix, to samplers that look decisions up by
    path without it, so no decision of a parent is ever kept: every child is a
    fresh draw from the prior. ``neps-re-keyed`` is ``neps-re`` given its
    trials with the prefix removed (:func:`path_keyed`), so that children do
    inherit their parents' decisions. There a mutated categorical is redrawn
    from a window of at most five neighbouring choices, but the drawn index is
    read in the full list of choices, so a mutated node only ever becomes one
    of the first five options (here add, sub, mul, div, sin).
    """
    import neps

    if method in ("neps-re", "neps-re-keyed"):
        evolution = neps.algorithms.neps_regularized_evolution(space, n_mutations=1)
        return path_keyed(evolution) if method == "neps-re-keyed" else evolution
    if method == "neps-re-forget":
        return neps.algorithms.neps_regularized_evolution(space, n_mutations=None, n_forgets=1)
    if method == "neps-random":
        return neps.algorithms.neps_random_search(space)
    raise ValueError(f"method must be one of {METHODS}, but got method={method!r}")


def path_keyed(ask: Any) -> Any:
    """An optimizer that sees every trial's configuration keyed by sampling path (prefix removed)."""
    import dataclasses

    from neps.space.neps_spaces.neps_space import NepsCompatConverter

    def keyed(trials: dict[str, Any], budget_info: Any, n: int | None = None) -> Any:
        stripped = {
            key: dataclasses.replace(
                trial, config=dict(NepsCompatConverter.from_neps_config(trial.config).predefined_samplings)
            )
            for key, trial in trials.items()
        }
        return ask(stripped, budget_info, n)

    return keyed


def run(method: str, target: Target, seed: int, budget: int) -> dict[str, Any]:
    """``budget`` evaluations of ``method`` on ``target``, seeded (NePS draws from ``random``)."""
    import neps
    import numpy as np

    random.seed(seed)
    np.random.seed(seed)
    levels = levels_for(target)
    space = neps_space(levels)
    ask_tell = neps.AskAndTell(optimizer(method, space))
    objective = objective_for(target)
    losses: list[float] = []
    walls: list[float] = []
    cpus: list[float] = []
    seen: dict[str, float] = {}
    for _ in range(budget):
        wall, cpu = time.perf_counter(), time.process_time()
        trial = ask_tell.ask()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        tree = resolve_config(space, dict(trial.config))
        if height(tree) > len(levels):
            raise AssertionError(f"NePS drew a tree beyond the depth bound: height={height(tree)}")
        expr = expr_of(tree)
        value = objective(expr)
        losses.append(value)
        seen.setdefault(repr(expr), value)
        start = time.perf_counter(), time.process_time()
        ask_tell.tell(trial, value)
        walls.append(wall + time.perf_counter() - start[0])
        cpus.append(cpu + time.process_time() - start[1])
    return {
        "losses": losses,
        "suggest_times": walls,
        "suggest_cpu": cpus,
        "version": neps.__version__ if hasattr(neps, "__version__") else _version("neural-pipeline-search"),
        "best": min(seen, key=lambda k: seen[k]),
        "distinct": len(seen),
    }


def _version(distribution: str) -> str:
    from importlib.metadata import version

    return version(distribution)


def check(n: int = 200) -> list[str]:
    """On every target, ``n`` NePS draws: each lies within the depth bound and
    builds, through treefarm's grammar, into an expression of the same loss.
    Returns one line per target."""
    import numpy as np

    import treefarm as tf

    from .symbolic import grammar

    random.seed(0)
    lines = []
    for target in TARGETS:
        levels = levels_for(target)
        space = neps_space(levels)
        objective = objective_for(target)
        space_tf = grammar(target.n_vars, max_depth=target.max_depth, constants=target.constants)
        heights, diffs = [], []
        for _ in range(n):
            config, _ = space.sample()
            tree = resolve_config(space, config)
            heights.append(height(tree))
            ours = objective(expr_of(tree))
            theirs = objective(tf.build(space_tf, treefarm_config(tree)))
            diffs.append(abs(ours - theirs))
        lines.append(
            f"{target.name}: {n} draws, heights {min(heights)}..{max(heights)} (bound {target.max_depth}), "
            f"max |loss difference| {max(diffs):.3g}, leaf at the root {np.mean(np.array(heights) == 1):.2f}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["check"]:
        print("\n".join(check()))
        return 0
    method, name, seed, budget = args
    target = next(t for t in TARGETS if t.name == name)
    print(json.dumps(run(method, target, int(seed), int(budget))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
