"""bench/ stays a package a newcomer can read: scripts live in harness/, suites/ or screens/."""

from __future__ import annotations

from bench.harness.paths import BENCH

TOP = {"__init__.py", "__main__.py", "README.md", "RESULTS.md", "requirements.txt"}
FOLDERS = {"harness", "suites", "screens", "results", "notes", "plots"}


def test_bench_top_level_holds_only_the_entry_points_and_the_folders() -> None:
    files = {p.name for p in BENCH.iterdir() if p.is_file()}
    folders = {p.name for p in BENCH.iterdir() if p.is_dir() and not p.name.startswith((".", "__"))}
    assert files <= TOP, (
        f"{sorted(files - TOP)} in bench/: a harness module goes in bench/harness/, a suite's script in "
        "bench/suites/, a one-off design screen in bench/screens/, notes in bench/notes/"
    )
    assert folders <= FOLDERS, f"unexpected folders {sorted(folders - FOLDERS)} in bench/"


def test_the_notes_are_markdown_and_the_results_are_rows() -> None:
    assert all(p.suffix == ".md" for p in (BENCH / "notes").iterdir()), "bench/notes/ holds Markdown only"
    odd = [p.name for p in (BENCH / "results").iterdir() if p.suffix not in {".jsonl", ".json", ".md", ".txt"}]
    assert not odd, f"{odd} in bench/results/: rows are JSON lines"
