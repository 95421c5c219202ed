"""What a study is: its direction, seed, optimizer and space, stored at creation
and checked at every reopening.

A study stores, beside its direction and seed, its optimizer's settings
(:func:`treefarm.optimizers.registry.spec_of`) and its space's fingerprint
(:func:`treefarm.space.fingerprint.fingerprint`). Reopening it:

* uses the stored optimizer when the caller names none, and records a
  different one the caller names explicitly (attribute ``"changes"``);
* refuses another direction or seed, naming both;
* refuses a space of another fingerprint, naming both and, for a study
  that stored its addresses (:func:`space_addresses`: studies created since
  they are stored, non-recursive spaces of moderate size), the addresses
  added, removed or changed, unless the caller passes
  ``allow_space_change=True`` (a widened space, say), which is recorded.
  Trials that no longer fit the new space are then left out of what the
  optimizer sees.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from ...exceptions import StudyError
from ...objectives import Objectives
from ...optimizers import Optimizer, make_optimizer
from ...optimizers.registry import from_spec, spec_of
from ...space import Space, addresses, analyze
from ...space.fingerprint import fingerprint
from ...storage import JSON, Storage, StudyRecord

__all__ = ["DEFAULT_ALGO", "Named", "creation_attrs", "reconcile", "same_study"]

DEFAULT_ALGO = "auto"
"""The optimizer of a new study whose caller names none."""


def creation_attrs(space: Space, optimizer: Optimizer) -> dict[str, JSON]:
    """The attributes a new study is stored with."""
    return {
        "space": repr(space)[:4000],
        "space_fingerprint": fingerprint(space),
        "space_addresses": space_addresses(space),
        "optimizer": spec_of(optimizer),
    }


#: Above this many characters of addresses and node reprs a study does not store them.
MAX_ADDRESSES_TEXT = 20_000


def space_addresses(space: Space) -> dict[str, JSON] | None:
    """Each decision address of a non-recursive space with its node's repr, so that a
    reopening with another space can name what changed; None for a recursive space,
    whose addresses are unbounded, or one whose list exceeds :data:`MAX_ADDRESSES_TEXT`."""
    if analyze(space).recursive:
        return None
    found = {address: repr(node) for address, node in addresses(space)}
    size = sum(len(address) + len(text) for address, text in found.items())
    return dict(found) if size <= MAX_ADDRESSES_TEXT else None


def space_difference(stored: object, given: dict[str, JSON] | None) -> str:
    """The addresses that differ between a stored and a given :func:`space_addresses`,
    as ``removed=..., added=..., changed=...`` (empty when either is unknown)."""
    if not isinstance(stored, dict) or given is None:
        return ""
    parts = []
    removed = [a for a in stored if a not in given]
    added = [a for a in given if a not in stored]
    changed = [f"{a}: {stored[a]} -> {given[a]}" for a in given if a in stored and stored[a] != given[a]]
    for name, items in (("removed", removed), ("added", added), ("changed", changed)):
        if items:
            parts.append(f"{name}={items}")
    return ", ".join(parts)


def _refuse(what: str, name: str, stored: object, given: object, hint: str = "") -> StudyError:
    return StudyError(
        f"a reopened study must keep its {what}{hint}, but got study={name!r} stored_{what}={stored!r}, "
        f"given_{what}={given!r}"
    )


def _record_change(storage: Storage, record: StudyRecord, change: dict[str, Any]) -> None:
    changes = list(record.attrs.get("changes") or [])  # type: ignore[arg-type]
    changes.append({"time": time.time(), **change})
    storage.set_study_attr(record.study_id, "changes", changes)


def reconcile(
    storage: Storage,
    record: StudyRecord,
    space: Space,
    *,
    algo: str | Optimizer | None,
    objectives: Objectives | None,
    seed: int | None,
    allow_space_change: bool,
) -> Optimizer:
    """The optimizer of a reopened study, after checking the caller's arguments
    against what is stored (see the module docstring)."""
    stored = record.objectives
    if objectives is not None and (
        objectives.directions != stored.directions or objectives.names not in (None, stored.names)
    ):
        if objectives.names is None and not objectives.several and not stored.several:
            raise _refuse("direction", record.name, stored.directions[0], objectives.directions[0])
        raise _refuse("directions", record.name, stored.argument, objectives.argument)
    if seed is not None and seed != record.seed:
        raise _refuse(
            "seed",
            record.name,
            record.seed,
            seed,
            " (every worker of a study shares the study's seed: give it to the first one, or give none and "
            "each worker reads it from the storage; see 'Seeding several workers' in the parallel runs guide)",
        )
    stored_print = record.attrs.get("space_fingerprint")
    given_print = fingerprint(space)
    if stored_print is not None and stored_print != given_print and stored_print == fingerprint(space, legacy=True):
        storage.set_study_attr(record.study_id, "space_fingerprint", given_print)  # stored by an older treefarm
    elif stored_print is not None and stored_print != given_print:
        given_addresses = space_addresses(space)
        if not allow_space_change:
            difference = space_difference(record.attrs.get("space_addresses"), given_addresses)
            hint = (
                f" ({difference}; " if difference else " ("
            ) + "pass allow_space_change=True, or --allow-space-change to treefarm run and worker, to go on with it)"
            raise _refuse("space", record.name, record.attrs.get("space"), repr(space)[:4000], hint)
        _record_change(storage, record, {"space": repr(space)[:4000], "space_fingerprint": given_print})
        storage.set_study_attr(record.study_id, "space_fingerprint", given_print)
        storage.set_study_attr(record.study_id, "space", repr(space)[:4000])
        storage.set_study_attr(record.study_id, "space_addresses", given_addresses)
    elif stored_print is None:
        storage.set_study_attr(record.study_id, "space_fingerprint", given_print)
    stored_spec = record.attrs.get("optimizer")
    if algo is None:
        if isinstance(stored_spec, dict):
            return from_spec(stored_spec)
        return make_optimizer(DEFAULT_ALGO)
    optimizer = make_optimizer(algo)
    spec = spec_of(optimizer)
    if spec != stored_spec:
        _record_change(storage, record, {"optimizer": spec})
        storage.set_study_attr(record.study_id, "optimizer", spec)
    return optimizer


class Named(Protocol):
    """A study as told apart from another: its name and its storage."""

    @property
    def name(self) -> str: ...

    @property
    def storage(self) -> Storage: ...


def same_study(one: Named, other: Named) -> bool:
    """Whether two study objects are one study: the same name in the same storage
    (one object, or two storages of one URL)."""
    if other is one:
        return True
    url = getattr(other.storage, "url", None)
    same_storage = other.storage is one.storage or (url is not None and url == getattr(one.storage, "url", None))
    return same_storage and other.name == one.name
