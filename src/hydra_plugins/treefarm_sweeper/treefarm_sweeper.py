"""Registers the sweeper ``treefarm`` with Hydra, which imports every module under ``hydra_plugins``
and instantiates only plugins defined there; the sweeper itself is
:class:`treefarm.integration.hydra.StudySweeper`, named here as the configuration's
``_target_`` names it."""

from hydra.core.config_store import ConfigStore

from treefarm.integration import hydra as sweeper

__all__ = ["TreefarmSweeper"]


class TreefarmSweeper(sweeper.StudySweeper):
    """Hydra's sweeper ``treefarm``: see :mod:`treefarm.integration.hydra`."""


ConfigStore.instance().store(
    group="hydra/sweeper", name="treefarm", node=sweeper.TreefarmSweeperConf, provider="treefarm"
)
