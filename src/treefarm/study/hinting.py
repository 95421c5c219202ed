"""A study's search hints: given, listed and withdrawn (see :mod:`treefarm.optimizers.hints`
for how suggestions honour them). A part of :class:`~treefarm.Study`."""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..exceptions import ConfigError, StudyError, format_values
from ..space import Space
from ..space.config import Scalar
from ..space.partial import check_partial, zero_weight
from ..storage import HintRecord, Storage, StudyRecord
from ..validation import check_bool

if TYPE_CHECKING:
    from .history import TrialCache

__all__ = ["Hinting"]


def checked_hint(space: Space, config: Mapping[str, Any], *, bad: bool) -> dict[str, Scalar]:
    """A hint's partial configuration, normalized; a ConfigError naming the first
    address that does not fit (:func:`treefarm.space.partial.check_partial`) or,
    for a good hint, whose option has prior weight 0 (no optimizer proposes it,
    so the hint could not act)."""
    checked = check_partial(space, config)
    zero = [] if bad else zero_weight(space, checked)
    if zero:
        raise ConfigError(
            f"{zero[0]}={checked[zero[0]]!r} has prior weight 0, so no optimizer proposes it and the hint "
            "could not act: give the option a weight, or enqueue the configuration to evaluate it",
            address=zero[0],
        )
    return checked


class Hinting:
    """The hints side of a study (mixed into :class:`~treefarm.Study`)."""

    space: Space
    _storage: Storage
    _record: StudyRecord
    _cache: TrialCache

    def hint(
        self,
        config: Mapping[str, Any],
        *,
        credibility: float = 1.0,
        bad: bool = False,
        spread: float = 0.1,
        author: str | None = None,
    ) -> int:
        """Tell the optimizer where to look (or, ``bad=True``, where not to): a full
        or partial configuration (a grammar sub-expression's decisions too), trusted
        as far as ``credibility`` in [0, 1] says, with a window of width ``spread``
        (in the unit cube). Stored, so every worker sees it mid-run: this process
        from its next suggestion on, others within a second. Returns the hint's id (see
        :mod:`treefarm.optimizers.hints` for how suggestions honour it)."""
        check_bool("bad", bad)
        credibility, spread = _number(credibility), _number(spread)  # NumPy scalars too; the storage checks ranges
        checked = checked_hint(self.space, config, bad=bad)
        record = self._storage.add_hint(
            self._record.study_id, config=checked, credibility=credibility, weight=-1 if bad else 1, spread=spread, author=author
        )
        self._cache.forget_hints()
        return record.hint_id

    @property
    def hints(self) -> list[HintRecord]:
        """The study's hints, oldest first."""
        return self._storage.get_hints(self._record.study_id)

    def remove_hint(self, hint_id: int) -> None:
        """Withdraw a hint: suggestions from now on ignore it."""
        if isinstance(hint_id, bool) or not isinstance(hint_id, int):
            raise StudyError(f"remove_hint needs a hint's id (an int), but got {format_values(hint_id=hint_id)}")
        self._storage.remove_hint(self._record.study_id, hint_id)
        self._cache.forget_hints()


def _number(value: float) -> float:
    """A real number of any kind (NumPy's too) as a float; anything else as given,
    for the storage's check to name."""
    return float(value) if isinstance(value, numbers.Real) and not isinstance(value, bool) else value
