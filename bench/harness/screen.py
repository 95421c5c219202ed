"""Screening an optimizer's design: variants of treefarm's optimizers side by side, in-process.

A design change (a rule of the GP, a mix of ``auto``) is judged on many
problems at once before the full benchmark is rerun: each named variant below
runs ``budget`` evaluations of every problem and seed in this process
(``bench.harness.methods.run_treefarm``: the same study loop as the benchmark, so a
variant equal to a default gives the benchmark's rows to the bit), and the
report counts, against a base variant, the problems where a variant's median
regret at the end is lower, and lower or higher beyond noise (a 95%
percentile bootstrap interval of the difference of medians that excludes 0,
``bench.harness.report.median_difference_interval``), the problems where most of its
seeds ended stalled, its mean rank, and the problems where its median is the
lowest.

Problems: the names of ``bench.harness.problems`` (``branin``, ``levy10``...) and
BBOB functions as ``f{n}`` in ``--dim`` dimensions (seed ``s`` on instance
``1 + s % 3``, as ``bench.harness.bbob``). Rows (JSON lines, resumable) hold the
best-so-far regret curve and the CPU seconds of the run; ``dim`` is 0 for a
named problem. Rows of the benchmark runner (``python -m bench run``,
``python -m bench.harness.bbob run``) join a screen under a variant's name with
``import``.

Usage::

    python -m bench.harness.screen run --problems f1,f10,branin --variants gp,gp-explore-each --seeds 10 \
        --out bench/results/stall_screen.jsonl
    python -m bench.harness.screen import bench/results/bbob_loo.jsonl --as tf-gp=gp-explore-each \
        --out bench/results/stall_screen.jsonl
    python -m bench.harness.screen report bench/results/stall_screen.jsonl --base gp-explore-each
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import numpy as np

from .bbob import bbob_problems, instance_of_seed, name, stalled_for
from .methods import run_treefarm
from .problems import Problem, all_problems
from .report import median_difference_interval
from .runner import head_commit, read_rows


def _tree_cycle(*names: str) -> Any:
    """Screening of ``auto``'s rule on recursive spaces: grammar search's prior
    draws first, then trial ``t`` proposed by ``names[t % len(names)]``,
    grammar search or annealing (``auto`` gives every third trial to the GP)."""
    import treefarm as tf

    made = {"grammar": tf.GrammarSearch, "anneal": tf.Anneal}
    return _rotation(*(made[n]() for n in names), start=tf.GrammarSearch())


def _rotation(*optimizers: Any, start: Any = None) -> Any:
    """Trial ``t`` (counting every trial of the history) proposed by
    ``optimizers[t % len(optimizers)]``, after ``start``'s own start-up trials
    if given: a fixed rotation, so a function of the stored history as every
    optimizer's choice is."""
    import treefarm as tf

    class Rotation(tf.Optimizer):
        def suggest(self, space: Any, history: Any, n: int, rng: Any) -> list[Any]:
            t0 = len(history.complete) + len(history.failed) + len(history.pending)
            started = start is None or len(history.complete) >= start.n_startup
            out: list[Any] = []
            for i in range(n):
                with_batch = tf.History(history.complete, history.failed, (*history.pending, *out))
                proposer = optimizers[(t0 + i) % len(optimizers)] if started else start
                out.extend(proposer.suggest(space, with_batch, 1, rng))
            return out

    return Rotation()


def _variants() -> dict[str, Callable[[], Any]]:
    import math

    import treefarm as tf
    from treefarm.optimizers.base import variant

    def optuna_split(n: int) -> int:
        return min(math.ceil(0.1 * n), 25)

    return {
        "tpe": lambda: tf.TPE(),
        "tpe-product": lambda: variant(tf.TPE, {"joint_every": None}),
        "tpe-mv-10": lambda: tf.TPE(multivariate=True, n_startup=10),
        "tpe-unranked": lambda: variant(tf.TPE, {"rank_weights": 0.0}),
        "tpe-every-fourth-joint": lambda: variant(tf.TPE, {"always_joint": 0}),
        "tpe-rank-constraints": lambda: variant(tf.TPE, {"constraints": "rank"}),
        "tpe-optuna": lambda: variant(
            tf.TPE, {"forget": 25, "bounds_as_neighbours": False}, multivariate=True, n_startup=10, gamma=optuna_split
        ),
        "tpe-joint-3": lambda: _rotation(
            variant(tf.TPE, {"joint_every": None}),
            variant(tf.TPE, {"joint_every": None}),
            tf.TPE(multivariate=True, gamma=optuna_split),
        ),
        "gp": lambda: tf.GP(),
        "gp-explore-each": lambda: variant(tf.GP, {"explore_every": 1}),
        "gp-explore-2": lambda: variant(tf.GP, {"explore_every": 2}),
        "gp-explore-5": lambda: variant(tf.GP, {"explore_every": 5}),
        "gp-no-stall": lambda: variant(tf.GP, {"explore_stalls": False}),
        "gp-warp": lambda: variant(tf.GP, {"output": "warp"}),
        "gp-standard": lambda: variant(tf.GP, {"output": "standard"}),
        "gp-plain-pibo": lambda: variant(tf.GP, {"hint_prior": "plain", "hint_draws": False}),
        "gp-ehvi3": lambda: variant(tf.GP, {"ehvi_exact": 3}, objectives="ehvi"),
        "auto": lambda: tf.Auto(),
        "auto-explore-each": lambda: tf.Auto(gp=variant(tf.GP, {"explore_every": 1})),
        "auto-tpe-4": lambda: variant(tf.Auto, {"stalled_tpe_every": 4}),
        "auto-model-scale": lambda: variant(tf.Auto, {"stall_scale": "model"}),
        "grammar": lambda: tf.GrammarSearch(),
        "random": lambda: tf.RandomSearch(),
        "anneal": lambda: tf.Anneal(),
        "cycle-ga": lambda: _tree_cycle("grammar", "anneal"),
        "cycle-gga": lambda: _tree_cycle("grammar", "grammar", "anneal"),
    }


