"""Every built-in optimizer suggests, for fixed seeds, exactly what it did when
the golden file was recorded (flat, conditional, recursive, reals-only and yes/no spaces, batches of
1 and 4, alone and through a study). A refactoring must not move a bit; a change
of behaviour rewrites the file (``python -m tests.golden.record``) on purpose."""

from __future__ import annotations

import json

import pytest

from .record import (
    AGREE_AT_LEAST,
    ALGOS,
    BATCHES,
    ENVIRONMENT_KEY,
    FILE,
    SPACES,
    environment,
    optimizer_run,
    study_run,
)

GOLDEN = json.loads(FILE.read_text())
SAME_ENVIRONMENT = GOLDEN[ENVIRONMENT_KEY] == environment()


def _agree(expected: object, got: object) -> bool:
    """One suggestion: decisions exactly, floats to a relative 1e-5."""
    if isinstance(expected, dict) and isinstance(got, dict):
        return expected.keys() == got.keys() and all(_agree(expected[k], got[k]) for k in expected)
    if isinstance(expected, float) and isinstance(got, float):
        return got == pytest.approx(expected, rel=1e-5, abs=1e-12)
    return expected == got


def _assert_matches(expected: list[object], got: list[object]) -> None:
    """To the bit in the recording's environment; elsewhere by the policy of ``record.py``."""
    if SAME_ENVIRONMENT:
        assert got == expected
        return
    agreeing = next((i for i, (e, g) in enumerate(zip(expected, got)) if not _agree(e, g)), min(len(expected), len(got)))
    assert agreeing >= min(AGREE_AT_LEAST, len(expected)), (
        f"suggestion {agreeing} differs beyond float rounding (recorded in {GOLDEN[ENVIRONMENT_KEY]}, "
        f"running in {environment()}): expected {expected[agreeing]!r}, got {got[agreeing]!r}"
    )


@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("space_name", list(SPACES))
@pytest.mark.parametrize("algo", ALGOS)
def test_suggestions_match_the_golden_record(algo: str, space_name: str, batch: int) -> None:
    expected = GOLDEN[f"{algo}/{space_name}/{batch}"]
    _assert_matches(expected["optimizer"], json.loads(json.dumps(optimizer_run(algo, space_name, batch))))
    _assert_matches(expected["study"], json.loads(json.dumps(study_run(algo, space_name, batch))))
