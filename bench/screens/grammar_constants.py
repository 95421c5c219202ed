"""Grammar search before and after a change, on the same problems and seeds (resumable JSON lines).

``python -m bench.screens.grammar_constants --before COMMIT [--problems a,b] [--seeds 10] --out FILE``

``before`` is :class:`treefarm.GrammarSearch` as it was at ``COMMIT`` (its
module read with ``git show`` and loaded beside today's package), ``after``
is today's; both with default options, in this process, through the same
study loop as ``python -m bench run`` (:func:`bench.harness.methods.run_treefarm`).
Each finished run appends one row (problem, variant, seed, losses); a rerun
skips the rows already in ``--out``. ``--summary`` prints per problem the
median and mean best loss of each variant.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

import treefarm as tf

from ..harness.methods import run_treefarm
from ..harness.problems import all_problems

MODULE = "src/treefarm/optimizers/grammar.py"
PROBLEMS = "kernel_search,keijzer1,symbolic_regression,nguyen1,nguyen5,nguyen7,nguyen9"


def grammar_at(commit: str) -> Any:
    """The ``GrammarSearch`` class of ``commit``, loaded as a module of today's package."""
    source = subprocess.run(["git", "show", f"{commit}:{MODULE}"], check=True, capture_output=True, text=True)
    path = Path(tempfile.mkdtemp()) / "grammar_before.py"
    path.write_text(source.stdout)
    name = "treefarm.optimizers.grammar_before"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.GrammarSearch


def summary(path: Path) -> str:
    best: dict[tuple[str, str], list[float]] = defaultdict(list)
    for line in path.read_text().splitlines():
        row = json.loads(line)
        best[(row["problem"], row["variant"])].append(min(row["losses"]))
    lines = ["| problem | variant | seeds | median best loss | mean best loss |", "|---|---|---|---|---|"]
    for (problem, variant), x in sorted(best.items()):
        lines.append(f"| {problem} | {variant} | {len(x)} | {np.median(x):.4g} | {np.mean(x):.4g} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.screens.grammar_constants")
    parser.add_argument("--before", required=False, help="the commit whose GrammarSearch is 'before'")
    parser.add_argument("--problems", default=PROBLEMS)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--summary", action="store_true", help="only print the table of --out")
    args = parser.parse_args(argv)
    if args.summary:
        print(summary(args.out))
        return 0
    if not args.before:
        parser.error("--before COMMIT is required for a run")
    variants = {"before": grammar_at(args.before), "after": tf.GrammarSearch}
    done = set()
    if args.out.exists():
        done = {
            (r["problem"], r["variant"], r["seed"])
            for r in map(json.loads, args.out.read_text().splitlines())
        }
    problems = all_problems()
    for problem in args.problems.split(","):
        for variant, make in variants.items():
            for seed in range(args.seeds):
                if (problem, variant, seed) in done:
                    continue
                result = run_treefarm(make(), problems[problem], seed, args.budget)
                row = {"problem": problem, "variant": variant, "seed": seed, "losses": result["losses"]}
                with args.out.open("a") as f:
                    f.write(json.dumps(row) + "\n")
    print(summary(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
