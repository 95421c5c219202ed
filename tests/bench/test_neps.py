"""NePS as a grammar-benchmark peer: the same grammar and loss, and a clean row where NePS is missing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from bench.harness import runner
from bench.harness.methods import CannotExpressError, NotAvailableError, run
from bench.harness.neps_worker import (
    Tree,
    expr_of,
    grammar_levels,
    grammar_text,
    height,
    treefarm_config,
)
from bench.harness.problems import all_problems
from bench.harness.symbolic import TARGETS, Expr, grammar, objective_for

from treefarm import ConfigError, build, sample

KEIJZER = next(t for t in TARGETS if t.name == "keijzer1")


def chain(depth: int) -> Tree:
    """sin(sin(...(x0))) with ``depth`` levels."""
    tree: Tree = "x0"
    for _ in range(depth - 1):
        tree = ("sin", tree)
    return tree


def test_levels_offer_functions_and_terminals_above_the_last_which_offers_terminals_only() -> None:
    levels = grammar_levels(2, max_depth=3, constants=True)
    assert len(levels) == 3
    assert levels[-1] == (("x0", 0), ("x1", 0), ("const", 0))
    assert levels[0] == levels[1]
    functions = {"add": 2, "sub": 2, "mul": 2, "div": 2, "sin": 1, "cos": 1, "exp": 1, "log": 1}
    assert dict(levels[0]) == {**functions, "x0": 0, "x1": 0, "const": 0}
    assert all(name != "const" for name, _ in grammar_levels(1, max_depth=5)[0])
    text = grammar_text(grammar_levels(1, max_depth=2))
    assert text.splitlines() == [
        "L1 = add(L2, L2) | sub(L2, L2) | mul(L2, L2) | div(L2, L2) | sin(L2) | cos(L2) | exp(L2) | log(L2) | x0",
        "L2 = x0",
    ]


@pytest.mark.parametrize(
    "tree",
    [
        "x0",
        ("add", ("mul", "x0", "x0"), "x0"),
        ("div", ("log", ("sub", "x0", ("const", 0.25))), ("exp", ("cos", ("const", -0.5)))),
        chain(5),
    ],
)
def test_a_tree_scores_the_loss_of_the_same_expression_built_by_treefarms_grammar(tree: Tree) -> None:
    objective = objective_for(KEIJZER)
    space = grammar(1, max_depth=KEIJZER.max_depth, constants=True)
    built = build(space, treefarm_config(tree))
    assert objective(expr_of(tree)) == objective(built)


def test_the_unrolled_depth_bound_is_treefarms_max_depth() -> None:
    space = grammar(1, max_depth=5)
    build(space, treefarm_config(chain(5)))
    with pytest.raises(ConfigError):
        build(space, treefarm_config(chain(6)))


def _fits(expr: Expr, levels: list[tuple[tuple[str, int], ...]], at: int = 0) -> bool:
    name = "const" if expr.kind == "const" else expr.kind
    return name in dict(levels[at]) and all(_fits(a, levels, at + 1) for a in expr.args)


def test_every_expression_of_treefarms_grammar_lies_in_the_unrolled_levels() -> None:
    space = grammar(2, max_depth=4, constants=True)
    levels = grammar_levels(2, max_depth=4, constants=True)
    exprs = [build(space, c) for c in sample(space, np.random.default_rng(0), n=300)]
    assert all(_fits(e, levels) for e in exprs)
    assert max(height(_tree(e)) for e in exprs) == 4


def _tree(expr: Expr) -> Tree:
    if expr.kind == "const":
        return ("const", expr.value)
    return expr.kind if not expr.args else (expr.kind, *(_tree(a) for a in expr.args))


def test_a_missing_neps_interpreter_is_an_unavailable_method(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TREEFARM_NEPS_PYTHON", str(tmp_path / "no-python"))
    with pytest.raises(NotAvailableError, match="TREEFARM_NEPS_PYTHON"):
        run("neps-re", all_problems()["nguyen1"], 0, 5)
    monkeypatch.setattr(runner, "head_commit", lambda: "test")
    row = runner.run_one("nguyen1", "neps-random", 0, 5)
    assert row["status"] == "unavailable"
    assert "no-python" in row["error"]


def test_neps_runs_symbolic_regression_only() -> None:
    with pytest.raises(CannotExpressError, match="kernel_search"):
        run("neps-re", all_problems()["kernel_search"], 0, 5)
