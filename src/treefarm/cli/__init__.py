"""The ``treefarm`` command line: one module per command, each declaring a
:class:`~treefarm.cli.command.Command`, listed in :data:`treefarm.cli.main.COMMANDS`."""
