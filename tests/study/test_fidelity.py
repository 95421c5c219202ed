"""A study at several fidelities: rungs, promotions, the cost budget, misleading cheap
fidelities, reopening, and the errors that name a bad fidelity or budget."""

from __future__ import annotations

import itertools
import logging
import math
from collections import Counter
from collections.abc import Callable

import numpy as np
import pytest

import treefarm as tf
from treefarm.exceptions import StorageError, StudyError
from treefarm.pruners.promotion import Point, check_agreement, misleading, next_evaluation, rung_agreement

SPACE = {"x": tf.Real(-5.0, 10.0), "y": tf.Real(0.0, 15.0)}


def branin(config: dict, fidelity: float) -> float:
    """Branin whose cheap fidelities bend the valley a little (ranking agrees with the top)."""
    x, y = config["x"], config["y"]
    b = 5.1 / (4 * math.pi**2) - 0.01 * (1 - fidelity)
    return (y - b * x**2 + 5 / math.pi * x - 6) ** 2 + 10 * (1 - 1 / (8 * math.pi)) * math.cos(x) + 10


def objective(config: dict, trial: tf.Trial) -> float:
    assert trial.fidelity is not None
    return branin(config, trial.fidelity)


def _study(**kwargs: object) -> tf.Study:
    fidelity = tf.Fidelity(1 / 27, 1.0, cost=lambda f: f**2)
    return tf.Study.create(space=SPACE, fidelity=fidelity, seed=3, algo="tpe", **kwargs)  # type: ignore[arg-type]


def test_rungs_run_from_the_lowest_to_high_by_the_reduction_factor() -> None:
    assert tf.Fidelity(1, 27).rungs == (1.0, 3.0, 9.0, 27.0)
    assert tf.Fidelity(10, 100, integer=True, reduction_factor=2).rungs == (12.0, 25.0, 50.0, 100.0)
    assert tf.Fidelity(0.5, 1.0, reduction_factor=2).rungs == (0.5, 1.0)


def test_an_integer_fidelity_reaches_the_objective_as_an_int_at_every_rung() -> None:
    """Boosting rounds and epochs go to range() and n_estimators, which refuse 3.0."""
    seen: set[tuple[type, float]] = set()

    def rounds(config: dict, trial: tf.Trial) -> float:
        assert trial.fidelity is not None
        seen.add((type(trial.fidelity), trial.fidelity))
        return branin(config, len(range(trial.fidelity)) / 27)

    study = tf.Study.create(space=SPACE, fidelity=tf.Fidelity(1, 27, integer=True), seed=0)
    study.optimize(rounds, max_cost=300, progress=False)
    assert {t.state for t in study.trials} == {tf.TrialState.COMPLETE}
    assert seen == {(int, 1), (int, 3), (int, 9), (int, 27)}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"low": 1.0, "high": 1.0}, r"low < high, but got \(low=1.0, high=1.0\)"),
        ({"low": -1.0, "high": 1.0}, r"low must be a finite number > 0, but got low=-1.0"),
        ({"low": 0.1, "high": math.inf}, r"high must be a finite number > 0, but got high=inf"),
        ({"low": 0.1, "high": 1.0, "integer": "yes"}, r"integer must be True or False, but got integer='yes'"),
        ({"low": 0.1, "high": 1.0, "reduction_factor": 1}, r"reduction_factor must be an integer >= 2"),
        ({"low": 0.1, "high": 1.0, "cost": 3}, r"cost must be a function of the fidelity, but got cost=3"),
        ({"low": 0.5, "high": 10.0, "integer": True}, r"an integer fidelity needs whole bounds"),
    ],
)
def test_a_bad_fidelity_is_refused_naming_the_value(kwargs: dict, message: str) -> None:
    with pytest.raises(StudyError, match=message):
        tf.Fidelity(**kwargs)


