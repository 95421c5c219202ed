"""Studies: ask/tell, failures recorded not fatal, stopping rules, enqueued configs."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np
import pytest

import treefarm as tf
from treefarm.exceptions import ConfigError, StorageError, StudyError, TrialStateError
from treefarm.storage import TrialState

SPACE = {"x": tf.Real(-5.0, 5.0), "k": tf.Choice("a", "b")}


def quadratic(p: dict) -> float:
    return (p["x"] - 1.0) ** 2 + (0.5 if p["k"] == "b" else 0.0)


def test_ask_tell_and_best() -> None:
    study = tf.Study.create(space=SPACE, seed=0)
    for _ in range(20):
        trial = study.ask()
        assert set(trial.config) == {"x", "k"} and trial.value == dict(trial.config)
        study.tell(trial, quadratic(trial.value))
    values = [t.value for t in study.trials]
    assert study.best_value == min(values)
    assert study.best_params == tf.build(SPACE, study.best_config)
    assert study.best_trial.state is TrialState.COMPLETE


def test_maximize_picks_the_largest() -> None:
    study = tf.Study.create(space=SPACE, seed=0, direction="maximize")
    study.optimize(quadratic, 15)
    assert study.best_value == max(t.value for t in study.trials)


def test_same_seed_same_trial_sequence() -> None:
    def run() -> list[dict]:
        study = tf.Study.create(space=SPACE, seed=42)
        study.optimize(quadratic, 12)
        return [dict(t.params) for t in study.trials]

    assert run() == run()
    other = tf.Study.create(space=SPACE, seed=43)
    other.optimize(quadratic, 12)
    assert [dict(t.params) for t in other.trials] != run()


def test_failures_are_recorded_and_the_study_goes_on() -> None:
    outputs = iter(
        [
            ValueError("boom"),
            math.nan,
            "a string",
            {"accuracy": 1.0},
            math.inf,
            1.5,
            {"loss": 2.0, "acc": 0.9},
        ]
    )

    def objective(p: dict) -> object:
        out = next(outputs)
        if isinstance(out, Exception):
            raise out
        return out

    study = tf.Study.create(space=SPACE, seed=0)
    study.optimize(objective, 7)
    trials = study.trials
    reasons = [t.system_attrs.get("fail_reason", "") for t in trials]
    assert [t.state for t in trials] == [TrialState.FAILED] * 5 + [TrialState.COMPLETE] * 2
    assert reasons[0] == "ValueError: boom" and "Traceback" in trials[0].system_attrs["traceback"]
    assert "non-finite value: nan" in reasons[1]
    assert "returned a str: 'a string'" in reasons[2]
    assert "without 'loss'" in reasons[3]
    assert "non-finite value: inf" in reasons[4]
    assert trials[6].value == 2.0 and trials[6].user_attrs == {"acc": 0.9}
    assert study.best_value == 1.5


def test_uncaught_exception_fails_the_trial_and_propagates() -> None:
    def objective(p: dict) -> float:
        raise RuntimeError("fatal")

    study = tf.Study.create(space=SPACE, seed=0)
    with pytest.raises(RuntimeError, match="fatal"):
        study.optimize(objective, 5, catch=())
    assert [t.state for t in study.trials] == [TrialState.FAILED]


def test_keyboard_interrupt_marks_the_trial_interrupted() -> None:
    calls = []

    def objective(p: dict) -> float:
        calls.append(p)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return 1.0

    study = tf.Study.create(space=SPACE, seed=0)
    with pytest.raises(KeyboardInterrupt):
        study.optimize(objective, 10)
    trials = study.trials
    assert [t.state for t in trials] == [TrialState.COMPLETE] * 2 + [TrialState.FAILED]
    assert trials[2].system_attrs["fail_reason"] == "interrupted"


def test_tell_twice_is_an_error_and_changes_nothing() -> None:
    study = tf.Study.create(space=SPACE, seed=0)
    trial = study.ask()
    study.tell(trial, 3.0)
    with pytest.raises(TrialStateError, match=f"number={trial.number}, state='complete'"):
        study.tell(trial, 1.0)
    assert study.trials[0].value == 3.0 and study.trials[0].state is TrialState.COMPLETE


def test_enqueued_configs_are_validated_and_evaluated_first() -> None:
    study = tf.Study.create(space=SPACE, seed=0)
    with pytest.raises(ConfigError, match=r"x must lie in \[-5, 5\], but got x=9.0"):
        study.enqueue({"x": 9.0, "k": "a"})
    assert study.trials == []
    study.enqueue({"x": 1.0, "k": "a"})
    study.optimize(quadratic, 3)
    assert dict(study.trials[0].params) == {"x": 1.0, "k": "a"}
    assert study.best_value == 0.0


def test_stopping_rules() -> None:
    study = tf.Study.create(space=SPACE, seed=0)
    study.optimize(lambda p: 1.0, 100, patience=5)
    assert len(study.trials) == 6
    study = tf.Study.create(space=SPACE, seed=0)
    study.optimize(quadratic, 1000, target=0.5)
    assert study.best_value <= 0.5 and len(study.trials) < 1000
    study = tf.Study.create(space=SPACE, seed=0)
    study.optimize(lambda p: 1.0, callbacks=[lambda s, r: s.stop() if r.number == 3 else None])
    assert len(study.trials) == 4
    study = tf.Study.create(space=SPACE, seed=0)
    start = time.monotonic()

    def slow(p: dict) -> float:
        time.sleep(0.05)
        return 1.0

    study.optimize(slow, timeout=0.3)
    elapsed = time.monotonic() - start
    assert 0.3 <= elapsed < 3.0 and 3 <= len(study.trials) <= 0.3 / 0.05 + 1


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"n_trials": 0}, r"n_trials must be an integer >= 1 or None, but got n_trials=0"),
        ({"n_trials": 5, "n_jobs": 0}, r"n_jobs must be an integer >= 1, but got n_jobs=0"),
        ({"n_trials": 5, "backend": "gpu"}, r"backend must be 'process' or 'thread', but got backend='gpu'"),
        ({"n_trials": 5, "timeout": -1}, r"timeout must be a number > 0"),
    ],
)
def test_bad_optimize_arguments_are_named(kwargs: dict, pattern: str) -> None:
    study = tf.Study.create(space=SPACE, seed=0)
    with pytest.raises(StudyError, match=pattern):
        study.optimize(quadratic, **kwargs)


def test_bad_study_arguments_are_named(tmp_path: Path) -> None:
    with pytest.raises(
        StudyError, match=r"direction must be one of \['minimize', 'maximize'\], but got direction='min'"
    ):
        tf.Study.create(space=SPACE, direction="min")
    with pytest.raises(StudyError, match=r"algo must be one of .*, but got algo='nope'"):
        tf.Study.create(space=SPACE, algo="nope")
    with pytest.raises(StorageError, match=r"sqlit://x\.db"):
        tf.Study.create(space=SPACE, storage="sqlit://x.db")
    with pytest.raises(StudyError, match=r"must have a completed trial, but got name=.* with none yet"):
        _ = tf.Study.create(space=SPACE).best_value


def test_intermediate_values_and_user_attrs() -> None:
    def objective(p: dict, trial: tf.Trial) -> float:
        for step in range(3):
            trial.report(step, 1.0 / (step + 1))
        trial.set_user_attr("note", "ok")
        return 0.25

    study = tf.Study.create(space=SPACE, seed=0)
    study.optimize(objective, 2)
    t = study.trials[0]
    assert dict(t.intermediate) == {0: 1.0, 1: 0.5, 2: 1.0 / 3}
    assert t.user_attrs == {"note": "ok"}


def test_op_errors_while_building_fail_the_trial() -> None:
    def explode(x: float) -> float:
        raise ValueError(f"cannot build {x}")

    space = tf.op(explode)(tf.Real(0, 1))
    study = tf.Study.create(space=space, seed=0)
    study.optimize(lambda v: v, 3)
    assert [t.state for t in study.trials] == [TrialState.FAILED] * 3
    assert "cannot build" in study.trials[0].system_attrs["fail_reason"]


class _Broken(tf.Optimizer):
    """Suggests at random for three trials, then raises as a buggy optimizer
    (or one missing a dependency) would."""

    def suggest(self, space, history, n, rng):  # type: ignore[no-untyped-def]
        if len(history.complete) >= 3:
            raise RuntimeError("optimizer bug")
        return tf.RandomSearch().suggest(space, history, n, rng)


@pytest.mark.parametrize("storage", ["memory", "sqlite"])
def test_an_optimizer_that_raises_fails_its_trial_and_stops_the_run(storage: str, tmp_path: Path) -> None:
    """Not a failed evaluation (``catch`` is the objective's): the error propagates,
    named, and the trial claimed for the suggestion is FAILED with it, not left
    RUNNING without a configuration while every later claim does the same."""
    url = None if storage == "memory" else f"sqlite:///{tmp_path / 's.db'}"
    study = tf.Study.create(space=SPACE, algo=_Broken(), storage=url, seed=0)
    with pytest.raises(tf.SuggestionError, match=r"_Broken.*trial 3.*RuntimeError: optimizer bug") as info:
        study.optimize(quadratic, 10)
    assert isinstance(info.value.__cause__, RuntimeError)
    trials = study.trials
    assert [t.state for t in trials] == [TrialState.COMPLETE] * 3 + [TrialState.FAILED]
    assert "optimizer bug" in trials[3].system_attrs["fail_reason"]
    with pytest.raises(tf.SuggestionError):
        study.ask()
    assert [t.state for t in study.trials][4:] == [TrialState.FAILED]


def test_an_error_around_the_optimizer_fails_the_trial_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not only the optimizer's own: an error while choosing around it (here the
    draw into the support) fails the claimed trial instead of leaving it RUNNING."""
    from treefarm.study.ask import asking

    def broken(*args: object) -> object:
        raise ValueError("support bug")

    monkeypatch.setattr(asking, "within_support", broken)
    study = tf.Study.create(space=SPACE, algo="random", seed=0)
    with pytest.raises(tf.SuggestionError, match=r"choosing the configuration raised.*trial 0.*support bug"):
        study.ask()
    assert [t.state for t in study.trials] == [TrialState.FAILED]


def test_a_storage_outage_while_writing_a_suggestion_stays_the_storages_error() -> None:
    """A storage error around the optimizer is not re-typed as a suggestion's: callers
    that ride out outages still see StorageUnavailableError."""
    from treefarm.exceptions import StorageUnavailableError

    study = tf.Study.create(space=SPACE, algo="random", seed=0)

    def outage(*args: object, **kwargs: object) -> None:
        raise StorageUnavailableError("the server went away")

    study.storage.set_trial_params = outage  # type: ignore[method-assign]
    with pytest.raises(StorageUnavailableError, match="went away"):
        study.ask()


def test_a_suggestion_outside_the_space_is_the_optimizers_error() -> None:
    """An optimizer that returns x = 99 for Real(-5, 5): the run stops with
    SuggestionError naming the value, instead of evaluating it and failing the trial
    as if the objective had raised."""

    class OutOfBounds(tf.Optimizer):
        def suggest(self, space, history, n, rng):  # type: ignore[no-untyped-def]
            return [tf.Config({"x": 99.0, "k": "a"})]

    study = tf.Study.create(space=SPACE, algo=OutOfBounds(), seed=0)
    with pytest.raises(tf.SuggestionError, match=r"OutOfBounds.*x=99"):
        study.optimize(quadratic, 5)
    assert [t.state for t in study.trials] == [TrialState.FAILED]


def test_a_storage_that_refuses_every_claim_stops_the_run_instead_of_spinning() -> None:
    """A write the storage refuses for good (a read-only database file, a full
    disk) is no failed evaluation: the loop caught it under ``catch``, counted
    nothing, and claimed again forever at full CPU. It propagates now, and an
    error building a claimed trial's value is still the objective's."""
    study = tf.Study.create(space=SPACE, seed=0)
    calls = []

    def refuse(*args: object, **kwargs: object) -> None:
        calls.append(args)
        raise StorageError("attempt to write a readonly database")

    study.storage.claim_trial = refuse  # type: ignore[method-assign]
    with pytest.raises(StorageError, match="readonly"):
        study.optimize(quadratic, 5)
    assert len(calls) == 1


def test_random_search_ask_reads_no_history() -> None:
    study = tf.Study.create(space=SPACE, algo="random", seed=0)
    study.optimize(quadratic, 5)
    storage = study.storage
    calls = []
    original = storage.get_trials

    def spy(*args: object, **kwargs: object) -> object:
        calls.append(args)
        return original(*args, **kwargs)  # type: ignore[arg-type]

    storage.get_trials = spy  # type: ignore[method-assign]
    trial = study.ask()
    study.tell(trial, 1.0)
    assert calls == []


def test_with_many_trials_running_a_read_fetches_only_the_trials_that_changed(tmp_path: Path) -> None:
    """Forty trials run while the study asks and records: each read returns the
    trials written since the last one, never the forty unchanged, and the study
    sees what a fresh process reading everything sees."""
    db = tmp_path / "s.db"
    study = tf.Study.create("s", space=SPACE, storage=db, seed=0)
    study.optimize(quadratic, 12)
    running = [study.ask() for _ in range(40)]
    returned: list[int] = []
    original = study.storage.get_trials

    def spy(*args: object, **kwargs: object) -> list:
        records = original(*args, **kwargs)  # type: ignore[arg-type]
        returned.append(len(records))
        return records

    study.storage.get_trials = spy  # type: ignore[method-assign]
    for trial in running[:5]:
        study.tell(trial, quadratic(trial.value))
        study.tell(study.ask(), 1.0)
    assert returned and max(returned) <= 6, returned
    fresh = tf.Study.load("s", space=SPACE, storage=db)
    assert study.trials == fresh.trials
    assert sum(t.state is TrialState.RUNNING for t in study.trials) == 35


@pytest.mark.parametrize(
    ("algo", "total", "stops"), [("tpe", 30, (12, 25)), (tf.GP(n_startup=4, n_candidates=64, n_starts=2), 10, (3, 7))]
)
def test_resume_continues_the_same_sequence(tmp_path: Path, algo: object, total: int, stops: tuple) -> None:
    """Stopped inside the start-up design and again once the model proposes, the
    resumed study makes the trials of an uninterrupted one."""
    db = tmp_path / "s.db"
    full = tf.Study.create("full", space=SPACE, storage=db, seed=5, algo=algo)  # type: ignore[arg-type]
    full.optimize(quadratic, total)
    tf.Study.create("part", space=SPACE, storage=db, seed=5, algo=algo).optimize(quadratic, stops[0])  # type: ignore[arg-type]
    tf.Study.load("part", space=SPACE, storage=db).optimize(quadratic, stops[1])
    resumed = tf.Study.load("part", space=SPACE, storage=db)
    resumed.optimize(quadratic, total)
    assert len(resumed.trials) == total
    assert [dict(t.params) for t in resumed.trials] == [dict(t.params) for t in full.trials]


def test_to_dataframe_has_one_row_per_trial() -> None:
    pytest.importorskip("pandas")
    study = tf.Study.create(space=SPACE, seed=0)
    study.optimize(quadratic, 5)
    df = study.to_dataframe()
    assert list(df["number"]) == [0, 1, 2, 3, 4]
    assert {"value", "state", "params.x", "params.k"} <= set(df.columns)


def test_recommended_trial_is_the_best_trial_without_a_model() -> None:
    from treefarm import Real, Study

    study = Study.create(space={"x": Real(0, 1)}, algo="random", seed=0)
    study.optimize(lambda v: v["x"], n_trials=10)
    assert study.recommended_trial.number == study.best_trial.number


@pytest.mark.parametrize("algo", ["random", "tpe", "anneal"])
def test_no_configuration_of_a_finite_space_is_evaluated_twice_while_one_is_unseen(algo: str) -> None:
    """Random search reads no history to suggest; on a space of 20 points it still
    never repeats one (it did: 11-13 distinct of 20 trials)."""
    space = {"i": tf.Int(0, 9), "k": tf.Choice("a", "b")}
    for seed in range(3):
        study = tf.Study.create(space=space, algo=algo, seed=seed)
        study.optimize(lambda p: p["i"] + (p["k"] == "b"), 14)
        assert len({json.dumps(dict(t.params), sort_keys=True) for t in study.trials}) == 14


def test_an_enqueue_with_a_bad_user_attribute_queues_nothing() -> None:
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)
    with pytest.raises(StorageError, match=r"user_attrs\['score'\]"):
        study.enqueue({"x": 0.25}, user_attrs={"source": "me", "score": float("nan")})
    assert study.trials == []


