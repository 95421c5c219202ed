"""Hydra's sweeper ``treefarm`` (``hydra/sweeper=treefarm``): see :mod:`treefarm.integration.hydra`."""
