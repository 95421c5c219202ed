"""What a person does from the page: hints, enqueued configurations, notes, and trials asked and told.

Each write goes through the same :class:`~treefarm.Study` method a program
calls (:meth:`~treefarm.Study.hint`, :meth:`~treefarm.Study.enqueue`,
:meth:`~treefarm.Study.ask`, :meth:`~treefarm.Study.tell`), so it is
validated exactly as the API validates it and a refusal carries the API's
message; it lands in the storage, where every worker sees it on its next
suggestion. Hints, enqueued trials and told results need the study's space:
the dashboard is given spaces (``--space FILE.py[:NAME]``) and matches each
study to the one of its stored fingerprint. Notes need none.

Notes are stored as rows of their own (:meth:`~treefarm.storage.Storage.add_note`),
with their author, time (seconds since the epoch) and trial, if on one: two
dashboards adding notes at once lose none. A trial asked from the page records who asked
it in its user attribute ``"asked_by"``, who told it in ``"told_by"``; an
enqueued one who queued it in ``"enqueued_by"``.

Request bodies are JSON objects of at most :data:`MAX_BODY` bytes; NaN and
infinities are refused (JSON has none); every field's type is checked here
and every value reaches the storage as a bound parameter, never as SQL text.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..exceptions import StudyError, TreefarmError, format_values
from ..space import Space, convert
from ..space.fingerprint import fingerprint
from ..storage import JSON, Storage, StudyRecord, TrialState
from ..study import Study
from ..study.state.outcome import told

__all__ = ["MAX_BODY", "MAX_NOTE", "Writer", "parse_body"]

MAX_BODY = 64 * 1024
"""The largest request body a write accepts, in bytes."""
MAX_NOTE = 10_000
"""The longest note, in characters."""
MAX_AUTHOR = 100
"""The longest author name, in characters."""


class WriteError(TreefarmError):
    """A write's request is malformed (not the API's refusal: that keeps its own type)."""


def _no_constant(name: str) -> float:
    raise WriteError(f"a number must be finite (JSON has no NaN or infinity), but got {name}")


def parse_body(raw: bytes) -> dict[str, Any]:
    """The JSON object a write sends; WriteError naming what is wrong."""
    if len(raw) > MAX_BODY:
        raise WriteError(
            f"a request body must be at most {MAX_BODY} bytes, but got {format_values(size=len(raw))}"
        )
    try:
        body = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WriteError(f"a request body must be a JSON object, but it does not parse ({exc})") from None
    if not isinstance(body, dict):
        raise WriteError(f"a request body must be a JSON object, but got a {type(body).__name__}")
    return body


def text(body: Mapping[str, Any], name: str, limit: int, *, required: bool = True) -> str:
    """The string field ``name`` of at most ``limit`` characters (stripped)."""
    value = body.get(name, "")
    if not isinstance(value, str):
        raise WriteError(f"{name} must be a string, but got {name} of type {type(value).__name__}")
    value = value.strip()
    if len(value) > limit:
        raise WriteError(
            f"{name} must be at most {limit} characters, but got {format_values(length=len(value))}"
        )
    if required and not value:
        raise WriteError(f"{name} must not be empty")
    return value


def config_field(body: Mapping[str, Any]) -> dict[str, Any]:
    """The ``config`` field: a JSON object of address to decision (its values are the API's to check)."""
    config = body.get("config")
    if not isinstance(config, dict):
        raise WriteError(
            f"config must be a JSON object of address to decision, but got {format_values(config=config)}"
        )
    return config


class Writer:
    """The writes of one dashboard: studies opened on their matching space, one lock
    for the read-modify-write of note lists."""

    def __init__(self, storage: Storage, spaces: Sequence[Any] = ()) -> None:
        self.storage = storage
        self._spaces: dict[str, Space] = {}
        for given in spaces:
            space = convert(given)
            self._spaces[fingerprint(space)] = space
        self._studies: dict[int, Study] = {}
        self._lock = threading.Lock()

    def study(self, record: StudyRecord) -> Study:
        """The study ``record`` names, opened on the given space of its fingerprint."""
        with self._lock:
            if record.study_id not in self._studies:
                space = self._spaces.get(str(record.attrs.get("space_fingerprint")))
                if space is None:
                    raise StudyError(
                        "this write needs the study's space: start the dashboard with --space FILE.py[:NAME] "
                        f"naming a space of the study's fingerprint, but got {format_values(study=record.name)}"
                    )
                self._studies[record.study_id] = Study.load(record.name, space=space, storage=self.storage)
            return self._studies[record.study_id]

    def hint(self, record: StudyRecord, body: Mapping[str, Any]) -> dict[str, JSON]:
        author = text(body, "author", MAX_AUTHOR)
        hint_id = self.study(record).hint(
            config_field(body),
            credibility=body.get("credibility", 1.0),
            bad=body.get("bad", False),
            spread=body.get("spread", 0.1),
            author=author,
        )
        return {"hint_id": hint_id}

    def remove_hint(self, record: StudyRecord, hint_id: int) -> dict[str, JSON]:
        """Withdraw a hint (:meth:`~treefarm.Study.remove_hint` when the study is open here, so
        its own suggestions forget it at once; the storage's, as ``treefarm hint --remove``, else)."""
        with self._lock:
            study = self._studies.get(record.study_id)
        if study is not None:
            study.remove_hint(hint_id)
        else:
            self.storage.remove_hint(record.study_id, hint_id)
        return {"removed": hint_id}

    def enqueue(self, record: StudyRecord, body: Mapping[str, Any]) -> dict[str, JSON]:
        author = text(body, "author", MAX_AUTHOR)
        number = self.study(record).enqueue(
            config_field(body), user_attrs={"enqueued_by": {"author": author, "time": time.time()}}
        )
        return {"number": number}

    def ask(self, record: StudyRecord, body: Mapping[str, Any]) -> dict[str, JSON]:
        """Start a trial for a person to evaluate: the configuration to measure."""
        author = text(body, "author", MAX_AUTHOR)
        study = self.study(record)
        trial = study.ask()
        self.storage.set_trial_user_attr(record.study_id, trial.number, "asked_by", {"author": author, "time": time.time()})
        return {"number": trial.number, "config": dict(trial.config.to_dict()), **_at(study, trial.number)}

    def asked(self, record: StudyRecord) -> list[dict[str, JSON]]:
        """The trials asked from this dashboard and not told yet, oldest first."""
        with self._lock:
            study = self._studies.get(record.study_id)
            running = sorted(study.running) if study is not None else []
        trials = (self.storage.get_trial(record.study_id, n) for n in running)
        return [{"number": t.number, "config": dict(t.params), **_at(study, t.number)} for t in trials]

    def tell(self, record: StudyRecord, number: int, body: Mapping[str, Any]) -> dict[str, JSON]:
        """Record the result of a trial asked from the page: refused, leaving the trial
        running, when the API would record the value as a failure the person did not say."""
        author = text(body, "author", MAX_AUTHOR)
        study = self.study(record)
        state = body.get("state")
        if number not in study.running:
            raise StudyError(
                "only a trial asked from this dashboard can be told here (a worker tells its own), but got "
                f"{format_values(number=number, state=self.storage.get_trial(record.study_id, number).state.value)}"
            )
        outcome = told(body.get("value"), state=state, exception=None)
        if outcome.state is TrialState.FAILED and state != "failed":
            raise StudyError(str(outcome.system_attrs.get("fail_reason")))
        self.storage.set_trial_user_attr(
            record.study_id, number, "told_by", {"author": author, "time": time.time()}
        )
        done = study.tell(number, body.get("value"), state=state)
        return {"number": number, "state": done.state.value, "value": done.value}

    def note(
        self, record: StudyRecord, body: Mapping[str, Any], number: int | None = None
    ) -> dict[str, JSON]:
        """Add a note to the study, or to its trial ``number``."""
        stored = self.storage.add_note(  # a row of its own: notes added at once anywhere are all kept
            record.study_id, text=text(body, "text", MAX_NOTE), author=text(body, "author", MAX_AUTHOR), trial=number
        )
        return {"author": stored.author, "time": stored.created, "text": stored.text, "trial": stored.trial}

    def close(self) -> None:
        """Fail the trials asked from the page and never told (as a stopped worker does)."""
        for study in self._studies.values():
            study.fail_running("the dashboard that asked it stopped")


def _at(study: Study | None, number: int) -> dict[str, JSON]:
    """Where a person evaluates trial ``number`` of a study with a fidelity: at its fidelity,
    continuing the trial it continues (none in a study without a fidelity)."""
    if study is None or study.fidelity is None:
        return {}
    return {"fidelity": study.fidelity_of(number), "continues": study.continued_from(number)}