def test_an_enqueued_trial_and_its_user_attributes_are_one_write(tmp_path: Path) -> None:
    """A worker killed between two writes must not leave a queued trial without
    the attributes it was queued with (a warm start's source, a hint's author):
    with the attribute writes failing, the trial is still queued whole."""
    study = tf.Study.create("s", space={"x": tf.Real(0.0, 1.0)}, storage=tmp_path / "s.db", seed=0)

    def killed(*args: object, **kwargs: object) -> None:
        raise RuntimeError("worker killed")

    study.storage.set_trial_user_attr = killed  # type: ignore[method-assign]
    number = study.enqueue({"x": 0.25}, user_attrs={"source": "me"})
    again = tf.Study.load("s", space={"x": tf.Real(0.0, 1.0)}, storage=tmp_path / "s.db")
    assert [dict(t.user_attrs) for t in again.trials] == [{"source": "me"}]
    assert again.trials[0].number == number and dict(again.trials[0].params) == {"x": 0.25}


def test_one_sqlite_file_opened_as_a_path_and_as_a_relative_url_is_one_study(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    space = {"x": tf.Real(0.0, 1.0)}
    by_path = tf.Study.create("s", space=space, storage="same.db", seed=0)
    by_url = tf.Study.load("s", space=space, storage="sqlite:///same.db")
    trial = by_path.ask()
    by_url.tell(trial, 0.5)
    assert by_path.best_value == 0.5


def test_loading_from_a_missing_sqlite_file_names_it_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match=r"must exist.*name='s'.*typo\.db"):
        tf.Study.load("s", space={"x": tf.Real(0.0, 1.0)}, storage=tmp_path / "typo.db")
    assert not (tmp_path / "typo.db").exists()


