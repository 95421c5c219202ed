"""The hint bench's report over runs of two lengths: runs to 200 evaluations in a
second file replace the same runs to 100, and are read against no hint's median at 100."""

from __future__ import annotations

import json
from pathlib import Path

from bench.suites.hints import report


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _row(variant: str, seed: int, regret: list[float]) -> dict[str, object]:
    return {"problem": "branin", "variant": variant, "seed": seed, "algo": "gp", "regret": regret}


def test_runs_to_200_replace_runs_to_100_and_are_read_against_the_median_at_100(tmp_path: Path) -> None:
    first = _write(
        tmp_path / "a.jsonl",
        [_row("none", s, [1.0] * 100) for s in range(3)] + [_row("misleading c=1", s, [3.0] * 100) for s in range(3)],
    )
    longer = _write(
        tmp_path / "b.jsonl", [_row("misleading c=1", s, [3.0] * 150 + [0.5] * 50) for s in range(3)]
    )
    lines = report([first, longer]).splitlines()
    assert "median regret at 200" in lines[0]
    assert lines[2] == "| branin | gp | none | 3 | 1 | - | 1.00 | 1 |"
    assert lines[3] == "| branin | gp | misleading c=1 | 3 | 3 | 0.5 | 3.00 | 151 |"
    # with only the first file, the misleading hint never reaches the target
    assert report([first]).splitlines()[3].endswith("| > 100 |")
