"""open_storage: what a user may write, and a clear refusal of everything else."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from treefarm.exceptions import StorageError
from treefarm.storage import InMemoryStorage, SQLStorage, open_storage


@pytest.mark.parametrize("spec", [None, ":memory:"])
def test_nothing_or_memory_gives_an_in_memory_storage(spec: str | None) -> None:
    assert isinstance(open_storage(spec), InMemoryStorage)


def test_a_storage_is_returned_as_is() -> None:
    storage = InMemoryStorage()
    assert open_storage(storage) is storage


def test_plain_paths_and_sqlite_urls_open_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    first = open_storage("runs.db")
    assert isinstance(first, SQLStorage)
    first.create_study("s", direction="minimize", seed=None, attrs={})
    first.close()
    for spec in (Path("runs.db"), tmp_path / "runs.db", "sqlite:///runs.db", f"sqlite:///{tmp_path}/runs.db"):
        storage = open_storage(spec)
        assert [s.name for s in storage.list_studies()] == ["s"], spec
        storage.close()


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("sqlit://x.db", "unsupported scheme 'sqlit'"),
        ("mysql://user@host/db", "unsupported scheme 'mysql'"),
        ("sqlite:runs.db", "needs '://'"),
        (42, "not a int"),
    ],
)
def test_malformed_specs_are_refused_by_name(spec: object, why: str) -> None:
    with pytest.raises(StorageError, match=why) as raised:
        open_storage(spec)  # type: ignore[arg-type]
    assert f"storage={spec!r}" in str(raised.value)
    assert "sqlite:///runs.db" in str(raised.value)


def test_sqlite_url_without_a_file_is_refused() -> None:
    with pytest.raises(StorageError, match="':memory:'"):
        open_storage("sqlite://")


def test_missing_folder_is_a_storage_error_naming_the_url(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "folder.db"
    with pytest.raises(StorageError, match=r"folder\.db"):
        open_storage(path)


def test_unreachable_postgres_is_a_storage_error_without_password() -> None:
    pytest.importorskip("psycopg")
    url = "postgresql://me:secret@127.0.0.1:1/db?connect_timeout=2"
    with pytest.raises(StorageError, match=r"127\.0\.0\.1:1") as raised:
        open_storage(url, retry_deadline=1.0)  # the default retries for 60 s
    assert "secret" not in str(raised.value)


def test_importing_the_storage_package_does_not_import_sqlalchemy() -> None:
    code = "import sys, treefarm.storage; print('sqlalchemy' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert out.stdout.strip() == "False"