def test_wrong_calls_name_the_argument_and_record_nothing(tmp_path: Path) -> None:
    study = tf.Study.create("s", space={"x": tf.Real(0.0, 1.0)}, storage=tmp_path / "s.db", seed=0)
    trial = study.ask()
    with pytest.raises(StudyError, match=r"state must be one of \['complete', 'failed', 'pruned'\].*state='done'"):
        study.tell(trial, 1.0, state="done")
    with pytest.raises(StudyError, match=r"a Trial or a trial number.*trial='0'"):
        study.tell("0", 1.0)  # type: ignore[arg-type]
    with pytest.raises(StudyError, match=r"hint's id.*hint_id='1'"):
        study.remove_hint("1")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="bad"):
        study.hint({"x": 0.5}, bad="yes")  # type: ignore[arg-type]
    with pytest.raises(StudyError, match=r"warm_start must be a list of studies.*warm_start='s'"):
        tf.Study.create("t", space={"x": tf.Real(0.0, 1.0)}, storage=tmp_path / "s.db", warm_start="s")  # type: ignore[arg-type]
    assert study.storage.get_trial(study.study_id, trial.number).state is TrialState.RUNNING
    assert study.hints == [] and [s.name for s in study.storage.list_studies()] == ["s"]
    study.hint({"x": 0.5}, credibility=np.float32(0.5))  # NumPy numbers are numbers
    assert study.hints[0].credibility == 0.5


