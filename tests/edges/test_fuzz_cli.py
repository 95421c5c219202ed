"""Random, often invalid, argument combinations for every command, run in-process against
one SQLite file: each ends with status 0, 1 or 2 (a usage error) and no traceback, and
after each the file passes ``PRAGMA integrity_check`` with every trial of every study
readable. Deterministic (``derandomize``) so CI sees one run; about 30 s."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import treefarm as tf
import treefarm.dashboard
from treefarm.cli.main import COMMANDS, main
from treefarm.storage import open_storage

OBJECTIVE = """import treefarm as tf
space = {"x": tf.Real(0, 1), "k": tf.Choice("a", "b")}
def objective(p):
    return p["x"]
"""
VALUES = ["", "-1", "0", "1", "2", "3", "nan", "1e400", "abc", "1,2", "-1,2", "minimize", "maximize,minimize",
          "q", "two", "nope", "../x", '{"x": 0.5, "k": "a"}', '{"x": 5}', "[]", "tpe", "random", "bogus"]
STUDIES = ["q", "two", "new", "nope", "", "   ", "../x"]
NUMBERS = ["0", "1", "2", "0.5", "-1", "0,1", "nan", "abc", ""]
PATHS = ["DB", "DIR", "DIR/missing/x.csv", "DIR/out.csv", "DIR/out.png", "DIR/out.gif", "JOURNAL", "OBJ", "SPACE"]
IMAGES = ["DIR/out.png", "DIR/out.svg", "DB", "DIR/missing/x.png", "DIR/out.gif", "DIR/pic.png"]
FILES = ["OBJ", "OBJ", "SPACE", "DIR/none.py", "DIR/obj.py:nope"]
STORAGES = ["DB", "DB", "DIR/other.db", "DIR", "JOURNAL", "sqlit://x"]
FLAG = None
Pools = dict[str, list[str] | None]
#: Each command: its positionals, the options always given (one of each group), the others.
OPTIONS: dict[str, tuple[list[str], list[Pools], Pools]] = {
    "studies": (["DB", "DIR/none.db", "OBJ"], [], {}),
    "show": (["DB"], [{"--study": STUDIES}], {"--last": NUMBERS, "--retry-deadline": NUMBERS}),
    "export": (["DB"], [{"--study": STUDIES}], {"--format": ["csv", "json", "xml"], "--output": PATHS}),
    "hint": (["DB"], [{"--study": STUDIES}, {"--config": VALUES, "--list": FLAG, "--remove": NUMBERS}],
             {"--credibility": NUMBERS, "--bad": FLAG, "--spread": NUMBERS, "--space": PATHS, "--author": VALUES}),
    "plot": (["DB"], [{"--study": STUDIES}, {"-o": IMAGES}],
             {"--study": STUDIES, "--kind": ["convergence", "slices", "front", "hypervolume", "gp", "x"],
              "--param": ["x", "k", "nope"], "--axis": ["number", "time", "x"], "--dpi": NUMBERS}),
    "dashboard": (["DB", "DIR/none.db"], [], {"--host": ["127.0.0.1", "0.0.0.0", "x"], "--port": NUMBERS,
                                              "--allow-writes": FLAG, "--space": PATHS, "--artifacts": PATHS}),
    "recover": (["JOURNAL", "DB", "OBJ"], [], {}),
    "worker": (["DB"], [{"--study": STUDIES}, {"--file": FILES}],
               {"--algo": VALUES, "--timeout": NUMBERS, "--heartbeat": NUMBERS, "--journal": PATHS,
                "--allow-space-change": FLAG, "--max-cost": NUMBERS, "--fidelity": ["fidelity", "objective", "x"]}),
    "run": (FILES, [{"--storage": STORAGES}],
            {"--study": STUDIES, "--algo": ["random", "tpe", "x"], "--direction": ["minimize", "x"],
             "--directions": ["minimize,maximize", "maximize", "x"], "--seed": NUMBERS, "--allow-space-change": FLAG, "--timeout": NUMBERS,
             "--max-cost": NUMBERS, "--fidelity": ["fidelity", "objective", "x"]}),
    "create": (["DB"], [{"--study": STUDIES}, {"--space": PATHS}],
               {"--algo": VALUES, "--direction": ["minimize", "x"], "--directions": VALUES, "--seed": NUMBERS,
                "--n-trials": NUMBERS, "--skip-if-exists": FLAG}),
    "ask": (["DB"], [{"--study": STUDIES}], {"--json": FLAG, "--n-trials": NUMBERS}),
    "tell": (["DB"], [{"--study": STUDIES}, {"--trial": NUMBERS}, {"--value": NUMBERS, "--failed": VALUES}],
             {"--constraints": NUMBERS}),
    "import-optuna": (["OPTUNA", "DB", "sqlit://x"], [{"--study": STUDIES}, {"--to": STORAGES}],
                      {"--name": STUDIES, "--algo": VALUES, "--seed": NUMBERS, "--space-out": PATHS}),
}


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("fuzz")
    db = root / "s.db"
    (root / "obj.py").write_text(OBJECTIVE)
    (root / "space.json").write_text(json.dumps({"x": {"type": "real", "low": 0, "high": 1}}))
    space = {"x": tf.Real(0, 1), "k": tf.Choice("a", "b")}
    tf.Study.create("q", space=space, storage=str(db), algo="random").optimize(lambda p: p["x"], 3)
    two = tf.Study.create("two", space=space, storage=str(db), algo="random", directions=["minimize", "maximize"])
    two.optimize(lambda p: (p["x"], p["x"] ** 2), 3)
    two.storage.close()
    optuna = _optuna_study(root)
    journal = root / "j.jsonl"
    journal.write_text(json.dumps({"url": f"sqlite:///{db}", "study_id": 1, "number": 0, "state": "complete",
                                   "value": 0.1, "user_attrs": {}, "system_attrs": {}, "owner": "w"}) + "\n")
    return {"DB": str(db), "OPTUNA": optuna, "DIR": str(root), "JOURNAL": str(journal), "OBJ": str(root / "obj.py"),
            "SPACE": str(root / "space.json")}


def _optuna_study(root: Path) -> str:
    """An Optuna storage holding a study "q" of three trials, for ``import-optuna``."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    url = f"sqlite:///{root / 'optuna.db'}"
    study = optuna.create_study(study_name="q", storage=url, sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=3)
    return url


