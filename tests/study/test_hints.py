"""Search hints: stored, validated, honoured by every optimizer, harmless at credibility 0."""

from __future__ import annotations

import operator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import treefarm as tf
from treefarm.cli.main import main
from treefarm.exceptions import ConfigError, StorageError
from treefarm.optimizers.hints import Hint, hint_draw, hint_kernel, hint_log_prior
from treefarm.study.state import cache
from treefarm.study.state.warm import GATE_TRIALS, warm_author, warm_source

SPACE = {
    "x": tf.Real(-5.0, 5.0),
    "lr": tf.Real(1e-5, 1e-1, log=True),
    "model": tf.Join(svm={"C": tf.Real(1e-3, 1e3, log=True)}, tree={"depth": tf.Int(1, 10)}),
}
ALGOS = ["random", "tpe", "anneal", tf.GP(n_startup=5, n_candidates=64, n_local=32, n_starts=2)]


def loss(p: dict) -> float:
    return (p["x"] - 3.0) ** 2 + abs(np.log10(p["lr"]) + 3)


def _params(study: tf.Study) -> list[dict]:
    return [dict(t.params) for t in study.trials]


@pytest.mark.parametrize("algo", ALGOS, ids=["random", "tpe", "anneal", "gp"])
def test_a_hint_of_credibility_zero_changes_nothing(algo: object) -> None:
    plain = tf.Study.create(space=SPACE, algo=algo, seed=4)  # type: ignore[arg-type]
    plain.optimize(loss, 12)
    hinted = tf.Study.create(space=SPACE, algo=algo, seed=4)  # type: ignore[arg-type]
    hinted.hint({"x": -4.0, "model": "tree"}, credibility=0.0)
    hinted.hint({"x": 3.0}, credibility=0.0, bad=True)
    hinted.optimize(loss, 12)
    assert _params(hinted) == _params(plain)


@pytest.mark.parametrize("algo", ALGOS, ids=["random", "tpe", "anneal", "gp"])
def test_a_hint_given_mid_run_steers_the_next_suggestions(algo: object) -> None:
    plain = tf.Study.create(space=SPACE, algo=algo, seed=1)  # type: ignore[arg-type]
    plain.optimize(loss, 16)
    hinted = tf.Study.create(space=SPACE, algo=algo, seed=1)  # type: ignore[arg-type]
    hinted.optimize(loss, 4)
    hinted.hint({"x": 3.0, "lr": 1e-3, "model": "tree"}, credibility=1.0, spread=0.05)
    hinted.optimize(loss, 16)
    assert _params(hinted)[:4] == _params(plain)[:4]

    def near(p: dict) -> bool:
        return abs(p["x"] - 3.0) < 1.0 and abs(np.log10(p["lr"]) + 3) < 0.8 and p["model"] == "tree"

    near_hint = [near(p) for p in _params(hinted)[4:]]
    near_plain = [near(p) for p in _params(plain)[4:]]
    assert sum(near_hint) >= 5 and sum(near_hint) > sum(near_plain)


def test_a_bad_hint_keeps_random_search_out_of_its_region() -> None:
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, algo="random", seed=0)
    study.hint({"x": 0.5}, credibility=1.0, bad=True, spread=0.1)
    study.optimize(lambda p: p["x"], 200)
    inside = sum(abs(t.params["x"] - 0.5) < 0.1 for t in study.trials)
    assert inside < 0.2 * 0.2 * 200  # a fifth of what 200 uniform draws would put there (about 40)


@pytest.mark.parametrize(
    ("config", "pattern"),
    [
        ({"nope": 1.0}, r"reached through the configuration's own choices.*nope=1.0"),
        ({"x": 9.0}, r"x must lie in \[-5, 5\], but got x=9.0"),
        ({"model.forest.depth": 3}, r"name the options of the joins above it.*model.forest.depth=3"),
        ({"model": "forest"}, r"model must be the label of an option.*model='forest'"),
        ({}, r"non-empty mapping"),
    ],
)
def test_a_hint_that_does_not_fit_the_space_names_the_address(config: dict, pattern: str) -> None:
    study = tf.Study.create(space=SPACE, seed=0)
    with pytest.raises(ConfigError, match=pattern):
        study.hint(config)
    assert study.hints == []


