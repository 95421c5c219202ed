"""Numeric suites: the synthetic functions, the tuning problems and COCO's BBOB functions by dimension.

treefarm's ``auto`` (the GP on these spaces), GP and TPE against Optuna 5's
GPSampler and TPESampler, Hyperopt's TPE, scikit-optimize's GP, SMAC3's
random forest, HEBO, Nevergrad's NGOpt (every set;
Ax's default only where its rows are) and treefarm's
random search: 100 evaluations (50 on the
tuning problems), 10 seeds (30 for some peers on the synthetic set). The
measure is the simple regret at the end (``best loss - optimum``; on the
tuning problems the error itself). The first 45 problems (synthetic, tuning,
twelve BBOB functions in 2-d, 10-d and 20-d) are the ones the defaults were
chosen on; the other twelve BBOB functions, in 2-d and 10-d, were added after
and are reported apart. The ``tpe`` column is today's ``TPE()``: seeds 0-9 of
the rows the TPE benchmark ran for its own suites (``bench/notes/tpe.md``).
"""

from __future__ import annotations

from ..harness.spread import spread_notes
from ..harness.suite import Finals, Suite, complete, keep, merge, runner_finals, screen_finals
from .tpe import JOINT5, JOINT5_RUNS

COLUMNS = ("auto", "gp", "tpe", "optuna-gp", "optuna-tpe", "hyperopt-tpe", "skopt-gp", "smac-rf", "hebo", "ngopt", "ax",
           "random")
#: Nevergrad's NGOpt and Ax's default (:mod:`bench.harness.nevergrad_ax`): their runner methods -> columns.
NEW_PEERS = {"nevergrad-ngopt": "ngopt", "ax": "ax"}
#: Runner methods -> columns.
PEERS = {"optuna-gp": "optuna-gp", "optuna-tpe": "optuna-tpe", "hyperopt-tpe": "hyperopt-tpe", "tf-random": "random"}
#: Runner methods of treefarm's -> columns (the files' ``tf-tpe`` rows are earlier ``TPE()``
#: defaults: the ``tpe`` column is today's, from ``TPE_NOW``).
OURS = {"tf-auto": "auto", "tf-gp": "gp"}
#: ``auto``'s rows alone (the files that rerun it with later code).
AUTO = {"tf-auto": "auto"}
SYNTHETIC = ("branin", "hartmann6", "ackley5", "rosenbrock4", "levy10", "styblinski8")
#: Ackley-5 and Levy-10 with their optima moved off the box's centre (:data:`bench.harness.problems.SHIFTED`),
#: run after the defaults were chosen: at the centre, a method that starts there (NGOpt) is done at once.
SHIFTED = ("ackley5_shifted", "levy10_shifted")
SHIFTED_FILES = ("synthetic_shifted_tf.jsonl", "synthetic_shifted_tpe.jsonl", "synthetic_shifted.jsonl",
                 "synthetic_shifted_ngopt.jsonl", "synthetic_shifted_ax.jsonl")
TUNING = ("svc_digits", "hgb_cancer", "mlp_digits")
BBOB_12 = "1,2,3,6,7,10,15,17,20,21,22,24"
BBOB_REST = "4,5,8,9,11,12,13,14,16,18,19,23"
RUN = "python -m bench.harness.bbob run"
ALL = "--methods tf-gp,tf-auto,optuna-gp,optuna-tpe,tf-tpe,hyperopt-tpe,tf-random --seeds 10 --jobs 2"
MEASURE = "simple regret after 100 evaluations (best loss minus the optimum)"
BBOB_MEASURE = f"{MEASURE}, instances 1-3 pooled"
SCREEN = "python -m bench.harness.screen run"
NGOPT = "--methods nevergrad-ngopt --seeds 10 --in-process"
#: The seeds of every run of these suites.
SEEDS = range(10)
SPREAD = spread_notes("auto", COLUMNS, full=False)


