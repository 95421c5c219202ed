"""Where the benchmark's files live, whatever the working directory: the
repository, the ``bench`` package, its committed rows, figures and notes."""

from __future__ import annotations

from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent
ROOT = BENCH.parent
RESULTS = BENCH / "results"
PLOTS = BENCH / "plots"
NOTES = BENCH / "notes"
