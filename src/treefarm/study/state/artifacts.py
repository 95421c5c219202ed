"""Files a trial makes (a model, a plot, a checkpoint), kept beside the storage.

``trial.save_artifact(path_or_bytes, name=...)`` copies the file (or the
bytes) into an artifact store and records, in the trial's user attribute
``artifacts``, its name, size and SHA-256: the database holds only that
list, never the content. ``study.artifacts(number)`` lists a trial's
artifacts and ``study.load_artifact(number, name)`` reads one back.

The store is a directory, ``<root>/<study name>/<trial number>/<name>``, the
study name encoded as one folder (:func:`treefarm.study.state.names.path_segment`). Its
root is ``study.artifact_store``: by default ``<file>.artifacts`` beside a
SQLite file (``runs.db`` -> ``runs.db.artifacts``), else
``treefarm.artifacts`` in the working directory; set it to another
directory, or to any ``fsspec`` URL (``s3://bucket/prefix``, ``memory://x``;
``pip install fsspec`` and the filesystem's package) to share artifacts
between machines.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...exceptions import StudyError, format_values
from ...storage import Storage
from ...storage.url import StorageURL
from ..state.names import path_segment

__all__ = ["ARTIFACTS_ATTR", "content_of", "default_root", "entry_of", "load", "records", "save"]

ARTIFACTS_ATTR = "artifacts"
"""The trial user attribute listing its artifacts: ``[{"name", "size", "sha256"}, ...]``."""
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,199}$")


def default_root(storage: Storage) -> str:
    """``<file>.artifacts`` beside a SQLite file, else ``treefarm.artifacts`` here."""
    location = getattr(storage, "location", None)
    path = location.path if isinstance(location, StorageURL) else None
    return f"{path}.artifacts" if path is not None else str(Path("treefarm.artifacts").resolve())


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not _NAME.match(name) or name in (".", ".."):
        raise StudyError(
            "an artifact's name must be a file name of letters, digits, '.', '_' and '-' (no folder), "
            f"but got {format_values(name=name)}"
        )
    return name


def _location(root: str, study: str, number: int, name: str) -> str:
    return f"{root.rstrip('/')}/{path_segment(study)}/{number}/{name}"


def _write(target: str, data: bytes) -> None:
    if "://" in target:
        import fsspec

        with fsspec.open(target, "wb", auto_mkdir=True) as handle:
            handle.write(data)
        return
    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)  # a reader never sees half a file


def _read(target: str) -> bytes:
    if "://" in target:
        import fsspec

        with fsspec.open(target, "rb") as handle:
            return bytes(handle.read())
    return Path(target).read_bytes()


def records(user_attrs: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The artifacts a trial's user attributes list."""
    listed = user_attrs.get(ARTIFACTS_ATTR)
    return [dict(item) for item in listed if isinstance(item, Mapping)] if isinstance(listed, list) else []


def content_of(data: bytes | str | os.PathLike[str], name: str | None) -> tuple[str, bytes]:
    """The checked name and the content of an artifact given as bytes (with a ``name``) or
    as the file at a path (its name by default); read where the call is made, so a file
    on a cluster's worker travels as its content."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        content = bytes(data)
        if name is None:
            raise StudyError("an artifact given as bytes needs a name, but got name=None")
    elif isinstance(data, (str, os.PathLike)):
        path = Path(data)
        if not path.is_file():
            raise StudyError(
                f"an artifact must be bytes or an existing file, but got {format_values(path=str(path))}"
            )
        content = path.read_bytes()
        name = path.name if name is None else name
    else:
        raise StudyError(f"an artifact must be bytes or a file path, but got {format_values(data=data)}")
    return _check_name(name), content


def entry_of(name: str, content: bytes) -> dict[str, Any]:
    """What a trial lists of its artifact ``name``: its name, size and SHA-256."""
    return {"name": name, "size": len(content), "sha256": hashlib.sha256(content).hexdigest()}


def save(
    storage: Storage,
    study_id: int,
    study: str,
    number: int,
    root: str,
    data: bytes | str | os.PathLike[str],
    name: str | None,
) -> dict[str, Any]:
    """Store ``data`` (bytes, or the file at a path) as trial ``number``'s artifact ``name``
    (default: the file's name) and list it in the trial; a second save of a name replaces it."""
    checked, content = content_of(data, name)
    entry = entry_of(checked, content)
    _write(_location(root, study, number, checked), content)
    listed = [
        r for r in records(storage.get_trial(study_id, number).user_attrs) if r.get("name") != entry["name"]
    ]
    storage.set_trial_user_attr(study_id, number, ARTIFACTS_ATTR, [*listed, entry])
    return entry


def load(root: str, study: str, number: int, entry: Mapping[str, Any]) -> bytes:
    """The content of a listed artifact, checked against its recorded SHA-256."""
    content = _read(_location(root, study, number, _check_name(entry["name"])))
    if hashlib.sha256(content).hexdigest() != entry.get("sha256"):
        raise StudyError(
            "an artifact's content must match the SHA-256 recorded when it was saved, but got "
            f"{format_values(trial=number, name=entry['name'])} changed since"
        )
    return content
