"""A dashboard query with a value it does not know is answered 400 naming it, never
answered as if the default had been asked."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import treefarm as tf
from treefarm.dashboard import create_app, open_read_only

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path = tmp_path_factory.mktemp("dash") / "d.db"
    space = {"x": tf.Real(-2, 2), "n": tf.Int(1, 5)}
    study = tf.Study.create("demo", space=space, storage=str(path), algo="random", seed=0)
    study.optimize(lambda p: p["x"] ** 2 + p["n"], 8)
    study.storage.close()
    storage = open_read_only(path)
    with TestClient(create_app(storage)) as c:
        yield c
    storage.close()


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("trials?descending=maybe", "descending must be true or false, but got descending='maybe'"),
        ("plots/gp?param=nope", "param must be one of the parameters ['n', 'x'], but got param='nope'"),
        ("plots/convergence?param=sideways", "axis must be one of ['number', 'time']"),
    ],
)
def test_an_unknown_query_value_is_answered_400_naming_it(client: TestClient, path: str, said: str) -> None:
    response = client.get(f"/api/studies/1/{path}")
    assert response.status_code == 400, response.text
    assert said in response.json()["error"]


def test_known_values_still_answer(client: TestClient) -> None:
    rows = client.get("/api/studies/1/trials?descending=true&order_by=number").json()["rows"]
    assert [r["number"] for r in rows] == sorted((r["number"] for r in rows), reverse=True)
    assert client.get("/api/studies/1/plots/gp?param=x").json()["address"] == "x"
