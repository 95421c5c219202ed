"""Every built-in optimizer suggests, for fixed seeds, exactly what it did when
the golden file was recorded (flat, conditional and recursive spaces, batches of
1 and 4, alone and through a study). A refactoring must not move a bit; a change
of behaviour rewrites the file (``python -m tests.golden.record``) on purpose."""

from __future__ import annotations

import json

import pytest

from treefarm.testing.optimizer_suite import SPACES

from .record import ALGOS, BATCHES, FILE, optimizer_run, study_run

GOLDEN = json.loads(FILE.read_text())


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("space_name", list(SPACES))
@pytest.mark.parametrize("algo", ALGOS)
def test_suggestions_match_the_golden_record(algo: str, space_name: str, batch: int) -> None:
    expected = GOLDEN[f"{algo}/{space_name}/{batch}"]
    assert json.loads(json.dumps(optimizer_run(algo, space_name, batch))) == expected["optimizer"]
    assert json.loads(json.dumps(study_run(algo, space_name, batch))) == expected["study"]