@pytest.mark.parametrize(
    ("fidelity", "message"),
    [
        (tf.Fidelity(0.5, 1.0), r"two rungs or more .* whose one rung is 1: every trial would run at the full"),
        (tf.Fidelity(1, 2, integer=True), r"reduction_factor=3\), whose one rung is 2: .* at most high / 3"),
    ],
)
def test_a_study_whose_fidelity_has_one_rung_is_refused(fidelity: tf.Fidelity, message: str) -> None:
    storage = tf.InMemoryStorage()
    with pytest.raises(StudyError, match=message):
        tf.Study.create("one", space=SPACE, storage=storage, fidelity=fidelity)
    assert storage.list_studies() == []  # refused before the study is made


def test_a_fidelity_outside_its_range_and_a_bad_cost_are_named() -> None:
    fidelity = tf.Fidelity(0.1, 1.0, cost=lambda f: -f)
    with pytest.raises(StudyError, match=r"within \[0.1, 1.0\], but got fidelity=2"):
        fidelity.check(2)
    with pytest.raises(StudyError, match=r"within \[0.1, 1.0\], but got fidelity=0.05"):
        fidelity.cost_of(0.05)
    with pytest.raises(StudyError, match=r"cost must be a finite number > 0, but got cost=-0.5 at fidelity=0.5"):
        fidelity.cost_of(0.5)


def test_a_fidelity_that_costs_nothing_is_refused_before_a_trial_runs() -> None:
    """A free evaluation would never spend a max_cost: the study would run forever."""
    evaluated: list[float] = []
    study = tf.Study.create(space=SPACE, fidelity=tf.Fidelity(1, 27, cost=lambda f: 0.0))
    with pytest.raises(StudyError, match=r"cost must be a finite number > 0, but got cost=0.0 at fidelity=1"):
        study.optimize(lambda params, trial: evaluated.append(trial.fidelity) or 0.0, max_cost=5)
    assert evaluated == []


@pytest.mark.parametrize("max_cost", [-1, 0, "10", math.nan, math.inf, True])
def test_a_bad_max_cost_is_refused_naming_it(max_cost: object) -> None:
    with pytest.raises(StudyError, match="max_cost must be a"):
        _study().optimize(objective, max_cost=max_cost)  # type: ignore[arg-type]


def test_a_max_cost_below_the_cheapest_rung_is_refused() -> None:
    with pytest.raises(StudyError, match=r"at least the cost of the lowest rung .* but got max_cost=0.0001"):
        _study().optimize(objective, max_cost=1e-4)


def test_a_cost_budget_that_nothing_spends_is_refused_not_run_forever() -> None:
    """Without a fidelity only reported steps cost: an objective that reports none would run forever."""
    study = tf.Study.create(space=SPACE, seed=0)
    with pytest.raises(StudyError, match=r"max_cost=5 .* the objective does not take the trial, so it reports no step"):
        study.optimize(lambda params: 0.0, max_cost=5)
    assert study.trials == []
    with pytest.raises(StudyError, match=r"trial 0 completed without reporting a step, so it cost nothing.*n_trials"):
        study.optimize(lambda params, trial: params["x"], max_cost=5, progress=False)
    assert [t.state for t in study.trials] == [tf.TrialState.COMPLETE]  # recorded before the error


def test_a_curve_that_skips_its_reports_on_some_trials_still_runs_to_the_cost_budget() -> None:
    """An objective that returns early for some configurations (a bad one, no training) costs
    nothing there; the others' steps still spend the budget, so the run goes on to it."""

    def curve(config: dict, trial: tf.Trial) -> float:
        if config["x"] < 0:
            return 1e3  # refused without training
        for step in range(1, 10):
            trial.report(step, branin(config, step / 9))
        return branin(config, 1.0)

    study = tf.Study.create(space=SPACE, seed=0, algo="random")
    study.optimize(curve, max_cost=60, progress=False)
    assert any(t.cost == 0 for t in study.trials) and 60 <= study.storage.spent_cost(study.study_id) < 69


