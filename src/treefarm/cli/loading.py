"""Reading the objective, the space and the pruner from the user's Python file.

``run``, ``worker`` and ``hint`` take ``FILE.py[:NAME]``: the file is imported (executed) as
a module and the names are looked up in it; a missing file or name is a usage error naming
it, and an error the file raises is shown with the file's own frames only.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

from ..exceptions import TreefarmError
from ..fidelity import Fidelity
from ..pruners import Pruner
from .command import UsageError

__all__ = ["FileError", "attribute", "load_file", "pruner_from", "space_from"]


def load_file(target: str) -> tuple[ModuleType, str]:
    """The module ``FILE.py`` of ``FILE.py[:NAME]``, and NAME (default ``objective``)."""
    path_text, _, name = target.partition(":")
    path = Path(path_text)
    if path.suffix != ".py" or not path.is_file():
        raise UsageError(f"FILE must be an existing .py file, but got FILE={path_text!r}")
    spec = importlib.util.spec_from_file_location(path.stem, path, loader=_FreshSource(path.stem, str(path)))
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import FILE={path_text!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise FileError(_user_error(exc, path)) from None
    return module, name or "objective"


class _FreshSource(importlib.machinery.SourceFileLoader):
    """Compiles the file from its source at every load. Python's cached bytecode is
    trusted while the file's modification time (to the second) and size match, so a
    script edited and run again within the same second, at the same size, would run
    its previous version."""

    def get_code(self, fullname: str) -> Any:
        return compile(self.get_data(self.path), self.path, "exec", dont_inherit=True)


class FileError(TreefarmError):
    """The Python file a command runs raised while it was imported (a syntax error, a failed import)."""


_PACKAGE = str(Path(__file__).resolve().parents[1])
"""Where treefarm's own files are: their frames are left out of a user file's error."""


def _user_error(exc: Exception, path: Path) -> str:
    """The error a user's file raised while it was imported, as Python would show it
    for the file alone: its own frames (none of treefarm's or importlib's), then the error."""
    frames = [
        f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith((_PACKAGE, "<frozen"))
    ]
    shown = "".join(traceback.format_list(frames)) + "".join(traceback.format_exception_only(type(exc), exc))
    return (
        f"running {path} raised:\n"
        + (f"Traceback (most recent call last):\n{shown}" if frames else shown).rstrip()
    )


def attribute(module: ModuleType, name: str, what: str) -> Any:
    """``module.name``; ``what`` names it in the error when the file lacks it."""
    if not hasattr(module, name):
        raise UsageError(f"the file must define {what} {name!r}, but {module.__file__} has no {name!r}")
    return getattr(module, name)


def pruner_from(module: ModuleType, name: str | None) -> Pruner | None:
    """The pruner the file names ``name``: a :class:`~treefarm.Pruner`, or a function
    that makes one when called without arguments; None without ``--pruner``."""
    if name is None:
        return None
    found = attribute(module, name, "the pruner")
    made = found() if callable(found) and not isinstance(found, Pruner) else found
    if not isinstance(made, Pruner):
        raise UsageError(
            f"--pruner must name a Pruner (or a function making one) in the file, but {name!r} is {made!r}"
        )
    return made


def fidelity_from(module: ModuleType, name: str | None) -> Fidelity | None:
    """The :class:`~treefarm.Fidelity` the file names ``name`` (``--fidelity``), else the
    file's ``fidelity`` when it is one, else None."""
    if name is None:
        found = getattr(module, "fidelity", None)
        return found if isinstance(found, Fidelity) else None
    found = attribute(module, name, "the fidelity")
    if not isinstance(found, Fidelity):
        raise UsageError(f"--fidelity must name a Fidelity in the file, but {name!r} is {found!r}")
    return found


def space_from(target: str) -> Any:
    """The space ``FILE.py[:NAME]`` defines (``space`` unless NAME says otherwise)."""
    module, name = load_file(target)
    return attribute(module, name if ":" in target else "space", "the space")
