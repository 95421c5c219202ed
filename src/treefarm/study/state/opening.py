"""Opening a study: its arguments checked, its record created or read, its
identity reconciled with the caller's (see :mod:`treefarm.study.state.identity`)."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...exceptions import StudyError, format_values
from ...objectives import Objectives
from ...optimizers import Optimizer, make_optimizer
from ...space import Space, convert, sample
from ...storage import NotFoundError, Storage, StudyRecord, open_storage
from ...storage.url import StorageURL
from ...validation import check_int, check_study_name
from .identity import DEFAULT_ALGO, creation_attrs, reconcile

__all__ = ["Opened", "check_space", "create", "load"]


#: The study attribute holding a token of the call that created the study (an existing
#: study's stored attributes win, so a caller that finds its own token made the study).
CREATION = "creation"


@dataclass(frozen=True)
class Opened:
    """What a study object is made of."""

    record: StudyRecord
    storage: Storage
    space: Space
    optimizer: Optimizer
    #: Whether this call created the study (two workers racing to create one: exactly one did).
    created: bool = False


def check_space(space: Any) -> Space:
    """The space as a node; StudyError if it holds no decision (``5``, ``object()``)."""
    root = convert(space)
    if not sample(root, np.random.default_rng(0)):
        raise StudyError(
            "a study's space must hold at least one decision (a Real, Int, Choice or Join), "
            f"but got space={space!r}"
        )
    return root


def _check_seed(seed: int | None) -> None:
    check_int("seed", seed, 0, error=StudyError, or_none=True)


def create(
    name: str | None,
    *,
    space: Any,
    storage: str | os.PathLike[str] | Storage | None,
    algo: str | Optimizer | None,
    direction: str | None,
    seed: int | None,
    load_if_exists: bool,
    allow_space_change: bool,
    directions: Any = None,
) -> Opened:
    """A new study's parts, or (``load_if_exists``) an existing one's, reconciled."""
    if name is not None:
        check_study_name(name)
    given = Objectives.parse(direction, directions, error=StudyError)
    _check_seed(seed)
    root = check_space(space)
    optimizer = make_optimizer(algo if algo is not None else DEFAULT_ALGO)
    store = open_storage(storage)
    token = secrets.token_hex(8)
    record = store.create_study(
        name if name is not None else f"study-{secrets.token_hex(4)}",
        directions=given or Objectives.single(),
        seed=seed if seed is not None else secrets.randbits(63),
        attrs={**creation_attrs(root, optimizer), CREATION: token},
        load_if_exists=load_if_exists,
    )
    kept = reconcile(
        store, record, root, algo=algo, objectives=given, seed=seed, allow_space_change=allow_space_change
    )
    return Opened(record, store, root, kept, created=record.attrs.get(CREATION) == token)


def load(
    name: str,
    *,
    space: Any,
    storage: str | os.PathLike[str] | Storage,
    algo: str | Optimizer | None,
    allow_space_change: bool,
) -> Opened:
    """An existing study's parts, reconciled; a SQLite file that does not exist is
    refused by name, not created (a mistyped path)."""
    check_study_name(name)
    location = storage if isinstance(storage, Storage) else StorageURL.parse(storage)
    path = location.path if isinstance(location, StorageURL) else None
    if path is not None and not path.exists():
        raise NotFoundError(f"the study must exist in the storage, but got {format_values(name=name, path=str(path))}")
    store = open_storage(location)
    record = store.get_study(name)
    root = check_space(space)
    optimizer = reconcile(
        store, record, root, algo=algo, objectives=None, seed=None, allow_space_change=allow_space_change
    )
    return Opened(record, store, root, optimizer)
