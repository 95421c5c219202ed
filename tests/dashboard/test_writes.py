"""Acting from the dashboard: every write route refused without the flag, the token, the
right Origin and Host; accepted writes go through the Study API (its messages), land in
the storage for every worker, and hostile input is stored as data, never run."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import treefarm as tf
from treefarm.dashboard import create_app, open_read_only
from treefarm.dashboard.readonly import open_for_writes
from treefarm.dashboard.security import TOKEN_HEADER, WriteAccess, allowed_hosts, new_token
from treefarm.dashboard.writes import MAX_BODY, Writer
from treefarm.storage import TrialState, open_storage
from treefarm.study.state.outcome import told

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient

SPACE = {"x": tf.Real(-2, 2), "n": tf.Int(1, 5), "kind": tf.Choice("a", "b", "c")}
TOKEN = new_token()
GOOD = {TOKEN_HEADER: TOKEN, "origin": "http://testserver"}
HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "'; DROP TABLE trials; --",
    'Robert"); DELETE FROM studies; --',
    "\u202e\u0000 nul and bidi",
]
WRITES: list[tuple[str, dict[str, Any]]] = [
    ("/api/studies/1/hints", {"config": {"x": 0.5}, "credibility": 0.8, "author": "ann"}),
    ("/api/studies/1/hints/1/remove", {"author": "ann"}),
    ("/api/studies/1/enqueue", {"config": {"x": 0.5, "n": 2, "kind": "a"}, "author": "ann"}),
    ("/api/studies/1/notes", {"text": "a note", "author": "ann"}),
    ("/api/studies/1/trials/0/notes", {"text": "a note", "author": "ann"}),
    ("/api/studies/1/ask", {"author": "ann"}),
    ("/api/studies/1/trials/0/tell", {"value": 1.0, "author": "ann"}),
]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("writes") / "t.db"
    study = tf.Study.create("demo", space=SPACE, storage=str(path), algo="random", seed=0)
    study.optimize(lambda p: p["x"] ** 2 + 0.1 * p["n"], 12)
    study.hint({"x": 1.0}, author="seed")
    study.storage.close()
    return path


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "d.db"
    shutil.copy(template, path)
    return path


@pytest.fixture
def client(db: Path) -> Iterator[TestClient]:
    storage = open_for_writes(db)
    writer = Writer(storage, [SPACE])
    with TestClient(create_app(storage, writer=writer, access=WriteAccess(TOKEN, {"testserver"}))) as c:
        yield c
    writer.close()
    storage.close()


def post(
    client: TestClient, path: str, body: Any, status: int = 200, headers: dict[str, str] | None = None
) -> Any:
    response = client.post(path, content=json.dumps(body), headers=GOOD if headers is None else headers)
    assert response.status_code == status, f"{path}: {response.status_code} {response.text}"
    return response.json()


def worker(db: Path) -> tf.Study:
    return tf.Study.load("demo", space=SPACE, storage=str(db))


def state_of(db: Path) -> tuple[Any, ...]:
    with open_storage(str(db), read_only=True) as s:
        record = s.get_study("demo")
        trials = s.get_trials(record.study_id)
        return (
            [(t.number, t.state, t.value, dict(t.user_attrs)) for t in trials],
            [h.hint_id for h in s.get_hints(record.study_id)],
            s.get_notes(record.study_id),
        )


@pytest.mark.parametrize(("path", "body"), WRITES)
def test_no_write_route_writes_without_the_flag(db: Path, path: str, body: dict[str, Any]) -> None:
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    storage = open_read_only(db)
    with TestClient(create_app(storage)) as c:
        refused = post(c, path, body, 403)
        assert "started read-only: start it with --allow-writes" in refused["error"]
        assert c.get("/api/config").json()["writes"] is False
    storage.close()
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


@pytest.mark.parametrize(("path", "body"), WRITES)
@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ({"origin": "http://testserver"}, "needs the token"),
        ({TOKEN_HEADER: "", "origin": "http://testserver"}, "does not match"),
        (
            {TOKEN_HEADER: TOKEN[:-1] + ("A" if TOKEN[-1] != "A" else "B"), "origin": "http://testserver"},
            "does not match",
        ),
        ({TOKEN_HEADER: TOKEN}, "must carry an Origin"),
        ({TOKEN_HEADER: TOKEN, "origin": "http://evil.example"}, "origin='http://evil.example'"),
        ({TOKEN_HEADER: TOKEN, "origin": "null"}, "origin='null'"),
        ({TOKEN_HEADER: TOKEN, "origin": "http://testserver", "host": "evil.example"}, "host='evil.example'"),
    ],
)
def test_every_write_route_refuses_a_request_without_token_origin_or_host(
    client: TestClient, db: Path, path: str, body: dict[str, Any], headers: dict[str, str], reason: str
) -> None:
    before = state_of(db)
    assert reason in post(client, path, body, 403, headers=headers)["error"]
    assert TOKEN not in json.dumps(post(client, path, body, 403, headers=headers))
    assert state_of(db) == before


def test_with_writes_on_a_foreign_host_cannot_even_read(client: TestClient) -> None:
    for path in ["/", "/api/studies", "/api/studies/1/trials", "/static/app.js"]:
        response = client.get(path, headers={"host": "rebound.example:8080"})
        assert response.status_code == 403 and "host='rebound.example:8080'" in response.json()["error"]
    assert client.get("/api/studies").status_code == 200


def test_reads_refuse_posts_and_carry_a_strict_policy(client: TestClient) -> None:
    reads = ["/", "/api/studies", "/api/config", "/api/compare", "/api/studies/1/trials", "/api/studies/1/version",
             "/api/studies/1/trials/0", "/api/studies/1/trials/0/posterior", "/api/studies/1/plots/importance",
             "/api/studies/1/asked"]
    for path in reads:
        assert client.post(path, headers=GOOD).status_code == 405, path
    for path, _ in WRITES:
        for method in ("PUT", "PATCH", "DELETE"):
            assert client.request(method, path, headers=GOOD).status_code == 405, (method, path)
    response = client.get("/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    assert client.get("/api/config").json()["writes"] is True


def test_a_hint_from_the_page_is_the_api_hint_seen_by_every_worker(client: TestClient, db: Path) -> None:
    made = post(
        client,
        "/api/studies/1/hints",
        {"config": {"x": -1.5}, "credibility": 0.7, "spread": 0.05, "author": "ann"},
    )
    hint = next(h for h in worker(db).hints if h.hint_id == made["hint_id"])
    assert dict(hint.config) == {"x": -1.5} and hint.credibility == 0.7 and hint.spread == 0.05
    assert hint.author == "ann" and hint.weight == 1
    bad = post(client, "/api/studies/1/hints", {"config": {"kind": "c"}, "bad": True, "author": "bo"})
    assert next(h for h in worker(db).hints if h.hint_id == bad["hint_id"]).weight == -1
    shown = client.get("/api/studies/1/hints").json()["hints"]
    assert [h["bad"] for h in shown[-2:]] == [False, True]
    x_slice = next(
        s for s in client.get("/api/studies/1/plots/slices").json()["slices"] if s["address"] == "x"
    )
    mark = next(m for m in x_slice["hints"] if m["id"] == made["hint_id"])
    assert mark["x"] == -1.5 and mark["window"][0] < -1.5 < mark["window"][1]
    post(client, f"/api/studies/1/hints/{made['hint_id']}/remove", {"author": "ann"})
    assert made["hint_id"] not in [h.hint_id for h in worker(db).hints]
    gone = post(client, f"/api/studies/1/hints/{made['hint_id']}/remove", {"author": "ann"}, 404)
    assert f"hint_id={made['hint_id']}" in gone["error"]


@pytest.mark.parametrize(
    "given",
    [
        {"config": {"x": 99.0}},
        {"config": {"nope": 1}},
        {"config": {"kind": "z"}},
        {"config": {}},
        {"config": {"x": 0.5}, "credibility": 2.0},
        {"config": {"x": 0.5}, "credibility": "high"},
        {"config": {"x": 0.5}, "bad": "yes"},
        {"config": {"x": 0.5}, "spread": -1},
    ],
)
def test_a_refused_hint_shows_the_api_message(client: TestClient, db: Path, given: dict[str, Any]) -> None:
    with pytest.raises(tf.TreefarmError) as api:
        worker(db).hint(given["config"], **{k: v for k, v in given.items() if k != "config"})
    before = state_of(db)
    assert post(client, "/api/studies/1/hints", {**given, "author": "ann"}, 400)["error"] == str(api.value)
    assert state_of(db) == before


def test_an_enqueued_configuration_is_the_next_trial_of_any_worker(client: TestClient, db: Path) -> None:
    number = post(
        client, "/api/studies/1/enqueue", {"config": {"x": 0.25, "n": 3, "kind": "b"}, "author": "ann"}
    )["number"]
    with pytest.raises(tf.TreefarmError) as api:
        worker(db).enqueue({"x": 0.25, "n": 30, "kind": "b"})
    refused = post(
        client, "/api/studies/1/enqueue", {"config": {"x": 0.25, "n": 30, "kind": "b"}, "author": "ann"}, 400
    )
    assert refused["error"] == str(api.value)
    study = worker(db)
    trial = study.ask()
    assert trial.number == number and dict(trial.config.to_dict()) == {"x": 0.25, "n": 3, "kind": "b"}
    record = study.storage.get_trial(study.study_id, number)
    assert record.user_attrs["enqueued_by"]["author"] == "ann"
    study.tell(trial, 1.0)


def test_a_trial_asked_from_the_page_is_told_its_measured_value(client: TestClient, db: Path) -> None:
    asked = post(client, "/api/studies/1/ask", {"author": "ann"})
    number = asked["number"]
    assert set(asked["config"]) == {"x", "n", "kind"}
    assert client.get("/api/studies/1/asked").json()["asked"] == [asked]  # every open page can tell it
    api = told("twelve", state=None, exception=None)  # the API would record it as a failure ...
    refused = post(client, f"/api/studies/1/trials/{number}/tell", {"value": "twelve", "author": "ann"}, 400)
    assert refused["error"] == api.system_attrs["fail_reason"]  # ... the page refuses it, the trial runs on
    assert state_of(db)[0][number][1] is TrialState.RUNNING
    done = post(client, f"/api/studies/1/trials/{number}/tell", {"value": 0.125, "author": "ann"})
    assert done == {"number": number, "state": "complete", "value": 0.125}
    assert client.get("/api/studies/1/asked").json()["asked"] == []
    record = worker(db).storage.get_trial(1, number)
    assert record.value == 0.125 and record.user_attrs["told_by"]["author"] == "ann"
    assert record.user_attrs["asked_by"]["author"] == "ann"
    again = post(client, f"/api/studies/1/trials/{number}/tell", {"value": 1.0, "author": "ann"}, 400)
    assert "only a trial asked from this dashboard" in again["error"] and "state='complete'" in again["error"]
    failed = post(client, "/api/studies/1/ask", {"author": "ann"})["number"]
    assert (
        post(client, f"/api/studies/1/trials/{failed}/tell", {"state": "failed", "author": "ann"})["state"]
        == "failed"
    )


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_notes_are_stored_as_text_and_returned_as_json_strings(
    client: TestClient, db: Path, text: str
) -> None:
    version = client.get("/api/studies/1/version").json()["version"]
    note = post(client, "/api/studies/1/trials/3/notes", {"text": text, "author": text})
    assert note["text"] == text.strip() and note["author"] == text.strip() and note["trial"] == 3
    post(client, "/api/studies/1/notes", {"text": text, "author": "ann"})
    notes = client.get("/api/studies/1/notes").json()["notes"]
    assert [n["text"] for n in notes] == [text.strip()] * 2 and notes[1]["trial"] is None
    assert client.get("/api/studies/1/trials/3").json()["notes"][0]["text"] == text.strip()
    assert client.get("/api/studies/1/version").json()["version"] != version
    assert len(state_of(db)[0]) == 12  # the tables are intact
    response = client.get("/api/studies/1/notes")
    assert response.headers["content-type"] == "application/json" and "<script>" not in response.headers.get(
        "content-type", ""
    )


@pytest.mark.parametrize("hostile", HOSTILE)
def test_hostile_strings_in_every_field_are_refused_by_name_or_kept_as_data(
    client: TestClient, db: Path, hostile: str
) -> None:
    before = state_of(db)
    for path, body, message in [
        ("hints", {"config": {hostile: 1.0}}, "every address of a partial configuration must be a decision"),
        ("hints", {"config": {"x": hostile}}, "x must be a finite number"),
        ("hints", {"config": {"x": 0.5}, "credibility": hostile}, "credibility must be a number in [0, 1]"),
        ("hints", {"config": {"x": 0.5}, "spread": hostile}, "spread must be a number in (0, 1]"),
        ("hints", {"config": {"x": 0.5}, "bad": hostile}, "bad must be True or False"),
        ("enqueue", {"config": {"x": 0.5, "n": 2, "kind": hostile}}, "kind must be one of ['a', 'b', 'c']"),
        ("enqueue", {"config": {"x": 0.5, "n": 2, "kind": "a", hostile: 1}}, "every decision must belong"),
    ]:
        error = post(client, f"/api/studies/1/{path}", {**body, "author": "a"}, 400)["error"]
        assert message in error, (path, body, error)
    assert state_of(db) == before
    asked = post(client, "/api/studies/1/ask", {"author": hostile})["number"]
    assert "must return a number" in post(client, f"/api/studies/1/trials/{asked}/tell", {"value": hostile, "author": "a"}, 400)["error"]
    assert "state must be one of" in post(client, f"/api/studies/1/trials/{asked}/tell", {"state": hostile, "author": "a"}, 400)["error"]
    hint = post(client, "/api/studies/1/hints", {"config": {"x": 0.5}, "author": hostile})["hint_id"]
    assert next(h for h in client.get("/api/studies/1/hints").json()["hints"] if h["id"] == hint)["author"] == hostile.strip()
    number = post(client, "/api/studies/1/enqueue", {"config": {"x": 0.5, "n": 2, "kind": "a"}, "author": hostile})["number"]
    assert worker(db).storage.get_trial(1, number).user_attrs["enqueued_by"]["author"] == hostile.strip()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"text": NaN, "author": "ann"}', "JSON has no NaN"),
        (b'{"value": Infinity, "author": "ann"}', "JSON has no NaN"),
        (b"[1, 2]", "must be a JSON object, but got a list"),
        (b"{not json", "does not parse"),
        (b"\xff\xfe", "does not parse"),
        (b'{"text": 12, "author": "ann"}', "text must be a string"),
        (b'{"text": "x", "author": ["ann"]}', "author must be a string"),
        (b'{"text": "   ", "author": "ann"}', "text must not be empty"),
        (
            json.dumps({"text": "x" * 20_000, "author": "ann"}).encode(),
            "text must be at most 10000 characters",
        ),
        (json.dumps({"text": "x", "author": "a" * 101}).encode(), "author must be at most 100 characters"),
    ],
)
def test_malformed_bodies_are_refused_by_name(client: TestClient, db: Path, raw: bytes, message: str) -> None:
    before = state_of(db)
    response = client.post("/api/studies/1/notes", content=raw, headers=GOOD)
    assert response.status_code == 400 and message in response.json()["error"], response.text
    assert state_of(db) == before


def test_a_huge_body_or_bad_field_types_are_refused(client: TestClient, db: Path) -> None:
    before = state_of(db)
    huge = json.dumps({"text": "x" * (2 * MAX_BODY), "author": "ann"})
    response = client.post("/api/studies/1/notes", content=huge, headers=GOOD)
    assert response.status_code == 413 and "at most" in response.json()["error"]
    assert (
        "config must be a JSON object"
        in post(client, "/api/studies/1/hints", {"config": "x=1", "author": "a"}, 400)["error"]
    )
    assert (
        "config must be a JSON object"
        in post(client, "/api/studies/1/enqueue", {"config": [1], "author": "a"}, 400)["error"]
    )
    assert "study_id=9" in post(client, "/api/studies/9/notes", {"text": "x", "author": "a"}, 404)["error"]
    assert (
        "number=999"
        in post(client, "/api/studies/1/trials/999/notes", {"text": "x", "author": "a"}, 404)["error"]
    )
    assert state_of(db) == before


def test_writes_without_the_study_space_name_the_missing_option(db: Path) -> None:
    storage = open_for_writes(db)
    with TestClient(
        create_app(storage, writer=Writer(storage), access=WriteAccess(TOKEN, {"testserver"}))
    ) as c:
        assert (
            "--space FILE.py"
            in post(c, "/api/studies/1/hints", {"config": {"x": 0.5}, "author": "a"}, 400)["error"]
        )
        post(c, "/api/studies/1/notes", {"text": "notes need no space", "author": "a"})
    storage.close()


def test_the_token_is_random_and_the_hosts_are_the_bound_address() -> None:
    assert len({new_token() for _ in range(20)}) == 20 and len(new_token()) >= 40
    assert allowed_hosts("127.0.0.1", 8080) == {"127.0.0.1:8080", "localhost:8080", "[::1]:8080"}
    assert allowed_hosts("10.0.0.5", 9000) is None  # beyond the loopback: any Host, reads need a token


def test_a_trial_asked_from_the_page_of_a_study_with_a_fidelity_says_at_which(tmp_path: Path) -> None:
    """A person measures at the fidelity the study chose: the page must say which."""
    db = tmp_path / "f.db"
    made = tf.Study.create("mf", space=SPACE, storage=str(db), fidelity=tf.Fidelity(1, 27, integer=True), seed=0)
    made.storage.close()
    storage = open_for_writes(db)
    writer = Writer(storage, [SPACE])
    with TestClient(create_app(storage, writer=writer, access=WriteAccess(TOKEN, {"testserver"}))) as client:
        first = post(client, "/api/studies/1/ask", {"author": "ann"})
        assert (first["fidelity"], first["continues"]) == (1, None)  # a new configuration, at the lowest rung
        post(client, f"/api/studies/1/trials/{first['number']}/tell", {"value": 2.0, "author": "ann"})
        check = post(client, "/api/studies/1/ask", {"author": "ann"})
        assert (check["fidelity"], check["continues"]) == (27, first["number"])  # the same one at the top
        assert client.get("/api/studies/1/asked").json()["asked"] == [check]
    writer.close()
    storage.close()
