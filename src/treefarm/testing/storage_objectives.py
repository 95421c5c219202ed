"""The part of the storage conformance suite about several objectives and constraints.

:class:`~treefarm.testing.storage_suite.StorageSuite` inherits these tests; they
need the same ``storage`` fixture. What they hold a storage to: a study keeps
one direction per objective (and their names, when given); a trial keeps one value per objective (``value``
is the first, so single-objective readers are unchanged) and its constraint
values, from which ``feasible`` follows; intermediate reports may be vectors;
values are finite as a single value must be (NaN and infinities refused for
COMPLETE trials, kept in intermediate reports), and a vector of the wrong length
is refused naming it and the length expected, leaving the trial as it was.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from ..exceptions import StorageError, TrialStateError
from ..objectives import MAXIMIZE, MINIMIZE, Objectives
from ..storage import Storage, TrialState

__all__ = ["ObjectivesSuite"]

COMPLETE, FAILED, PRUNED, RUNNING = TrialState.COMPLETE, TrialState.FAILED, TrialState.PRUNED, TrialState.RUNNING
TWO = (MINIMIZE, MAXIMIZE)


def _two(storage: Storage, name: str = "mo") -> int:
    return storage.create_study(name, directions=list(TWO), seed=1, attrs={}).study_id


class ObjectivesSuite:
    """Several objectives and constraints, as every Storage must keep them."""

    def test_a_study_keeps_one_direction_per_objective(self, storage: Storage) -> None:
        made = storage.create_study("mo", directions=list(TWO), seed=1, attrs={})
        assert made.objectives == Objectives(TWO) and made.direction == TWO[0]
        assert storage.get_study("mo") == made and storage.list_studies() == [made]
        assert storage.create_study("mo", direction=MAXIMIZE, seed=2, attrs={}, load_if_exists=True) == made
        single = storage.create_study("one", direction=MAXIMIZE, seed=1, attrs={})
        assert single.directions == (MAXIMIZE,)

    @pytest.mark.parametrize(
        ("kwargs", "named"),
        [
            ({"directions": ["minimize", "up"]}, "directions\\[1\\]='up'"),
            ({"directions": {"error": "minimize", "size": "down"}}, "directions\\['size'\\]='down'"),
            ({"directions": {"": "minimize"}}, "names\\[0\\]=''"),
            ({"directions": []}, "directions=\\[\\]"),
            ({"directions": "minimize"}, "directions='minimize'"),
            ({"direction": "minimize", "directions": ["minimize", "maximize"]}, "not both"),
            ({}, "direction or directions"),
        ],
    )
    def test_bad_directions_are_refused_naming_them(
        self, storage: Storage, kwargs: dict[str, Any], named: str
    ) -> None:
        with pytest.raises(StorageError, match=named):
            storage.create_study("bad", seed=1, attrs={}, **kwargs)
        assert storage.list_studies() == []

    def test_a_study_keeps_its_objectives_names(self, storage: Storage) -> None:
        made = storage.create_study("named", directions={"error": MINIMIZE, "size": MAXIMIZE}, seed=1, attrs={})
        assert made.objectives == Objectives(TWO, ("error", "size"))
        assert made.directions == TWO and made.names == ("error", "size")
        assert storage.get_study("named") == made and storage.list_studies() == [made]
        unnamed = storage.create_study("plain", directions=Objectives((MAXIMIZE,)), seed=1, attrs={})
        assert unnamed.names is None and unnamed.objectives == Objectives((MAXIMIZE,))

    def test_values_and_constraints_round_trip(self, storage: Storage) -> None:
        sid = _two(storage)
        storage.create_trial(sid, params={"x": 1})
        done = storage.finish_trial(sid, 0, state=COMPLETE, values=[0.5, 2], constraints=[-1.0, 0.25])
        assert (done.value, done.values, done.constraints, done.feasible) == (0.5, (0.5, 2.0), (-1.0, 0.25), False)
        assert storage.get_trial(sid, 0) == done and storage.get_trials(sid) == [done]
        storage.create_trial(sid, params={"x": 2})
        ok = storage.finish_trial(sid, 1, state=COMPLETE, values=(1.0, 1.0), constraints=(0.0, -3.0))
        assert ok.feasible and storage.get_trial(sid, 1).feasible

    def test_a_single_value_is_a_vector_of_one_and_needs_no_constraints(self, storage: Storage) -> None:
        sid = storage.create_study("one", direction="minimize", seed=1, attrs={}).study_id
        storage.create_trial(sid, params={})
        done = storage.finish_trial(sid, 0, state=COMPLETE, value=3)
        assert (done.value, done.values, done.constraints, done.feasible) == (3.0, (3.0,), None, True)
        storage.create_trial(sid, params={})
        both = storage.finish_trial(sid, 1, state=COMPLETE, value=2.0, values=[2.0], constraints=[1.5])
        assert (both.values, both.feasible) == ((2.0,), False)
        storage.create_trial(sid, params={})
        failed = storage.finish_trial(sid, 2, state=FAILED, constraints=[0.5])
        assert (failed.value, failed.values, failed.constraints) == (None, None, (0.5,))

    @pytest.mark.parametrize(
        ("kwargs", "named"),
        [
            ({"values": [1.0]}, r"one float per objective \(2.*values=\[1\.0\] of length 1"),
            ({"values": [1.0, 2.0, 3.0]}, r"values=\[1\.0, 2\.0, 3\.0\] of length 3"),
            ({"value": 1.0}, r"values=\[1\.0\] of length 1"),
            ({"values": [1.0, math.nan]}, r"values=\[1\.0, nan\]"),
            ({"values": [math.inf, 1.0]}, r"values=\[inf, 1\.0\]"),
            ({"values": [1.0, "2"]}, r"values=\[1\.0, '2'\]"),
            ({"values": "12"}, r"values='12'"),
            ({"values": [1.0, 2.0], "value": 2.0}, r"value=2\.0, values=\[1\.0, 2\.0\]"),
            ({"values": [1.0, 2.0], "constraints": [math.nan]}, r"constraints=\[nan\]"),
            ({"values": [1.0, 2.0], "constraints": ["a"]}, r"constraints=\['a'\]"),
            ({"values": [1.0, 2.0], "constraints": []}, r"constraints=\[\]"),
            ({"values": [1.0, 2.0], "constraints": 0.5}, r"constraints=0\.5"),
        ],
    )
    def test_bad_values_are_refused_naming_them_and_change_nothing(
        self, storage: Storage, kwargs: dict[str, Any], named: str
    ) -> None:
        sid = _two(storage)
        running = storage.create_trial(sid, params={})
        with pytest.raises(StorageError, match=named):
            storage.finish_trial(sid, 0, state=COMPLETE, **kwargs)
        assert storage.get_trial(sid, 0) == running

    def test_pruned_and_failed_trials_take_vectors_or_nothing(self, storage: Storage) -> None:
        sid = _two(storage)
        for number, state in enumerate((PRUNED, FAILED)):
            storage.create_trial(sid, params={})
            assert storage.finish_trial(sid, number, state=state).values is None
        storage.create_trial(sid, params={})
        assert storage.finish_trial(sid, 2, state=PRUNED, values=[1.0, -1.0]).values == (1.0, -1.0)
        storage.create_trial(sid, params={})
        with pytest.raises(StorageError, match="of length 1"):
            storage.finish_trial(sid, 3, state=PRUNED, value=1.0)
        assert storage.get_trial(sid, 3).state is RUNNING

    def test_a_repeated_finish_must_repeat_the_values_and_constraints(self, storage: Storage) -> None:
        sid = _two(storage)
        assert storage.claim_trial(sid, system_attrs={"worker": {"token": "me"}}) is not None
        done = storage.finish_trial(sid, 0, state=COMPLETE, values=[1.0, 2.0], constraints=[0.0], owner="me")
        again = storage.finish_trial(sid, 0, state=COMPLETE, values=[1.0, 2.0], constraints=[0.0], owner="me")
        assert again == done
        with pytest.raises(TrialStateError, match="number=0"):
            storage.finish_trial(sid, 0, state=COMPLETE, values=[1.0, 3.0], constraints=[0.0], owner="me")
        with pytest.raises(TrialStateError, match="number=0"):
            storage.finish_trial(sid, 0, state=COMPLETE, values=[1.0, 2.0], owner="me")
        assert storage.get_trial(sid, 0) == done

    def test_intermediate_vectors_keep_nan_and_infinity(self, storage: Storage) -> None:
        sid = _two(storage)
        storage.create_trial(sid, params={})
        storage.report_intermediate(sid, 0, 0, [1.0, math.nan])
        storage.report_intermediate(sid, 0, 1, (math.inf, -2))
        storage.report_intermediate(sid, 0, 2, 5.0)
        storage.report_intermediate(sid, 0, 3, [1.0, 1.0])
        storage.report_intermediate(sid, 0, 3, 0.5)  # a repeated step replaces the vector too
        trial = storage.get_trial(sid, 0)
        assert dict(trial.intermediate) == {0: 1.0, 1: math.inf, 2: 5.0, 3: 0.5}
        vectors = dict(trial.intermediate_vectors)
        assert sorted(vectors) == [0, 1]
        assert vectors[0][0] == 1.0 and math.isnan(vectors[0][1]) and vectors[1] == (math.inf, -2.0)
        assert storage.get_trials(sid)[0].intermediate_vectors == trial.intermediate_vectors

    @pytest.mark.parametrize(
        ("value", "named"),
        [
            ([1.0], r"one float per objective \(2.*value=\[1\.0\] of length 1"),
            ([1.0, 2.0, 3.0], r"of length 3"),
            ([], r"value=\[\]"),
            ([1.0, "x"], r"value=\[1\.0, 'x'\]"),
        ],
    )
    def test_an_intermediate_vector_of_the_wrong_length_is_refused(
        self, storage: Storage, value: Any, named: str
    ) -> None:
        sid = _two(storage)
        storage.create_trial(sid, params={})
        with pytest.raises(StorageError, match=named):
            storage.report_intermediate(sid, 0, 0, value)
        assert storage.get_trial(sid, 0).intermediate == {}
