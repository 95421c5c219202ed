"""The dashboard's API: read-only, paged by the storage, plots from treefarm.viz, errors named."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import treefarm as tf
from treefarm import StorageError
from treefarm.dashboard import create_app, is_loopback, open_read_only
from treefarm.storage import TrialState

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient


def objective(p: dict, trial: tf.Trial) -> float:
    trial.report(0, p["x"] ** 2 + 1.0)
    trial.set_user_attr("note", "ok")
    if p["kind"] == "c":
        raise ValueError("kind c is broken")
    return p["x"] ** 2 + 0.1 * p["n"]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("dash") / "d.db"
    space = {"x": tf.Real(-2, 2), "n": tf.Int(1, 5), "kind": tf.Choice("a", "b", "c")}
    study = tf.Study.create("demo", space=space, storage=str(path), algo="random", seed=0)
    study.optimize(objective, 40, catch=(ValueError,))
    study.storage.close()
    return path


@pytest.fixture
def client(db: Path) -> Iterator[TestClient]:
    storage = open_read_only(db)
    with TestClient(create_app(storage)) as c:
        yield c
    storage.close()


def get(client: TestClient, path: str, status: int = 200) -> Any:
    response = client.get(path)
    assert response.status_code == status, response.text
    return response.json()


def test_the_page_and_its_vendored_assets_are_served_locally(client: TestClient) -> None:
    page = client.get("/").text
    assert '<script src="/static/vendor/uPlot.iife.min.js">' in page and "http" not in page.split("<body>")[1]
    assert client.get("/static/vendor/uPlot.iife.min.js").status_code == 200
    assert client.get("/static/app.js").status_code == 200


def test_studies_are_listed_with_their_counts_and_best(client: TestClient) -> None:
    (study,) = get(client, "/api/studies")["studies"]
    assert study["name"] == "demo" and study["total"] == 40
    assert study["counts"]["complete"] + study["counts"]["failed"] == 40 and study["counts"]["failed"] > 0


def test_the_table_is_paged_sorted_and_filtered(client: TestClient) -> None:
    first = get(client, "/api/studies/1/trials?limit=10")
    assert first["total"] == 40 and [r["number"] for r in first["rows"]] == list(range(10))
    second = get(client, "/api/studies/1/trials?limit=10&offset=10")
    assert [r["number"] for r in second["rows"]] == list(range(10, 20))
    by_value = get(client, "/api/studies/1/trials?order_by=value&limit=50")["rows"]
    values = [r["value"] for r in by_value if r["value"] is not None]
    assert values == sorted(values) and by_value[-1]["value"] is None  # failed trials last
    down = get(client, "/api/studies/1/trials?order_by=value&descending=true&limit=1")["rows"]
    assert down[0]["value"] == max(values)
    failed = get(client, "/api/studies/1/trials?state=failed")
    assert failed["total"] == sum(r["value"] is None for r in by_value)
    assert all(r["state"] == "failed" for r in failed["rows"])
    window = get(client, "/api/studies/1/trials?value_min=0.5&value_max=1.5")
    assert all(0.5 <= r["value"] <= 1.5 for r in window["rows"]) and window["total"] == len(window["rows"])


def test_a_trial_shows_config_expression_failure_attrs_and_curve(client: TestClient) -> None:
    rows = get(client, "/api/studies/1/trials?state=failed&limit=1")["rows"]
    t = get(client, f"/api/studies/1/trials/{rows[0]['number']}")
    assert t["config"]["kind"] == "c" and "kind=c" in t["expression"]
    assert "ValueError: kind c is broken" in t["fail_reason"]
    assert t["user_attrs"] == {"note": "ok"}
    assert t["intermediate"]["steps"] == [0] and t["intermediate"]["values"] == [t["config"]["x"] ** 2 + 1.0]


@pytest.mark.parametrize(
    "kind", ["convergence", "slices", "importance", "parallel", "intermediate", "structures", "gp"]
)
def test_every_plot_kind_serves_the_viz_data(client: TestClient, kind: str) -> None:
    data = get(client, f"/api/studies/1/plots/{kind}")
    if kind == "convergence":
        assert data["best"] == sorted(data["best"], reverse=True) and data["total"] == 40 - failed_count(
            client
        )
    elif kind == "slices":
        assert {s["address"] for s in data["slices"]} == {"x", "n", "kind"}
    elif kind == "importance":
        assert data["scores"][0][0] == "x"
    elif kind == "gp":
        assert data["options"] == ["x", "n"] and len(data["mean"]) == len(data["grid"]) == 200
    elif kind == "intermediate":
        assert data["total"] == 40
    elif kind == "structures":
        assert data["rows"][0]["value"] == min(r["value"] for r in data["rows"])


def failed_count(client: TestClient) -> int:
    return int(get(client, "/api/studies/1/trials?state=failed")["total"])


def test_bad_requests_name_the_argument(client: TestClient) -> None:
    assert "order_by must be one of" in get(client, "/api/studies/1/trials?order_by=params", 400)["error"]
    assert "limit='abc'" in get(client, "/api/studies/1/trials?limit=abc", 400)["error"]
    assert "state='bogus'" in get(client, "/api/studies/1/trials?state=bogus", 400)["error"]
    assert "state='COMPLETE'" in get(client, "/api/studies/1/trials?state=COMPLETE", 400)["error"]
    assert "offset must lie in" in get(client, "/api/studies/1/trials?offset=99999999999999999999999", 400)["error"]
    assert "study_id=7" in get(client, "/api/studies/7/trials", 404)["error"]
    assert "kind='pie'" in get(client, "/api/studies/1/plots/pie", 404)["error"]
    assert get(client, "/api/studies/1/plots/gp?param=kind")["address"] == "x"  # a numeric one instead


def test_the_dashboard_never_writes(db: Path) -> None:
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    storage = open_read_only(db)
    with TestClient(create_app(storage)) as c:
        for path in ["/api/studies", "/api/studies/1/trials?order_by=value", "/api/studies/1/plots/gp"]:
            c.get(path)
        assert c.post("/api/studies").status_code == 405
    with pytest.raises(StorageError, match="readonly"):
        storage.create_trial(1, params={"x": 0.0}, state=TrialState.WAITING)
    storage.close()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_a_missing_file_or_memory_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="the SQLite file must exist"):
        open_read_only(tmp_path / "none.db")
    with pytest.raises(StorageError, match="storage=':memory:'"):
        open_read_only(":memory:")


def test_only_loopback_hosts_count_as_private() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.4") and not is_loopback("example.org")


def test_the_relationship_of_two_parameters_and_the_posterior_at_a_trial(client: TestClient) -> None:
    r = get(client, "/api/studies/1/plots/relationship?param=x,n")
    assert r["addresses"] == ["x", "n"] and r["options"] == ["x", "n", "kind"]
    assert len(r["mean_rank"]) == len(r["good"]) and len(r["x"]) == r["shown"] > 0
    assert get(client, "/api/studies/1/plots/relationship")["addresses"] == ["x", "n"]
    assert "x='bogus'" in get(client, "/api/studies/1/plots/relationship?param=bogus,n", 400)["error"]
    number = get(client, "/api/studies/1/trials?state=complete&limit=1")["rows"][0]["number"]
    p = get(client, f"/api/studies/1/trials/{number}/posterior")
    assert [s["address"] for s in p["slices"]] == ["x", "n"] and f"held at trial {number}" in p["note"]
    x = p["slices"][0]
    assert len(x["grid"]) == len(x["mean"]) == 100 and x["here"] == get(client, f"/api/studies/1/trials/{number}")["config"]["x"]
    failed = get(client, "/api/studies/1/trials?state=failed&limit=1")["rows"][0]["number"]
    assert get(client, f"/api/studies/1/trials/{failed}/posterior")["slices"] == []


def test_a_read_only_dashboard_says_so_and_lists_no_hints_or_notes(client: TestClient) -> None:
    assert get(client, "/api/config")["writes"] is False
    assert get(client, "/api/studies/1/hints") == {"hints": []}
    assert get(client, "/api/studies/1/notes") == {"notes": []}
    assert get(client, "/api/studies/1/version")["version"][:3] == [40, 0, 0]


def test_studies_are_compared_on_one_chart(tmp_path: Path) -> None:
    path = tmp_path / "two.db"
    for name, algo in (("a", "random"), ("b", "anneal")):
        tf.Study.create(name, space={"x": tf.Real(0, 1)}, storage=str(path), algo=algo, seed=1).optimize(
            lambda p: p["x"], 10
        )
    storage = open_read_only(path)
    with TestClient(create_app(storage)) as c:
        data = get(c, "/api/compare?studies=1,2")["studies"]
        assert [s["name"] for s in data] == ["a", "b"]
        assert all(s["best"] == sorted(s["best"], reverse=True) and s["x"][-1] == 9 for s in data)
        assert "two studies or more" in get(c, "/api/compare?studies=1", 400)["error"]
        assert "studies='1,x'" in get(c, "/api/compare?studies=1,x", 400)["error"]
    storage.close()


def test_the_computed_views_a_study_keeps_are_bounded(db: Path) -> None:
    from treefarm.dashboard.cache import MAX_COMPUTED, StudyCache

    storage = open_read_only(db)
    cache = StudyCache(storage, storage.list_studies()[0])
    for i in range(3 * MAX_COMPUTED):
        assert cache.computed("importance", f"key{i}", lambda ts, i=i: i) == i
    assert len(cache._computed) == MAX_COMPUTED, "a request per key must not grow memory without bound"
    assert cache.computed("importance", f"key{3 * MAX_COMPUTED - 1}", lambda ts: "recomputed") == 3 * MAX_COMPUTED - 1
    storage.close()


def test_importance_and_two_parameters_are_estimated_on_evenly_spaced_trials(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from treefarm.dashboard import payloads

    full = get(client, "/api/studies/1/plots/importance")
    assert full["shown"] == full["total"] == 40 - failed_count(client)
    monkeypatch.setattr(payloads, "MAX_ESTIMATED", 10)
    sampled = get(client, "/api/studies/1/plots/importance?param=sampled")
    assert sampled["shown"] == 10 and sampled["total"] == full["total"]
    r = get(client, "/api/studies/1/plots/relationship?param=n,x")
    assert r["estimated_on"] == 10 and r["complete"] == full["total"] and r["total"] == 10


def test_a_study_of_two_objectives_shows_its_front_with_infeasible_trials_marked(tmp_path: Path) -> None:
    path = tmp_path / "mo.db"
    study = tf.Study.create(
        "mo", space={"x": tf.Real(0, 1)}, storage=str(path), directions=["minimize", "minimize"], algo="random", seed=0
    )
    study.optimize(lambda p: {"loss": [p["x"], (1 - p["x"]) ** 2], "constraints": [p["x"] - 0.8]}, 30)
    expected = {t.number for t in study.best_trials}
    study.storage.close()
    storage = open_read_only(path)
    with TestClient(create_app(storage)) as c:
        assert get(c, "/api/studies")["studies"][0]["directions"] == ["minimize", "minimize"]
        d = get(c, "/api/studies/1/plots/pareto")
        assert d["objectives"] == [0, 1] and d["total"] == d["shown"] == 30
        on_front = {n for n, on in zip(d["numbers"], d["on_front"]) if on}
        assert on_front == expected, "the page's front must be the study's best trials"
        infeasible = [x for x, ok in zip(d["x"], d["feasible"]) if not ok]
        assert infeasible and all(x > 0.8 for x in infeasible)
        assert get(c, "/api/studies/1/plots/pareto?param=1,0")["x"] == d["y"]
        bad = d["numbers"][d["feasible"].index(False)]
        detail = get(c, f"/api/studies/1/trials/{bad}")
        assert len(detail["values"]) == 2 and detail["constraints"][0] > 0 and detail["feasible"] is False
        assert "two different objectives below 2" in get(c, "/api/studies/1/plots/pareto?param=0,0", 400)["error"]
        assert "param='a,b'" in get(c, "/api/studies/1/plots/pareto?param=a,b", 400)["error"]
    storage.close()


def test_a_study_of_named_objectives_is_listed_and_shown_by_its_names_and_front(tmp_path: Path) -> None:
    path = tmp_path / "named.db"
    study = tf.Study.create(
        "named", space={"x": tf.Real(0, 1)}, storage=str(path), directions={"error": "minimize", "size": "maximize"},
        algo="random", seed=0,
    )
    study.optimize(lambda p: [p["x"], p["x"] ** 2], 20)
    front = sorted(t.number for t in study.best_trials)
    study.storage.close()
    storage = open_read_only(path)
    with TestClient(create_app(storage)) as c:
        (entry,) = get(c, "/api/studies")["studies"]
        assert entry["objectives"] == {"directions": ["minimize", "maximize"], "names": ["error", "size"], "named": True}
        assert entry["best"] is None, "a study of two objectives has no one best value"
        assert entry["front"]["size"] == len(front) and [t["number"] for t in entry["front"]["trials"]] == front[:10]
        row = get(c, "/api/studies/1/trials?limit=1")["rows"][0]
        assert row["values"][1] == pytest.approx(row["values"][0] ** 2) and row["value"] == row["values"][0]
        assert get(c, "/api/studies/1/plots/pareto")["labels"] == ["error", "size"]
    storage.close()


def test_a_study_is_found_by_id_without_listing_every_study_on_each_poll(db: Path) -> None:
    storage = open_read_only(db)
    listed = []
    every = storage.list_studies
    storage.list_studies = lambda: listed.append(1) or every()  # type: ignore[method-assign]
    with TestClient(create_app(storage)) as c:
        for _ in range(5):
            get(c, "/api/studies/1/version")
            get(c, "/api/studies/1/notes")
        assert len(listed) == 1, "only the first look-up of an id lists the studies"
        assert "study_id=9" in get(c, "/api/studies/9/version", 404)["error"]
    storage.close()


def test_a_study_of_one_objective_has_no_front(client: TestClient) -> None:
    assert get(client, "/api/studies/1/plots/pareto") == {"objectives": None, "count": 1}


def test_a_trials_artifacts_are_listed_and_downloaded_never_shown_in_the_page(tmp_path: Path) -> None:
    path = tmp_path / "art.db"

    def objective(p: dict, trial: tf.Trial) -> float:
        trial.save_artifact(b"<script>alert(1)</script>", name="report.html")
        return p["x"]

    tf.Study.create("art", space={"x": tf.Real(0, 1)}, storage=str(path), algo="random", seed=0).optimize(objective, 2)
    storage = open_read_only(path)
    with TestClient(create_app(storage, artifacts=f"{path}.artifacts")) as c:
        listed = get(c, "/api/studies/1/trials/1")["user_attrs"]["artifacts"]
        assert [a["name"] for a in listed] == ["report.html"]
        response = c.get("/api/studies/1/trials/1/artifacts/report.html")
        assert response.status_code == 200 and response.content == b"<script>alert(1)</script>"
        assert response.headers["content-disposition"] == 'attachment; filename="report.html"'
        assert response.headers["content-type"] == "application/octet-stream"
        assert response.headers["content-security-policy"] == "sandbox"
        assert "name='model.pt'" in get(c, "/api/studies/1/trials/1/artifacts/model.pt", 404)["error"]
        assert c.get("/api/studies/1/trials/1/artifacts/..%2F..%2Fart.db").status_code == 404
    with TestClient(create_app(storage)) as c:
        assert "not given the artifact store" in get(c, "/api/studies/1/trials/1/artifacts/report.html", 404)["error"]
    storage.close()


def test_a_new_report_of_a_running_trial_reaches_an_open_page(tmp_path: Path) -> None:
    """A study whose trials run for hours: the page must follow each trial's curve as it is
    reported, though no trial is created, claimed or finished meanwhile."""
    path = tmp_path / "long.db"
    study = tf.Study.create("long", space={"x": tf.Real(0, 1)}, storage=str(path), algo="random", seed=0)
    trial = study.ask()
    trial.report(1, 0.5)
    storage = open_read_only(path)
    with TestClient(create_app(storage)) as c:
        before = get(c, "/api/studies/1/version")["version"]
        assert get(c, "/api/studies/1/plots/intermediate")["values"] == [[0.5]]
        assert get(c, "/api/studies/1/version")["version"] == before, "a quiet study keeps its version"
        trial.report(2, 0.25)
        after = get(c, "/api/studies/1/version")["version"]
        assert after != before and after[:3] == before[:3] == [1, 1, 0]
        assert get(c, "/api/studies/1/plots/intermediate")["values"] == [[0.5, 0.25]]
        study.storage.heartbeat(study.study_id, trial.number)
        assert get(c, "/api/studies/1/version")["version"] == after, "a heartbeat is not news"
        study.tell(trial, 0.2)
        assert get(c, "/api/studies/1/version")["version"][:3] == [1, 0, 0]
    storage.close()


def test_a_trial_at_a_fidelity_shows_its_fidelity_and_cost(tmp_path: Path) -> None:
    db = tmp_path / "fidelity.db"
    study = tf.Study.create("f", space={"x": tf.Real(0, 1)}, storage=db, fidelity=tf.Fidelity(0.25, 1.0), seed=0)
    study.optimize(lambda c, trial: c["x"] * trial.fidelity, max_cost=1.0, progress=False)
    study.storage.close()
    storage = open_read_only(db)
    with TestClient(create_app(storage)) as c:
        t = get(c, f"/api/studies/{study.study_id}/trials/0")
    storage.close()
    assert t["fidelity"] == t["cost"] == tf.Fidelity(0.25, 1.0).rungs[0]


def test_a_continued_trial_says_which_trial_it_continues_and_that_it_resumed(tmp_path: Path) -> None:
    db = tmp_path / "resumed.db"
    study = tf.Study.create("r", space={"x": tf.Real(0, 1)}, storage=db, fidelity=tf.Fidelity(1, 3), seed=0)

    def objective(c: dict, trial: tf.Trial) -> float:
        trial.load_checkpoint()
        trial.save_checkpoint(b"epochs")
        return float(c["x"] / trial.fidelity)

    study.optimize(objective, max_cost=5.0, progress=False)
    promoted = next(t for t in study.trials if t.system_attrs.get("continues") is not None)
    study.storage.close()
    storage = open_read_only(db)
    with TestClient(create_app(storage)) as c:
        t = get(c, f"/api/studies/{study.study_id}/trials/{promoted.number}")
        first = get(c, f"/api/studies/{study.study_id}/trials/0")
    storage.close()
    assert t["continues"] == promoted.system_attrs["continues"] and t["resumed"] is True
    assert t["cost"] == 2.0  # 3 reserved, the 1 its source spent given back
    assert first["continues"] is None and first["resumed"] is False
