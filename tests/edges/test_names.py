"""A study name is a name, never a path: refused when it cannot be one (empty, blank,
not a string, too long, control characters), encoded as one folder of the artifact store
whatever it holds, so nothing is written outside the store."""

from __future__ import annotations

from pathlib import Path

import pytest

import treefarm as tf
from treefarm.study.state.names import path_segment
from treefarm.validation import STUDY_NAME_MAX

SPACE = {"x": tf.Real(0, 1)}


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("", "name=''"),
        ("   ", "name='   '"),
        (123, "name=123 (a int)"),
        (b"q", "name=b'q'"),
        ("a" * (STUDY_NAME_MAX + 1), f"({STUDY_NAME_MAX + 1} characters)"),
        ("a\x00b", "U+0000"),
        ("tab\there", "U+0009"),
    ],
)
def test_a_name_that_cannot_be_one_is_refused_at_create_and_load(name: object, shown: str, tmp_path: Path) -> None:
    storage = str(tmp_path / "s.db")
    tf.Study.create("kept", space=SPACE, storage=storage)
    for open_it in (tf.Study.create, tf.Study.load):
        with pytest.raises(tf.StudyError) as info:
            open_it(name, space=SPACE, storage=storage)  # type: ignore[operator]
        message = str(info.value)
        assert message.startswith(f"a study name must be a string of 1 to {STUDY_NAME_MAX} characters")
        assert "NUL and the other control characters" in message and shown in message
    assert [s.name for s in tf.open_storage(storage).list_studies()] == ["kept"]


@pytest.mark.parametrize("name", ["../../x", "..", ".", "a/b", "/abs", "c:\\x", "%2E.", "ü space"])
def test_an_artifact_stays_in_its_store_whatever_the_study_name(name: str, tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    study = tf.Study.create(name, space=SPACE, storage=str(folder / "a.db"))
    trial = study.ask()
    trial.save_artifact(b"x", name="a.txt")
    study.tell(trial, 0.5)
    store = folder / "a.db.artifacts"
    written = list(tmp_path.rglob("a.txt"))
    assert len(written) == 1 and written[0].parent.parent.parent == store
    assert study.load_artifact(trial.number, "a.txt") == b"x"


def test_the_encoding_keeps_ordinary_names_and_never_joins_two() -> None:
    assert path_segment("resnet-18_lr 0.1") == "resnet-18_lr 0.1"
    names = ["..", "%2E.", ".x", "%2Ex", "a/b", "a%2Fb", "a%b"]
    segments = [path_segment(n) for n in names]
    assert len(set(segments)) == len(names)
    assert all("/" not in s and not s.startswith(".") for s in segments)