#: Today's ``TPE()`` (rank weights, and every turn joint at 3-5 numbers): seeds 0-9 of the
#: rows the TPE benchmark ran at 60 seeds (30 on the tuning set, 5-d in its ``JOINT5``).
TPE_NOW = ("tpe60_ranked.jsonl", "tpe60_joint5.jsonl")
TPE_NOW_TUNING = ("tpe30_tuning_ranked.jsonl", "tpe30_tuning_joint5.jsonl")
TEN = range(10)
_TPE60 = f"{SCREEN} --problems {{p}} --variants tpe --seeds 60 {{d}}--out bench/results/tpe60_ranked.jsonl"
TPE_RUNS = {
    "synthetic": (_TPE60.format(p="synthetic", d=""),
                  f"{SCREEN} --problems ackley5,rosenbrock4 --variants tpe --seeds 60 --out bench/results/tpe60_joint5.jsonl"),
    "tuning": (f"{SCREEN} --problems tuning --variants tpe --seeds 30 --out bench/results/tpe30_tuning_ranked.jsonl",
               f"{SCREEN} --problems hgb_cancer --variants tpe --seeds 30 --out bench/results/tpe30_tuning_joint5.jsonl"),
    **{f"{d}-d": (_TPE60.format(p=",".join(f"f{f}" for f in range(1, 25)), d=f"--dim {d} "),) for d in (2, 10)},
    "20-d": (_TPE60.format(p=",".join("f" + f for f in BBOB_12.split(",")), d="--dim 20 "),),
    "5-d": JOINT5_RUNS[:1],
}


def _tpe_now(dims: list[int], functions: str | None = None, files: tuple[str, ...] = TPE_NOW) -> Finals:
    """Today's ``TPE()`` on the screen problems of ``dims`` (0: named problems;
    BBOB: only ``functions``, comma-separated numbers), seeds 0-9."""
    now = keep(merge(*(screen_finals(f, {"tpe": "tpe"}, dims=dims) for f in files)), seeds=TEN)
    if functions is None:
        return now
    return keep(now, problems=[f"f{f} {d}-d" for f in functions.split(",") for d in dims])


#: ``auto`` rerun with the code of its commit on the synthetic set, BBOB 10-d and the shifted pair (seeds 0-9 of
#: the trust judgement's 20); read last, so their rows replace the older ``auto`` rows of the first files.
AUTO_TODAY = ("synthetic_auto_today.jsonl", "bbob_auto_today_d10.jsonl", "trust_judge_shifted.jsonl")


def _synthetic() -> Finals:
    screens = screen_finals("stall_screen.jsonl", {"auto": "auto", "gp": "gp"}, dims=[0])
    peers = runner_finals("main.jsonl", {**PEERS, "skopt-gp": "skopt-gp"})
    today = runner_finals(AUTO_TODAY[0], AUTO)
    return keep(merge(screens, peers, _tpe_now([0]), runner_finals("ngopt.jsonl", NEW_PEERS), today), problems=SYNTHETIC)


def _shifted() -> Finals:
    return merge(screen_finals(SHIFTED_FILES[0], {"auto": "auto", "gp": "gp"}),
                 screen_finals(SHIFTED_FILES[1], {"tpe": "tpe"}),
                 runner_finals(SHIFTED_FILES[2], {**PEERS, "skopt-gp": "skopt-gp"}),
                 runner_finals(SHIFTED_FILES[3], NEW_PEERS),
                 complete(runner_finals(SHIFTED_FILES[4], NEW_PEERS), SEEDS),
                 keep(runner_finals(AUTO_TODAY[2], AUTO), seeds=SEEDS))


def _tuning() -> Finals:
    screens = screen_finals("tuning_screen.jsonl", {"auto": "auto", "gp": "gp"})
    peers = runner_finals("main.jsonl", {**PEERS, "skopt-gp": "skopt-gp"})
    ngopt = runner_finals("tuning_ngopt.jsonl", NEW_PEERS)
    return keep(merge(screens, peers, _tpe_now([0], files=TPE_NOW_TUNING), ngopt), problems=TUNING)


#: ``auto`` on the design functions in 2-d and 20-d rerun with the code of its commit, and NGOpt on them
#: (the first files' ``auto`` rows are older ``auto`` defaults); read last, so their rows replace theirs.
DESIGN_NOW = ("bbob_auto_today_design.jsonl", "bbob_ngopt_d2_d20.jsonl")


DESIGN_NOW_RUNS = (
    f"{RUN} --functions {BBOB_12} --dims 2,20 --methods tf-auto --seeds 10 --in-process --out bench/results/{DESIGN_NOW[0]}",
    f"{RUN} --functions {BBOB_12} --dims 2,20 {NGOPT} --out bench/results/{DESIGN_NOW[1]}",
)


def _design_now(dim: int) -> Finals:
    """Today's ``auto`` and NGOpt on the twelve design functions in ``dim`` (2 or 20)."""
    now = merge(runner_finals(DESIGN_NOW[0], AUTO), runner_finals(DESIGN_NOW[1], NEW_PEERS))
    return keep(now, problems=[f"f{f} {dim}-d" for f in BBOB_12.split(",")])


