"""A dashboard bound beyond the loopback is usable from another machine (any Host name)
and serves nothing without a token: a read-only token reads, the write token writes, a
write's Origin must name the Host it was sent to."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import treefarm as tf
from treefarm.dashboard import create_app
from treefarm.dashboard.readonly import open_for_writes
from treefarm.dashboard.security import TOKEN_HEADER, ReadAccess, WriteAccess, allowed_hosts
from treefarm.dashboard.writes import Writer

pytest.importorskip("starlette")
pytest.importorskip("httpx")
from starlette.testclient import TestClient

READ, WRITE = "r" * 43, "w" * 43
HOST = "lab-box.example.org:8080"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    path = tmp_path / "d.db"
    tf.Study.create("demo", space={"x": tf.Real(0, 1)}, storage=str(path), algo="random").optimize(lambda p: p["x"], 3)
    storage = open_for_writes(path)
    writer = Writer(storage)
    access = WriteAccess(WRITE, allowed_hosts("0.0.0.0", 8080))
    app = create_app(storage, writer=writer, access=access, reads=ReadAccess((READ, WRITE)))
    with TestClient(app, base_url=f"http://{HOST}") as c:
        yield c
    writer.close()
    storage.close()


def test_reads_need_a_token_and_the_page_does_not(client: TestClient) -> None:
    refused = client.get("/api/studies")
    assert refused.status_code == 401 and "reading needs the token printed" in refused.json()["error"]
    assert client.get("/api/studies", headers={TOKEN_HEADER: "nope"}).status_code == 401
    assert client.get("/").status_code == 200
    for token in (READ, WRITE):
        assert client.get("/api/studies", headers={TOKEN_HEADER: token}).status_code == 200
    assert client.get(f"/api/studies/1/trials?token={READ}").status_code == 200
    assert client.get("/api/config", headers={TOKEN_HEADER: WRITE}).json()["read_token"] == READ


def _note(client: TestClient, token: str, origin: str) -> int:
    headers = {TOKEN_HEADER: token, "Origin": origin, "Content-Type": "application/json"}
    body = json.dumps({"text": "from another machine", "author": "a"})
    return client.post("/api/studies/1/notes", content=body, headers=headers).status_code


def test_writes_from_another_machine_need_the_write_token_and_their_own_origin(client: TestClient) -> None:
    assert _note(client, READ, f"http://{HOST}") == 403
    assert _note(client, WRITE, "http://evil.example") == 403
    assert _note(client, WRITE, f"http://{HOST}") == 200