@pytest.mark.parametrize(("field", "value"), [("credibility", 1.5), ("spread", 0.0)])
def test_bad_hint_settings_are_named(field: str, value: float) -> None:
    study = tf.Study.create(space=SPACE, seed=0)
    with pytest.raises(StorageError, match=f"{field} must be a number"):
        study.hint({"x": 1.0}, **{field: value})


def test_hints_are_stored_listed_and_removed(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    study = tf.Study.create("s", space=SPACE, storage=db, seed=2)
    first = study.hint({"x": 1.0, "model": "svm", "model.svm.C": 10.0}, credibility=0.7, author="ana")
    second = study.hint({"model": "tree"}, credibility=0.3, bad=True)
    other = tf.Study.load("s", space=SPACE, storage=db)  # another worker sees them
    assert [(h.hint_id, h.credibility, h.weight, h.author) for h in other.hints] == [
        (first, 0.7, 1, "ana"),
        (second, 0.3, -1, None),
    ]
    other.remove_hint(first)
    assert [h.hint_id for h in study.hints] == [second]


def test_hint_windows_and_prior() -> None:
    space = tf.convert(SPACE)
    hint = Hint({"x": 2.0, "model": "tree"}, credibility=1.0, spread=0.1)
    at = {"x": 2.0, "lr": 1e-3, "model": "tree", "model.tree.depth": 4}
    away = {"x": -2.0, "lr": 1e-3, "model": "svm", "model.svm.C": 1.0}
    assert hint_kernel(space, hint, at) == 1.0
    assert hint_kernel(space, hint, away) == pytest.approx(np.exp(-0.4**2 / (2 * 0.1**2)) * 0.1)
    assert hint_log_prior(space, [hint], at) == 0.0 > hint_log_prior(space, [hint], away)
    assert hint_log_prior(space, [Hint({"x": 2.0}, credibility=0.0)], away) == 0.0
    draws = [hint_draw(space, hint, np.random.default_rng(s)) for s in range(200)]
    xs = np.array([d["x"] for d in draws])
    assert abs(np.median(xs) - 2.0) < 0.2 and 0.5 < np.std(xs) < 1.5  # sd 0.1 of the width 10
    assert sum(d["model"] == "tree" for d in draws) > 170


def test_a_hinted_grammar_sub_expression_raises_the_probability_of_its_decisions() -> None:
    add = tf.op(operator.add, name="add")
    mul = tf.op(operator.mul, name="mul")
    G = tf.Var("G", max_depth=3)
    G.define(add(G, G) | mul(G, G) | tf.Int(1, 9))
    def count(study: tf.Study) -> int:
        return sum(t.params.get("G") == "mul" and t.params.get("G.mul.0.2") == 7 for t in study.trials)

    plain, hinted = 0, 0
    for seed in range(3):
        study = tf.Study.create(space=G, algo="random", seed=seed)
        study.optimize(lambda v: 0.0, 40)
        plain += count(study)
        study = tf.Study.create(space=G, algo="random", seed=seed)
        study.hint({"G.mul.0.2": 7}, credibility=1.0)  # implies G = mul, its first argument the integer
        assert dict(study.hints[0].config) == {"G": "mul", "G.mul.0": "2", "G.mul.0.2": 7}
        study.optimize(lambda v: 0.0, 40)
        hinted += count(study)
    assert plain <= 3 and hinted >= 15


def test_the_hint_command_adds_lists_checks_and_removes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "job.py"
    script.write_text("import treefarm as tf\nspace = {'x': tf.Real(0, 1)}\ndef objective(p):\n    return p['x']\n")
    db = str(tmp_path / "j.db")
    assert main(["run", str(script), "--storage", db, "--n-trials", "3", "--seed", "0"]) == 0
    capsys.readouterr()
    assert main(["hint", db, "--study", "job", "--config", '{"x": 0.2}', "--credibility", "0.8"]) == 0
    assert "hint 1 added" in capsys.readouterr().out
    assert main(["hint", db, "--study", "job", "--config", '{"x": 2}', "--space", str(script)]) == 1
    assert "x must lie in [0, 1], but got x=2" in capsys.readouterr().err
    assert main(["hint", db, "--study", "job", "--list"]) == 0
    listed = capsys.readouterr().out
    assert "credibility=0.8" in listed and '{"x": 0.2}' in listed and listed.count("\n") == 1
    assert main(["run", str(script), "--storage", db, "--n-trials", "6"]) == 0
    capsys.readouterr()
    assert main(["hint", db, "--study", "job", "--remove", "1"]) == 0
    assert main(["hint", db, "--study", "job", "--list"]) == 0
    assert capsys.readouterr().out.endswith("removed hint 1 of study 'job'\n")


def test_a_stated_address_below_a_join_implies_its_option() -> None:
    study = tf.Study.create(space=SPACE, seed=0)
    study.hint({"model.tree.depth": 3})
    assert dict(study.hints[0].config) == {"model": "tree", "model.tree.depth": 3}


def test_a_warm_start_evaluates_the_related_studys_best_first_and_finds_good_values_sooner() -> None:
    space = {"x": tf.Real(-5.0, 5.0), "y": tf.Real(-5.0, 5.0)}
    source = tf.Study.create("source", space=space, algo="tpe", seed=0)
    source.optimize(lambda p: (p["x"] - 3.0) ** 2 + (p["y"] + 1.0) ** 2, 60)

    def shifted(p: dict) -> float:
        return (p["x"] - 3.3) ** 2 + (p["y"] + 0.8) ** 2

    cold, warm = [], []
    for seed in range(8):
        plain = tf.Study.create(space=space, algo="tpe", seed=seed)
        plain.optimize(shifted, 10)
        cold.append(plain.best_value)
        started = tf.Study.create(space=space, algo="tpe", seed=seed, warm_start=[source])
        [first] = started.trials  # the source's best, waiting; no region hints by default
        assert first.state is tf.TrialState.WAITING and not started.hints
        assert dict(first.params) == dict(source.best_params) and first.user_attrs == {"warm_start": "source"}
        started.optimize(shifted, 10)
        assert started.trials[0].params == first.params and len(started.trials) == 10
        warm.append(started.best_value)
    assert np.median(warm) < 0.25 * np.median(cold)


def test_the_hint_command_refuses_a_missing_database_and_creates_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typo = tmp_path / "typo.db"
    assert main(["hint", str(typo), "--study", "s", "--config", '{"x": 1}']) == 1
    assert "must exist" in capsys.readouterr().err and not typo.exists()


def test_a_warm_start_with_a_credibility_also_gives_the_best_tenth_as_region_hints() -> None:
    space = {"x": tf.Real(-5.0, 5.0)}
    source = tf.Study.create("source", space=space, algo="random", seed=0)
    source.optimize(lambda p: abs(p["x"] - 1.0), 60)
    started = tf.Study.create(space=space, seed=0, warm_start=[source], warm_start_credibility=0.7)
    assert len(started.hints) == 6 and {h.credibility for h in started.hints} == {0.7}
    assert started.hints[0].config == {"x": source.best_params["x"]} and len(started.trials) == 1


@pytest.mark.parametrize("algo", ["random", "tpe"])  # the optimizer reads no history / reads it
@pytest.mark.parametrize(("target_optimum", "counts"), [(0.85, True), (0.1, False)])
def test_a_warm_starts_region_hints_count_only_while_its_best_ranks_in_the_better_half_here(
    algo: str, target_optimum: float, counts: bool
) -> None:
    space = {"x": tf.Real(0.0, 1.0)}
    source = tf.Study.create("source", space=space, algo="tpe", seed=0)
    source.optimize(lambda p: (p["x"] - 0.9) ** 2, 40)

    def target(p: dict) -> float:
        return (p["x"] - target_optimum) ** 2

    study = tf.Study.create(space=space, algo=algo, seed=1, warm_start=[source], warm_start_credibility=1.0)
    assert len(study.hints) == 4
    study.optimize(target, GATE_TRIALS - 1)
    assert study.history().hints == ()  # too few trials here to judge the source yet
    study.optimize(target, 30)
    assert len(study.history().hints) == (4 if counts else 0)
    unhinted = tf.Study.create(space=space, algo=algo, seed=1, warm_start=[source])
    unhinted.optimize(target, 30)
    # a shut gate changes no suggestion, to the last digit; an open one steers them
    assert (_params(study) == _params(unhinted)) is not counts


def test_a_warm_start_keeps_a_shared_decision_whose_address_ends_an_out_of_range_one() -> None:
    source = tf.Study.create(space={"depth": tf.Int(1, 10), "max_depth": tf.Int(1, 20)}, seed=0)
    source.enqueue({"depth": 3, "max_depth": 15})
    source.tell(source.ask(), 0.0)
    target = tf.Study.create(space={"depth": tf.Int(1, 10), "max_depth": tf.Int(1, 10)}, warm_start=[source])
    assert dict(target.trials[0].params) == {"depth": 3, "max_depth": 6}  # max_depth at its prior's median


def test_a_warm_start_is_applied_once_by_the_worker_that_made_the_study(tmp_path: Path) -> None:
    """Two workers joining one new study with ``load_if_exists``: the one that finds
    it made (here before its warm start was written) leaves the warm start to its maker."""
    url = tmp_path / "w.db"
    space = {"x": tf.Real(0.0, 1.0)}
    source = tf.Study.create("src", space=space, storage=url, algo="random", seed=0)
    source.optimize(lambda p: p["x"], 20)
    maker = tf.Study.create("dst", space=space, storage=url, load_if_exists=True)  # nothing written yet
    joiner = tf.Study.create(
        "dst", space=space, storage=url, load_if_exists=True, warm_start=[source], warm_start_credibility=0.5
    )
    assert joiner.trials == [] and joiner.hints == [] and maker.trials == []
    made = tf.Study.create("dst2", space=space, storage=url, warm_start=[source], warm_start_credibility=0.5)
    assert [t.user_attrs for t in made.trials] == [{"warm_start": "src"}] and len(made.hints) == 2


def test_a_warm_starts_hints_name_their_source() -> None:
    assert warm_source(warm_author("it's mine")) == "it's mine"
    assert warm_source("alice") is None and warm_source(None) is None
    assert warm_source("warm start from 3") is None


def test_a_warm_start_keeps_only_the_addresses_both_spaces_share() -> None:
    source = tf.Study.create(space={"x": tf.Real(-5.0, 5.0), "z": tf.Int(0, 3)}, algo="random", seed=0)
    source.optimize(lambda p: abs(p["x"]), 20)
    target_space = {"x": tf.Real(-5.0, 5.0), "k": tf.Choice("a", "b", "c")}
    target = tf.Study.create(space=target_space, seed=0, warm_start=[source], warm_start_credibility=0.5)
    assert target.hints and all(set(h.config) == {"x"} for h in target.hints)
    assert all(h.author == "warm start from " + repr(source.name) for h in target.hints)
    [point] = target.trials  # the source's x; k, which the source never chose, at the prior's median
    assert dict(point.params) == {"x": source.best_params["x"], "k": "b"}


def test_a_reopened_study_is_not_warm_started_twice(tmp_path: Path) -> None:
    source = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, algo="random", seed=0)
    source.optimize(lambda p: p["x"], 10)
    url = tmp_path / "runs.db"
    for _ in range(2):
        study = tf.Study.create("target", space={"x": tf.Real(0.0, 1.0)}, storage=url, load_if_exists=True,
                                warm_start=[source], warm_start_credibility=0.5)
    assert len(study.trials) == 1 and len(study.hints) == 1


