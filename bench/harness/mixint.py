"""COCO's bbob-mixint suite as benchmark problems: the BBOB functions with most variables integer.

Tušar, Brockhoff & Hansen (2019), "Mixed-integer benchmark problems for
single- and bi-objective optimization" (GECCO); the functions come from the
``coco-experiment`` package (``cocoex``), imported only when a problem is
evaluated or the table below is rebuilt. In dimension ``d`` the first
``4 d / 5`` variables are integers, in equal groups of 2, 4, 8 and 16 values
(``{0, 1}``, ``{0..3}``, ``{0..7}``, ``{0..15}``), and the rest are real in
``[-5, 5]``: treefarm gets them as ``Int``/``Real``, Optuna as int and float
distributions (:class:`bench.harness.problems.Param` of kind "int" and
"real").

The optimum ``f_opt`` of every (function, instance, dimension), with the
problem's bounds and its number of integer variables, is in
``bench/harness/mixint_fopt.json``, made by :func:`build_table` the way
BBOB's table was made: read from the header COCO's own logger (the
``bbob-mixint`` observer) writes, ``... - Fopt (value)``. The suite places
each optimum on the integer grid (checked by brute force over the 1,024
integer combinations of f1, f2 and f7 in 5-d, instance 1: the grid's best is
``f_opt`` to the printed digits), so the regret ``best - f_opt`` reaches 0.

Problems are named ``mixint_f{ff}_i{i}_d{d}``; as for BBOB, seed ``s`` runs
instance ``1 + s % 3`` and the report pools a function's instances.

Usage (resumable; each run its own process; rows as JSON lines)::

    python -m bench.harness.mixint run --functions 1-12 --dims 5,10 --methods tf-tpe,optuna-tpe --seeds 10
    python -m bench.harness.mixint table   # rebuild mixint_fopt.json from cocoex's logger
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from . import bbob
from .bbob import INSTANCES
from .problems import Param, Problem

TABLE_FILE = Path(__file__).with_name("mixint_fopt.json")
DIMS = (5, 10)
FUNCTIONS = tuple(range(1, 25))
_FOPT = re.compile(r"Fopt \(([-+0-9.eE]+)\)")


def coco_problem(function: int, instance: int, dim: int) -> Any:
    """COCO's bbob-mixint problem, made once per process."""
    return bbob.coco_problem(function, instance, dim, "bbob-mixint")


def name(function: int, instance: int, dim: int) -> str:
    return bbob.name(function, instance, dim, prefix="mixint")


def _logged_fopt(function: int, instance: int, dim: int) -> float:
    """``f_opt`` as COCO's bbob-mixint logger writes it in its data file's header."""
    import cocoex

    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            suite = cocoex.Suite("bbob-mixint", f"instances: {instance}", f"dimensions: {dim}")
            observer = cocoex.Observer("bbob-mixint", "result_folder: fopt")
            problem = suite.get_problem_by_function_dimension_instance(function, dim, instance)
            problem.observe_with(observer)
            problem(problem.initial_solution)
            problem.free()
            del observer, suite
            header = next(Path(tmp).rglob(f"bbobexp_f{function}_DIM{dim}.dat")).read_text()
        finally:
            os.chdir(here)
    found = _FOPT.search(header)
    if found is None:
        raise RuntimeError(f"no 'Fopt (value)' in the bbob-mixint logger's header of f{function} i{instance} d{dim}")
    return float(found[1])


def build_table(functions: tuple[int, ...] = FUNCTIONS, dims: tuple[int, ...] = DIMS) -> dict[str, Any]:
    """(function, instance, dimension) -> f_opt, bounds and number of integer variables, from cocoex."""
    table: dict[str, Any] = {}
    for d in dims:
        for f in functions:
            for i in INSTANCES:
                p = coco_problem(f, i, d)
                table[f"f{f:02d}_i{i}_d{d}"] = {
                    "fopt": _logged_fopt(f, i, d),
                    "lower": [float(v) for v in p.lower_bounds],
                    "upper": [float(v) for v in p.upper_bounds],
                    "integers": int(p.number_of_integer_variables),
                }
    return table


def params(entry: Mapping[str, Any]) -> tuple[Param, ...]:
    """The first ``integers`` variables as integers, the rest real, in the problem's bounds."""
    return tuple(
        Param(f"x{k}", "int" if k < entry["integers"] else "real", lo, hi)
        for k, (lo, hi) in enumerate(zip(entry["lower"], entry["upper"], strict=True))
    )


def _problem(function: int, instance: int, dim: int, entry: Mapping[str, Any]) -> Problem:
    def objective(v: Mapping[str, Any]) -> float:
        x = np.array([v[f"x{k}"] for k in range(dim)], dtype=float)
        return float(coco_problem(function, instance, dim)(x))

    return Problem(name(function, instance, dim), objective, params(entry), float(entry["fopt"]), kind="mixint")


@cache
def mixint_problems() -> dict[str, Problem]:
    """Every (function, instance, dimension) of the table, by name."""
    out = {}
    for key, entry in json.loads(TABLE_FILE.read_text()).items():
        f, i, d = (int(t) for t in re.findall(r"\d+", key))
        out[name(f, i, d)] = _problem(f, i, d, entry)
    return out


def keys(functions: list[int], dims: list[int], methods: list[str], seeds: int, budget: int) -> list[Any]:
    return bbob.keys(functions, dims, methods, seeds, budget, prefix="mixint")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.harness.mixint")
    sub = parser.add_subparsers(dest="command", required=True)
    bbob.add_run_arguments(
        sub.add_parser("run"), dims="5,10", methods="tf-tpe,optuna-tpe", out="bench/results/tpe_mixint.jsonl"
    )
    sub.add_parser("table")
    args = parser.parse_args(argv)
    if args.command == "table":
        table = build_table()
        body = ",\n".join(f"{json.dumps(k)}: {json.dumps(table[k])}" for k in sorted(table))
        TABLE_FILE.write_text("{\n" + body + "\n}\n")
        print(f"wrote {TABLE_FILE}", file=sys.stderr)
        return 0
    return bbob.run_command(args, "mixint")


if __name__ == "__main__":
    raise SystemExit(main())
