"""open_storage: what a user may write, and a clear refusal of everything else."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treefarm.exceptions import StorageError
from treefarm.storage import InMemoryStorage, SQLStorage, StorageURL, open_storage


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


def test_a_path_and_a_relative_or_absolute_sqlite_url_are_one_location(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    location = StorageURL.parse("runs.db")
    assert location.dialect == "sqlite" and location.path == tmp_path.resolve() / "runs.db"
    assert location.url == f"sqlite:///{tmp_path.resolve() / 'runs.db'}"
    for spec in (Path("runs.db"), "sqlite:///runs.db", location.url, location):
        assert StorageURL.parse(spec) == location, spec


def test_a_password_is_kept_in_the_url_and_hidden_everywhere_it_is_shown() -> None:
    location = StorageURL.parse("postgresql://me:secret@db-host:5432/runs", read_only=True)
    assert location.dialect == "postgresql" and location.path is None and location.read_only
    assert "secret" in location.url
    for shown in (location.shown, repr(location), str(location)):
        assert "secret" not in shown and "db-host:5432/runs" in shown, shown
    assert location.shown == "postgresql+psycopg://me:***@db-host:5432/runs"  # the driver it connects with


def test_memory_and_uris_name_what_they_name() -> None:
    assert StorageURL.parse(":memory:").memory
    uri = StorageURL.parse("sqlite:///file:/data/runs%20a.db?mode=ro&uri=true")
    assert uri.uri and uri.path == Path("/data/runs a.db") and uri.url.endswith("?mode=ro&uri=true")
    assert StorageURL.parse(uri, read_only=True).read_only and not uri.read_only


@given(name=st.text(alphabet="ab ?#%@:+", min_size=1, max_size=8).filter(lambda s: s.strip() == s))
@settings(max_examples=40, deadline=None)
def test_any_file_name_survives_its_url(name: str) -> None:
    """A file name with URL syntax in it (``?``, ``#``, ``%``, ``@``) is quoted in the
    URL, so the URL names that file and parsing it again gives the same location."""
    path = Path("/data") / f"{name}.db"
    location = StorageURL.parse(path)
    assert location.path == path
    assert StorageURL.parse(location.url) == location


def test_a_file_named_with_url_syntax_is_the_file_opened(tmp_path: Path) -> None:
    path = tmp_path / "runs?a#b%20.db"
    storage = open_storage(path)
    storage.create_study("s", direction="minimize", seed=None, attrs={})
    storage.close()
    assert path.is_file() and sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".db") == [path.name]
