"""bench.screens.trust_default: the rule registered before the trust region's judgement, and its verdict."""

from __future__ import annotations

import pytest
from bench.harness.suite import merge, runner_finals
from bench.screens.trust_default import Counts, counts, judge


@pytest.mark.parametrize(
    ("c", "adopted"),
    [
        (Counts(lower=2, higher=1, lower_median=5, differ=10, lower_tail=4, higher_tail=4), True),
        (Counts(lower=1, higher=1, lower_median=9, differ=10, lower_tail=9, higher_tail=0), False),  # (1): a tie
        (Counts(lower=3, higher=0, lower_median=4, differ=10, lower_tail=9, higher_tail=0), False),  # (2)
        (Counts(lower=3, higher=0, lower_median=9, differ=10, lower_tail=4, higher_tail=5), False),  # (3)
    ],
)
def test_the_rule_needs_all_three_conditions(c: Counts, adopted: bool) -> None:
    assert c.adopted is adopted


def test_the_committed_judgement_is_the_one_the_notes_report() -> None:
    names = {"tf-auto-trust": "tf-auto-trust", "tf-auto": "tf-auto"}
    files = ("trust_judge_d2.jsonl", "trust_judge_d5.jsonl", "trust_judge_d10.jsonl", "trust_judge_shifted.jsonl")
    finals = merge(*(runner_finals(f, names) for f in files))
    lines = judge(finals, "tf-auto-trust", "tf-auto")
    assert len(lines) == 36 and {line.seeds for line in lines} == {20}
    c = counts(lines)
    assert c == Counts(lower=6, higher=1, lower_median=19, differ=34, lower_tail=13, higher_tail=21)
    assert not c.adopted  # (1) and (2) hold, (3) does not
