"""Schema migrations: a database written by the 0.1.0 release opens, upgrades and reads
back every record; each Alembic step upgrades a database of the step before, with data
in it; newer revisions are refused naming both; read-only openings never write."""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from treefarm.exceptions import StorageError
from treefarm.storage import REQUEUED, SQLStorage, TrialState, migrate
from treefarm.storage.schema import HEAD, REVISIONS, VERSION_TABLE

FIXTURES = Path(__file__).parent / "fixtures"
RELEASE_DB = FIXTURES / "release-0.1.0.db"
EXPECTED = json.loads((FIXTURES / "release-0.1.0.json").read_text())


@pytest.fixture
def release_copy(tmp_path: Path) -> Path:
    """A copy of the database the 0.1.0 release wrote (the fixture itself is never opened)."""
    copy = tmp_path / "release.db"
    shutil.copyfile(RELEASE_DB, copy)
    return copy


def _url(path: Path) -> str:
    return f"sqlite:///{path}"


def _revision(path: Path) -> str | None:
    with sqlite3.connect(path) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if VERSION_TABLE not in tables:
            return None
        return str(connection.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchone()[0])


def _read_back(storage: SQLStorage) -> dict[str, Any]:
    """Everything the fixture's JSON lists, read through the storage, in the JSON's shape."""
    out: dict[str, Any] = {"studies": [], "trials": {}, "hints": {}}
    for record in storage.list_studies():
        out["studies"].append(
            {"name": record.name, "direction": record.direction, "seed": record.seed, "attrs": dict(record.attrs)}
        )
        out["trials"][record.name] = [
            {
                "number": t.number,
                "state": t.state.value,
                "params": dict(t.params),
                "value": t.value,
                "user_attrs": dict(t.user_attrs),
                "system_attrs": dict(t.system_attrs),
                "started": t.started,
                "finished": t.finished,
                "intermediate": {
                    str(k): (None if math.isnan(v) else v) for k, v in sorted(t.intermediate.items())
                },
            }
            for t in storage.get_trials(record.study_id)
        ]
        out["hints"][record.name] = [
            {
                "config": dict(h.config),
                "credibility": h.credibility,
                "weight": h.weight,
                "spread": h.spread,
                "author": h.author,
            }
            for h in storage.get_hints(record.study_id)
        ]
    return json.loads(json.dumps(out, sort_keys=True))


def test_the_fixture_is_a_release_database_without_a_revision() -> None:
    assert _revision(RELEASE_DB) is None, "the fixture must stay as 0.1.0 wrote it"
    with sqlite3.connect(RELEASE_DB) as connection:
        assert connection.execute("SELECT value FROM treefarm_meta").fetchall() == [("1",)]


def test_the_release_database_upgrades_and_reads_back_every_record(release_copy: Path) -> None:
    storage = SQLStorage(_url(release_copy), journal=None)
    try:
        assert _read_back(storage) == EXPECTED
        for record in storage.list_studies():
            assert record.directions == (record.direction,)
            for trial in storage.get_trials(record.study_id):
                assert trial.values == (None if trial.value is None else (trial.value,))
                assert trial.constraints is None and trial.feasible
                assert trial.intermediate_vectors == {}
    finally:
        storage.close()
    assert _revision(release_copy) == HEAD
    with sqlite3.connect(release_copy) as connection:
        assert connection.execute("SELECT value FROM treefarm_meta").fetchall() == [(str(int(HEAD)),)]


def test_the_upgraded_release_database_takes_new_trials_within_its_budget(release_copy: Path) -> None:
    storage = SQLStorage(_url(release_copy), journal=None)
    flat = storage.get_study("flat")
    claimed = storage.count_trials(flat.study_id) - storage.count_trials(flat.study_id, states=[TrialState.WAITING])
    assert storage.claim_trial(flat.study_id, budget=claimed) is None  # n_claimed was backfilled
    taken = storage.claim_trial(flat.study_id, budget=claimed + 1)
    assert taken is not None and taken.params == {"x": 2.0, "k": 1}  # the queued trial
    storage.finish_trial(flat.study_id, taken.number, state=TrialState.COMPLETE, value=1.0)
    storage.close()


def test_the_release_tpe_study_reopens_with_the_tpe_it_ran(release_copy: Path) -> None:
    """Options added to ``TPE`` after the release take the values that behave as
    it did (equal weights, a joint turn every fourth trial only), so the study
    goes on as it started rather than with today's defaults."""
    from treefarm import Int, Real, Study

    study = Study.load("flat", space={"x": Real(-3, 3), "k": Int(1, 5)}, storage=release_copy)
    tuned = study.optimizer.tuned_settings()
    assert (tuned["rank_weights"], tuned["always_joint"], tuned["joint_every"]) == (0.0, 0, 4)