def _parametrized(variant: str) -> Callable[[], Any] | None:
    """``grammar[greed=4;rate=0.1]``: a variant of a named optimizer class with
    keyword settings (numbers; ``None``, ``True``, ``False``): constructor options
    and tuned settings (:attr:`treefarm.optimizers.base.Optimizer.tuned`) alike, so a
    screen of settings needs no new entry in :func:`_variants`; ``None`` if ``variant``
    does not have that form."""
    import treefarm as tf
    from treefarm.optimizers.base import variant as tuned_variant

    match = re.fullmatch(r"(grammar|anneal|tpe|gp)\[(.*)\]", variant)
    if match is None:
        return None
    made = {"grammar": tf.GrammarSearch, "anneal": tf.Anneal, "tpe": tf.TPE, "gp": tf.GP}[match[1]]
    kwargs = {}
    for item in filter(None, match[2].split(";")):
        key, _, value = item.partition("=")
        kwargs[key] = json.loads(value.lower().replace("none", "null"))
    tuned = {key: value for key, value in kwargs.items() if key in made.tuned}
    options = {key: value for key, value in kwargs.items() if key not in made.tuned}
    return functools.partial(tuned_variant, made, tuned, **options)


def _is_bbob(key: str) -> bool:
    return key.startswith("f") and key[1:].isdigit()


def problem(key: str, seed: int, dim: int) -> Problem:
    """A BBOB function ``f{n}`` in ``dim`` dimensions on the seed's instance, or a named problem."""
    if _is_bbob(key):
        return bbob_problems()[name(int(key[1:]), instance_of_seed(seed), dim)]
    return all_problems()[key]


def _key(row: dict[str, Any]) -> tuple[str, int, int, str, int]:
    return row["problem"], row["dim"], row["seed"], row["variant"], row["budget"]


def _append(out: Path, rows: list[dict[str, Any]]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)


def run(problems: list[str], variants: list[str], seeds: int, dim: int, budget: int, out: Path) -> None:
    """The missing (seed, problem, variant) runs of ``budget`` evaluations,
    seed by seed (a stopped screen has every problem's first seeds), one
    JSON line each, with the commit of the code that ran it."""
    made = _variants()
    for v in variants:
        if v not in made and (parametrized := _parametrized(v)) is not None:
            made[v] = parametrized
    unknown = [v for v in variants if v not in made]
    if unknown:
        raise SystemExit(f"unknown variants {unknown}; known: {sorted(made)}")
    done = {_key(r) for r in _rows([out])} if out.exists() else set()
    commit = head_commit()
    for seed in range(seeds):
        for key in problems:
            p, d = problem(key, seed, dim), dim if _is_bbob(key) else 0
            for v in variants:
                if (key, d, seed, v, budget) in done:
                    continue
                start = time.process_time()
                losses = run_treefarm(made[v](), p, seed, budget)["losses"]
                curve = np.minimum.accumulate(losses) - (p.optimum or 0.0)
                row = {"problem": key, "dim": d, "seed": seed, "variant": v, "budget": budget,
                       "regret": curve.tolist(), "cpu": time.process_time() - start, "commit": commit}
                _append(out, [row])


