"""How a ``treefarm`` command is declared, and the one error for a wrong argument.

Each command lives in a module of its own that declares one :class:`Command`: its name, its
one-line help, a function adding its arguments and the function running it.
:mod:`treefarm.cli.main` lists these declarations in the order ``treefarm --help`` shows
them, and that list is the only place a command is registered.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["Command", "UsageError"]


class UsageError(Exception):
    """A command-line argument is wrong: reported with the usage line, exit status 2."""


@dataclass(frozen=True)
class Command:
    """One subcommand of ``treefarm``.

    ``arguments(parser)`` adds the command's arguments to its parser; ``run(args)`` does the
    work and returns the exit status. ``run`` raises :class:`UsageError` for a wrong argument
    that argparse could not check, and a :class:`~treefarm.exceptions.TreefarmError` for
    anything else the user can mend (status 1).
    """

    name: str
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]

    def register(self, subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """Add this command to the subcommands of the ``treefarm`` parser."""
        parser = subcommands.add_parser(self.name, help=self.help)
        self.arguments(parser)
        parser.set_defaults(func=self.run)
