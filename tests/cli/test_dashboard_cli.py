"""``treefarm dashboard``: serves read-only on the loopback by default, warns on another host."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import treefarm as tf
from treefarm.cli.main import main

uvicorn = pytest.importorskip("uvicorn")


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "d.db")
    tf.Study.create("demo", space={"x": tf.Real(0, 1)}, storage=path, algo="random", seed=0).optimize(
        lambda p: p["x"], 3
    )
    return path


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    calls: dict[str, Any] = {}

    def run(app: Any, *, host: str, port: int, log_level: str) -> None:
        calls.update(app=app, host=host, port=port)

    monkeypatch.setattr(uvicorn, "run", run)
    return calls


def test_the_default_is_the_loopback_without_warning(
    db: str, served: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["dashboard", db]) == 0
    assert (served["host"], served["port"]) == ("127.0.0.1", 8080)

    err = capsys.readouterr().err
    assert "http://127.0.0.1:8080/" in err and "warning" not in err


def test_another_host_is_served_with_a_read_token(
    db: str, served: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["dashboard", db, "--host", "0.0.0.0", "--port", "9000"]) == 0
    assert (served["host"], served["port"]) == ("0.0.0.0", 9000)
    err = capsys.readouterr().err
    assert "serving on host='0.0.0.0', beyond this machine: reading needs the token" in err
    assert "http://0.0.0.0:9000/?token=" in err


def test_a_bad_port_or_missing_file_is_named(
    db: str, served: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["dashboard", db, "--port", "70000"])
    assert info.value.code == 2 and "--port=70000" in capsys.readouterr().err
    assert main(["dashboard", str(tmp_path / "none.db")]) == 1
    assert "the SQLite file must exist" in capsys.readouterr().err
    assert not served


def test_writes_print_a_token_url_on_the_loopback_and_need_the_flag_for_a_space(
    db: str, served: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    space_file = tmp_path / "space.py"
    space_file.write_text("import treefarm as tf\nspace = {'x': tf.Real(0, 1)}\n")
    assert main(["dashboard", db, "--allow-writes", "--space", str(space_file)]) == 0
    err = capsys.readouterr().err
    assert served["host"] == "127.0.0.1" and "http://127.0.0.1:8080/?token=" in err
    token = err.split("?token=")[1].split()[0]
    assert len(token) >= 40
    with pytest.raises(SystemExit) as info:
        main(["dashboard", db, "--space", str(space_file)])
    assert info.value.code == 2 and "give --allow-writes too" in capsys.readouterr().err
    assert main(["dashboard", str(tmp_path / "typo.db"), "--allow-writes"]) == 1
    assert "the SQLite file must exist" in capsys.readouterr().err and not (tmp_path / "typo.db").exists()


def test_the_artifacts_beside_the_file_are_served(
    tmp_path: Path, served: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from starlette.testclient import TestClient

    def objective(p: dict, trial: tf.Trial) -> float:
        trial.save_artifact(b"weights", name="model.bin")
        return p["x"]

    monkeypatch.chdir(tmp_path)
    tf.Study.create("a", space={"x": tf.Real(0, 1)}, storage="art.db", algo="random", seed=0).optimize(objective, 1)
    assert main(["dashboard", "art.db"]) == 0
    with TestClient(served["app"]) as client:
        assert client.get("/api/studies/1/trials/0/artifacts/model.bin").content == b"weights"
