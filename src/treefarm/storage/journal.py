"""A local file of finished results the storage could not take, replayed later.

When a SQL storage stays unreachable past its retry deadline while a worker
finishes a trial, the finish (study id, trial number, state, value or values,
constraints, attributes and the worker's ownership token) is appended to this journal as
one JSON line, flushed and ``fsync``ed before the error reaches the caller.
It is written to the storage again by the next operation that succeeds in
any process using the same journal file, or by ``treefarm recover JOURNAL
STORAGE``.

Replaying is idempotent: each entry is a finish *with its owner's token*,
which the storage records only if the trial is still RUNNING for that
worker, and answers with the stored record if exactly that outcome was
already recorded (see "Ownership" in :class:`~treefarm.storage.Storage`).
So replaying a journal twice, or from two processes, records each result
once. An entry the storage refuses (the trial was meanwhile failed by a
recovery, or the study is gone) is never dropped silently: it moves to
``JOURNAL.rejected`` with the reason, and the replay reports it.

Appends and replays take an exclusive ``flock`` on the journal, and a replay
rewrites the file in place (never deletes it), so a worker appending while
another replays loses nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO, TypeVar

from ..exceptions import (
    StorageError,
    StorageReplacedError,
    StorageUnavailableError,
    StudyError,
    format_values,
)
from .checks import CheckedFinish, NotFoundError
from .records import JSON, TrialState

_R = TypeVar("_R")

__all__ = [
    "DEFAULT_JOURNAL",
    "Replay",
    "StorageJournal",
    "append",
    "entry",
    "finish_entry",
    "pending",
    "replay",
    "replaying",
]

DEFAULT_JOURNAL = "treefarm-journal.jsonl"
"""The journal's file name, in the worker's working directory, unless configured."""
_local = threading.local()


def replaying() -> bool:
    """Whether this thread is inside :func:`replay` (whose finishes must not start another)."""
    return bool(getattr(_local, "active", False))


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[TextIO]:
    """The journal opened for reading and appending, under an exclusive lock."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+", encoding="utf-8") as handle:
        try:
            import fcntl
        except ImportError:  # no flock (Windows): one process per journal there
            yield handle
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield handle
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def entry(
    *,
    url: str,
    study_id: int,
    number: int,
    state: str,
    value: float | None,
    user_attrs: Mapping[str, JSON],
    system_attrs: Mapping[str, JSON],
    owner: str | None,
    values: Sequence[float] | None = None,
    constraints: Sequence[float] | None = None,
) -> dict[str, Any]:
    """One journal line: a finish, and where it was meant to go (``values`` and
    ``constraints`` only when there is more than one value, or constraints: a line
    of a single-objective finish reads as before)."""
    item: dict[str, Any] = {
        "url": url,
        "study_id": study_id,
        "number": number,
        "state": state,
        "value": value,
        "user_attrs": dict(user_attrs),
        "system_attrs": dict(system_attrs),
        "owner": owner,
        "journaled": time.time(),
    }
    if values is not None and len(values) > 1:
        item["values"] = list(values)
    if constraints is not None:
        item["constraints"] = list(constraints)
    return item


def finish_entry(finish: Callable[..., _R], item: Mapping[str, Any]) -> _R:
    """Call a storage's ``finish_trial`` (or its internal twin) with a journal entry's fields."""
    return finish(
        int(item["study_id"]),
        int(item["number"]),
        state=TrialState(item["state"]),
        value=item["value"],
        values=item.get("values"),
        constraints=item.get("constraints"),
        user_attrs=item["user_attrs"],
        system_attrs=item["system_attrs"],
        owner=item["owner"],
    )


def append(path: Path, item: Mapping[str, Any]) -> None:
    """Add ``item`` to the journal durably (flushed and fsynced before returning); a
    refused entry read back from a hand-edited line may hold NaN, written as Python's json reads it."""
    line = json.dumps(item) + "\n"
    with _locked(path) as handle:
        handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())


@dataclass
class Replay:
    """What a replay did: entries recorded (or found already recorded), refused
    (moved to ``JOURNAL.rejected``), and left in the journal (the storage went
    away again, or they belong to another storage)."""

    recorded: list[dict[str, Any]] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    kept: list[dict[str, Any]] = field(default_factory=list)
    stopped: bool = False
    """The storage stopped taking results (gone, or its disk full) during the replay."""


def pending(path: Path) -> bool:
    """Whether the journal holds anything."""
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def replay(path: Path, finish: Callable[[Mapping[str, Any]], object], *, url: str | None = None) -> Replay:
    """Record the journal's entries with ``finish`` (one storage finish per entry);
    only those for ``url`` when given. See the module docstring for what happens
    to each entry."""
    done = Replay()
    if not path.exists():
        return done
    _local.active = True
    try:
        return _replay(path, finish, url, done)
    finally:
        _local.active = False


def _parsed(line: str) -> dict[str, Any] | str | None:
    """A journal line's entry, None for a blank line, or why it cannot be read."""
    if not line.strip():
        return None
    try:
        item = json.loads(line)
    except ValueError as error:
        return f"unreadable line (a write cut short?): {error}"
    return item if isinstance(item, dict) else f"not an entry: {line[:80]!r}"


