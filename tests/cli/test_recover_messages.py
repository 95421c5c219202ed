"""``treefarm recover`` names what it refused: a malformed line by its number and the
fields it lacks, and it mentions JOURNAL.rejected only when it put something there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import treefarm as tf
from treefarm.cli.main import main


def _running_trial(tmp_path: Path) -> tuple[str, int, int]:
    url = f"sqlite:///{tmp_path / 's.db'}"
    storage = tf.open_storage(url)
    study_id = storage.create_study("s", direction="minimize", seed=0, attrs={}).study_id
    number = storage.claim_trial(study_id, system_attrs={"worker": {"token": "w"}}).number  # type: ignore[union-attr]
    storage.close()
    return url, study_id, number


def _entry(url: str, study_id: int, number: int) -> dict[str, object]:
    return {
        "study_id": study_id,
        "number": number,
        "state": "complete",
        "value": 2.0,
        "user_attrs": {},
        "system_attrs": {},
        "owner": "w",
        "url": url,
    }


def test_a_clean_replay_mentions_no_rejected_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url, study_id, number = _running_trial(tmp_path)
    journal = tmp_path / "j.jsonl"
    journal.write_text(json.dumps(_entry(url, study_id, number)) + "\n")
    assert main(["recover", str(journal), url]) == 0
    out = capsys.readouterr().out
    assert out.strip() == f"1 recorded, 0 refused, 0 left in {journal}"
    assert not (tmp_path / "j.jsonl.rejected").exists()


def test_a_malformed_line_is_named_by_its_number_and_missing_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url, study_id, number = _running_trial(tmp_path)
    journal = tmp_path / "j.jsonl"
    journal.write_text(json.dumps(_entry(url, study_id, number)) + "\n\n" + json.dumps({"trial": 4}) + "\n")
    assert main(["recover", str(journal), url]) == 1
    out = capsys.readouterr().out
    assert "KeyError" not in out
    assert 'refused line 3 ({"trial": 4}): an entry needs the fields study_id, number, state' in out, out
    assert "but it lacks study_id, number, state, value, user_attrs, system_attrs, owner" in out
    assert f"1 recorded, 1 refused (kept in {journal}.rejected)" in out
