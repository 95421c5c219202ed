"""``treefarm plot``: draw one plot of a stored study into an image file.

    treefarm plot treefarm.db --study quickstart --kind convergence -o convergence.png
    treefarm plot runs.db --study seed0 --study seed1 --study seed2 -o band.svg

The format follows the file's suffix (``.png``, ``.svg``, ``.pdf``); needs
matplotlib (``pip install treefarm[plot]``).
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

from ..storage import open_storage
from .arguments import MAX_DPI, dpi, storage_argument
from .command import Command, UsageError
from .output import output_file

__all__ = ["COMMAND", "FORMATS", "cmd_plot"]

FORMATS = (".png", ".svg", ".pdf")
KIND_NAMES = ("convergence", "slices", "importance", "parallel", "intermediate", "structures", "gp", "front", "hypervolume", "cost")


def cmd_plot(args: argparse.Namespace) -> int:
    if Path(args.output).suffix.lower() not in FORMATS:
        raise UsageError(f"-o must end in one of {list(FORMATS)}, but got -o={args.output!r}")
    out = output_file(args.output, option="-o", storages=[args.storage])
    if importlib.util.find_spec("matplotlib") is None:
        raise UsageError("plots need matplotlib, but it is not installed: pip install 'treefarm[plot]'")
    from .. import viz
    from ..viz.source import check_plottable

    storage = open_storage(args.storage, read_only=True)
    try:
        studies = [viz.StudyData.load(storage, name) for name in args.study]
    finally:
        storage.close()
    data = studies[0]
    if args.kind is None:  # a study with several objectives is read by its front first
        args.kind = "front" if data.objectives.several and len(studies) == 1 else "convergence"
    if len(studies) > 1 and args.kind != "convergence":
        raise UsageError(f"several --study need --kind convergence, but got --kind={args.kind}")
    if args.kind != "intermediate":  # learning curves are drawn from pruned trials too
        for one in studies:
            check_plottable(one, minimum=1 if len(studies) > 1 else 2)
    if len(studies) > 1:
        fig = viz.plot_convergence(studies)
    elif args.kind == "gp":
        fig = viz.plot_gp_posterior(data, args.param)
    elif args.kind == "convergence":
        fig = viz.plot_convergence(data, axis=args.axis)
    else:
        fig = viz.KINDS[args.kind](data)
    fig.savefig(out, dpi=args.dpi)
    print(f"wrote {out}")
    return 0


def _arguments(plot: argparse.ArgumentParser) -> None:
    storage_argument(plot)
    plot.add_argument(
        "--study",
        required=True,
        action="append",
        help="repeat for several studies' median and band (convergence)",
    )
    plot.add_argument(
        "--kind", choices=KIND_NAMES, default=None, help="(default: front for several objectives, else convergence)"
    )
    plot.add_argument("-o", "--output", required=True, help="image file: .png, .svg or .pdf")
    plot.add_argument("--param", default=None, help="parameter of --kind gp (default: the most important)")
    plot.add_argument("--axis", choices=["number", "time"], default="number", help="x axis of convergence")
    plot.add_argument("--dpi", type=dpi, default=120, help=f"dots per inch of a .png (1 to {MAX_DPI})")


COMMAND = Command("plot", "draw a plot of a study into a PNG, SVG or PDF file", _arguments, cmd_plot)