def _bbob2() -> Finals:
    screens = screen_finals("stall_screen.jsonl", {"auto": "auto", "gp": "gp"}, dims=[2])
    peers = merge(*(runner_finals(f, PEERS) for f in ("bbob.jsonl", "bbob_f02.jsonl", "bbob_hyperopt.jsonl")),
                  runner_finals("bbob_skopt_d2.jsonl", {"skopt-gp": "skopt-gp"}))
    return merge(screens, peers, _tpe_now([2], BBOB_12), _design_now(2))


def _bbob10() -> Finals:
    return merge(runner_finals("bbob_d10.jsonl", {**OURS, **PEERS}),
                 runner_finals("bbob_smac_d10.jsonl", {"smac-rf": "smac-rf"}),
                 runner_finals("bbob_hebo_d10.jsonl", {"hebo": "hebo"}), _tpe_now([10], BBOB_12),
                 runner_finals("bbob_ngopt_d10.jsonl", NEW_PEERS), runner_finals(AUTO_TODAY[1], AUTO))


def _bbob20() -> Finals:
    return merge(runner_finals("bbob_d20.jsonl", {**OURS, **PEERS}), _tpe_now([20], BBOB_12), _design_now(20))


#: ``auto`` in 5-d rerun with the code of its commit (seeds 0-9 of the trust judgement's 20, ``bench/notes/bbob.md``)
#: and NGOpt in 5-d; read last, so their rows replace the first file's older ``auto`` rows.
FIVE_NOW = ("trust_judge_d5.jsonl", "bbob_ngopt_d5.jsonl")


def _bbob5() -> Finals:
    now = keep(runner_finals(JOINT5, {"tf-tpe": "tpe"}), seeds=TEN)
    later = merge(runner_finals(FIVE_NOW[0], AUTO), runner_finals(FIVE_NOW[1], NEW_PEERS))
    return merge(runner_finals("bbob_d5_f15_24.jsonl", {**OURS, **PEERS}), keep(now, problems=[f"f{f} 5-d" for f in range(15, 25)]),
                 keep(later, seeds=TEN))


#: ``auto`` on the held-out functions rerun with the code of its commit (the first files' ``tf-auto``
#: rows are older ``auto`` defaults); read last, so its rows replace theirs.
AUTO_NOW = "bbob_held_out_auto_today.jsonl"


def _held_out() -> Finals:
    return merge(runner_finals("bbob_rest_d2.jsonl", {**OURS, **PEERS}),
                 runner_finals("bbob_rest_d10.jsonl", {**OURS, **PEERS}), _tpe_now([2, 10], BBOB_REST),
                 runner_finals("bbob_ngopt_rest.jsonl", NEW_PEERS), runner_finals(AUTO_NOW, AUTO))


def _main(problems: str, out: str = "main.jsonl", jobs: int = 2) -> str:
    """The command of the peers' rows on ``problems`` (comma-separated names or a set)."""
    return (f"python -m bench run --problems {problems} --methods optuna-gp,optuna-tpe,hyperopt-tpe,skopt-gp,tf-random "
            f"--seeds 10 --jobs {jobs} --timeout 2400 --out bench/results/{out}")