def imported(rows: list[dict[str, Any]], names: dict[str, str], budget: int) -> list[dict[str, Any]]:
    """Benchmark-runner rows of the methods in ``names`` (method -> variant) as
    screen rows: the best-so-far regret over the first ``budget`` losses,
    BBOB problems pooled by function as ``f{n}``."""
    out = []
    for r in rows:
        if r.get("status") != "ok" or r["method"] not in names:
            continue
        match = re.fullmatch(r"bbob_f(\d+)_i\d+_d(\d+)", r["problem"])
        if match:
            key, dim, optimum = f"f{int(match[1])}", int(match[2]), bbob_problems()[r["problem"]].optimum
        else:
            key, dim, optimum = r["problem"], 0, all_problems()[r["problem"]].optimum
        curve = np.minimum.accumulate(np.asarray(r["losses"][:budget], dtype=float)) - (optimum or 0.0)
        out.append({"problem": key, "dim": dim, "seed": r["seed"], "variant": names[r["method"]], "budget": budget,
                    "regret": curve.tolist(), "cpu": float(np.sum(r.get("suggest_cpu") or [0.0]))})
    return out


def _rows(paths: list[Path]) -> list[dict[str, Any]]:
    return [json.loads(line) for p in paths for line in p.read_text().splitlines() if line.strip()]


def mean_ranks(medians: dict[str, dict[str, float]]) -> dict[str, float]:
    """Each variant's rank (1 = lowest median, ties averaged, a NaN median
    last), averaged over the problems where every variant ran; all NaN when
    there is no such problem."""
    from scipy.stats import rankdata

    variants = sorted({v for m in medians.values() for v in m})
    common = [m for m in medians.values() if len(m) == len(variants)]
    if not common:
        return {v: float("nan") for v in variants}
    ranks = np.array([rankdata([m[v] if np.isfinite(m[v]) else np.inf for v in variants]) for m in common])
    return {v: float(ranks[:, i].mean()) for i, v in enumerate(variants)}


@functools.cache
def numeric(key: str, dim: int) -> bool:
    """Whether the screen problem's space has reals and integers only (every
    BBOB function; a named problem without choices, joins or recursion)."""
    from treefarm.space import analyze, convert

    analysis = analyze(convert(problem(key, 0, dim).treefarm_space()))
    return not (analysis.recursive or analysis.choices)


def report(
    paths: list[Path], base: str, *, variants: list[str] | None = None, n_boot: int = 2000, stall: int = 50,
    numeric_as: dict[str, str] | None = None, problems: Collection[str] | None = None,
    seeds: Collection[int] | None = None,
) -> str:
    """Median final regret per problem and variant (seeds), then each
    variant's counts against ``base`` over the problems both ran on >= 5
    common seeds, the problems where most of a variant's seeds ended stalled
    for ``stall`` evaluations or more (:func:`stalled_for`), its mean rank
    (:func:`mean_ranks`) and the problems where its median is the lowest
    (ties count for each; of the problems every variant ran); only
    ``variants`` (with ``base``) if given. A
    seed's row counts once however many files hold it. ``numeric_as``
    (variant -> variant) reads one variant's rows as another's on purely
    numeric problems (:func:`numeric`): ``{"auto": "gp"}`` where ``auto``
    is the GP there, suggestion for suggestion. ``problems`` and ``seeds``
    keep only those rows (a set of targets, seeds a variant was not chosen on)."""
    final: dict[tuple[str, str], dict[int, float]] = {}
    stuck: dict[tuple[str, str], dict[int, bool]] = {}
    aliases = numeric_as or {}
    for r in _rows(paths):
        if (problems is not None and r["problem"] not in problems) or (seeds is not None and r["seed"] not in seeds):
            continue
        on_numeric = bool(aliases) and numeric(r["problem"], r["dim"])
        targets = [] if on_numeric and r["variant"] in aliases else [r["variant"]]
        if on_numeric:
            targets += [alias for alias, source in aliases.items() if source == r["variant"]]
        label = r["problem"] if r["dim"] == 0 else f"{r['problem']} {r['dim']}-d"
        for v in targets:
            if variants is not None and v not in {base, *variants}:
                continue
            final.setdefault((label, v), {})[r["seed"]] = r["regret"][-1]
            stuck.setdefault((label, v), {})[r["seed"]] = stalled_for(r["regret"]) >= stall
    problems = sorted({p for p, _ in final})
    shown = sorted({v for _, v in final}, key=lambda v: (v != base, v))
    lines = ["| problem | " + " | ".join(shown) + " |", "|---" * (len(shown) + 1) + "|"]
    for p in problems:
        cells = [f"{np.median(list(final[(p, v)].values())):.3g} ({len(final[(p, v)])})"
                 if (p, v) in final else "-" for v in shown]
        lines.append(f"| {p} | " + " | ".join(cells) + " |")
    medians = {p: {v: float(np.median(list(final[(p, v)].values()))) for v in shown if (p, v) in final}
               for p in problems}
    ranks = mean_ranks(medians)
    every = [m for m in medians.values() if len(m) == len(shown)]
    lowest = {v: sum(m[v] <= min(m.values()) for m in every) for v in shown}
    lines += ["", f"| variant | problems | lower median than {base} | lower beyond noise | higher beyond noise "
              f"| stalled >= {stall} in most seeds | mean rank (problems all ran) | lowest median (of {len(every)}) |",
              "|---|---|---|---|---|---|---|---|"]
    for v in shown:
        stalled = [p for p in problems if (p, v) in stuck and 2 * sum(stuck[(p, v)].values()) > len(stuck[(p, v)])]
        n = lower = better = worse = 0
        for p in problems:
            if (p, v) not in final or (p, base) not in final:
                continue
            common = sorted(set(final[(p, v)]) & set(final[(p, base)]))
            if len(common) < 5:
                continue
            a = np.array([final[(p, v)][s] for s in common])
            b = np.array([final[(p, base)][s] for s in common])
            lo, hi = median_difference_interval(a, b, np.random.default_rng(0), n_boot=n_boot)
            n += 1
            lower += int(np.median(a) < np.median(b))
            better += int(hi < 0)
            worse += int(lo > 0)
        lines.append(f"| {v} | {n} | {lower} | {better} | {worse} | {', '.join(stalled) or 'none'} | {ranks[v]:.2f} "
                     f"| {lowest[v]} |")
    return "\n".join(lines)


