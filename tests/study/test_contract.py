"""The study contract under wrong calls, reopenings and other workers: each test
reproduces a way the record could be silently corrupted or misread."""

from __future__ import annotations

import logging
import math
import operator
import sqlite3
import time
from pathlib import Path

import pytest

import treefarm as tf
from treefarm.exceptions import StorageError, StudyError, TrialStateError
from treefarm.execution.liveness import identity
from treefarm.optimizers.base import variant
from treefarm.storage import TrialState, open_storage
from treefarm.study.ask.asking import Asker

SPACE = {"x": tf.Real(-5.0, 5.0), "k": tf.Choice("a", "b")}


def quadratic(p: dict) -> float:
    return (p["x"] - 1.0) ** 2 + (0.5 if p["k"] == "b" else 0.0)


@pytest.fixture(params=["memory", "sqlite"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> object:
    return tf.InMemoryStorage() if request.param == "memory" else tmp_path / "s.db"


# ---------------------------------------------------------------- ownership
def test_telling_another_studys_trial_is_refused_naming_both(storage: object) -> None:
    a = tf.Study.create("a", space=SPACE, storage=storage, seed=0)
    b = tf.Study.create("b", space=SPACE, storage=a.storage, seed=0)
    trial_a, trial_b = a.ask(), b.ask()
    with pytest.raises(StudyError, match=r"study='a', trial_study='b', number=0"):
        a.tell(trial_b, 123.0)
    assert a.storage.get_trial(a.study_id, 0).state is TrialState.RUNNING
    a.tell(trial_a, 1.0)
    assert b.storage.get_trial(b.study_id, 0).state is TrialState.RUNNING


def test_a_finish_by_a_worker_that_no_longer_holds_the_trial_is_refused() -> None:
    storage = tf.InMemoryStorage()
    sid = storage.create_study("s", direction="minimize", seed=0, attrs={}).study_id
    mine = storage.claim_trial(sid, system_attrs={"worker": {"token": "me"}})
    assert mine is not None
    with pytest.raises(TrialStateError, match="holder='me'"):
        storage.finish_trial(sid, 0, state=TrialState.COMPLETE, value=1.0, owner="other")
    done = storage.finish_trial(sid, 0, state=TrialState.COMPLETE, value=1.0, owner="me")
    again = storage.finish_trial(sid, 0, state=TrialState.COMPLETE, value=1.0, owner="me")
    assert again == done  # a retried finish whose acknowledgement was lost records nothing twice
    with pytest.raises(TrialStateError):
        storage.finish_trial(sid, 0, state=TrialState.COMPLETE, value=2.0, owner="me")


def test_a_claim_lost_to_a_database_crash_is_made_again_without_touching_the_new_holder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # A PostgreSQL claim commits without waiting for the disk: a server crash before the
    # params are written loses it, and the number may meanwhile go to another worker.
    path = tmp_path / "s.db"
    study = tf.Study.create("s", space=SPACE, storage=path, algo="random", seed=0)
    other = open_storage(path)
    suggest = Asker._suggest
    crashed: list[int] = []

    def suggest_after_a_crash(self: Asker, number: int, **kwargs: bool) -> object:
        if not crashed:
            crashed.append(number)
            with sqlite3.connect(path) as db:
                db.execute("DELETE FROM treefarm_trials WHERE number = ?", (number,))
            taken = other.claim_trial(study.study_id, system_attrs={"worker": {"token": "other"}})
            assert taken is not None and taken.number == number
            other.set_trial_params(study.study_id, number, {"x": 4.0, "k": "a"}, owner="other")
        return suggest(self, number, **kwargs)

    monkeypatch.setattr(Asker, "_suggest", suggest_after_a_crash)
    with caplog.at_level(logging.WARNING, logger="treefarm"):
        trial = study.ask()
    assert (crashed, trial.number) == ([0], 1)
    assert "trial 0 was lost before its configuration was written" in caplog.text
    assert dict(other.get_trial(study.study_id, 0).params) == {"x": 4.0, "k": "a"}
    study.tell(trial, 1.0)
    assert other.get_trial(study.study_id, 1).state is TrialState.COMPLETE
    other.close()


def test_a_worker_writing_the_same_suggestion_first_makes_this_one_suggest_again(
    storage: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two workers suggest from one history at one instant: the other's write lands between
    # this worker's last read and its own write. The configuration is recorded once.
    study = tf.Study.create("s", space=SPACE, storage=storage, algo="gp", seed=0)
    study.optimize(quadratic, 6)
    store = study.storage
    write = type(store).set_trial_params
    raced: list[int] = []

    def other_worker_first(self: object, study_id: int, number: int, params: object, **kw: object) -> None:
        if not raced:
            taken = store.claim_trial(study_id, system_attrs={"worker": {"token": "other"}})
            assert taken is not None
            raced.append(taken.number)
            write(store, study_id, taken.number, params, owner="other")
        write(store, study_id, number, params, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(type(store), "set_trial_params", other_worker_first)
    trial = study.ask()
    other = store.get_trial(study.study_id, raced[0])
    assert trial.number != other.number and dict(trial.config) != dict(other.params)


# ---------------------------------------------------------------- reopening
def test_reopening_with_another_direction_is_an_error_naming_both(storage: object) -> None:
    tf.Study.create("s", space=SPACE, storage=storage, seed=0)
    with pytest.raises(StudyError, match=r"stored_direction='minimize', given_direction='maximize'"):
        tf.Study.create("s", space=SPACE, storage=storage, load_if_exists=True, direction="maximize")
    with pytest.raises(StudyError, match=r"stored_seed=0, given_seed=1"):
        tf.Study.create("s", space=SPACE, storage=storage, load_if_exists=True, seed=1)


def test_reopening_with_another_space_is_refused_unless_allowed_and_recorded(storage: object) -> None:
    study = tf.Study.create("s", space=SPACE, storage=storage, seed=0)
    study.optimize(quadratic, 5)
    wider = {"x": tf.Real(-10.0, 10.0), "k": tf.Choice("a", "b")}
    with pytest.raises(StudyError, match=r"must keep its space.*allow_space_change=True.*R\[-10") as refused:
        tf.Study.create("s", space=wider, storage=storage, load_if_exists=True)
    assert "changed=['x: R[-5:5] -> R[-10:10]']" in str(refused.value)  # the address that changed, named
    assert "removed" not in str(refused.value) and "added" not in str(refused.value)
    narrower = {"x": tf.Real(-5.0, 5.0), "k": tf.Choice("a", "b"), "n": tf.Int(1, 3)}
    with pytest.raises(StudyError, match=r"added=\['n'\]"):
        tf.Study.create("s", space=narrower, storage=storage, load_if_exists=True)
    with pytest.raises(StudyError, match="must keep its space"):
        tf.Study.load("s", space=wider, storage=study.storage)
    reopened = tf.Study.create("s", space=wider, storage=study.storage, load_if_exists=True, allow_space_change=True)
    changes = reopened.storage.get_study("s").attrs["changes"]
    assert "R[-10:10]" in changes[-1]["space"]
    reopened.optimize(quadratic, 8)
    assert reopened.best_value == min(t.value for t in reopened.trials if t.value is not None)


def test_a_gp_study_reopened_without_algo_continues_with_the_gp_and_its_options(storage: object) -> None:
    gp = tf.GP(acquisition="ucb", n_startup=4)
    tf.Study.create("s", space=SPACE, storage=storage, algo=gp, seed=0)
    for reopened in (
        tf.Study.load("s", space=SPACE, storage=storage),
        tf.Study.create("s", space=SPACE, storage=storage, load_if_exists=True),
    ):
        assert repr(reopened.optimizer) == repr(gp)
    switched = tf.Study.load("s", space=SPACE, storage=storage, algo="random")
    assert isinstance(switched.optimizer, tf.RandomSearch)
    record = switched.storage.get_study("s")
    assert record.attrs["optimizer"]["algo"] == "random" and record.attrs["changes"][-1]["optimizer"]["algo"] == "random"


def test_a_space_whose_keys_trade_their_ranges_is_another_space(tmp_path: Path) -> None:
    """The fingerprint pairs each key with its sub-space: swapping two keys' ranges
    is refused on reopening, listing the same keys in another order is not."""
    space = {"lr": tf.Real(1e-5, 1e-1, log=True), "momentum": tf.Real(0.8, 0.99)}
    swapped = {"lr": tf.Real(0.8, 0.99), "momentum": tf.Real(1e-5, 1e-1, log=True)}
    reordered = {"momentum": tf.Real(0.8, 0.99), "lr": tf.Real(1e-5, 1e-1, log=True)}
    tf.Study.create("s", space=space, storage=tmp_path / "s.db", seed=0)
    with pytest.raises(StudyError, match="must keep its space"):
        tf.Study.load("s", space=swapped, storage=tmp_path / "s.db")
    tf.Study.load("s", space=reordered, storage=tmp_path / "s.db")


def test_an_op_whose_positional_argument_changed_is_another_space(tmp_path: Path) -> None:
    """An op given positional and keyword sub-spaces: describing the keyword ones by
    name had dropped the positional ones, so Real(0, 1) -> Int(0, 100) went unseen."""
    model = tf.op(lambda depth, **kw: (depth, kw), name="model")
    tf.Study.create("s", space=model(tf.Real(0, 1), C=tf.Real(0, 1)), storage=tmp_path / "s.db", seed=0)
    with pytest.raises(StudyError, match="must keep its space"):
        tf.Study.load("s", space=model(tf.Int(0, 100), C=tf.Real(0, 1)), storage=tmp_path / "s.db")
    tf.Study.load("s", space=model(tf.Real(0, 1), C=tf.Real(0, 1)), storage=tmp_path / "s.db")


def test_a_fingerprint_stored_by_an_older_treefarm_is_accepted_and_updated(tmp_path: Path) -> None:
    from treefarm.space.fingerprint import fingerprint

    study = tf.Study.create("s", space=SPACE, storage=tmp_path / "s.db", seed=0)
    older = fingerprint(study.space, legacy=True)
    assert older != fingerprint(study.space)
    study.storage.set_study_attr(study.study_id, "space_fingerprint", older)
    tf.Study.load("s", space=SPACE, storage=tmp_path / "s.db")
    assert study.storage.get_study("s").attrs["space_fingerprint"] == fingerprint(study.space)


def test_an_optimizer_that_cannot_be_rebuilt_must_be_named_again(tmp_path: Path) -> None:
    tpe = tf.TPE(gamma=lambda n: 0.3)
    tf.Study.create("s", space=SPACE, storage=tmp_path / "s.db", algo=tpe, seed=0)
    with pytest.raises(StudyError, match="pass algo= to reopen"):
        tf.Study.load("s", space=SPACE, storage=tmp_path / "s.db")
    assert tf.Study.load("s", space=SPACE, storage=tmp_path / "s.db", algo=tpe).optimizer is tpe


# ---------------------------------------------------------------- recovery
def _running(storage: tf.Storage, sid: int, *, worker: dict, stale_after: float, age: float) -> int:
    record = storage.claim_trial(sid, system_attrs={"worker": worker, "stale_after": stale_after})
    assert record is not None
    storage.set_trial_params(sid, record.number, {"x": 0.0, "k": "a"})
    if age:
        time.sleep(age)
    return record.number


def test_opening_and_reading_a_study_never_fails_live_trials(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    study = tf.Study.create("s", space=SPACE, storage=db, seed=0)
    other_host = {"host": "elsewhere", "pid": 1, "token": "t", "namespace": "other", "start": 1}
    n = _running(study.storage, study.study_id, worker=other_host, stale_after=0.05, age=0.1)
    tf.Study.load("s", space=SPACE, storage=db)
    tf.Study.create("s", space=SPACE, storage=db, load_if_exists=True)
    assert study.storage.get_trial(study.study_id, n).state is TrialState.RUNNING
    assert study.recover() == [n]  # the explicit step does it


def test_a_trial_is_judged_stale_by_its_own_workers_interval_not_the_readers(tmp_path: Path) -> None:
    study = tf.Study.create("s", space=SPACE, storage=tmp_path / "s.db", seed=0, heartbeat_interval=0.01)
    slow_worker = {"host": "elsewhere", "pid": 1, "token": "t", "namespace": "other", "start": 1}
    n = _running(study.storage, study.study_id, worker=slow_worker, stale_after=600.0, age=0.1)
    assert study.recover() == []  # the reader's 0.06 s would call it dead; the worker's 600 s does not
    assert study.storage.get_trial(study.study_id, n).state is TrialState.RUNNING


def test_a_pid_is_checked_only_in_the_same_pid_namespace(tmp_path: Path) -> None:
    study = tf.Study.create("s", space=SPACE, storage=tmp_path / "s.db", seed=0)
    me = identity()
    dead_pid = 2**22 + 12345  # above any pid_max: no such process
    container = {**me, "pid": dead_pid, "token": "c", "namespace": "another-container"}
    here = {**me, "pid": dead_pid, "token": "h"}
    in_container = _running(study.storage, study.study_id, worker=container, stale_after=600.0, age=0)
    local = _running(study.storage, study.study_id, worker=here, stale_after=600.0, age=0)
    assert study.recover() == [local]
    assert study.storage.get_trial(study.study_id, in_container).state is TrialState.RUNNING


# ---------------------------------------------------------------- budgets
def test_the_budget_is_the_studys_total_across_calls(storage: object) -> None:
    study = tf.Study.create("s", space=SPACE, storage=storage, seed=0)
    study.optimize(quadratic, 6)
    study.optimize(quadratic, 6)
    assert len(study.trials) == 6
    study.optimize(quadratic, 10, n_new_trials=2)
    assert len(study.trials) == 8
    result = tf.minimize(quadratic, SPACE, max_evals=10, storage=study.storage, study_name="s")
    assert result.n_trials == 10 and len(result.trials) == 10
    assert "n_trials=10" in repr(result)


def test_two_minimize_calls_on_one_study_share_its_budget(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    db = tmp_path / "s.db"
    tf.Study.create("s", space=SPACE, storage=db, seed=0)
    with ThreadPoolExecutor(2) as pool:
        runs = [
            pool.submit(tf.minimize, quadratic, SPACE, max_evals=40, storage=db, study_name="s") for _ in range(2)
        ]
        results = [r.result() for r in runs]
    numbers = [t.number for t in results[0].study.trials]
    assert numbers == list(range(40))


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_max_evals_must_be_a_positive_integer(bad: object) -> None:
    with pytest.raises(StudyError, match=f"max_evals must be an integer >= 1, but got max_evals={bad!r}"):
        tf.minimize(quadratic, SPACE, max_evals=bad, storage=None)  # type: ignore[arg-type]


# ---------------------------------------------------------------- saying why
def test_when_every_trial_fails_the_error_quotes_the_first_and_last_reasons() -> None:
    calls = iter(range(100))

    def broken(p: dict) -> float:
        raise ValueError(f"bad input {next(calls)}")

    with pytest.raises(StudyError, match=r"all 4 finished trials failed \(first trial 0: ValueError: bad input 0; "
                       r"last trial 3: ValueError: bad input 3\)"):
        tf.minimize(broken, SPACE, max_evals=4, storage=None)


def test_an_objective_returning_a_mapping_with_mixed_keys_fails_only_its_trial() -> None:
    outputs = iter([{1: 0.5, "a": 2}, 1.0])
    study = tf.Study.create(space=SPACE, seed=0)
    study.optimize(lambda p: next(outputs), 2)
    first, second = study.trials
    assert first.state is TrialState.FAILED and "without 'loss'" in first.system_attrs["fail_reason"]
    assert "1" in first.system_attrs["fail_reason"] and second.state is TrialState.COMPLETE


def test_a_nan_intermediate_value_is_recorded() -> None:
    study = tf.Study.create(space=SPACE, seed=0)
    trial = study.ask()
    trial.report(0, 1.0)
    trial.report(1, math.nan)
    with pytest.raises(StudyError, match="finite number or NaN"):
        trial.report(2, math.inf)
    study.tell(trial, 1.0)
    steps = study.trials[0].intermediate
    assert steps[0] == 1.0 and math.isnan(steps[1])


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("space", [5, object(), "text", {"a": 1}])
def test_a_space_without_decisions_is_refused(space: object) -> None:
    with pytest.raises(StudyError, match="at least one decision"):
        tf.Study.create(space=space)
    with pytest.raises(StudyError, match="at least one decision"):
        tf.minimize(lambda p: 0.0, space, max_evals=3, storage=None)


def test_a_postgresql_url_without_its_driver_says_what_to_install() -> None:
    with pytest.raises(StorageError, match=r"pip install 'treefarm\[postgres\]'"):
        open_storage("postgresql+pg8000://user@127.0.0.1:1/db")


# ---------------------------------------------------------------- read-only
def test_reading_a_missing_file_is_refused_and_creates_nothing(tmp_path: Path) -> None:
    typo = tmp_path / "typo.db"
    with pytest.raises(StorageError, match=f"must exist, but got path='{typo}'"):
        open_storage(typo, read_only=True)
    assert not typo.exists()


def test_a_read_only_storage_refuses_writes_and_works_in_a_read_only_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    study = tf.Study.create("s", space=SPACE, storage=folder / "s.db", seed=0)
    study.optimize(quadratic, 3)
    study.storage.close()
    folder.chmod(0o555)
    try:
        reader = open_storage(folder / "s.db", read_only=True)
        assert [s.name for s in reader.list_studies()] == ["s"]
        assert len(reader.get_trials(reader.get_study("s").study_id)) == 3
        with pytest.raises(StorageError, match="read_only=True"):
            reader.create_study("t", direction="minimize", seed=0, attrs={})
    finally:
        folder.chmod(0o755)


# ---------------------------------------------------------------- best params
def test_best_params_never_runs_the_objective() -> None:
    calls: list[dict] = []

    def f(p: dict) -> float:
        calls.append(p)
        return quadratic(p)

    result = tf.minimize(None, tf.op(f)(SPACE), max_evals=5, storage=None, seed=0)
    assert len(calls) == 5
    expected = {address.split(".", 1)[1]: value for address, value in result.best_config.items()}
    assert result.best_params == expected and result.study.best_params == result.best_params
    assert len(calls) == 5


def test_best_params_of_a_grammar_is_the_expression_uncalled() -> None:
    calls: list[tuple] = []

    def add(a: int, b: int) -> int:
        calls.append((a, b))
        return operator.add(a, b)

    f = tf.op(add, name="add")
    G = tf.Var("G", max_depth=3)
    G.define(f(G, G) | tf.Int(1, 9))
    study = tf.Study.create(space=G, seed=0, algo="random")
    study.optimize(lambda value: abs(value - 12), 10)
    before = len(calls)
    text = repr(study.best_params)
    assert len(calls) == before
    assert text.startswith("add(") or text.isdigit()
    assert eval(text, {"add": operator.add}) == tf.build(G, study.best_config)


def test_a_composite_optimizer_is_stored_and_rebuilt_with_its_parts(tmp_path: Path) -> None:
    auto = variant(tf.Auto, {"patience": 7}, gp=tf.GP(acquisition="ucb"), tpe=tf.TPE(n_startup=5))
    tf.Study.create("s", space=SPACE, storage=tmp_path / "s.db", algo=auto, seed=0)
    reopened = tf.Study.load("s", space=SPACE, storage=tmp_path / "s.db")
    assert repr(reopened.optimizer) == repr(auto)


def test_an_asked_trial_stays_alive_until_it_is_told(tmp_path: Path) -> None:
    """ask/tell with an evaluation longer than the trial's stale_after, in a study
    another worker recovers: the asking process is alive, so its trial is kept."""
    db = tmp_path / "s.db"
    study = tf.Study.create("s", space=SPACE, storage=db, seed=0, heartbeat_interval=0.05)
    trial = study.ask()
    time.sleep(0.6)  # two stale_afters (6 x 0.05 s)
    other = tf.Study.load("s", space=SPACE, storage=db)
    assert other.recover() == []
    study.tell(trial, 0.123)
    assert study.storage.get_trial(study.study_id, trial.number).value == 0.123
    time.sleep(0.15)  # nothing left to beat: the keep-alive thread ends
    assert study._keep_alive._thread is None


def test_a_running_trial_is_beaten_once_per_interval(tmp_path: Path) -> None:
    """After an ask/tell, optimize's trials were beaten twice per interval (the
    ask's keep-alive thread and optimize's own), each beat a write transaction."""
    study = tf.Study.create("s", space=SPACE, storage=tmp_path / "s.db", seed=0, heartbeat_interval=0.05)
    study.tell(study.ask(), 1.0)
    beats: list[int] = []
    beat = study.storage.heartbeat
    study.storage.heartbeat = lambda sid, n: (beats.append(n), beat(sid, n))[1]  # type: ignore[method-assign]
    study.optimize(lambda p: time.sleep(0.5) or 0.0, n_trials=3)
    per_trial = [beats.count(n) for n in (1, 2)]
    assert all(5 <= k <= 15 for k in per_trial), per_trial  # 0.5 s / 0.05 s: about 10 (20 when beaten twice)


def test_a_tell_refused_after_a_recovery_says_why(tmp_path: Path) -> None:
    study = tf.Study.create("s", space=SPACE, storage=tmp_path / "s.db", seed=0)
    gone = {"host": "elsewhere", "pid": 1, "token": "t", "namespace": "other", "start": 1}
    n = _running(study.storage, study.study_id, worker=gone, stale_after=0.01, age=0.05)
    assert study.recover() == [n]
    with pytest.raises(TrialStateError, match=r"state='failed', fail_reason='stale heartbeat"):
        study.tell(n, 0.5)