def test_a_warm_start_credibility_outside_0_1_is_refused_before_a_study_is_made(tmp_path: Path) -> None:
    url = tmp_path / "runs.db"
    with pytest.raises(ConfigError, match=r"warm_start_credibility must lie in \[0, 1\].*=1.5"):
        tf.Study.create("s", space={"x": tf.Real(0.0, 1.0)}, storage=url, warm_start_credibility=1.5)
    assert tf.Study.create("s", space={"x": tf.Real(0.0, 1.0)}, storage=url).trials == []


def test_a_misleading_hint_loses_its_say_once_its_region_was_tried() -> None:
    from treefarm.optimizers.hints import hint_reliability

    space = tf.convert({"x": tf.Real(0.0, 1.0)})
    hint = Hint({"x": 0.9}, credibility=1.0)
    near_and_bad = [(tf.Config({"x": 0.9 + d}), 5.0) for d in (-0.02, 0.0, 0.02)]
    elsewhere_and_good = [(tf.Config({"x": x}), 0.1) for x in (0.1, 0.2, 0.3)]
    assert hint_reliability(space, hint, []) == 0.5
    assert hint_reliability(space, hint, near_and_bad + elsewhere_and_good) < 0.3
    good = Hint({"x": 0.2}, credibility=1.0)
    assert hint_reliability(space, good, near_and_bad + elsewhere_and_good) > 0.6


