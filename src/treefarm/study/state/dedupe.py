"""Never evaluating one configuration twice.

Two configurations are the same point when their canonical expressions are
equal under the rules declared on the space's ops (commutative, associative,
idempotent, identity; see :func:`treefarm.space.canonical`), or, in a space
without rules, when they are equal decision by decision. A suggestion equal to
a configuration already evaluated, failed or pending is drawn again, with the
duplicates passed as pending so the optimizer steers away, up to
``max_redraws`` draws in all. Past that the space is taken as exhausted (a finite
space whose every point was tried) and the duplicate is evaluated: the study
goes on rather than stopping, and its records show the repeat.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ...optimizers import History
from ...space import Config, Join, Real, Space, addresses, analyze, canonical, has_rules

__all__ = ["Deduplicator"]


class Deduplicator:
    """The identity of configurations in one space, and distinct suggestions from an optimizer."""

    def __init__(self, space: Space, *, max_redraws: int = 20) -> None:
        self.space = space
        self.max_redraws = max_redraws
        self.rules = has_rules(space)
        self.draws_repeat = _draws_repeat(space)
        self._keys: dict[Config, str] = {}

    def key(self, config: Config) -> str:
        """What makes two configurations the same point: their canonical expression."""
        if config not in self._keys:
            self._keys[config] = canonical(self.space, config) if self.rules else config.to_json()
        return self._keys[config]

    def suggest(
        self, propose: Callable[[History], tuple[Config, Config]], history: History, *, taken: Iterable[Config] = ()
    ) -> tuple[Config, bool]:
        """One suggestion of ``propose(history)`` not in ``history`` (see the module
        docstring), and whether it is new to it (False: the space is taken as exhausted).

        ``propose`` returns the suggestion and the optimizer's own proposal it was
        made from (the same, or one the study changed: an option of prior weight 0
        drawn again); a refused suggestion is passed back as pending with that
        proposal, so the optimizer steers away from what it proposed. ``taken`` are
        configurations the optimizer is not shown that count as seen too (the other
        rungs' evaluations in a study with a fidelity)."""
        seen = {self.key(c) for c in (*history.seen(), *taken)}
        for _ in range(self.max_redraws):
            config, proposed = propose(history)
            if self.key(config) not in seen:
                return config, True
            history = history.with_pending([config] if proposed == config else [config, proposed])
        return config, False


def _draws_repeat(space: Space) -> bool:
    """Whether two independent draws can be one configuration with a chance above 0:
    unless every configuration holds a real number (a space without joins or
    recursion, with a Real). An optimizer that does not read the history (random
    search) needs the duplicate check exactly then."""
    if analyze(space).recursive:
        return True
    nodes = [node for _, node in addresses(space)]
    return any(isinstance(node, Join) for node in nodes) or not any(isinstance(node, Real) for node in nodes)
