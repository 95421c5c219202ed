"""The spread under a table: a method that usually solves a problem but stalls on some seeds shows
it in its worst decile, which the median hides."""

from __future__ import annotations

import pytest
from bench.harness.spread import quantiles, spread_table


def test_the_worst_decile_shows_the_stalled_seeds_the_median_hides() -> None:
    bimodal = [0.0] * 8 + [5.0, 5.0]
    iqr, decile = quantiles(bimodal)
    assert iqr == 0.0 and decile == pytest.approx(5.0)
    assert quantiles(list(range(11))) == (pytest.approx(5.0), pytest.approx(9.0))


def test_the_count_names_the_problems_where_ours_stalls_no_worse_than_the_best_peer() -> None:
    finals = {
        ("a", "auto"): dict(enumerate([0.0] * 10)),
        ("a", "peer"): dict(enumerate([1.0] * 10)),
        ("b", "auto"): dict(enumerate([0.0] * 8 + [5.0, 5.0])),
        ("b", "peer"): dict(enumerate([1.0] * 10)),
        ("b", "few"): {0: 0.0, 1: 0.0},
    }
    text = spread_table(finals, "auto", ("auto", "peer"))
    assert "|a|0 / 0|0 / 1|·|" in text and "|b|0 / 5|0 / 1|·|" in text
    assert text.endswith("on 1 of 2 problems (methods of 5+ seeds).")
    short = spread_table(finals, "auto", ("auto", "peer"), full=False)
    assert short.startswith("Spread over seeds: auto's worst decile") and "|" not in short