def test_random_searchs_hint_draws_are_judged_and_fade_with_the_trials() -> None:
    """Random search reads no history to suggest, but its hint draws are judged
    by the completed trials as every optimizer's are: a misleading hint's region,
    once tried and found bad, stops taking the suggestions."""
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, algo="random", seed=0)
    study.hint({"x": 0.1}, credibility=1.0, spread=0.05)
    study.optimize(lambda p: (p["x"] - 0.9) ** 2, 60)
    near = [abs(t.params["x"] - 0.1) < 0.15 for t in study.trials]
    assert sum(near[:10]) >= 5 and sum(near[20:]) <= 15  # a quarter of the box: 10 of 40 by chance


def test_a_stored_hint_that_does_not_fit_is_left_out_with_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    study = tf.Study.create(space=SPACE, algo="tpe", seed=3)
    study.storage.add_hint(study.study_id, config={"nope": 1.0}, credibility=1.0)  # as `treefarm hint` without --space
    plain = tf.Study.create(space=SPACE, algo="tpe", seed=3)
    with caplog.at_level("WARNING", logger="treefarm"):
        study.optimize(loss, 8)
    plain.optimize(loss, 8)
    assert _params(study) == _params(plain)
    warned = [r for r in caplog.records if "is ignored" in r.getMessage()]
    assert len(warned) == 1 and "nope=1.0" in warned[0].getMessage()