def test_a_second_opening_runs_no_migration(release_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    SQLStorage(_url(release_copy), journal=None).close()

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a database at the head revision must not be migrated again")

    monkeypatch.setattr(migrate, "upgrade", refuse)
    storage = SQLStorage(_url(release_copy), journal=None)
    assert _read_back(storage) == EXPECTED
    storage.close()
    assert _revision(release_copy) == HEAD


OPEN_AT = """
import sys, time
from treefarm.storage import SQLStorage
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
storage = SQLStorage("sqlite:///" + sys.argv[1], journal=None)
flat = storage.get_study("flat")
print(storage.count_trials(flat.study_id), len(storage.get_hints(flat.study_id)))
storage.close()
"""


def test_two_processes_opening_a_release_database_at_once_both_succeed(release_copy: Path) -> None:
    start = time.time() + 2.0  # both interpreters are up by then, and open at the same instant
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN_AT, str(release_copy), str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=120) for run in runs]
    for run, (out, err) in zip(runs, outputs):
        assert run.returncode == 0, err
        assert out.split() == [str(len(EXPECTED["trials"]["flat"])), str(len(EXPECTED["hints"]["flat"]))]
    assert _revision(release_copy) == HEAD
    with sqlite3.connect(release_copy) as connection:
        assert connection.execute(f"SELECT count(*) FROM {VERSION_TABLE}").fetchone() == (1,)
        assert connection.execute("SELECT n_claimed FROM treefarm_studies ORDER BY study_id").fetchall() == [
            (10,),
            (5,),
        ]


def test_a_newer_revision_is_refused_naming_both(tmp_path: Path) -> None:
    path = tmp_path / "newer.db"
    SQLStorage(_url(path), journal=None).close()
    with sqlite3.connect(path) as connection:
        connection.execute(f"UPDATE {VERSION_TABLE} SET version_num = '0009'")
    for read_only in (False, True):
        with pytest.raises(StorageError, match=f"revision 0009 is newer than this treefarm's {HEAD}; upgrade treefarm"):
            SQLStorage(_url(path), journal=None, read_only=read_only)