@pytest.fixture(autouse=True)
def _no_server(monkeypatch: pytest.MonkeyPatch, place: dict[str, str]) -> Iterator[None]:
    monkeypatch.setattr(treefarm.dashboard, "serve", lambda *args, **kwargs: None)
    monkeypatch.chdir(place["DIR"])
    monkeypatch.delenv("TREEFARM_TRACEBACK", raising=False)
    yield


def _filled(text: str, place: dict[str, str]) -> str:
    for key, value in place.items():
        text = text.replace(key, value) if text.startswith(key) else text
    return text


def _argv(command: str, data: st.DataObject, place: dict[str, str]) -> list[str]:
    positionals, required, optional = OPTIONS[command]
    argv = [command, _filled(data.draw(st.sampled_from(positionals)), place)]
    if command == "recover":
        argv.append(_filled(data.draw(st.sampled_from(["DB", "JOURNAL", "DIR/none.db"])), place))
    given = [data.draw(st.sampled_from(sorted(group))) for group in required]
    given += data.draw(st.lists(st.sampled_from(sorted(optional)), unique=True, max_size=4)) if optional else []
    pools = {k: v for group in [*required, optional] for k, v in group.items()}
    for option in given:
        pool = pools[option]
        argv += [option] if pool is None else [option, _filled(data.draw(st.sampled_from(pool)), place)]
    if command in ("run", "worker"):
        argv += ["--n-trials", "2"]  # a bounded run (the option given last wins)
    return argv


def _intact(db: str) -> None:
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    storage = open_storage(db, read_only=True)
    try:
        for study in storage.list_studies():
            for trial in storage.get_trials(study.study_id):
                assert trial.number >= 0
    finally:
        storage.close()


@pytest.mark.parametrize("command", [c.name for c in COMMANDS])
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_command_ends_cleanly_and_keeps_the_storage_whole(
    command: str, data: st.DataObject, place: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _argv(command, data, place)
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = exit_.code  # type: ignore[assignment]
    out, err = capsys.readouterr()
    assert status in (0, 1, 2, 130), (argv, status, err)
    assert "Traceback" not in err + out, (argv, err)
    assert status == 0 or (err + out).strip(), (argv, "a failure must say why")
    _intact(place["DB"])
