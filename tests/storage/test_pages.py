"""Pages and summaries: the SQL storage sorts, filters and counts in SQL exactly as the reference does."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest

from treefarm import StorageError
from treefarm.storage import InMemoryStorage, Storage, TrialState
from treefarm.storage.pages import ORDER_COLUMNS, PageQuery, page_of, summary_of
from treefarm.storage.sql import SQLStorage


def fill(storage: Storage) -> int:
    study = storage.create_study("s", direction="minimize", seed=0, attrs={})
    values = [3.0, None, 1.0, 2.0, 1.0, None, 5.0, -1.0]
    for i, value in enumerate(values):
        storage.create_trial(study.study_id, params={"x": i})
        if i == 5:
            continue  # stays running
        if i < 6 and i % 3 == 2:
            storage.report_intermediate(study.study_id, i, 0, float(i))
        state = TrialState.FAILED if value is None else TrialState.COMPLETE
        constraints = {0: [0.5, -1.0], 2: [-1.0, 0.0], 6: [2.0]}.get(i)
        storage.finish_trial(study.study_id, i, state=state, value=value, constraints=constraints)
    return study.study_id


@pytest.fixture(params=["memory", "sqlite"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Storage:
    return InMemoryStorage() if request.param == "memory" else SQLStorage(f"sqlite:///{tmp_path / 'p.db'}")


QUERIES = [
    {"order_by": column, "descending": descending}
    for column, descending in itertools.product(ORDER_COLUMNS, (False, True))
] + [
    {"order_by": "value", "states": ["complete"], "offset": 2, "limit": 3},
    {"order_by": "value", "value_min": 1.0, "value_max": 3.0, "descending": True},
    {"states": ["failed", "running"]},
    {"value_max": 0.0},
    {"feasible": True, "order_by": "value"},
    {"feasible": False, "states": ["complete"]},
]


@pytest.mark.parametrize("kwargs", QUERIES, ids=[str(q) for q in QUERIES])
def test_a_page_matches_the_reference_sort_and_filter(storage: Storage, kwargs: dict) -> None:
    study_id = fill(storage)
    total, page = storage.trial_page(study_id, **kwargs)
    full = {"offset": 0, "limit": 50, "order_by": "number", "descending": False, "states": None}
    query = PageQuery.checked(**{**full, "value_min": None, "value_max": None, **kwargs})
    expected_total, expected = page_of(storage.get_trials(study_id), query)
    assert total == expected_total
    assert [t.number for t in page] == [t.number for t in expected]
    assert page == expected  # whole records, intermediate values included


def test_value_order_puts_trials_without_a_value_last(storage: Storage) -> None:
    study_id = fill(storage)
    _, page = storage.trial_page(study_id, order_by="value")
    assert [t.value for t in page] == [-1.0, 1.0, 1.0, 2.0, 3.0, 5.0, None, None]
    assert [t.number for t in page][1:3] == [2, 4]  # ties by number
    _, page = storage.trial_page(study_id, order_by="value", descending=True)
    assert [t.value for t in page][:2] == [5.0, 3.0] and page[-1].value is None


def test_feasible_pages_count_trials_without_constraints_as_feasible(storage: Storage) -> None:
    study_id = fill(storage)
    total, page = storage.trial_page(study_id, feasible=False)
    assert (total, [t.number for t in page]) == (2, [0, 6])
    total, page = storage.trial_page(study_id, feasible=True, states=["complete"])
    assert (total, [t.number for t in page]) == (4, [2, 3, 4, 7])


def test_the_summary_counts_states_and_ranges_values(storage: Storage) -> None:
    study_id = fill(storage)
    summary = storage.trial_summary(study_id)
    assert summary.counts == {"complete": 6, "failed": 1, "running": 1} and summary.total == 8
    assert (summary.min_value, summary.max_value) == (-1.0, 5.0)
    assert summary == summary_of(storage.get_trials(study_id))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"order_by": "params"}, "order_by must be one of"),
        ({"limit": 0}, "limit must lie in [1, 1000], but got limit=0"),
        ({"offset": -1}, "offset must lie in [0, 4611686018427387904], but got offset=-1"),
        ({"value_min": float("nan")}, "value_min must be a number"),
        ({"feasible": "yes"}, "feasible must be True, False or None, but got feasible='yes'"),
    ],
)
def test_a_bad_page_argument_is_named(storage: Storage, kwargs: dict, message: str) -> None:
    study_id = fill(storage)
    with pytest.raises(StorageError, match=message.replace("[", r"\[").replace("]", r"\]")):
        storage.trial_page(study_id, **kwargs)


@pytest.mark.postgres
def test_postgres_pages_match_and_a_read_only_open_refuses_writes(
    postgres_factory: Callable[[], Storage], postgres_url: str
) -> None:
    from treefarm.dashboard import open_read_only

    storage = postgres_factory()
    study_id = fill(storage)
    for kwargs in QUERIES:
        full = {"offset": 0, "limit": 50, "order_by": "number", "descending": False, "states": None}
        query = PageQuery.checked(**{**full, "value_min": None, "value_max": None, **kwargs})
        assert storage.trial_page(study_id, **kwargs) == page_of(storage.get_trials(study_id), query), kwargs
    assert storage.trial_summary(study_id) == summary_of(storage.get_trials(study_id))
    storage.close()
    reader = open_read_only(postgres_url)
    assert reader.trial_page(study_id, order_by="value", limit=1)[1][0].value == -1.0
    with pytest.raises(StorageError, match="read-only transaction"):
        reader.create_trial(study_id, params={"x": 0})
    reader.close()
