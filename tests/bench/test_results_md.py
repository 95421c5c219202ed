"""bench/RESULTS.md is generated from the committed rows: the generator reproduces it byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from bench.__main__ import main
from bench.harness.paths import BENCH, RESULTS
from bench.harness.suite import Suite, complete, merge, runner_finals, screen_finals
from bench.harness.summary import LISTED_COMMANDS, MANIFEST, profile, rank_set, table, verdict
from bench.suites import all_suites


def test_results_md_is_regenerated_byte_for_byte_from_the_committed_rows(tmp_path: Path) -> None:
    out = tmp_path / "RESULTS.md"
    assert main(["report", "--out", str(out), "--no-plots"]) == 0
    committed = (BENCH / "RESULTS.md").read_bytes()
    assert out.read_bytes() == committed, (
        "bench/RESULTS.md differs from what `python -m bench report` makes of the committed rows: "
        "regenerate it with that command and commit it with the rows"
    )
    assert len(committed) <= 64_000, f"bench/RESULTS.md is {len(committed)} bytes; it must stay <= 64 KB"


def test_every_suite_has_rows_a_command_and_a_manifest_entry_for_rows_without_commits() -> None:
    known = json.loads(MANIFEST.read_text())
    suites = all_suites()
    assert len({s.name for s in suites}) == len(suites), "suite names must be unique"
    for s in suites:
        assert s.commands, f"suite {s.name} has no command that reproduces its rows"
        for f in s.files:
            assert (RESULTS / f).exists(), f"suite {s.name} names {f}, which is not in bench/results/"
            assert f in known, f"{f} (suite {s.name}) is not in {MANIFEST.name}: run `python -m bench manifest`"
    assert {"synthetic", "tuning", "bbob-2d", "bbob-10d", "bbob-20d", "grammars", "integrations", "pruning",
            "fidelity", "fidelity-held-out", "hints", "overhead", "many"} <= {s.name for s in suites}


def test_the_headline_keeps_the_held_out_problems_apart() -> None:
    text = (BENCH / "RESULTS.md").read_text()
    assert "**45 problems, the suites the defaults were chosen on**" in text
    assert "**26 problems, held out from the design decisions**" in text
    held = [s.name for s in all_suites() if s.held_out]
    assert held == ["synthetic-shifted", "bbob-held-out", "bbob-5d", "tpe-held-out", "grammars-held-out", "grammars-small",
                    "fidelity-held-out"], held


def test_a_suite_of_many_commands_points_to_its_dry_run() -> None:
    text = (BENCH / "RESULTS.md").read_text()
    for s in all_suites():
        if len(s.commands) > LISTED_COMMANDS:
            assert f"`python -m bench run {s.name} --dry-run`" in text, s.name
        else:
            assert all(c in text for c in s.commands), s.name


def test_list_names_every_suite_and_run_dry_run_prints_its_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    listed = capsys.readouterr().out
    assert all(s.name in listed for s in all_suites())
    assert main(["run", "bbob-20d", "--dry-run"]) == 0
    assert "bench/results/bbob_d20.jsonl" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["run", "no-such-suite", "--dry-run"])


def _suite(finals: dict[tuple[str, str], dict[int, float]]) -> Suite:
    return Suite("toy", "Toy", "A toy suite.", "regret", "ours", ("ours", "peer"), (), ("true",),
                 lambda: finals)


def _far_and_tie() -> dict[tuple[str, str], dict[int, float]]:
    """Two problems, 10 seeds: on ``far`` the peer is worse beyond noise, on ``tie`` it is not."""
    rng = np.random.default_rng(1)
    return {
        ("far", "ours"): dict(enumerate(rng.uniform(0.0, 1.0, 10))),
        ("far", "peer"): dict(enumerate(rng.uniform(10.0, 11.0, 10))),
        ("tie", "ours"): dict(enumerate(rng.uniform(0.0, 1.0, 10))),
        ("tie", "peer"): dict(enumerate(rng.uniform(0.0, 1.0, 10))),
    }


def test_a_peer_worse_beyond_noise_is_marked_and_counted_and_a_tie_is_not() -> None:
    finals = _far_and_tie()
    assert verdict(finals, "far", "peer", "ours") == 1
    assert verdict(finals, "tie", "peer", "ours") == 0
    text = table(_suite(finals), finals)
    assert text.count("▲") == 1 and "▼" not in text, text
    assert "|**ours better / worse beyond noise**|–|1 / 0 of 2|" in text, text
    assert table(_suite(finals), finals) == text, "the table must not depend on the run"


def test_a_resolved_only_suite_shows_the_problems_beyond_noise_and_counts_the_rest() -> None:
    from dataclasses import replace

    finals = _far_and_tie()
    text = table(replace(_suite(finals), resolved_only=True), finals)
    assert "|far|" in text and "|tie|" not in text, text
    assert "|*1 more, within noise*|||" in text, text
    assert "|**ours better / worse beyond noise**|–|1 / 0 of 2|" in text, "hidden rows still count"


def test_the_performance_profile_is_the_same_file_on_every_run(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    finals = {("a", "ours"): {0: 1.0, 1: 2.0}, ("a", "peer"): {0: 3.0, 1: 4.0}, ("b", "peer"): {0: 0.0}}
    first = profile(_suite(finals), finals, tmp_path / "one").read_bytes()
    second = profile(_suite(finals), finals, tmp_path / "two").read_bytes()
    assert first == second and first.startswith(b"\x89PNG")


def test_runner_and_screen_rows_meet_under_one_label(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.harness.suite as suite

    monkeypatch.setattr(suite, "RESULTS", tmp_path)
    (tmp_path / "runner.jsonl").write_text(
        json.dumps({"problem": "branin", "method": "tf-random", "seed": 0, "budget": 3, "status": "ok",
                    "losses": [3.0, 1.0, 2.0]}) + "\n"
        + json.dumps({"problem": "branin", "method": "tf-gp", "seed": 0, "budget": 3, "status": "error"}) + "\n")
    (tmp_path / "screen.jsonl").write_text(
        json.dumps({"problem": "branin", "dim": 0, "seed": 1, "variant": "random", "budget": 3,
                    "regret": [2.0, 0.5, 0.5]}) + "\n{torn")
    finals = merge(runner_finals("runner.jsonl", {"tf-random": "random", "tf-gp": "gp"}),
                   screen_finals("screen.jsonl", {"random": "random"}))
    assert list(finals) == [("branin", "random")]
    assert finals[("branin", "random")] == pytest.approx({0: 1.0 - 0.397887, 1: 0.5})



def test_a_method_run_on_few_problems_is_left_out_of_the_ranks_not_everyone_else() -> None:
    meds = {p: {"ours": 1.0, "peer": 2.0} for p in ("a", "b", "c")}
    meds["a"]["rare"] = 0.5
    ranked, common = rank_set(["ours", "peer", "rare"], meds)
    assert ranked == ["ours", "peer"] and sorted(common) == ["a", "b", "c"], (ranked, common)
    meds["b"]["rare"] = meds["c"]["rare"] = 3.0
    ranked, common = rank_set(["ours", "peer", "rare"], meds)
    assert ranked == ["ours", "peer", "rare"] and len(common) == 3, (ranked, common)


def test_run_dry_run_without_a_suite_lists_the_missing_runs_and_runs_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rows.jsonl"
    out.write_text(json.dumps({"problem": "branin", "method": "tf-random", "seed": 0, "budget": 100,
                               "status": "ok", "losses": [1.0]}) + "\n")
    before = out.read_bytes()
    argv = ["run", "--problems", "branin", "--methods", "tf-random", "--seeds", "2", "--out", str(out), "--dry-run"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.out.split("\n")[0] == "branin tf-random 1 100", captured.out
    assert "1 runs not in" in captured.err and "nothing ran" in captured.err
    assert out.read_bytes() == before, "a dry run must not run or record anything"


def test_a_run_still_under_way_shows_no_median_of_the_seeds_it_reached() -> None:
    finals = {("ackley5_shifted", "ax"): dict.fromkeys(range(10), 1.0), ("levy10_shifted", "ax"): {0: 2.0, 1: 3.0}}
    assert complete(finals, range(10)) == {("ackley5_shifted", "ax"): finals[("ackley5_shifted", "ax")]}