def test_a_trial_told_pruned_with_a_value_keeps_it() -> None:
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)
    stopped, silent = study.ask(), study.ask()
    study.tell(stopped, 0.3, state="pruned")
    study.tell(silent, state="pruned")
    records = {t.number: t for t in study.trials}
    assert (records[stopped.number].state, records[stopped.number].value) == (TrialState.PRUNED, 0.3)
    assert records[silent.number].value is None
    assert [o.loss for o in study.history().complete] == [0.3]


def test_every_result_of_a_batch_is_stored_before_an_error_stops_the_study() -> None:
    """Two trials run together; one raises an uncaught error, or a callback raises on
    the first: the other's value is still stored (it was failed with the other's error)."""
    def objective(p: dict) -> float:
        if p["x"] < 0.5:
            raise RuntimeError("below half")
        return p["x"]

    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)
    study.enqueue({"x": 0.1})
    study.enqueue({"x": 0.9})
    with pytest.raises(RuntimeError, match="below half"):
        study.optimize(objective, 2, n_jobs=2, backend="thread", catch=(ValueError,))
    assert [(t.state, t.value) for t in study.trials] == [(TrialState.FAILED, None), (TrialState.COMPLETE, 0.9)]

    def callback(study: tf.Study, record: object) -> None:
        raise ValueError("callback broke")

    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)
    with pytest.raises(ValueError, match="callback broke"):
        study.optimize(lambda p: p["x"], 2, n_jobs=2, backend="thread", callbacks=[callback])
    assert [t.state for t in study.trials] == [TrialState.COMPLETE, TrialState.COMPLETE]