def _text(path: Path, content: bytes) -> str:
    """The journal's text; StorageError, touching nothing, when it is not a journal (a
    database or another binary file given by mistake: replaying would empty it). A
    journal's lines start with ``{``; a line torn by a crash (cut short, or NUL bytes
    where the file system lost its end) is read as it is, and refused by its line."""
    first = content.lstrip()[:1]
    if first not in (b"", b"{") or content.startswith(b"SQLite format 3\x00"):
        kind = "a SQLite database" if content.startswith(b"SQLite format 3\x00") else "not JSON lines"
        raise StorageError(
            f"a journal must be a text file of JSON lines, but got {format_values(journal=str(path))}: it is {kind}"
        )
    return content.decode("utf-8", errors="replace")


def _replay_one(item: dict[str, Any], finish: Callable[[Mapping[str, Any]], object], done: Replay) -> bool:
    """Record one entry, filing it in ``done``; whether the storage stopped answering.
    One bad entry never stops the others: any error but the storage's own refuses it."""
    try:
        finish(item)
    except StorageUnavailableError:
        done.kept.append(item)
        return True
    except (StudyError, NotFoundError) as error:  # the study refused it (the trial was failed since)
        done.refused.append({**item, "refused": f"{type(error).__name__}: {error}"})
    except StorageError:  # the storage failed, not the entry: kept for the next replay
        done.kept.append(item)
    except Exception as error:  # a field missing or of the wrong kind (an entry edited by hand)
        done.refused.append({**item, "refused": f"{type(error).__name__}: {error}"})
    else:
        done.recorded.append(item)
    return False


def _replay(
    path: Path, finish: Callable[[Mapping[str, Any]], object], url: str | None, done: Replay
) -> Replay:
    with _locked(path) as handle:
        handle.seek(0)
        items = []
        for line in _text(path, handle.buffer.read()).splitlines():
            item = _parsed(line)
            if isinstance(item, str):  # a torn or edited line: set aside, never in the way
                done.refused.append({"line": line[:10_000], "refused": item})
            elif item is not None:
                items.append(item)
        unavailable = False
        for item in items:
            if unavailable or (url is not None and item.get("url", url) != url):
                done.kept.append(item)
                continue
            unavailable = done.stopped = _replay_one(item, finish, done)
        kept = "".join(json.dumps(item) + "\n" for item in done.kept)  # before truncating: it cannot fail
        for item in done.refused:
            append(path.with_name(path.name + ".rejected"), item)
        handle.seek(0)
        handle.truncate()
        handle.write(kept)
        handle.flush()
        os.fsync(handle.fileno())
    return done


class StorageJournal:
    """One storage's journal at ``path``: the finishes it could not take, kept
    (:meth:`keep`), and written when a later call succeeds (:meth:`replay_new`);
    ``url`` is the storage's URL as shown (without a password), which its entries carry."""

    def __init__(self, path: Path, url: str) -> None:
        self.path = path
        self.url = url
        self._seen: tuple[float, int] | None = None
        self._replaying = threading.Lock()

    def replay_new(self, finish: Callable[[Mapping[str, Any]], object]) -> None:
        """Write this storage's entries with ``finish``, when the file changed since the
        last look (one ``stat`` per call otherwise); one thread at a time, and never
        from inside a replay."""
        if replaying():
            return
        try:
            stat = self.path.stat()
        except OSError:
            return
        seen = (stat.st_mtime, stat.st_size)
        if stat.st_size == 0 or seen == self._seen or not self._replaying.acquire(blocking=False):
            return
        try:
            done = replay(self.path, finish, url=self.url)
            self._report(done)
            if not done.stopped:  # else tried again at the next call (a disk full takes reads)
                stat = self.path.stat()
                self._seen = (stat.st_mtime, stat.st_size)
        except OSError:
            return
        except StorageError as error:  # not a journal: said once, never in the way of the storage
            print(f"treefarm: the journal was not replayed: {error}", file=sys.stderr)
            self._seen = seen
        finally:
            self._replaying.release()

    def _report(self, done: Replay) -> None:
        for item in done.recorded:
            print(f"treefarm: recorded trial {item['number']} from the journal {self.path}", file=sys.stderr)
        for item in done.refused:
            what = f"trial {item['number']}" if "number" in item else "an entry"
            print(
                f"treefarm: the storage refused {what} from the journal "
                f"{self.path} ({item['refused']}); kept in {self.path}.rejected",
                file=sys.stderr,
            )

    def keep(
        self,
        error: StorageUnavailableError | StorageReplacedError,
        study_id: int,
        number: int,
        *,
        outcome: CheckedFinish,
        user_attrs: Mapping[str, JSON],
        system_attrs: Mapping[str, JSON],
        owner: str | None,
    ) -> StorageError:
        """Keep a finish the storage could not take (flushed and fsynced); the error
        to raise, saying where the result went."""
        item = entry(
            url=self.url,
            study_id=study_id,
            number=number,
            state=outcome.state.value,
            value=outcome.value,
            values=outcome.values,
            constraints=outcome.constraints,
            user_attrs=user_attrs,
            system_attrs=system_attrs,
            owner=owner,
        )
        append(self.path, item)
        message = (
            f"the result of trial {number} was kept in the journal {self.path}: it is written when "
            f"the storage answers again, or by `treefarm recover {self.path} STORAGE` ({error})"
            if isinstance(error, StorageUnavailableError)
            else f"the result of trial {number} was kept in the journal {self.path}, since {error}"
        )
        print(f"treefarm: {message}", file=sys.stderr)
        return type(error)(message, journal=str(self.path))
