"""Refusing a process pool that would run the script again in each worker.

Worker processes are started with ``spawn`` (safe with threads, the same on
every platform): each imports the script that started the run as
``__mp_main__``, executing its top-level statements again. A script calling
``optimize(n_jobs=2)`` outside an ``if __name__ == "__main__":`` block thus
starts, in every worker, the same run again, which multiprocessing refuses
with pages of tracebacks while the parent fails every trial. This check finds
the statement of the script that is running now and refuses the call, in one
line, when that statement is outside such a block.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from types import FrameType

from ...exceptions import StudyError

__all__ = ["check_main_guard"]


def _is_main_test(test: ast.expr) -> bool:
    """Whether ``test`` is ``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    texts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(texts) == 1


def _script_frame(main_globals: dict[str, object]) -> FrameType | None:
    """The frame running the main script's top level, if this call comes from it."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_globals is main_globals and frame.f_code.co_name == "<module>":
            return frame
        frame = frame.f_back
    return None


def check_main_guard(n_jobs: int) -> None:
    """StudyError if the running script's current top-level statement is not under
    ``if __name__ == "__main__":`` (see the module docstring); nothing for an
    interactive session, a notebook, ``python -c`` or ``python -m``."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or not isinstance(path, str) or not path.endswith(".py"):
        return
    frame = _script_frame(vars(main))
    if frame is None:
        return
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return
    line = frame.f_lineno
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.If)
            and _is_main_test(node.test)
            and node.lineno <= line <= (node.end_lineno or 0)
        ):
            return
    raise StudyError(
        f"n_jobs={n_jobs} starts worker processes that import {Path(path).name} again and would run this "
        f'call again: put the script\'s run under `if __name__ == "__main__":`, but got the call at line '
        f"{line} of {path}, outside such a block"
    )
