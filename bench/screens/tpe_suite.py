"""Variants of ``TPE()`` on the runs of the TPE suite (BBOB 5-d, bbob-mixint), in this process.

Each variant is a name of :func:`bench.harness.screen` (``tpe-optuna``, or
``tpe[joint_every=2]`` for keyword settings); its rows are the runner's
(``problem``, ``method`` = ``tf-`` + the variant, ``seed``, ``losses``), so
the suite's loader reads them beside ``tf-tpe`` and ``optuna-tpe``:

    python -m bench.screens.tpe_suite --variants "tpe[joint_every=2]" --seeds 5 \\
        --out bench/results/tpe_suite_screen.jsonl

Only the design part runs by default (BBOB 5-d f1-f24, bbob-mixint f1-f12 in
5-d and 10-d); the held-out functions need ``--held-out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from ..harness import bbob, mixint
from ..harness.methods import run_treefarm
from ..harness.problems import all_problems
from ..harness.runner import head_commit, key_of, read_rows
from ..harness.screen import _parametrized, _variants


def design_keys(
    seeds: int, budget: int, *, held_out: bool = False, only: str | None = None, bbob_dims: tuple[int, ...] = (5,)
) -> list[tuple[str, int, int]]:
    """(problem, seed, budget) of the design part, or of the held-out functions;
    ``only="bbob"`` or ``"mixint"`` keeps one of the two suites; ``bbob_dims``
    replaces BBOB's 5-d (a dimension the suite never had, to check a choice on)."""
    if held_out:
        runs = mixint.keys(list(range(13, 25)), [5, 10], ["-"], seeds, budget)
    else:
        runs = bbob.keys(list(range(1, 25)), list(bbob_dims), ["-"], seeds, budget) if only != "mixint" else []
        runs += mixint.keys(list(range(1, 13)), [5, 10], ["-"], seeds, budget) if only != "bbob" else []
    return [(p, s, b) for p, _, s, b in runs]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.screens.tpe_suite")
    parser.add_argument("--variants", required=True)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--budget", type=int, default=100)
    parser.add_argument("--held-out", action="store_true")
    parser.add_argument("--only", choices=("bbob", "mixint"), default=None, help="one suite of the design part")
    parser.add_argument("--bbob-dims", default="5", help="comma-separated dimensions of the BBOB part (5)")
    parser.add_argument("--out", type=Path, default=Path("bench/results/tpe_suite_screen.jsonl"))
    args = parser.parse_args(argv)
    made = _variants()
    done = {key_of(r) for r in read_rows(args.out)}
    problems, commit = all_problems(), head_commit()
    for variant in [v for v in args.variants.split(",") if v]:
        factory = made.get(variant) or _parametrized(variant)
        if factory is None:
            parser.error(f"unknown variant {variant!r}")
        for problem, seed, budget in design_keys(
            args.seeds, args.budget, held_out=args.held_out, only=args.only,
            bbob_dims=tuple(int(d) for d in args.bbob_dims.split(","))):
            row: dict[str, Any] = {"problem": problem, "method": f"tf-{variant}", "seed": seed, "budget": budget}
            if key_of(row) in done:
                continue
            start = time.perf_counter()
            row.update(status="ok", **run_treefarm(factory(), problems[problem], seed, budget))
            row.update(wall=time.perf_counter() - start, commit=commit)
            with args.out.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
        print(f"{variant}: done", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