def test_a_study_with_cheap_evaluations_only_says_so_when_asked_for_its_best() -> None:
    study = _study()
    study.optimize(objective, max_cost=1 / 27**2, progress=False)
    assert [t.state for t in study.trials] == [tf.TrialState.COMPLETE]
    with pytest.raises(StudyError, match=r"completed at the full fidelity \(1\).* 1 completed at lower fidelities only"):
        _ = study.best_value


def test_the_budget_is_spent_within_one_trial_and_every_rung_promotes_its_best() -> None:
    study = _study()
    study.optimize(objective, max_cost=6.0, progress=False)
    trials = study.trials
    spent = sum(t.cost for t in trials)
    assert 6.0 <= spent < 6.0 + 1.0  # one full evaluation at most beyond the budget
    assert spent == pytest.approx(study.storage.spent_cost(study.study_id))
    at = Counter(t.system_attrs["fidelity"] for t in trials)
    rungs = tf.Fidelity(1 / 27, 1.0).rungs
    assert set(at) <= set(rungs) and at[rungs[0]] > at[rungs[1]] > at[rungs[2]]
    checks = [dict(t.params) for t in trials if t.system_attrs["fidelity"] == rungs[0]][:5]
    for low, high in itertools.pairwise(rungs):
        cheaper = [dict(t.params) for t in trials if t.system_attrs["fidelity"] < high]
        # a check goes from the lowest rung to the top; once the rungs are no longer trusted,
        # new configurations start at the top: neither is a promotion
        promoted = [
            dict(t.params)
            for t in trials
            if t.system_attrs["fidelity"] == high and dict(t.params) in cheaper and dict(t.params) not in checks
        ]
        below = [dict(t.params) for t in trials if t.system_attrs["fidelity"] == low]
        assert all(p in below for p in promoted), "a promotion evaluates a configuration of the rung below"
        keys = [tuple(sorted(p.items())) for p in promoted]
        assert len(keys) == len(set(keys)), "no configuration is promoted twice"


def test_the_trial_reads_its_fidelity_and_same_seed_gives_same_trials() -> None:
    first, second = _study(), _study()
    for study in (first, second):
        study.optimize(objective, max_cost=3.0, progress=False)
    assert [(dict(t.params), t.system_attrs["fidelity"]) for t in first.trials] == [
        (dict(t.params), t.system_attrs["fidelity"]) for t in second.trials
    ]


def test_misleading_cheap_fidelities_send_new_configurations_to_the_top_rung() -> None:
    def noise_below_the_top(config: dict, trial: tf.Trial) -> float:
        if trial.fidelity == 1.0:
            return branin(config, 1.0)
        return float(np.random.default_rng(trial.number).normal())

    study = _study()
    study.optimize(noise_below_the_top, max_cost=25.0, progress=False)
    tail = [t.system_attrs["fidelity"] for t in study.trials][-5:]
    assert tail == [1.0] * 5


def test_rung_agreement_is_kendalls_tau_of_consecutive_rungs() -> None:
    rungs = (1.0, 3.0)
    same = [Point(i, 1.0, float(i)) for i in range(6)] + [Point(i, 3.0, float(i) * 2) for i in range(6)]
    assert rung_agreement(same, rungs) == pytest.approx(1.0)
    reversed_ = [Point(i, 1.0, float(i)) for i in range(6)] + [Point(i, 3.0, -float(i)) for i in range(6)]
    assert rung_agreement(reversed_, rungs) == pytest.approx(-1.0)
    assert rung_agreement(same[:3] + same[6:9], rungs) is None  # too few configurations at both


