"""Any JSON configuration and attributes come back equal, from every storage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treefarm.storage import InMemoryStorage, SQLStorage, Storage, TrialState

scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
json_dicts = st.dictionaries(st.text(), json_values, max_size=6)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_json_params_and_attrs_round_trip(kind: str, tmp_path: Path) -> None:
    storage: Storage = InMemoryStorage() if kind == "memory" else SQLStorage(f"sqlite:///{tmp_path / 'r.db'}")
    study_id = storage.create_study("r", direction="minimize", seed=None, attrs={}).study_id

    @settings(max_examples=40, deadline=None)
    @given(params=json_dicts, attrs=json_dicts)
    def check(params: dict[str, Any], attrs: dict[str, Any]) -> None:
        number = storage.create_trial(study_id, params=params, system_attrs=attrs).number
        storage.finish_trial(study_id, number, state=TrialState.COMPLETE, value=1.0, user_attrs=attrs)
        record = storage.get_trial(study_id, number)
        assert record.params == params
        assert record.user_attrs == attrs and record.system_attrs == attrs

    check()
    storage.close()