def expand(names: str) -> list[str]:
    """Comma-separated problem names, where a set's name (``synthetic``, ``tuning``,
    ``symbolic``, ``held_out``, ``fresh``, ``small``, ``small_design``) stands for its problems."""
    from .problems import FRESH, HELD_OUT, SMALL, SMALL_DESIGN, SYMBOLIC, SYNTHETIC, TUNING

    sets = {"synthetic": SYNTHETIC, "tuning": TUNING, "symbolic": SYMBOLIC, "held_out": HELD_OUT, "fresh": FRESH,
            "small": SMALL, "small_design": SMALL_DESIGN}
    return [p for name in names.split(",") if name for p in sets.get(name, [name])]


def main(argv: list[str] | None = None) -> int:
    """``run`` (the missing runs), ``import`` (benchmark-runner rows) or ``report``."""
    parser = argparse.ArgumentParser(prog="python -m bench.harness.screen")
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--problems", required=True,
                   help="comma-separated: problem names, sets (synthetic, tuning, symbolic, held_out, fresh, small, small_design), BBOB f1..f24")
    r.add_argument("--variants", required=True, help=f"comma-separated, of {sorted(_variants())}")
    r.add_argument("--seeds", type=int, default=10)
    r.add_argument("--dim", type=int, default=2, help="dimension of the BBOB problems")
    r.add_argument("--budget", type=int, default=100)
    r.add_argument("--out", type=Path, required=True)
    i = sub.add_parser("import")
    i.add_argument("files", type=Path, nargs="+")
    i.add_argument("--as", dest="names", required=True, help="comma-separated method=variant")
    i.add_argument("--budget", type=int, default=100)
    i.add_argument("--out", type=Path, required=True)
    p = sub.add_parser("report")
    p.add_argument("files", type=Path, nargs="+")
    p.add_argument("--base", required=True)
    p.add_argument("--variants", default=None, help="comma-separated: only these (and the base)")
    p.add_argument("--problems", default=None, help="comma-separated: only these problems' rows")
    p.add_argument("--seeds", default=None, help="only these seeds' rows: FIRST-LAST, both included")
    p.add_argument("--numeric-as", default=None,
                   help="comma-separated variant=source: on purely numeric problems, the variant's rows are source's")
    args = parser.parse_args(argv)
    if args.command == "run":
        run(expand(args.problems), args.variants.split(","), args.seeds, args.dim, args.budget, args.out)
    elif args.command == "import":
        names = dict(pair.split("=", 1) for pair in args.names.split(","))
        done = {_key(r) for r in _rows([args.out])} if args.out.exists() else set()
        runner_rows = [r for path in args.files for r in read_rows(path)]
        new = [row for row in imported(runner_rows, names, args.budget) if _key(row) not in done]
        _append(args.out, new)
    else:
        numeric_as = dict(pair.split("=", 1) for pair in args.numeric_as.split(",")) if args.numeric_as else None
        seeds = None
        if args.seeds:
            first, _, last = args.seeds.partition("-")
            seeds = range(int(first), int(last or first) + 1)
        print(report(args.files, args.base, variants=args.variants.split(",") if args.variants else None,
                     numeric_as=numeric_as, problems=expand(args.problems) if args.problems else None,
                     seeds=seeds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