def test_asha_promotes_the_best_of_a_rung_before_starting_anything_new() -> None:
    points = [Point(f"c{i}", 1.0, float(i)) for i in range(6)]
    assert next_evaluation(points, [], (1.0, 3.0, 9.0), 3) == (3.0, "c0")
    assert next_evaluation(points, [("c0", 3.0)], (1.0, 3.0, 9.0), 3) == (3.0, "c1")
    assert next_evaluation(points, [("c0", 3.0), ("c1", 3.0)], (1.0, 3.0, 9.0), 3) == (1.0, None)


def test_a_check_pending_at_a_lower_rung_waits_for_it_and_then_continues_from_it() -> None:
    """With several workers a configuration can be promoted before it becomes a check (an
    earlier trial finishing late changes the first ``checks`` at the lowest rung): its top
    evaluation waits for the pending rung, so it continues the latest evaluation below."""
    rungs = (1.0, 3.0, 9.0)
    points = [Point(f"c{i}", 1.0, float(i)) for i in range(6)] + [Point(f"c{i}", 9.0, float(i)) for i in range(4)]
    assert next_evaluation(points, [], rungs, 3, checks=5) == (9.0, "c4")
    assert next_evaluation(points, [("c4", 3.0)], rungs, 3, checks=5) != (9.0, "c4")
    done = [*points, Point("c4", 3.0, 4.0)]
    assert next_evaluation(done, [], rungs, 3, checks=5) == (9.0, "c4")


def test_in_an_exhausted_space_the_best_configuration_not_at_the_top_climbs() -> None:
    rungs = (1.0, 3.0, 9.0)
    points = [Point(f"c{i}", 1.0, float(i)) for i in range(3)] + [Point("c0", 3.0, 0.0)]
    assert next_evaluation(points, [], rungs, 3) == (1.0, None)  # ASHA would start a new one
    assert next_evaluation(points, [], rungs, 3, exhausted=True) == (9.0, "c0")
    assert next_evaluation(points, [("c0", 9.0)], rungs, 3, exhausted=True) == (3.0, "c1")
    failed = [Point("c0", 1.0, None), Point("c1", 1.0, 2.0)]
    assert next_evaluation(failed, [], rungs, 3, exhausted=True) == (3.0, "c1")  # a failure never climbs
    at_top = [Point(f"c{i}", r, float(i)) for i in range(3) for r in rungs]
    assert next_evaluation(at_top, [], rungs, 3, exhausted=True) == (9.0, None), "a repeat measures what counts"
    below = [("c0", 1.0), ("c1", 1.0), ("c2", 1.0)]  # every one started, none finished: a repeat at the lowest
    assert next_evaluation([], below, rungs, 3, exhausted=True) == (1.0, None)
    assert next_evaluation(at_top[:-1], [("c2", 9.0)], rungs, 3, exhausted=True) == (9.0, None)


