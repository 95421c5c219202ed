"""The one place a study name becomes part of a path (the artifact store's folder of
the study, the file ``treefarm worker`` runs by default).

A name is any string :func:`treefarm.validation.check_study_name` accepts, so it may
hold ``/``, ``..`` or ``:``; as a path segment it is encoded so that it stays one
folder inside its root whatever it holds: letters, digits, ``_``, ``-``, ``.`` and
the space are kept (an ordinary name reads as itself), every other character is
written ``%XX`` (its UTF-8 bytes, as in a URL), and so is a leading dot (``..``
becomes ``%2E.``, never the parent folder). The encoding is one to one: two names
never share a folder.
"""

from __future__ import annotations

import re

from ...validation import check_study_name

__all__ = ["path_segment"]

_KEPT = re.compile(r"[A-Za-z0-9_\- .]")


def path_segment(name: str) -> str:
    """``name`` as one safe path segment (see the module docstring)."""
    check_study_name(name)
    encoded = "".join(c if _KEPT.fullmatch(c) else _escape(c) for c in name)
    return f"%2E{encoded[1:]}" if encoded.startswith(".") else encoded


def _escape(character: str) -> str:
    return "".join(f"%{byte:02X}" for byte in character.encode("utf-8"))