def test_hints_are_read_once_per_period_and_at_once_after_this_process_changes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "h.db"
    study = tf.Study.create("h", space=SPACE, storage=path, algo="random", seed=0)
    reads: list[int] = []
    get_hints = study.storage.get_hints
    monkeypatch.setattr(study.storage, "get_hints", lambda sid: reads.append(sid) or get_hints(sid))
    study.optimize(loss, 5)
    assert len(reads) == 1  # one read for five suggestions within a second
    study.hint({"x": 3.0}, credibility=1.0)
    study.optimize(loss, n_new_trials=1)
    assert len(reads) == 2  # this process's own hint counts from the next suggestion
    tf.Study.load("h", space=SPACE, storage=path).hint({"x": -3.0}, credibility=1.0)  # another worker's
    monkeypatch.setattr(cache, "HINTS_PERIOD", 0.0)  # as if the period had passed
    study.optimize(loss, n_new_trials=1)
    assert len(reads) == 3 and [h.config["x"] for h in study._cache.hints()] == [3.0, -3.0]


def test_a_removed_hint_stops_steering_and_its_id_is_never_reused(tmp_path: Path) -> None:
    study = tf.Study.create("s", space={"x": tf.Real(0.0, 1.0)}, storage=tmp_path / "h.db", algo="random", seed=0)
    first = study.hint({"x": 0.0}, credibility=1.0, spread=0.01)
    study.tell(study.ask(), 0.5)  # the hint is read and checked once
    study.remove_hint(first)
    second = study.hint({"x": 1.0}, credibility=1.0, spread=0.01)
    assert second != first
    xs = []
    for _ in range(4):
        trial = study.ask()
        xs.append(trial.config["x"])
        study.tell(trial, 0.0)
    assert max(xs) > 0.9 and min(xs) > 0.05