def test_an_optuna_style_objective_is_refused_before_any_trial() -> None:
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)
    with pytest.raises(StudyError, match=r"def objective\(params, trial\).*objective\(trial\)"):
        study.optimize(lambda trial: 0.0, 2)
    assert study.trials == []


@pytest.mark.parametrize("objective", [lambda p, t: 0.0, lambda p, trial, extra: 0.0, lambda **kwargs: 0.0])
def test_an_objective_that_cannot_be_called_with_the_value_is_refused_before_any_trial(objective: object) -> None:
    """The trial is passed by name: objective(p, t) would fail every trial with a TypeError."""
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)
    with pytest.raises(StudyError, match=r"objective\(params, trial=trial\).*name the trial's parameter trial"):
        study.optimize(objective, 2)  # type: ignore[arg-type]
    assert study.trials == []


def test_a_report_beyond_float_range_is_refused_by_name() -> None:
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)
    trial = study.ask()
    with pytest.raises(StudyError, match="finite number or NaN"):
        trial.report(1, 10**400)
    trial.report(np.int64(2), 0.5)  # a NumPy step is a step


def test_a_report_step_that_goes_backwards_is_refused_naming_both_steps() -> None:
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)
    trial = study.ask()
    trial.report(5, 0.5)
    trial.report(5, 0.4)  # the same step again replaces its value
    with pytest.raises(StudyError, match=r"must not go backwards, but got step=3 after step=5 on trial 0"):
        trial.report(3, 0.3)
    trial.report(6, 0.2)
    study.tell(trial, 0.2)
    assert dict(study.storage.get_trial(study.study_id, 0).intermediate) == {5: 0.4, 6: 0.2}


