"""A sphinx-gallery image scraper for treefarm's figures.

treefarm's plotting functions return a ``matplotlib.figure.Figure`` made without pyplot (so a
server or a script never opens a window), which sphinx-gallery's own scraper, reading
pyplot's figure list, does not see. This one shows each figure an example's code assigns to a
name, once, after the block that made it.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

__all__ = ["treefarm_figures"]

_shown: dict[str, set[int]] = {}


def treefarm_figures(
    block: Any, block_vars: dict[str, Any], gallery_conf: dict[str, Any], **kwargs: Any
) -> str:
    from matplotlib.figure import Figure
    from sphinx_gallery.scrapers import figure_rst

    shown = _shown.setdefault(str(block_vars["src_file"]), set())
    figures = [
        v for v in block_vars["example_globals"].values() if isinstance(v, Figure) and id(v) not in shown
    ]
    paths = []
    for figure, path in zip(figures, block_vars["image_path_iterator"]):
        figure.savefig(path)
        shown.add(id(figure))
        paths.append(PurePosixPath(path))
    return figure_rst(paths, gallery_conf["src_dir"])