def test_a_finite_space_evaluated_at_the_top_in_full_says_so_once_and_repeats_there(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Three configurations and a budget of ninety steps: once each is at the top,
    a further trial can only repeat one; it does so at the top (a lower rung's value is
    known and never counts), and the study says so once rather than spend in silence."""
    study = tf.Study.create(space={"x": tf.Choice(1, 2, 3)}, fidelity=tf.Fidelity(1, 9, integer=True), seed=0)
    with caplog.at_level(logging.WARNING, logger="treefarm"):
        study.optimize(lambda config, trial: config["x"] / trial.fidelity, max_cost=90, progress=False)
    said = [r.getMessage() for r in caplog.records if "every configuration of the space" in r.getMessage()]
    assert said == [
        "every configuration of the space (3) is evaluated, or being evaluated, at the full fidelity: the next "
        "trials repeat them there; stop the run, or widen the space, for anything new"
    ]
    evaluations = [(t.params["x"], t.system_attrs["fidelity"]) for t in study.trials]
    first_repeat = next(i for i, e in enumerate(evaluations) if e in evaluations[:i])
    assert first_repeat == 6 and len(evaluations) > 7, "each configuration at 1 and 9, then repeats"
    assert {f for _, f in evaluations[first_repeat:]} == {9.0}, "every repeat is at the top"
    assert study.best_value == pytest.approx(1 / 9)


def test_a_finite_space_climbs_to_the_top_before_any_evaluation_repeats() -> None:
    """Nine configurations: once each is evaluated somewhere, the study promotes the
    best not yet at the top rather than drawing a configuration it already holds."""
    space = {"a": tf.Choice(0, 1, 2), "b": tf.Choice(0, 1, 2)}

    def evaluate(config: dict, trial: tf.Trial) -> float:
        return (config["a"] - 1) ** 2 + (config["b"] - 2) ** 2 + 1.0 / float(trial.fidelity or 1)

    study = tf.Study.create(space=space, fidelity=tf.Fidelity(1, 9), seed=0, algo="random")
    study.optimize(evaluate, max_cost=117.0, progress=False)  # every configuration at every rung
    seen = [(tuple(t.params.values()), t.system_attrs["fidelity"]) for t in study.trials]
    first_repeat = next(i for i, e in enumerate(seen) if e in seen[:i])
    assert {c for c, f in seen[:first_repeat] if f == 9.0} == set(itertools.product((0, 1, 2), repeat=2))


def test_a_reopened_study_keeps_its_fidelity_and_refuses_another(tmp_path: object) -> None:
    storage = f"sqlite:///{tmp_path}/f.db"
    tf.Study.create("s", space=SPACE, storage=storage, fidelity=tf.Fidelity(0.1, 1.0), seed=1)
    assert tf.Study.load("s", space=SPACE, storage=storage).fidelity == tf.Fidelity(0.1, 1.0)
    with pytest.raises(StudyError, match="the fidelity must be the one the study was created with"):
        tf.Study.load("s", space=SPACE, storage=storage, fidelity=tf.Fidelity(0.2, 1.0))
    tf.Study.create("c", space=SPACE, storage=storage, fidelity=tf.Fidelity(0.1, 1.0, cost=lambda f: f**2))
    with pytest.raises(StudyError, match="declared cost, which is not stored"):
        tf.Study.load("c", space=SPACE, storage=storage)


def test_a_learning_curve_spends_its_steps_and_stops_at_the_budget() -> None:
    def curve(config: dict, trial: tf.Trial) -> float:
        value = 0.0
        for step in range(1, 28):
            value = branin(config, 1.0) + 10.0 / step
            trial.report(step, value)
            if trial.should_prune():
                raise tf.TrialPruned()
        return value

    pruner = tf.HyperbandPruner(min_resource=1, max_resource=27, reduction_factor=3)
    study = tf.Study.create(space=SPACE, seed=2, pruner=pruner)
    study.optimize(curve, max_cost=200, progress=False)
    spent = study.storage.spent_cost(study.study_id)
    assert 200 <= spent <= 201  # one step beyond the budget at most, one process
    assert spent == sum(max(t.intermediate, default=0) for t in study.trials)


def test_a_pruner_whose_lower_rungs_rank_in_reverse_says_so_and_lets_the_trials_run() -> None:
    started: list[int] = []
    said: list[tuple[str, int]] = []  # each warning, and how many trials had started when it came

    class Listener(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            said.append((record.getMessage(), len(started)))

    def curve(config: dict, trial: tf.Trial) -> float:
        started.append(trial.number)
        value = branin(config, 1.0)
        for step in range(1, 28):
            trial.report(step, value if step == 27 else -value)
            if trial.should_prune():
                raise tf.TrialPruned()
        return value

    pruner = tf.HyperbandPruner(min_resource=1, max_resource=27, reduction_factor=3)
    study = tf.Study.create(space=SPACE, seed=2, pruner=pruner)
    listener = Listener(logging.WARNING)
    logging.getLogger("treefarm").addHandler(listener)
    try:
        study.optimize(curve, n_trials=24, progress=False)
    finally:
        logging.getLogger("treefarm").removeHandler(listener)
    verdicts = [(message, n) for message, n in said if "rank trials unlike the top one" in message]
    assert len(verdicts) == 1, said
    message, when = verdicts[0]
    assert "Kendall's tau -1.00" in message and "pruning stops, and trials run to their full budget" in message
    states = {t.number: t.state for t in study.trials}
    after = started[when - 1 :]  # the trial that heard the verdict, and every later one
    assert len(after) > 3 and all(states[n] == tf.TrialState.COMPLETE for n in after)


def test_a_negative_cost_is_refused_by_the_storage() -> None:
    storage = tf.InMemoryStorage()
    study = tf.Study.create(space=SPACE, storage=storage)
    trial = study.ask()
    with pytest.raises(StorageError, match="cost must be a finite number >= 0, but got cost=-1"):
        storage.add_trial_cost(study.study_id, trial.number, -1)


def test_auto_never_evaluates_a_configuration_twice_at_one_rung() -> None:
    fidelity = tf.Fidelity(1 / 9, 1.0, cost=lambda f: f**2)
    study = tf.Study.create(space=SPACE, fidelity=fidelity, seed=0)
    study.optimize(objective, max_cost=5.0, progress=False)
    evaluations = Counter((tuple(sorted(t.params.items())), t.system_attrs["fidelity"]) for t in study.trials)
    assert max(evaluations.values()) == 1


def test_a_resumed_study_makes_the_trials_an_uninterrupted_one_makes(tmp_path: object) -> None:
    fidelity = tf.Fidelity(1 / 9, 1.0, cost=lambda f: f**2)

    def run(name: str, budgets: tuple[float, ...]) -> list[tuple[object, ...]]:
        storage = f"sqlite:///{tmp_path}/{name}.db"
        for budget in budgets:
            study = tf.Study.create(name, space=SPACE, storage=storage, fidelity=fidelity, seed=5, load_if_exists=True)
            study.optimize(objective, max_cost=budget, progress=False)
        return [(tuple(sorted(t.params.items())), t.system_attrs["fidelity"], t.cost) for t in study.trials]

    assert run("resumed", (2.0, 4.0)) == run("straight", (4.0,))


def test_auto_models_every_rung_and_any_other_optimizer_sees_one() -> None:
    from treefarm.optimizers import History, Observation
    from treefarm.space import Config
    from treefarm.study.ask.fidelities import view_for

    fidelity = tf.Fidelity(1 / 9, 1.0)
    points = [Observation(Config({"x": float(i), "y": 1.0}), float(i), fidelity=1 / 9) for i in range(6)]
    points += [Observation(Config({"x": float(i), "y": 1.0}), float(i), fidelity=1 / 3) for i in range(2)]
    history = History(complete=tuple(points))
    assert len(view_for(tf.Auto(), history, fidelity).complete) == 8
    assert view_for(tf.Auto(), history, fidelity).max_fidelity == 1.0
    assert {o.fidelity for o in view_for(tf.TPE(), history, fidelity).complete} == {1 / 9}
    assert {o.fidelity for o in view_for(tf.Auto(fidelity=None), history, fidelity).complete} == {1 / 9}


def test_once_the_cheap_rungs_mislead_the_optimizer_sees_the_top_alone() -> None:
    from treefarm.optimizers import History, Observation
    from treefarm.space import Config
    from treefarm.study.ask.fidelities import view_for

    fidelity = tf.Fidelity(1 / 9, 1.0)
    configs = [Config({"x": float(i), "y": 1.0}) for i in range(4)]
    points = [Observation(c, float(i), fidelity=1 / 9) for i, c in enumerate(configs)]
    points += [Observation(c, -float(i), fidelity=1.0) for i, c in enumerate(configs[:2])]
    view = view_for(tf.Auto(), History(complete=tuple(points)), fidelity, misleading=True)
    assert [o.fidelity for o in view.complete] == [1.0, 1.0]
    assert set(view.failed) == set(configs[2:])  # seen cheaply: not proposed again, not modelled


def test_cheap_rungs_that_agree_with_each_other_but_not_the_top_mislead() -> None:
    rungs = (1.0, 3.0, 9.0)
    mirrored = [Point(i, r, float(i)) for i in range(6) for r in (1.0, 3.0)] + [Point(i, 9.0, -float(i)) for i in range(6)]
    assert rung_agreement(mirrored, rungs) == pytest.approx(-1.0)
    assert next_evaluation(mirrored, [], rungs, 3) == (9.0, None)


def test_the_checks_agreement_is_kendalls_tau_of_the_first_configurations_at_the_lowest_rung_and_the_top() -> None:
    rungs = (1.0, 3.0, 9.0)
    low = [Point(f"c{i}", 1.0, float(i)) for i in range(8)]
    top = [Point(f"c{i}", 9.0, loss) for i, loss in enumerate([0.0, 2.0, 1.0, 3.0, 4.0])]
    # pairs: 9 of 10 concordant, one discordant (c1, c2): tau = (9 - 1) / 10
    assert check_agreement(low + top, rungs, 5) == pytest.approx(0.8)
    promoted = [Point("c5", 9.0, -10.0), Point("c6", 9.0, -20.0)]  # climbed the rungs: not a check
    assert check_agreement(low + top + promoted, rungs, 5) == pytest.approx(0.8)
    assert check_agreement(low + top[:4], rungs, 5) is None  # a check not yet measured at the top
    reversed_ = [Point(f"c{i}", 9.0, -float(i)) for i in range(5)]
    assert check_agreement(low + reversed_, rungs, 5) == pytest.approx(-1.0)
    assert misleading(low + reversed_, rungs, 5) and not misleading(low + top, rungs, 5)


def test_the_checks_do_not_count_among_the_promoted_configurations_pairs() -> None:
    rungs = (1.0, 3.0, 9.0)
    checks = [Point(f"c{i}", r, float(i)) for i in range(8) for r in (1.0, 9.0)]  # agree: tau 1
    # worse than the checks everywhere, and among themselves ranked in reverse at the top
    promoted = [Point(f"p{i}", r, 10.0 + i) for i in range(3) for r in (1.0, 3.0)]
    promoted += [Point(f"p{i}", 9.0, 10.0 - i) for i in range(3)]
    pooled = (11 * (52 - 3) / 55 + 3 * -1.0) / 14  # rung 1: 3 of 55 pairs discordant; rung 3: reversed
    assert rung_agreement(checks + promoted, rungs) == pytest.approx(pooled)
    assert pooled > 0.3  # pooled with the checks, the promoted configurations' reversal would hide
    assert rung_agreement(promoted, rungs) == pytest.approx(-1.0)
    assert misleading(checks + promoted, rungs, 8)


def test_each_check_is_measured_at_the_top_before_any_promotion_or_new_configuration() -> None:
    rungs = (1.0, 3.0, 9.0)
    low = [Point(f"c{i}", 1.0, float(i)) for i in range(3)]
    assert next_evaluation(low[:1], [], rungs, 3, checks=5) == (9.0, "c0")
    assert next_evaluation(low, [("c0", 9.0)], rungs, 3, checks=5) == (9.0, "c1")
    measured = low + [Point(f"c{i}", 9.0, float(i)) for i in range(3)]
    assert next_evaluation(measured, [], rungs, 3, checks=5) == (1.0, None)  # a check goes no further


def _study_at(low_rungs: Callable[[float], float]) -> list[float]:
    """The fidelities of a study's trials whose cheap rungs report ``low_rungs`` of the top's loss."""

    def evaluate(config: dict, trial: tf.Trial) -> float:
        value = branin(config, 1.0)
        return value if trial.fidelity == 1.0 else low_rungs(value)

    study = tf.Study.create(space=SPACE, fidelity=tf.Fidelity(1 / 9, 1.0, cost=lambda f: f**2), seed=4, algo="tpe")
    study.optimize(evaluate, max_cost=12.0, progress=False)
    return [t.system_attrs["fidelity"] for t in study.trials]


def test_a_study_whose_cheap_rungs_rank_in_reverse_stops_spending_on_them_after_its_checks() -> None:
    fidelities = _study_at(lambda value: -value)
    assert fidelities[:10] == [1 / 9, 1.0] * 5  # five checks: the lowest rung, then the top
    assert set(fidelities[10:]) == {1.0} and len(fidelities) > 15


def test_the_verdict_that_the_cheap_rungs_mislead_is_logged_once_with_its_tau(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="treefarm"):
        _study_at(lambda value: -value)
    said = [r.getMessage() for r in caplog.records if "rank configurations unlike the top" in r.getMessage()]
    assert len(said) == 1
    assert "Kendall's tau -1.00 over the 5 checks" in said[0] and "below 0.3 misleads" in said[0]


def test_cheap_rungs_that_rank_like_the_top_are_not_said_to_mislead(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("WARNING", logger="treefarm"):
        _study_at(lambda value: value + 1.0)
    assert not [r for r in caplog.records if "rank configurations unlike the top" in r.getMessage()]


def test_a_study_whose_cheap_rungs_rank_like_the_top_goes_on_promoting_after_its_checks() -> None:
    fidelities = _study_at(lambda value: value + 1.0)
    assert fidelities[:10] == [1 / 9, 1.0] * 5
    assert fidelities[10:].count(1 / 9) > 5 and 1 / 3 in fidelities[10:]


def test_a_study_in_ten_dimensions_has_five_checks_not_one_per_dimension() -> None:
    space = {f"x{i}": tf.Real(0.0, 1.0) for i in range(10)}

    def evaluate(config: dict, trial: tf.Trial) -> float:
        return sum((v - 0.3) ** 2 for v in config.values()) + (1 - trial.fidelity)

    study = tf.Study.create(space=space, fidelity=tf.Fidelity(1 / 9, 1.0, cost=lambda f: f**2), seed=0)
    study.optimize(evaluate, max_cost=7.0, progress=False)
    fidelities = [t.system_attrs["fidelity"] for t in study.trials]
    assert fidelities[:10] == [1 / 9, 1.0] * 5
    assert 1.0 not in fidelities[10:14], "the sixth configuration of the space-filling start is no check"


def test_a_stale_promotion_is_refused_even_after_the_configuration_went_further() -> None:
    """A worker that planned to promote a configuration and stalled while another promoted
    it and it climbed on evaluates a new configuration instead of a second one at that rung."""
    from treefarm.pruners.promotion import Next
    from treefarm.study.ask.asking import Plan

    study = tf.Study.create(space=SPACE, fidelity=tf.Fidelity(1 / 9, 1.0), seed=0, algo="random")
    config = {"x": 1.0, "y": 2.0}
    for rung in (1 / 9, 1 / 3, 1.0):  # evaluated at every rung by others meanwhile
        record = study.storage.claim_trial(study.study_id, system_attrs={"fidelity": rung})
        assert record is not None
        study.storage.set_trial_params(study.study_id, record.number, config)
        study.storage.finish_trial(study.study_id, record.number, state=tf.TrialState.COMPLETE, value=rung)
    stale = study.storage.claim_trial(study.study_id, system_attrs={"fidelity": 1 / 3, "worker": {"token": "w"}})
    assert stale is not None
    promoted = study._asker._cache.config_of(study.trials[0])
    written = study._asker._record(stale.number, "w", Plan(Next(1 / 3, promoted), misleading=False))
    assert dict(written) != config