def test_catch_takes_one_class_and_names_a_bad_value() -> None:
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)
    study.optimize(lambda p: 1 / 0, 2, catch=ZeroDivisionError)  # one class alone
    assert [t.state for t in study.trials] == [TrialState.FAILED, TrialState.FAILED]
    with pytest.raises(StudyError, match=r"catch must be exception classes.*catch=\('ValueError',\)"):
        study.optimize(lambda p: 0.0, 4, catch=("ValueError",))
    assert len(study.trials) == 2


@pytest.mark.parametrize("algo", ["random", "tpe", "gp", "anneal", "grammar", "auto"])
def test_no_optimizer_proposes_an_option_of_prior_weight_zero(algo: str) -> None:
    """A weight of 0 puts a choice value or a join option outside the prior's
    support, yet the GP's rounding and the mutations of annealing and grammar
    search proposed it (it is the best option here: the GP in 35 of 40 trials)."""
    space = {
        "c": tf.Choice("a", "b", "c", weights=[1, 1, 0]),
        "x": tf.Real(0, 1),
        "j": tf.Join(p={"u": tf.Real(0, 1)}, q={"v": tf.Real(0, 1)}, weights=[0, 1]),
    }
    study = tf.Study.create(space=space, algo=algo, seed=0)
    study.optimize(lambda v: (v["x"] - 0.3) ** 2 + {"a": 0.5, "b": 0.2, "c": 0.0}[v["c"]], n_trials=30)
    assert all(t.params["c"] != "c" and t.params["j"] == "q" for t in study.trials)


def test_an_option_of_weight_zero_can_still_be_enqueued() -> None:
    space = {"c": tf.Choice("a", "b", weights=[1, 0])}
    study = tf.Study.create(space=space, algo="gp", seed=0)
    study.enqueue({"c": "b"})
    study.optimize(lambda v: {"a": 1.0, "b": 0.0}[v["c"]], n_trials=3)
    assert [t.params["c"] for t in study.trials] == ["b", "a", "a"]


def test_a_gp_drawn_back_from_a_zero_weight_option_evaluates_no_configuration_twice() -> None:
    """The GP kept proposing the best option, of weight 0; drawn again from the prior
    each time, its suggestions met evaluated points and, with only those passed back
    as pending, 30 trials held 17 distinct configurations (one evaluated 5 times)."""
    space = {"c": tf.Choice("a", "b", "z", weights=[1, 1, 0]), "k": tf.Int(0, 99)}
    study = tf.Study.create(space=space, algo="gp", seed=0)
    study.optimize(lambda v: abs(v["k"] - 40) / 10 + {"a": 1.0, "b": 0.5, "z": 0.0}[v["c"]], n_trials=30)
    configs = [json.dumps(dict(t.params), sort_keys=True) for t in study.trials]
    assert len(set(configs)) == 30 and not any(t.params["c"] == "z" for t in study.trials)