def test_a_hint_read_again_under_a_reused_id_is_checked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A database created before ids were kept unique may give a removed hint's id to a
    new hint: the cache of checked hints tells them apart by their creation time."""
    study = tf.Study.create(space={"x": tf.Real(0.0, 1.0)}, seed=0)
    old = study.hint({"x": 0.0}, credibility=1.0)
    assert [h.config["x"] for h in study._cache.hints()] == [0.0]
    records = study.storage.get_hints(study.study_id)
    reused = [replace(records[0], config={"x": 1.0}, created=records[0].created + 1.0)]
    monkeypatch.setattr(study.storage, "get_hints", lambda sid: reused)
    study._cache.forget_hints()
    assert [(h.hint_id, h.config["x"]) for h in study._cache.hints()] == [(old, 1.0)]


def test_a_redrawn_duplicate_is_proposed_with_the_hints_still_there() -> None:
    """The study redraws a suggestion it has seen with that suggestion pending; the
    hints must stay in the history the optimizer sees (the GP weighs them itself)."""
    from treefarm.optimizers import History
    from treefarm.study.state.dedupe import Deduplicator

    space = {"x": tf.Choice("a", "b", "c")}
    taken = tf.Config({"x": "a"})
    hint = Hint({"x": "b"}, credibility=0.9)
    seen: list[History] = []

    def propose(h: History) -> tuple[tf.Config, tf.Config]:
        seen.append(h)
        config = taken if len(seen) == 1 else tf.Config({"x": "b"})
        return config, config

    got = Deduplicator(tf.space.convert(space)).suggest(propose, History(pending=(taken,), hints=(hint,)))
    assert got == (tf.Config({"x": "b"}), True)
    assert [h.hints for h in seen] == [(hint,), (hint,)] and list(seen[1].pending) == [taken, taken]


def test_a_source_named_twice_warm_starts_once() -> None:
    space = {"x": tf.Real(0.0, 1.0)}
    source = tf.Study.create(space=space, algo="random", seed=0)
    source.optimize(lambda p: p["x"], 20)
    target = tf.Study.create(space=space, warm_start=[source, source], warm_start_credibility=0.5)
    assert len(target.trials) == 1 and len(target.hints) == 2


def test_a_good_hint_on_an_option_of_prior_weight_zero_is_refused_by_name() -> None:
    space = {"c": tf.Choice("a", "b", "z", weights=[1, 1, 0]), "x": tf.Real(0, 1)}
    study = tf.Study.create(space=space, seed=0)
    with pytest.raises(ConfigError, match="c='z' has prior weight 0") as info:
        study.hint({"c": "z", "x": 0.5})
    assert info.value.address == "c" and study.hints == []
    study.hint({"c": "z"}, bad=True)  # a bad hint there agrees with the prior
    study.hint({"c": "a"})
    assert len(study.hints) == 2


def test_the_hint_command_refuses_a_good_hint_on_an_option_of_weight_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "job.py"
    script.write_text(
        "import treefarm as tf\nspace = {'c': tf.Choice('a', 'z', weights=[1, 0])}\n"
        "def objective(p):\n    return 1.0\n"
    )
    db = str(tmp_path / "j.db")
    assert main(["run", str(script), "--storage", db, "--n-trials", "1", "--seed", "0"]) == 0
    capsys.readouterr()
    assert main(["hint", db, "--study", "job", "--config", '{"c": "z"}', "--space", str(script)]) == 1
    assert "c='z' has prior weight 0" in capsys.readouterr().err
    assert main(["hint", db, "--study", "job", "--config", '{"c": "z"}', "--space", str(script), "--bad"]) == 0


def test_a_warm_start_gives_no_hint_or_first_point_on_an_option_of_weight_zero_here() -> None:
    source = tf.Study.create(space={"c": tf.Choice("a", "z"), "x": tf.Real(0, 1)}, algo="random", seed=0)
    source.optimize(lambda p: p["x"] + (0.0 if p["c"] == "z" else 1.0), 40)
    space = {"c": tf.Choice("a", "z", weights=[1, 0]), "x": tf.Real(0, 1)}
    target = tf.Study.create(space=space, seed=0, warm_start=[source], warm_start_credibility=0.5)
    assert source.best_params["c"] == "z" and target.hints == []
    assert target.trials[0].params["c"] == "a"  # the source's best with an option this space supports


def test_random_search_with_warm_start_hints_reads_the_trials_once_per_suggestion() -> None:
    """The gate of the hints and the fading of their draws need the trials; they were read twice."""
    from treefarm.study.state.warm import gate_open

    space = {"x": tf.Real(0.0, 1.0)}
    source = tf.Study.create(space=space, algo="random", seed=0)
    source.optimize(lambda p: p["x"], 20)
    study = tf.Study.create(space=space, algo="random", seed=0, warm_start=[source], warm_start_credibility=0.5)
    study.optimize(lambda p: p["x"], 6)
    assert gate_open(source.name, study.storage.get_trials(study.study_id), 1.0)  # the hints count: trials needed
    reads = []
    get_trials = study.storage.get_trials
    study.storage.get_trials = lambda *a, **k: (reads.append(1), get_trials(*a, **k))[1]  # type: ignore[method-assign]
    study.tell(study.ask(), 0.5)
    assert len(reads) == 1
