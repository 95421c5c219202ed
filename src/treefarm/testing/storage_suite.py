"""The conformance suite of :class:`treefarm.storage.Storage`: the contract as tests.

Use it by subclassing with a ``storage_factory`` fixture that returns a
callable giving a fresh, empty storage::

    class TestMyStorage(StorageSuite):
        @pytest.fixture
        def storage_factory(self) -> Iterator[Callable[[], Storage]]:
            yield MyStorage

Every test asserts behaviour the study layer relies on: dense numbering,
single finishing and claiming (also under threads), copies in and out, JSON
only, errors that name what was wrong and leave the storage unchanged, and
several objectives and constraints (:mod:`.storage_objectives`).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ..exceptions import ConfigError, DuplicateParamsError, StorageError, TrialStateError
from ..objectives import MAXIMIZE, MINIMIZE
from ..storage import REQUEUED, Storage, StudyRecord, TrialRecord, TrialState
from ..storage.checks import STALE_REASON, NotFoundError
from .storage_objectives import ObjectivesSuite

__all__ = ["StorageSuite"]

COMPLETE, FAILED, PRUNED = TrialState.COMPLETE, TrialState.FAILED, TrialState.PRUNED
RUNNING, WAITING = TrialState.RUNNING, TrialState.WAITING


def _study(storage: Storage, name: str = "s", **attrs: Any) -> StudyRecord:
    return storage.create_study(name, direction="minimize", seed=7, attrs=attrs)


def _complete(storage: Storage, study_id: int, value: float = 1.0) -> TrialRecord:
    number = storage.create_trial(study_id, params={"x": value}).number
    return storage.finish_trial(study_id, number, state=COMPLETE, value=value)


class StorageSuite(ObjectivesSuite):
    """Tests every Storage must pass; subclasses provide the ``storage_factory`` fixture
    (several objectives and constraints: :class:`.storage_objectives.ObjectivesSuite`)."""

    keeps_versions = False
    """Set by a subclass whose storage counts writes in :attr:`TrialRecord.version`."""

    @pytest.fixture
    def storage(self, storage_factory: Callable[[], Storage]) -> Iterator[Storage]:
        store = storage_factory()
        yield store
        store.close()

    # ----------------------------------------------------------------- studies
    def test_create_get_and_list_studies(self, storage: Storage) -> None:
        attrs: dict[str, Any] = {"space": "R(0, 1)", "n": [1, 2]}
        a = storage.create_study("a", direction=MINIMIZE, seed=3, attrs=attrs)
        b = storage.create_study("b", direction=MAXIMIZE, seed=None, attrs={})
        assert (a.name, a.direction, a.seed, dict(a.attrs)) == ("a", MINIMIZE, 3, attrs)
        assert a.study_id != b.study_id
        assert abs(a.created - time.time()) < 60
        assert storage.get_study("a") == a
        assert [s.name for s in storage.list_studies()] == ["a", "b"]

    def test_duplicate_study_is_refused_by_name_or_loaded(self, storage: Storage) -> None:
        first = _study(storage, "dup", algo="tpe")
        with pytest.raises(StorageError, match="dup"):
            _study(storage, "dup")
        loaded = storage.create_study("dup", direction="maximize", seed=1, attrs={}, load_if_exists=True)
        assert loaded == first
        assert len(storage.list_studies()) == 1

    def test_missing_study_is_a_key_error_naming_it(self, storage: Storage) -> None:
        with pytest.raises(NotFoundError, match="nowhere"):
            storage.get_study("nowhere")
        with pytest.raises(KeyError):
            storage.delete_study("nowhere")
        with pytest.raises(StorageError, match="study_id=12345"):
            storage.create_trial(12345, params={})

    def test_delete_study_removes_its_trials_only(self, storage: Storage) -> None:
        gone, kept = _study(storage, "gone"), _study(storage, "kept")
        _complete(storage, gone.study_id)
        _complete(storage, kept.study_id, 2.0)
        storage.delete_study("gone")
        assert [s.name for s in storage.list_studies()] == ["kept"]
        assert [t.value for t in storage.get_trials(kept.study_id)] == [2.0]
        again = _study(storage, "gone")
        assert storage.count_trials(again.study_id) == 0

    def test_study_attrs_are_set_one_key_at_a_time(self, storage: Storage) -> None:
        study = _study(storage, algo="tpe")
        storage.set_study_attr(study.study_id, "fingerprint", "abc")
        storage.set_study_attr(study.study_id, "algo", "gp")
        assert dict(storage.get_study("s").attrs) == {"algo": "gp", "fingerprint": "abc"}

    @pytest.mark.parametrize(
        ("kwargs", "named"),
        [
            ({"direction": "down", "seed": 1, "attrs": {}}, "direction='down'"),
            ({"direction": "minimize", "seed": 1.5, "attrs": {}}, "seed=1.5"),
            ({"direction": "minimize", "seed": 2**70, "attrs": {}}, "seed="),
            ({"direction": "minimize", "seed": 1, "attrs": {"f": object}}, "attrs\\['f'\\]"),
        ],
    )
    def test_bad_study_arguments_are_named(
        self, storage: Storage, kwargs: dict[str, Any], named: str
    ) -> None:
        with pytest.raises(StorageError, match=named):
            storage.create_study("bad", **kwargs)
        assert storage.list_studies() == []

    # ------------------------------------------------------- creating trials
    def test_numbers_are_dense_per_study(self, storage: Storage) -> None:
        a, b = _study(storage, "a"), _study(storage, "b")
        numbers_a = [storage.create_trial(a.study_id, params={}).number for _ in range(3)]
        numbers_b = [storage.create_trial(b.study_id, params={}, state=WAITING).number for _ in range(2)]
        assert numbers_a == [0, 1, 2]
        assert numbers_b == [0, 1]

    def test_running_trial_starts_now_and_waiting_does_not(self, storage: Storage) -> None:
        study = _study(storage)
        before = time.time()
        running = storage.create_trial(study.study_id, params={"x": 1}, system_attrs={"worker": "h:1"})
        waiting = storage.create_trial(study.study_id, params={"x": 2}, state=WAITING)
        assert running.state is RUNNING and waiting.state is WAITING
        assert running.started is not None and running.started >= before - 1
        assert running.heartbeat == running.started and running.finished is None
        assert waiting.started is None and waiting.heartbeat is None
        assert dict(running.system_attrs) == {"worker": "h:1"}
        assert storage.get_trial(study.study_id, 0) == running

    def test_a_trial_is_created_with_its_user_attributes(self, storage: Storage) -> None:
        study = _study(storage)
        queued = storage.create_trial(study.study_id, params={"x": 1}, state=WAITING, user_attrs={"source": "a"})
        assert dict(queued.user_attrs) == {"source": "a"}
        assert storage.get_trial(study.study_id, 0) == queued
        with pytest.raises(StorageError, match="user_attrs"):
            storage.create_trial(study.study_id, params={"x": 2}, user_attrs={"bad": float("nan")})
        assert [t.number for t in storage.get_trials(study.study_id)] == [0]

    def test_trials_cannot_be_born_finished(self, storage: Storage) -> None:
        study = _study(storage)
        with pytest.raises(TrialStateError, match="complete"):
            storage.create_trial(study.study_id, params={}, state=COMPLETE)
        assert storage.count_trials(study.study_id) == 0

    @pytest.mark.parametrize(
        ("params", "key"),
        [({"ok": 1, "bad": object()}, "bad"), ({"nan": math.nan}, "nan"), ({"s": {1, 2}}, "s")],
    )
    def test_params_must_be_json_and_the_key_is_named(
        self, storage: Storage, params: dict[str, Any], key: str
    ) -> None:
        study = _study(storage)
        with pytest.raises(ConfigError, match=f"params\\['{key}'\\]"):
            storage.create_trial(study.study_id, params=params)
        assert storage.count_trials(study.study_id) == 0

    def test_params_round_trip_as_json(self, storage: Storage) -> None:
        study = _study(storage)
        params: dict[str, Any] = {
            "lr": 1e-3,
            "n": 3,
            "kind": "svm",
            "on": True,
            "none": None,
            "path": (1, [2, "x"]),
        }
        record = storage.create_trial(study.study_id, params=params)
        expected = {**params, "path": [1, [2, "x"]]}
        assert dict(record.params) == expected
        assert dict(storage.get_trial(study.study_id, 0).params) == expected
        assert isinstance(storage.get_trial(study.study_id, 0).params["n"], int)

    def test_records_are_copies_in_and_out(self, storage: Storage) -> None:
        study = _study(storage)
        params: dict[str, Any] = {"layers": [1, 2]}
        record = storage.create_trial(study.study_id, params=params)
        params["layers"].append(3)
        record.params["layers"].append(4)  # type: ignore[union-attr]
        record.system_attrs["x"] = 1  # type: ignore[index]
        fresh = storage.get_trial(study.study_id, 0)
        assert dict(fresh.params) == {"layers": [1, 2]} and dict(fresh.system_attrs) == {}

    # --------------------------------------------------------------- claiming
    def test_claim_takes_the_lowest_waiting_trial(self, storage: Storage) -> None:
        study = _study(storage)
        storage.create_trial(study.study_id, params={"x": 0})
        storage.create_trial(study.study_id, params={"x": 1}, state=WAITING, system_attrs={"enqueued": True})
        storage.create_trial(study.study_id, params={"x": 2}, state=WAITING)
        claimed = storage.claim_waiting_trial(study.study_id, system_attrs={"worker": "h:2"})
        assert claimed is not None and claimed.number == 1 and claimed.state is RUNNING
        assert dict(claimed.params) == {"x": 1}
        assert dict(claimed.system_attrs) == {"enqueued": True, "worker": "h:2"}
        assert claimed.started is not None and claimed.heartbeat is not None
        second = storage.claim_waiting_trial(study.study_id)
        assert second is not None and second.number == 2
        assert storage.claim_waiting_trial(study.study_id) is None

    # -------------------------------------------------------------- finishing
    def test_finish_records_value_and_merges_attrs(self, storage: Storage) -> None:
        study = _study(storage)
        storage.create_trial(study.study_id, params={}, system_attrs={"worker": "h:1"})
        storage.set_trial_user_attr(study.study_id, 0, "fold", 3)
        done = storage.finish_trial(
            study.study_id, 0, state=COMPLETE, value=0.25, user_attrs={"acc": 0.9}, system_attrs={"t": 1}
        )
        assert done.state is COMPLETE and done.value == 0.25
        assert done.finished is not None and done.started is not None and done.finished >= done.started
        assert dict(done.user_attrs) == {"fold": 3, "acc": 0.9}
        assert dict(done.system_attrs) == {"worker": "h:1", "t": 1}
        assert storage.get_trial(study.study_id, 0) == done

    def test_failed_and_pruned_need_no_value(self, storage: Storage) -> None:
        study = _study(storage)
        for state in (FAILED, PRUNED):
            number = storage.create_trial(study.study_id, params={}).number
            reason = {"fail_reason": "x"}
            done = storage.finish_trial(study.study_id, number, state=state, system_attrs=reason)
            assert done.state is state and done.value is None

    def test_tell_twice_raises_and_changes_nothing(self, storage: Storage) -> None:
        study = _study(storage)
        first = _complete(storage, study.study_id, 1.0)
        with pytest.raises(TrialStateError, match=r"number=0, state='complete'"):
            storage.finish_trial(study.study_id, 0, state=FAILED, user_attrs={"late": True})
        assert storage.get_trial(study.study_id, 0) == first

    def test_waiting_trial_cannot_be_finished(self, storage: Storage) -> None:
        study = _study(storage)
        waiting = storage.create_trial(study.study_id, params={}, state=WAITING)
        with pytest.raises(TrialStateError, match="state='waiting'"):
            storage.finish_trial(study.study_id, 0, state=COMPLETE, value=1.0)
        assert storage.get_trial(study.study_id, 0) == waiting

    @pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, None, "1.0"])
    def test_complete_needs_a_finite_value(self, storage: Storage, value: Any) -> None:
        study = _study(storage)
        running = storage.create_trial(study.study_id, params={})
        with pytest.raises(StorageError, match="value="):
            storage.finish_trial(study.study_id, 0, state=COMPLETE, value=value)
        assert storage.get_trial(study.study_id, 0) == running

    def test_finishing_as_running_is_refused(self, storage: Storage) -> None:
        study = _study(storage)
        running = storage.create_trial(study.study_id, params={})
        with pytest.raises(TrialStateError, match="state="):
            storage.finish_trial(study.study_id, 0, state=RUNNING)
        assert storage.get_trial(study.study_id, 0) == running

    def test_bad_attrs_leave_the_trial_running(self, storage: Storage) -> None:
        study = _study(storage)
        running = storage.create_trial(study.study_id, params={})
        with pytest.raises(StorageError, match="user_attrs\\['f'\\]"):
            bad: dict[str, Any] = {"f": print}
            storage.finish_trial(study.study_id, 0, state=COMPLETE, value=1.0, user_attrs=bad)
        assert storage.get_trial(study.study_id, 0) == running

    # ---------------------------------------------------- during the trial
    def test_set_params_while_running_only(self, storage: Storage) -> None:
        study = _study(storage)
        storage.create_trial(study.study_id, params={})
        storage.set_trial_params(study.study_id, 0, {"x": 0.5})
        assert dict(storage.get_trial(study.study_id, 0).params) == {"x": 0.5}
        storage.finish_trial(study.study_id, 0, state=COMPLETE, value=1.0)
        with pytest.raises(TrialStateError, match="number=0"):
            storage.set_trial_params(study.study_id, 0, {"x": 9})
        assert dict(storage.get_trial(study.study_id, 0).params) == {"x": 0.5}

    def test_set_params_with_an_owner_only_on_that_owners_running_trial(self, storage: Storage) -> None:
        study = _study(storage)
        mine = storage.claim_trial(study.study_id, system_attrs={"worker": {"token": "a"}})
        assert mine is not None
        storage.set_trial_params(study.study_id, mine.number, {"x": 0.5}, owner="a")
        with pytest.raises(TrialStateError, match="holder='a'"):
            storage.set_trial_params(study.study_id, mine.number, {"x": 9}, owner="b")
        waiting = storage.create_trial(study.study_id, params={"x": 1}, state=TrialState.WAITING)
        with pytest.raises(TrialStateError, match="state='waiting'"):
            storage.set_trial_params(study.study_id, waiting.number, {"x": 9}, owner="a")
        assert dict(storage.get_trial(study.study_id, mine.number).params) == {"x": 0.5}
        assert dict(storage.get_trial(study.study_id, waiting.number).params) == {"x": 1}

    def test_set_params_unique_from_refuses_a_concurrent_duplicate_atomically(self, storage: Storage) -> None:
        study = _study(storage)
        early = storage.create_trial(study.study_id, params={"x": 0.5})
        other = storage.create_trial(study.study_id, params={})
        mine = storage.create_trial(study.study_id, params={})
        storage.set_trial_params(study.study_id, mine.number, {"x": 0.5}, unique_from=other.number)
        storage.set_trial_params(study.study_id, other.number, {"x": 0.25})
        with pytest.raises(DuplicateParamsError, match=r"trial 2's params.*0\.25"):
            storage.set_trial_params(study.study_id, mine.number, {"x": 0.25}, unique_from=other.number)
        assert dict(storage.get_trial(study.study_id, mine.number).params) == {"x": 0.5}
        with pytest.raises(DuplicateParamsError):
            storage.set_trial_params(study.study_id, mine.number, {"x": 0.5}, unique_from=early.number)
        storage.set_trial_params(study.study_id, other.number, {"x": 0.25, "k": "a"})
        with pytest.raises(DuplicateParamsError):  # the same configuration in another key order
            storage.set_trial_params(study.study_id, mine.number, {"k": "a", "x": 0.25}, unique_from=other.number)
        storage.set_trial_params(study.study_id, mine.number, {"x": 0.75}, unique_from=0)
        assert dict(storage.get_trial(study.study_id, mine.number).params) == {"x": 0.75}

    def test_a_promotion_and_a_refund_write_their_system_attrs_in_the_same_step(self, storage: Storage) -> None:
        study = _study(storage)
        claimed = storage.claim_trial(study.study_id, system_attrs={"fidelity": 3.0}, cost=3.0)
        assert claimed is not None
        storage.set_trial_params(study.study_id, claimed.number, {"x": 0.5}, system_attrs={"continues": 7})
        assert storage.refund_trial_cost(study.study_id, claimed.number, 1.0, system_attrs={"resumed": True}) == 2.0
        trial = storage.get_trial(study.study_id, claimed.number)
        assert (trial.cost, trial.system_attrs["continues"], trial.system_attrs["resumed"]) == (2.0, 7, True)
        with pytest.raises(StorageError, match=r"at most the trial's cost, but got \(refund=3.0, cost=2.0\)"):
            storage.refund_trial_cost(study.study_id, claimed.number, 3.0)
        storage.finish_trial(study.study_id, claimed.number, state=TrialState.COMPLETE, value=1.0)
        with pytest.raises(TrialStateError, match="taking back its cost"):
            storage.refund_trial_cost(study.study_id, claimed.number, 1.0)

    def test_intermediate_values_by_step(self, storage: Storage) -> None:
        study = _study(storage)
        storage.create_trial(study.study_id, params={})
        for step, value in [(0, 3.0), (5, 2.0), (5, 1.5), (9, math.nan)]:
            storage.report_intermediate(study.study_id, 0, step, value)
        steps = dict(storage.get_trial(study.study_id, 0).intermediate)
        assert list(steps) == [0, 5, 9] and steps[0] == 3.0 and steps[5] == 1.5 and math.isnan(steps[9])
        done = storage.finish_trial(study.study_id, 0, state=PRUNED)
        assert set(done.intermediate) == {0, 5, 9}
        with pytest.raises(TrialStateError, match="state='pruned'"):
            storage.report_intermediate(study.study_id, 0, 10, 1.0)

    def test_user_attrs_in_any_state(self, storage: Storage) -> None:
        study = _study(storage)
        storage.create_trial(study.study_id, params={}, state=WAITING)
        storage.set_trial_user_attr(study.study_id, 0, "hint", "from the user")
        _complete(storage, study.study_id)
        storage.set_trial_user_attr(study.study_id, 1, "note", [1, 2])
        assert dict(storage.get_trial(study.study_id, 0).user_attrs) == {"hint": "from the user"}
        assert dict(storage.get_trial(study.study_id, 1).user_attrs) == {"note": [1, 2]}
        with pytest.raises(StorageError, match="user_attrs"):
            storage.set_trial_user_attr(study.study_id, 1, "bad", math.inf)

    def test_heartbeat_moves_forward_and_is_ignored_after_finish(self, storage: Storage) -> None:
        study = _study(storage)
        first = storage.create_trial(study.study_id, params={})
        time.sleep(0.01)
        storage.heartbeat(study.study_id, 0)
        beat = storage.get_trial(study.study_id, 0).heartbeat
        assert beat is not None and first.heartbeat is not None and beat > first.heartbeat
        done = storage.finish_trial(study.study_id, 0, state=COMPLETE, value=1.0)
        storage.heartbeat(study.study_id, 0)
        assert storage.get_trial(study.study_id, 0) == done
        with pytest.raises(NotFoundError, match="number=7"):
            storage.heartbeat(study.study_id, 7)

    def test_stale_trials_fail_and_fresh_ones_stay(self, storage: Storage) -> None:
        study = _study(storage)
        storage.create_trial(study.study_id, params={})
        _complete(storage, study.study_id)
        storage.create_trial(study.study_id, params={}, state=WAITING)
        assert storage.fail_stale_trials(study.study_id, grace=3600.0) == []
        time.sleep(0.02)
        assert storage.fail_stale_trials(study.study_id, grace=0.01) == [0]
        failed = storage.get_trial(study.study_id, 0)
        assert failed.state is FAILED and failed.finished is not None
        assert failed.system_attrs["fail_reason"] == STALE_REASON
        assert [t.state for t in storage.get_trials(study.study_id)] == [FAILED, COMPLETE, WAITING]
        assert storage.fail_stale_trials(study.study_id, grace=0.0) == []

    # ---------------------------------------------------------------- reading
    def test_claim_takes_the_queue_first_then_makes_new_trials(self, storage: Storage) -> None:
        sid = _study(storage).study_id
        storage.create_trial(sid, params={"x": 1}, state=WAITING)
        first = storage.claim_trial(sid, system_attrs={"worker": {"token": "a"}})
        second = storage.claim_trial(sid, system_attrs={"worker": {"token": "a"}})
        assert first is not None and second is not None
        assert (first.number, dict(first.params), first.state) == (0, {"x": 1}, RUNNING)
        assert (second.number, dict(second.params), second.state) == (1, {}, RUNNING)
        assert second.system_attrs == {"worker": {"token": "a"}} and second.heartbeat is not None

    def test_claims_stop_at_the_budget_and_waiting_trials_do_not_count(self, storage: Storage) -> None:
        sid = _study(storage).study_id
        storage.create_trial(sid, params={"x": 1}, state=WAITING)
        storage.create_trial(sid, params={"x": 2}, state=WAITING)
        claimed = [storage.claim_trial(sid, budget=3) for _ in range(5)]
        assert [c.number if c else None for c in claimed] == [0, 1, 2, None, None]
        storage.finish_trial(sid, 2, state=FAILED)
        assert storage.claim_trial(sid, budget=3) is None  # failed trials count
        assert storage.count_trials(sid) == 3 and storage.claim_trial(sid, budget=4) is not None

    def test_a_requeued_trial_takes_the_interrupted_ones_place_in_the_budget(self, storage: Storage) -> None:
        sid = _study(storage).study_id
        for _ in range(2):
            storage.claim_trial(sid, budget=2)
        storage.finish_trial(sid, 0, state=COMPLETE, value=1.0)
        storage.finish_trial(sid, 1, state=FAILED)  # its worker died
        storage.create_trial(sid, params={"x": 5}, state=WAITING)  # enqueued by a person: waits
        storage.create_trial(sid, params={"x": 7}, state=WAITING, system_attrs={REQUEUED: 1})
        rerun = storage.claim_trial(sid, budget=2)
        assert rerun is not None and (rerun.number, dict(rerun.params)) == (3, {"x": 7})
        assert storage.claim_trial(sid, budget=2) is None
        assert [t.state for t in storage.get_trials(sid)] == [COMPLETE, FAILED, WAITING, RUNNING]

    def test_threads_claiming_with_a_budget_make_exactly_that_many(self, storage: Storage) -> None:
        sid = _study(storage).study_id
        got: list[int] = []
        lock = threading.Lock()

        def work() -> None:
            while (record := storage.claim_trial(sid, budget=40)) is not None:
                with lock:
                    got.append(record.number)

        threads = [threading.Thread(target=work) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(got) == list(range(40)) and storage.count_trials(sid) == 40

    def test_a_finish_checks_the_owner_and_a_repeat_records_nothing_twice(self, storage: Storage) -> None:
        sid = _study(storage).study_id
        record = storage.claim_trial(sid, system_attrs={"worker": {"token": "mine"}})
        assert record is not None
        with pytest.raises(TrialStateError, match="holder='mine'"):
            storage.finish_trial(sid, 0, state=COMPLETE, value=1.0, owner="theirs")
        assert storage.get_trial(sid, 0).state is RUNNING
        done = storage.finish_trial(sid, 0, state=COMPLETE, value=1.0, user_attrs={"a": 1}, owner="mine")
        assert storage.finish_trial(sid, 0, state=COMPLETE, value=1.0, user_attrs={"a": 1}, owner="mine") == done
        with pytest.raises(TrialStateError, match="needs a running trial"):
            storage.finish_trial(sid, 0, state=FAILED, owner="mine")
        with pytest.raises(TrialStateError, match="needs a running trial"):
            storage.finish_trial(sid, 0, state=COMPLETE, value=1.0)

    def test_each_trial_is_stale_after_its_own_deadline(self, storage: Storage) -> None:
        sid = _study(storage).study_id
        patient = storage.claim_trial(sid, system_attrs={"stale_after": 3600.0})
        hasty = storage.claim_trial(sid, system_attrs={"stale_after": 0.05})
        unstated = storage.claim_trial(sid)
        assert patient and hasty and unstated
        time.sleep(0.15)
        assert storage.fail_stale_trials(sid, grace=0.1) == [hasty.number, unstated.number]
        assert storage.get_trial(sid, patient.number).state is RUNNING

    def test_hints_are_added_listed_and_removed_per_study(self, storage: Storage) -> None:
        a, b = _study(storage, "a").study_id, _study(storage, "b").study_id
        first = storage.add_hint(a, config={"x": 1.0}, credibility=0.5, author="ana")
        second = storage.add_hint(a, config={"k": "u"}, credibility=1.0, weight=-1, spread=0.3)
        storage.add_hint(b, config={"x": 2.0}, credibility=1.0)
        got = storage.get_hints(a)
        assert [(h.hint_id, dict(h.config), h.credibility, h.weight, h.spread, h.author) for h in got] == [
            (first.hint_id, {"x": 1.0}, 0.5, 1, 0.1, "ana"),
            (second.hint_id, {"k": "u"}, 1.0, -1, 0.3, None),
        ]
        storage.remove_hint(a, first.hint_id)
        assert [h.hint_id for h in storage.get_hints(a)] == [second.hint_id]
        with pytest.raises(NotFoundError, match=f"hint_id={first.hint_id}"):
            storage.remove_hint(a, first.hint_id)
        storage.delete_study("a")
        assert len(storage.get_hints(b)) == 1

    @pytest.mark.parametrize(
        ("kwargs", "name"), [({"credibility": -0.1}, "credibility"), ({"weight": 0}, "weight"), ({"spread": 2.0}, "spread")]
    )
    def test_bad_hints_are_refused_naming_the_field(self, storage: Storage, kwargs: dict, name: str) -> None:
        sid = _study(storage).study_id
        with pytest.raises(StorageError, match=f"{name} must be"):
            storage.add_hint(sid, config={"x": 1.0}, **{"credibility": 1.0, **kwargs})
        assert storage.get_hints(sid) == []

    def test_notes_are_rows_of_their_study_and_trial(self, storage: Storage) -> None:
        a, b = _study(storage, "a").study_id, _study(storage, "b").study_id
        number = storage.create_trial(a, params={}).number
        first = storage.add_note(a, text="look at this", author="ana")
        second = storage.add_note(a, text="this one", trial=number)
        storage.add_note(b, text="elsewhere")
        assert [(n.note_id, n.trial, n.text, n.author) for n in storage.get_notes(a)] == [
            (first.note_id, None, "look at this", "ana"),
            (second.note_id, number, "this one", None),
        ]
        with pytest.raises(NotFoundError):
            storage.add_note(a, text="on no trial", trial=99)
        with pytest.raises(StorageError, match="a note must be a text"):
            storage.add_note(a, text="  ")
        assert len(storage.get_notes(a)) == 2
        storage.delete_study("a")
        assert [n.text for n in storage.get_notes(b)] == ["elsewhere"]

    def test_get_trials_filters_and_orders(self, storage: Storage) -> None:
        study = _study(storage)
        for value in (3.0, 1.0, 2.0):
            _complete(storage, study.study_id, value)
        storage.create_trial(study.study_id, params={})
        storage.create_trial(study.study_id, params={}, state=WAITING)
        sid = study.study_id
        assert [t.number for t in storage.get_trials(sid)] == [0, 1, 2, 3, 4]
        assert [t.value for t in storage.get_trials(sid, states=[COMPLETE])] == [3.0, 1.0, 2.0]
        assert [t.number for t in storage.get_trials(sid, min_number=2)] == [2, 3, 4]
        assert [t.number for t in storage.get_trials(sid, states=[RUNNING, WAITING], min_number=4)] == [4]
        assert storage.get_trials(sid, states=[]) == []
        assert storage.count_trials(sid) == 5
        assert storage.count_trials(sid, states=[COMPLETE, WAITING]) == 4

    def test_get_trials_returns_every_trial_whose_version_the_caller_does_not_hold(self, storage: Storage) -> None:
        sid = _study(storage).study_id
        a = storage.create_trial(sid, params={"x": 1})
        b = storage.create_trial(sid, params={"x": 2})
        _complete(storage, sid)
        held = {r.number: r for r in storage.get_trials(sid)}
        known = {n: r.version for n, r in held.items()}
        writes: list[Callable[[], object]] = [
            lambda: storage.set_trial_params(sid, a.number, {"x": 3}),
            lambda: storage.report_intermediate(sid, a.number, 1, 0.5),
            lambda: storage.heartbeat(sid, a.number),
            lambda: storage.set_trial_user_attr(sid, a.number, "k", 1),
            lambda: storage.finish_trial(sid, a.number, state=COMPLETE, value=0.25),
        ]
        for write in writes:
            write()
            fresh = storage.get_trials(sid, known=known)
            assert a.number in {r.number for r in fresh}, write
            for r in fresh:  # what comes back is the trial as stored now
                assert r == storage.get_trial(sid, r.number)
                held[r.number] = r
            known = {n: r.version for n, r in held.items()}
        assert held == {r.number: r for r in storage.get_trials(sid)}
        assert held[b.number] == b

    def test_a_storage_with_versions_counts_every_write_and_skips_what_is_held(self, storage: Storage) -> None:
        sid = _study(storage).study_id
        if not self.keeps_versions:
            pytest.skip("this storage keeps no versions: it returns every trial")
        number = storage.create_trial(sid, params={"x": 1}).number
        versions = [storage.get_trial(sid, number).version]
        for write in (
            lambda: storage.report_intermediate(sid, number, 1, 0.5),
            lambda: storage.heartbeat(sid, number),
            lambda: storage.set_trial_user_attr(sid, number, "k", 1),
            lambda: storage.set_trial_params(sid, number, {"x": 2}),
            lambda: storage.finish_trial(sid, number, state=COMPLETE, value=1.0),
        ):
            write()
            versions.append(storage.get_trial(sid, number).version)
        assert versions == sorted(set(versions)), versions  # every write moved it
        other = storage.create_trial(sid, params={"x": 3})
        known = {number: versions[-1], other.number: other.version}
        assert storage.get_trials(sid, known=known) == []
        storage.heartbeat(sid, other.number)
        assert [r.number for r in storage.get_trials(sid, known=known)] == [other.number]

    def test_missing_trial_is_named(self, storage: Storage) -> None:
        study = _study(storage)
        with pytest.raises(NotFoundError, match="number=0"):
            storage.get_trial(study.study_id, 0)
        with pytest.raises(NotFoundError, match="number=3"):
            storage.finish_trial(study.study_id, 3, state=FAILED)

    # ------------------------------------------------------------ concurrency
    def test_threads_get_distinct_dense_numbers(self, storage: Storage) -> None:
        study = _study(storage)
        errors: list[BaseException] = []

        def work() -> None:
            try:
                for _ in range(15):
                    number = storage.create_trial(study.study_id, params={}).number
                    storage.finish_trial(study.study_id, number, state=COMPLETE, value=float(number))
            except BaseException as error:  # pragma: no cover - reported below
                errors.append(error)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        finished = storage.get_trials(study.study_id, states=[COMPLETE])
        assert [t.number for t in finished] == list(range(60))
        assert all(t.value == float(t.number) for t in finished)

    def test_threads_never_claim_one_trial_twice(self, storage: Storage) -> None:
        study = _study(storage)
        for i in range(24):
            storage.create_trial(study.study_id, params={"i": i}, state=WAITING)
        claimed: list[int] = []

        def work() -> None:
            while (record := storage.claim_waiting_trial(study.study_id)) is not None:
                claimed.append(record.number)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(claimed) == list(range(24))
        assert storage.count_trials(study.study_id, states=[RUNNING]) == 24
