"""``python -m bench list|run|report|manifest|scaling|sampling|one``.

- ``list``: the suites of the report (:mod:`bench.suites`);
- ``run SUITE``: the commands that make a suite's rows, each resumable (only what
  the rows lack runs); ``run --problems ... --methods ...``: runner keys directly;
- ``report``: ``bench/RESULTS.md`` and ``bench/plots/profile_*.png`` from the
  committed rows; ``report FILE...``: the runner's detailed tables of those files;
- ``manifest``: record, once, the commit that committed each suite's rows file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .harness.methods import METHODS
from .harness.paths import BENCH, PLOTS, ROOT
from .harness.problems import FRESH, GRAMMAR, HELD_OUT, SMALL, SYMBOLIC, SYNTHETIC, TUNING, all_problems

QUICK_PROBLEMS = ["branin", "hartmann6", "styblinski8", "svc_digits"]


#: The head-to-head tables of the report: each treefarm optimizer against the peers its issue names.
VERSUS = (
    ("tf-gp", ["optuna-tpe", "optuna-gp", "skopt-gp", "tf-random", "tf-anneal", "tf-tpe"]),
    ("tf-tpe", ["hyperopt-tpe", "optuna-tpe", "optuna-tpe-uni", "tf-random"]),
    ("tf-anneal", ["tf-random", "optuna-random"]),
)


def _csv(text: str) -> list[str]:
    return [t for t in text.split(",") if t]


def _run_suite(name: str, dry_run: bool, parser: argparse.ArgumentParser) -> int:
    """Each of the suite's commands in turn, from the repository's root, with this interpreter."""
    import shlex
    import subprocess

    from .suites import by_name

    suites = by_name()
    if name not in suites:
        parser.error(f"unknown suite {name!r}; suites: {sorted(suites)}")
    for command in suites[name].commands:
        argv = shlex.split(command)
        if argv[0] == "python":
            argv[0] = sys.executable
        print(command, file=sys.stderr, flush=True)
        if not dry_run:
            done = subprocess.run(argv, cwd=ROOT, check=False)
            if done.returncode:
                return done.returncode
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the suites of the report")
    sub.add_parser("manifest", help="record the commit that committed each suite's rows file (once per file)")
    run = sub.add_parser("run", help="a suite's commands, or (problem, method, seed) combinations not yet in --out")
    run.add_argument("suite", nargs="?", default=None, help="a suite of `python -m bench list`")
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="print what would run (a SUITE's commands, or the runs --out lacks) and run nothing",
    )
    run.add_argument(
        "--problems", default="synthetic", help="names, or synthetic/tuning/grammar/symbolic/all"
    )
    run.add_argument("--methods", default=",".join(METHODS))
    run.add_argument("--seeds", type=int, default=10)
    run.add_argument("--first-seed", type=int, default=0, help="seeds first-seed .. first-seed + seeds - 1")
    run.add_argument("--budget", type=int, default=None, help="evaluations (default: each problem's)")
    run.add_argument("--jobs", type=int, default=2)
    run.add_argument("--timeout", type=float, default=3600.0, help="seconds per run")
    run.add_argument("--in-process", action="store_true",
                     help="every run in this interpreter, without the timeout (methods of a second or less)")
    run.add_argument("--out", type=Path, default=Path("bench/results/main.jsonl"))
    run.add_argument("--quick", action="store_true", help="4 problems, 3 seeds, budget 25: under 10 minutes")
    report = sub.add_parser("report", help="RESULTS.md from the suites' rows, or the tables of results files")
    report.add_argument("results", type=Path, nargs="*", help="results files (without: RESULTS.md)")
    report.add_argument("--out", type=Path, default=BENCH / "RESULTS.md", help="without files: where RESULTS.md goes")
    report.add_argument("--plots", type=Path, default=None,
                        help="directory for the PNGs (without files: default bench/plots)")
    report.add_argument("--no-plots", action="store_true", help="without files: write RESULTS.md only")
    report.add_argument(
        "--commit",
        action="append",
        help="treefarm's rows only from this commit, or METHOD=COMMIT for one method (repeatable);"
        " peers' rows are kept",
    )
    report.add_argument(
        "--gap",
        action="append",
        default=[],
        metavar="OURS:PEER",
        help="also test whether OURS's final regret differs from PEER's beyond seed noise (repeatable)",
    )
    scaling = sub.add_parser("scaling", help="time per suggestion against history size")
    scaling.add_argument(
        "--methods", default="tf-random,tf-tpe,tf-anneal,tf-gp,optuna-random,optuna-tpe,optuna-gp"
    )
    scaling.add_argument("--dims", default="6,20")
    scaling.add_argument("--sizes", default="100,300,1000,10000")
    sub.add_parser("sampling", help="time to sample 10,000 configurations")
    one = sub.add_parser("one", help="(internal) one run, printed as a JSON line")
    one.add_argument("problem")
    one.add_argument("method")
    one.add_argument("seed", type=int)
    one.add_argument("budget", type=int)
    args = parser.parse_args(argv)

    if args.command == "list":
        from .suites import all_suites

        for s in all_suites():
            print(f"{s.name:18s} {s.title}{' (held out)' if s.held_out else ''}")
        return 0
    if args.command == "manifest":
        from .harness.summary import record_manifest
        from .suites import all_suites

        record_manifest(sorted({f for s in all_suites() for f in s.files}))
        return 0
    if args.command == "run" and args.suite is not None:
        return _run_suite(args.suite, args.dry_run, parser)
    if args.command == "report" and not args.results:
        from .harness.summary import render
        from .suites import all_suites

        args.out.write_text(render(all_suites(), plots=None if args.no_plots else args.plots or PLOTS))
        print(f"wrote {args.out}", file=sys.stderr)
        return 0
    if args.command == "one":
        from .harness.runner import run_one

        print(json.dumps(run_one(args.problem, args.method, args.seed, args.budget)))
        return 0
    if args.command == "run":
        from .harness.runner import run_all

        groups = {
            "synthetic": list(SYNTHETIC),
            "tuning": list(TUNING),
            "grammar": list(GRAMMAR),
            "symbolic": list(SYMBOLIC),
            "held_out": list(HELD_OUT),
            "fresh": list(FRESH),
            "small": list(SMALL),
            "all": [*SYNTHETIC, *TUNING, *GRAMMAR, *SYMBOLIC],
        }
        problems = [p for name in _csv(args.problems) for p in groups.get(name, [name])]
        unknown = [p for p in problems if p not in all_problems()]
        methods = _csv(args.methods)
        bad = [m for m in methods if m not in METHODS]
        if unknown or bad:
            parser.error(
                f"unknown problems {unknown} or methods {bad}; problems: {list(all_problems())}, "
                f"methods: {list(METHODS)}"
            )
        seeds, budget = args.seeds, args.budget
        if args.quick:
            problems, seeds, budget = QUICK_PROBLEMS, 3, 25
        keys = [
            (p, m, s, budget or all_problems()[p].budget)
            for p in problems
            for m in methods
            for s in range(args.first_seed, args.first_seed + seeds)
        ]
        if args.dry_run:
            from .harness.runner import key_of, read_rows

            done = {key_of(r) for r in read_rows(args.out)}
            todo = [k for k in keys if k not in done]
            for key in todo:
                print(" ".join(map(str, key)))
            print(f"{len(todo)} runs not in {args.out} (dry run: nothing ran)", file=sys.stderr)
            return 0
        ran = run_all(keys, args.out, jobs=args.jobs, timeout=args.timeout, in_process=args.in_process)
        print(f"{ran} runs done; results in {args.out}", file=sys.stderr)
        return 0
    if args.command == "report":
        from .harness.report import (
            coverage_table,
            gap_table,
            parse_commits,
            plot,
            problem_table,
            select,
            summary_table,
            versus_table,
        )
        from .harness.runner import read_rows

        gaps = [tuple(pair.split(":")) for pair in args.gap]
        bad_gaps = [pair for pair, gap in zip(args.gap, gaps) if len(gap) != 2 or not all(gap)]
        if bad_gaps:
            parser.error(f"--gap takes OURS:PEER (two method names), but got {bad_gaps}")
        rows = select([r for path in args.results for r in read_rows(path)], parse_commits(args.commit))
        problems = [p for p in all_problems() if any(r["problem"] == p for r in rows)]
        print(f"\n### Coverage: successful seeds\n\n{coverage_table(rows, problems)}")
        for ours, peers in VERSUS:
            print(f"\n### {ours} against its peers: final median regret (seeds)\n")
            print(versus_table(rows, problems, ours, peers))
        for ours, peer in gaps:
            print(f"\n### {ours} against {peer}: difference of final median regret, and is it noise?\n")
            print(gap_table(rows, problems, ours, peer))
        for group, names in (
            ("synthetic", SYNTHETIC),
            ("tuning", TUNING),
            ("grammar", GRAMMAR),
            ("symbolic regression", SYMBOLIC),
        ):
            mine = [p for p in problems if p in names]
            if mine:
                print(f"\n### Summary: {group}\n\n{summary_table(rows, mine)}")
        for p in problems:
            print(f"\n### {p}\n\n{problem_table(rows, p)}")
        if args.plots:
            args.plots.mkdir(parents=True, exist_ok=True)
            plot(rows, problems, args.plots)
        return 0
    if args.command == "scaling":
        from .suites.scaling import table

        print(
            table(_csv(args.methods), [int(d) for d in _csv(args.dims)], [int(n) for n in _csv(args.sizes)])
        )
        return 0
    from .suites.sampling import hyperopt_sampling, treefarm_sampling

    wall, cpu = treefarm_sampling()
    print(f"treefarm sample(space, rng, n=10_000): {wall:.3f} s wall, {cpu:.3f} s CPU")
    try:
        wall, cpu = hyperopt_sampling()
        print(f"hyperopt pyll.stochastic.sample x 10,000: {wall:.3f} s wall, {cpu:.3f} s CPU")
    except ImportError:
        print("hyperopt not installed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