SUITES = (
    Suite(
        "synthetic", "Synthetic functions",
        "Branin, Hartmann-6, Ackley-5, Rosenbrock-4, Levy-10, Styblinski-Tang-8 (4 real, 4 integer); "
        "known optima; `auto` rerun with later code (`synthetic_auto_today.jsonl`).",
        MEASURE, "auto", COLUMNS, ("stall_screen.jsonl", *TPE_NOW, "main.jsonl", "ngopt.jsonl", AUTO_TODAY[0]),
        (f"{SCREEN} --problems synthetic --variants auto,gp --seeds 10 --out bench/results/stall_screen.jsonl",
         *TPE_RUNS["synthetic"], _main("synthetic"),
         "python -m bench run --problems synthetic --methods nevergrad-ngopt --seeds 10 --in-process "
         "--out bench/results/ngopt.jsonl",
         f"python -m bench run --problems synthetic --methods tf-auto --seeds 10 --in-process --out bench/results/{AUTO_TODAY[0]}"),
        _synthetic, headline=True, notes=spread_notes("auto", COLUMNS)),
    Suite(
        "synthetic-shifted", "Synthetic functions, held out: optima off the centre",
        "Ackley-5 and Levy-10 with the optimum moved from the box's centre (or 5 % of the range from it) "
        "to a fixed random point, run after the defaults were chosen; `auto` rerun with later code (seeds 0-9 of "
        "`trust_judge_shifted.jsonl`).",
        MEASURE, "auto", COLUMNS, (*SHIFTED_FILES, AUTO_TODAY[2]),
        (f"{SCREEN} --problems {','.join(SHIFTED)} --variants auto,gp --seeds 10 --out bench/results/{SHIFTED_FILES[0]}",
         f"{SCREEN} --problems {','.join(SHIFTED)} --variants tpe --seeds 10 --out bench/results/{SHIFTED_FILES[1]}",
         _main(",".join(SHIFTED), SHIFTED_FILES[2], jobs=1),
         f"python -m bench run --problems {','.join(SHIFTED)} {NGOPT} --out bench/results/{SHIFTED_FILES[3]}",
         f"python -m bench run --problems {','.join(SHIFTED)} --methods ax --seeds 10 --jobs 1 --timeout 2400 "
         f"--out bench/results/{SHIFTED_FILES[4]}",
         f"python -m bench run --problems {','.join(SHIFTED)} --methods tf-auto,tf-auto-trust --seeds 20 --in-process "
         f"--out bench/results/{AUTO_TODAY[2]}"),
        _shifted, held_out=True, headline=True, notes=SPREAD),
    Suite(
        "tuning", "Tuning scikit-learn models",
        "SVC on digits (conditional kernel), HistGradientBoosting on breast cancer, an MLP of 1-3 layers "
        "(conditional sizes); NGOpt gets every parameter, always active. treefarm's rows ran 100 evaluations, "
        "the peers' 50 (their budget in the "
        "suite's first runs): the peers' columns are read at 50.",
        "validation error at the end (treefarm 100 evaluations, peers 50)", "auto", COLUMNS,
        ("tuning_screen.jsonl", *TPE_NOW_TUNING, "main.jsonl", "tuning_ngopt.jsonl"),
        (f"{SCREEN} --problems tuning --variants auto,gp --seeds 10 "
         "--out bench/results/tuning_screen.jsonl", *TPE_RUNS["tuning"], _main("tuning"),
         "python -m bench run --problems tuning --methods nevergrad-ngopt --seeds 10 --budget 50 --in-process "
         "--out bench/results/tuning_ngopt.jsonl"),
        _tuning, headline=True, notes=SPREAD),
    Suite(
        "bbob-2d", "BBOB, 2-d",
        "Twelve BBOB noiseless functions (Hansen et al. 2009) in 2-d: separable, ill-conditioned, "
        "multi-modal and weakly structured ones; scikit-optimize's GP on the eleven it finished; Nevergrad's "
        "NGOpt, and `auto` rerun with later code (`bbob_auto_today_design.jsonl`).",
        BBOB_MEASURE, "auto", COLUMNS,
        ("stall_screen.jsonl", TPE_NOW[0], "bbob.jsonl", "bbob_f02.jsonl", "bbob_hyperopt.jsonl",
         "bbob_skopt_d2.jsonl", *DESIGN_NOW),
        (f"{SCREEN} --problems {','.join('f' + f for f in BBOB_12.split(','))} --variants auto,gp --seeds 10 "
         "--out bench/results/stall_screen.jsonl",
         *TPE_RUNS["2-d"],
         f"{RUN} --functions {BBOB_12} --dims 2 --methods optuna-gp,optuna-tpe,tf-random --seeds 10 "
         "--out bench/results/bbob.jsonl",
         f"{RUN} --functions {BBOB_12} --dims 2 --methods hyperopt-tpe --seeds 10 --out bench/results/bbob_hyperopt.jsonl",
         f"{RUN} --functions 1,2,3,6,7,10,15,17,20,21,22 --dims 2 --methods skopt-gp --seeds 10 "
         "--out bench/results/bbob_skopt_d2.jsonl", *DESIGN_NOW_RUNS),
        _bbob2, headline=True, notes=SPREAD),
    Suite(
        "bbob-10d", "BBOB, 10-d", "The same twelve BBOB functions in 10-d; SMAC3's random forest and HEBO "
        "(HEBO in a venv of its own) on the ones they finished; Nevergrad's NGOpt on all twelve; `auto` rerun with "
        "later code (`bbob_auto_today_d10.jsonl`).",
        BBOB_MEASURE, "auto", COLUMNS,
        ("bbob_d10.jsonl", "bbob_smac_d10.jsonl", "bbob_hebo_d10.jsonl", TPE_NOW[0], "bbob_ngopt_d10.jsonl", AUTO_TODAY[1]),
        (f"{RUN} --functions {BBOB_12} --dims 10 {ALL} --out bench/results/bbob_d10.jsonl",
         f"{RUN} --functions {BBOB_12} --dims 10 --methods smac-rf --seeds 10 --out bench/results/bbob_smac_d10.jsonl",
         f"{RUN} --functions 1,10 --dims 10 --methods hebo --seeds 10 --out bench/results/bbob_hebo_d10.jsonl",
         *TPE_RUNS["10-d"], f"{RUN} --functions {BBOB_12} --dims 10 {NGOPT} --out bench/results/bbob_ngopt_d10.jsonl",
         f"{RUN} --functions {BBOB_12} --dims 10 --methods tf-auto --seeds 10 --in-process --out bench/results/{AUTO_TODAY[1]}"),
        _bbob10, headline=True, notes=SPREAD),
    Suite(
        "bbob-20d", "BBOB, 20-d", "The same twelve BBOB functions in 20-d; Nevergrad's NGOpt and `auto` rerun with "
        "later code (`bbob_auto_today_design.jsonl`) on them, as in 2-d.",
        BBOB_MEASURE, "auto", COLUMNS, ("bbob_d20.jsonl", TPE_NOW[0], *DESIGN_NOW),
        (f"{RUN} --functions {BBOB_12} --dims 20 {ALL} --out bench/results/bbob_d20.jsonl", *TPE_RUNS["20-d"],
         *DESIGN_NOW_RUNS),
        _bbob20, headline=True, notes=SPREAD),
    Suite(
        "bbob-held-out", "BBOB, held out: the other twelve functions, 2-d and 10-d",
        "Functions 4, 5, 8, 9, 11-14, 16, 18, 19 and 23, run after the defaults were chosen on the suites "
        "above; Nevergrad's NGOpt on them too; `auto` rerun with later code (`bbob_held_out_auto_today.jsonl`).",
        BBOB_MEASURE, "auto", COLUMNS,
        ("bbob_rest_d2.jsonl", "bbob_rest_d10.jsonl", TPE_NOW[0], "bbob_ngopt_rest.jsonl", AUTO_NOW),
        (f"{RUN} --functions {BBOB_REST} --dims 2 {ALL} --out bench/results/bbob_rest_d2.jsonl",
         f"{RUN} --functions {BBOB_REST} --dims 10 {ALL} --out bench/results/bbob_rest_d10.jsonl",
         *TPE_RUNS["2-d"], *TPE_RUNS["10-d"],
         f"{RUN} --functions {BBOB_REST} --dims 2,10 {NGOPT} --out bench/results/bbob_ngopt_rest.jsonl",
         f"{RUN} --functions {BBOB_REST} --dims 2,10 --methods tf-auto --seeds 10 --jobs 1 --out bench/results/{AUTO_NOW}"),
        _held_out, held_out=True, headline=True, notes=SPREAD),
    Suite(
        "bbob-5d", "BBOB, 5-d, the multimodal functions 15-24",
        "Rastrigin, Weierstrass, Schaffers, Griewank-Rosenbrock, Schwefel, Gallagher's peaks, Katsuura "
        "and Lunacek in 5-d, a dimension no design decision was checked on, run once the defaults were "
        "fixed. `python -m bench.harness.bbob report bench/results/bbob_d5_f15_24.jsonl "
        "bench/results/bbob_d10.jsonl bench/results/bbob_rest_d10.jsonl --functions 15-24 --methods "
        "tf-auto,tf-gp,tf-tpe,optuna-gp,optuna-tpe,hyperopt-tpe,tf-random --best-of tf-auto` sets `auto` "
        "against the best peer on each of them in 5-d and 10-d.",
        BBOB_MEASURE, "auto", COLUMNS, ("bbob_d5_f15_24.jsonl", JOINT5, *FIVE_NOW),
        (f"{RUN} --functions 15-24 --dims 5 {ALL.replace(' --jobs 2', ' --jobs 1')} "
         "--out bench/results/bbob_d5_f15_24.jsonl", *TPE_RUNS["5-d"],
         f"{RUN} --functions 15-24 --dims 5 --methods tf-auto,tf-auto-trust --seeds 20 --in-process "
         f"--out bench/results/{FIVE_NOW[0]}",
         f"{RUN} --functions 15-24 --dims 5 {NGOPT} --out bench/results/{FIVE_NOW[1]}"),
        _bbob5, held_out=True, resolved_only=True, notes=SPREAD),
)