def test_an_unknown_revision_is_refused_naming_both(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    SQLStorage(_url(path), journal=None).close()
    with sqlite3.connect(path) as connection:
        connection.execute(f"UPDATE {VERSION_TABLE} SET version_num = 'ae1027a6acf'")
    with pytest.raises(StorageError, match=f"revision='ae1027a6acf'.*this treefarm's is {HEAD}"):
        SQLStorage(_url(path), journal=None)


def test_a_read_only_opening_of_an_old_database_writes_nothing_and_says_what_to_do(release_copy: Path) -> None:
    before = release_copy.read_bytes()
    with pytest.raises(StorageError, match=f"revision {HEAD}.*revision='none.*open it once for writing"):
        SQLStorage(_url(release_copy), read_only=True)
    assert release_copy.read_bytes() == before
    SQLStorage(_url(release_copy), journal=None).close()
    reader = SQLStorage(_url(release_copy), read_only=True)
    assert _read_back(reader) == EXPECTED
    reader.close()


def test_an_early_release_build_without_the_hints_table_gets_it(release_copy: Path) -> None:
    with sqlite3.connect(release_copy) as connection:
        connection.execute("DROP TABLE treefarm_hints")
    storage = SQLStorage(_url(release_copy), journal=None)
    flat = storage.get_study("flat")
    assert storage.get_hints(flat.study_id) == []
    assert storage.add_hint(flat.study_id, config={"x": 0.0}, credibility=0.5).hint_id == 1
    expected = {**EXPECTED, "hints": {"conditional": [], "flat": []}}
    expected["hints"]["flat"] = [
        {"config": {"x": 0.0}, "credibility": 0.5, "weight": 1, "spread": 0.1, "author": None}
    ]
    assert _read_back(storage) == expected
    storage.close()


# ------------------------------------------------------------- each step


def _step(path: Path, target: str) -> None:
    engine = sa.create_engine(_url(path))
    with engine.begin() as connection:
        migrate.upgrade(connection, target)
    engine.dispose()


def _rows(path: Path, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as connection:
        return connection.execute(query).fetchall()


def test_step_0001_stamps_a_release_database_and_keeps_its_rows(release_copy: Path) -> None:
    before = _rows(release_copy, "SELECT * FROM treefarm_trials ORDER BY trial_id")
    _step(release_copy, "0001")
    assert _revision(release_copy) == "0001"
    assert _rows(release_copy, "SELECT * FROM treefarm_trials ORDER BY trial_id") == before


def test_step_0002_fills_the_request_and_requeued_columns(release_copy: Path) -> None:
    _step(release_copy, "0001")
    with sqlite3.connect(release_copy) as connection:  # a re-queued trial, as a 0.1.0 recovery wrote it
        connection.execute(
            "INSERT INTO treefarm_trials (study_id, number, state, params, value, user_attrs, system_attrs) "
            "VALUES (1, 11, 'waiting', '{\"x\":1.0,\"k\":2}', NULL, '{}', ?)",
            (json.dumps({REQUEUED: 9, "requeues": 1, "_request": "00ff00ff00ff00ff"}),),
        )
    attrs = _rows(release_copy, "SELECT number, system_attrs FROM treefarm_trials WHERE study_id = 1 ORDER BY number")
    _step(release_copy, "0002")
    assert _revision(release_copy) == "0002"
    found = _rows(release_copy, "SELECT number, request, requeued FROM treefarm_trials WHERE study_id = 1 ORDER BY number")
    for (number, text), (same, request, requeued) in zip(attrs, found):
        assert number == same
        assert request == json.loads(text).get("_request")
        assert bool(requeued) == (number == 11)
    storage = SQLStorage(_url(release_copy), journal=None)  # and the storage claims it past the budget
    taken = storage.claim_trial(1, budget=1)
    assert taken is not None and taken.number == 11
    storage.close()


def test_step_0003_counts_the_claimed_trials_of_each_study(release_copy: Path) -> None:
    _step(release_copy, "0002")
    with sqlite3.connect(release_copy) as connection:
        connection.execute("INSERT INTO treefarm_studies (name, direction, attrs, created) VALUES ('empty', 'minimize', '{}', 0)")
    _step(release_copy, "0003")
    assert _revision(release_copy) == "0003"
    counted = _rows(
        release_copy,
        "SELECT s.study_id, (SELECT count(*) FROM treefarm_trials t WHERE t.study_id = s.study_id "
        "AND t.state <> 'waiting') FROM treefarm_studies s ORDER BY s.study_id",
    )
    assert _rows(release_copy, "SELECT study_id, n_claimed FROM treefarm_studies ORDER BY study_id") == counted
    assert [n for _, n in counted] == [10, 5, 0]


def test_step_0004_gives_directions_and_values_lists(release_copy: Path) -> None:
    _step(release_copy, "0003")
    before = _rows(release_copy, "SELECT trial_id, value FROM treefarm_trials ORDER BY trial_id")
    _step(release_copy, "0004")
    assert _revision(release_copy) == "0004"
    assert _rows(release_copy, "SELECT direction, directions FROM treefarm_studies ORDER BY study_id") == [
        ("minimize", '["minimize"]'),
        ("maximize", '["maximize"]'),
    ]
    after = _rows(release_copy, 'SELECT trial_id, "values", constraints, feasible FROM treefarm_trials ORDER BY trial_id')
    assert [(i, None if text is None else json.loads(text)) for i, text, _, _ in after] == [
        (i, None if value is None else [value]) for i, value in before
    ]
    assert {(c, f) for _, _, c, f in after} == {(None, None)}
    assert _rows(release_copy, 'SELECT count(*) FROM treefarm_intermediate WHERE "values" IS NOT NULL') == [(0,)]


def test_step_0005_starts_every_trial_at_version_0_and_a_write_counts(release_copy: Path) -> None:
    _step(release_copy, "0004")
    trials = _rows(release_copy, "SELECT count(*) FROM treefarm_trials")[0][0]
    _step(release_copy, "0005")
    assert _revision(release_copy) == "0005"
    assert _rows(release_copy, "SELECT version, count(*) FROM treefarm_trials GROUP BY version") == [(0, trials)]
    storage = SQLStorage(_url(release_copy))
    study = storage.list_studies()[0]
    number = storage.create_trial(study.study_id, params={"x": 0.5}).number
    storage.set_trial_user_attr(study.study_id, number, "note", "upgraded")
    assert storage.get_trial(study.study_id, number).version == 1
    storage.close()


def test_step_0006_leaves_the_objectives_unnamed_and_a_named_study_follows(release_copy: Path) -> None:
    _step(release_copy, "0005")
    _step(release_copy, "0006")
    assert _revision(release_copy) == "0006"
    assert _rows(release_copy, "SELECT names FROM treefarm_studies") == [(None,), (None,)]
    storage = SQLStorage(_url(release_copy))
    assert [s.objectives.names for s in storage.list_studies()] == [None, None]
    made = storage.create_study("named", directions={"error": "minimize", "size": "maximize"}, seed=1, attrs={})
    assert storage.get_study("named").objectives.argument == {"error": "minimize", "size": "maximize"} == made.objectives.argument
    storage.close()


def _layout(path: Path) -> dict[str, Any]:
    """Every treefarm table's columns (name, type, nullability, default) and indexes."""
    engine = sa.create_engine(_url(path))
    inspector = sa.inspect(engine)
    out = {
        name: (
            [(c["name"], str(c["type"]), c["nullable"], c["default"]) for c in inspector.get_columns(name)],
            sorted((i["name"], tuple(i["column_names"]), bool(i["unique"])) for i in inspector.get_indexes(name)),
            sorted(tuple(u["column_names"]) for u in inspector.get_unique_constraints(name)),
        )
        for name in sorted(inspector.get_table_names())
    }
    engine.dispose()
    return out


def test_the_steps_from_an_empty_database_make_the_tables_a_new_database_gets(tmp_path: Path) -> None:
    stepped, created = tmp_path / "stepped.db", tmp_path / "created.db"
    _step(stepped, "head")
    SQLStorage(_url(created), journal=None).close()
    assert _layout(stepped) == _layout(created)
    assert _rows(stepped, "SELECT * FROM treefarm_meta") == _rows(created, "SELECT * FROM treefarm_meta")
    assert _revision(stepped) == _revision(created) == HEAD


def test_the_history_is_linear_and_ends_at_this_treefarms_head() -> None:
    from alembic.script import ScriptDirectory

    engine = sa.create_engine("sqlite://")
    with engine.connect() as connection:
        script = ScriptDirectory.from_config(migrate.alembic_config(connection))
    engine.dispose()
    assert script.get_heads() == [HEAD]
    assert script.get_bases() == [REVISIONS[0]]
    chain = list(reversed(list(script.walk_revisions())))
    assert [s.revision for s in chain] == list(REVISIONS)
    assert [s.down_revision for s in chain] == [None, *REVISIONS[:-1]]
    assert all(Path(s.path).name.startswith(f"{s.revision}_") for s in chain)


def test_the_migrations_are_shipped_as_package_data() -> None:
    """A wheel must carry every migration: Alembic reads them as files, not as modules."""
    import fnmatch

    tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")
    root = Path(__file__).parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["treefarm"]
    package = root / "src" / "treefarm"
    files = [p.relative_to(package).as_posix() for p in migrate.MIGRATIONS.rglob("*.py")]
    assert len(files) == len(REVISIONS) + 1
    assert all(any(fnmatch.fnmatch(f, pattern) for pattern in patterns) for f in files), (files, patterns)


@pytest.mark.postgres
def test_postgres_upgrades_a_database_of_the_first_step_holding_data(
    postgres_factory: object, postgres_url: str
) -> None:
    engine = sa.create_engine(postgres_url)
    with engine.begin() as connection:
        migrate.upgrade(connection, "0001")
        connection.exec_driver_sql(
            "INSERT INTO treefarm_studies (name, direction, attrs, created) VALUES ('old', 'maximize', '{}', 0)"
        )
        study_id = connection.exec_driver_sql("SELECT study_id FROM treefarm_studies").scalar_one()
        for number, (state, value, attrs) in enumerate(
            [("complete", 1.5, {"_request": "ab"}), ("running", None, {}), ("waiting", None, {REQUEUED: 1})]
        ):
            connection.execute(
                sa.text(
                    "INSERT INTO treefarm_trials (study_id, number, state, params, value, user_attrs, system_attrs) "
                    "VALUES (:s, :n, :state, '{}', :value, '{}', :attrs)"
                ),
                {"s": study_id, "n": number, "state": state, "value": value, "attrs": json.dumps(attrs)},
            )
    engine.dispose()
    storage = SQLStorage(postgres_url, journal=None)
    study = storage.get_study("old")
    assert study.directions == ("maximize",)
    trials = storage.get_trials(study.study_id)
    assert [t.values for t in trials] == [(1.5,), None, None]
    assert storage.claim_trial(study.study_id, budget=2).number == 2  # the re-queued one, past the budget
    assert storage.claim_trial(study.study_id, budget=3) is None  # n_claimed: 2 backfilled + 1
    storage.close()
