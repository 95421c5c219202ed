"""The dashboard's web application: a Starlette app over a storage.

Reads (GET, always served):

    /                                   the page (static/index.html)
    /static/...                         its script, styles and the vendored uPlot
    /api/config                         whether writes are on, and the default author
    /api/studies                        every study with its summary
    /api/studies/{id}/version           a cheap change marker, polled by the page each second
    /api/studies/{id}/trials            one page: offset, limit, order_by, descending, state, value_min, value_max
    /api/studies/{id}/trials/{number}   one trial in full (its notes too)
    /api/studies/{id}/trials/{number}/posterior   the GP's posterior along each parameter at that trial
    /api/studies/{id}/trials/{number}/artifacts/{name}   a file the trial saved, as a download
    /api/studies/{id}/plots/{kind}      the data of a plot (param: its parameter, axis, "x,y", or two objectives "i,j")
    /api/studies/{id}/hints             the study's hints
    /api/studies/{id}/notes             the study's notes (a note on a trial too), oldest first
    /api/studies/{id}/asked             the trials asked from the page and not told yet
    /api/compare?studies=1,2            the best value so far of several studies

Writes (POST, JSON body; refused with 403 unless the app was given a
:class:`~.writes.Writer`, and then unless :class:`~.security.WriteAccess` lets
the request through: token, Origin, Host):

    /api/studies/{id}/hints                     config, credibility, spread, bad, author
    /api/studies/{id}/hints/{hint_id}/remove    author
    /api/studies/{id}/enqueue                   config, author
    /api/studies/{id}/notes                     text, author
    /api/studies/{id}/trials/{number}/notes     text, author
    /api/studies/{id}/ask                       author -> the trial's number and configuration
    /api/studies/{id}/trials/{number}/tell      value (or state "failed"), author

The table is paged, sorted and filtered by the storage (:meth:`Storage.trial_page`);
plots are computed from :class:`~treefarm.dashboard.cache.StudyCache` by the
same functions as the static figures (:mod:`treefarm.viz`). The server is a
:class:`DashboardAPI` (the storage and the settings, one method per route) and
the table :data:`READS` and :data:`WRITES` of which path calls which method; the
methods parse the request and answer, the data comes from :mod:`.payloads` and
:mod:`.views`. Read endpoints are plain methods, run by Starlette in its thread pool. Every response carries a
Content-Security-Policy that allows the page's own scripts only and no framing.
With writes on, a request whose ``Host`` is not the bound address is refused,
reads too (a rebound DNS name cannot read the studies through a person's browser).
"""

from __future__ import annotations

import getpass
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..exceptions import TreefarmError
from ..storage import NotFoundError, Storage, StudyRecord
from ..study.state import artifacts as stored_artifacts
from . import payloads, views
from .cache import StudyCache, marker
from .security import ReadAccess, WriteAccess
from .writes import MAX_BODY, WriteError, Writer, parse_body

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["READS", "STATIC", "WRITES", "DashboardAPI", "create_app"]

STATIC = Path(__file__).resolve().parent / "static"
POLL_SECONDS = 1.0
"""How often the page asks whether a study changed (updates appear within about twice that)."""
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The page runs its own scripts only (no inline script, so injected markup cannot run) and is never framed."""
READ_ONLY = "the dashboard was started read-only: start it with --allow-writes to act from the page"

Action = Callable[[Writer, StudyRecord, dict[str, Any], Mapping[str, int]], dict[str, Any]]
"""A write: the writer, the study's record, the request's JSON body and its path's ids -> the answer."""


class _Studies:
    """The storage's studies by id, each with its cache (created on first use).

    A study is found by id through its name (a study's name never changes): one
    indexed read of its row, not a scan of every study; the ids are listed again
    only for an id not seen yet (a study created since)."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._lock = threading.Lock()
        self._names: dict[int, str] = {}
        self._caches: dict[int, StudyCache] = {}

    def record(self, study_id: int) -> StudyRecord:
        """The study's record as stored now (its notes may have changed)."""
        name = self._names.get(study_id)
        if name is not None:
            try:
                record = self.storage.get_study(name)
            except NotFoundError:  # deleted since
                record = None
            if record is not None and record.study_id == study_id:
                return record
        every = {r.study_id: r for r in self.storage.list_studies()}
        self._names = {i: r.name for i, r in every.items()}
        if study_id not in every:
            raise NotFoundError(f"the study must exist in the storage, but got study_id={study_id}")
        return every[study_id]

    def cache(self, study_id: int) -> StudyCache:
        with self._lock:
            if study_id not in self._caches:
                self._caches[study_id] = StudyCache(self.storage, self.record(study_id))
            return self._caches[study_id]


def _ids(request: Request) -> dict[str, int]:
    return {k: int(v) for k, v in request.path_params.items() if k != "kind" and k != "name"}


class DashboardAPI:
    """The dashboard's server over ``storage``: read-only unless given a ``writer``
    and the ``access`` every write must show; a trial's artifacts are served from
    the store at ``artifacts`` (listed only, without it). One method per route
    (:data:`READS`, :data:`WRITES`); :meth:`app` builds the Starlette application."""

    def __init__(
        self,
        storage: Storage,
        *,
        writer: Writer | None = None,
        access: WriteAccess | None = None,
        artifacts: str | None = None,
        reads: ReadAccess | None = None,
    ) -> None:
        if (writer is None) != (access is None):
            raise TreefarmError("writes need both a writer and the access rule, or neither")
        self.storage = storage
        self.writer = writer
        self.access = access
        self.artifacts = artifacts
        self.reads = reads
        self.studies = _Studies(storage)
        self._one_write = threading.Lock()  # writes run one at a time: a Study object is not shared across threads

    # ------------------------------------------------------------------ reads
    def index(self, request: Request) -> Response:
        from starlette.responses import FileResponse

        return FileResponse(STATIC / "index.html")

    def config(self, request: Request) -> Response:
        return _json(
            {
                "writes": self.writer is not None,
                "author": getpass.getuser(),
                "poll_seconds": POLL_SECONDS,
                "read_token": None if self.reads is None else self.reads.tokens[0],  # for download links
            }
        )

    def list_studies(self, request: Request) -> Response:
        out = [self._entry(r) for r in self.storage.list_studies()]
        return _json({"studies": out, "poll_seconds": POLL_SECONDS})

    def _entry(self, record: StudyRecord) -> dict[str, Any]:
        summary = self.storage.trial_summary(record.study_id)
        if not record.objectives.several:
            return views.study_entry(record, summary)
        cache = self.studies.cache(record.study_id)
        front = cache.computed("front", "", lambda ts: views.front_summary(ts, record.objectives))
        return views.study_entry(record, summary, front)

    def version(self, request: Request) -> Response:
        record = self.studies.record(_ids(request)["study_id"])
        return _json({"version": marker(self.studies.cache(record.study_id), record)})

    def trials(self, request: Request) -> Response:
        study_id = _ids(request)["study_id"]
        total, page = self.storage.trial_page(study_id, **payloads.page_query(request.query_params))
        return _json({"total": total, "rows": [payloads.trial_row(t) for t in page]})

    def trial(self, request: Request) -> Response:
        ids = _ids(request)
        study_id, number = ids["study_id"], ids["number"]
        notes = [payloads.note_json(n) for n in self.storage.get_notes(study_id) if n.trial == number]
        return _json({**payloads.trial_detail(self.storage.get_trial(study_id, number)), "notes": notes})

    def posterior(self, request: Request) -> Response:
        ids = _ids(request)
        cache = self.studies.cache(ids["study_id"])
        direction, number = cache.record.direction, ids["number"]
        return _computed(cache, "posterior", str(number), lambda ts: views.trial_posterior(ts, direction, number))

    def plot(self, request: Request) -> Response:
        study_id, kind = _ids(request)["study_id"], request.path_params["kind"]
        param = request.query_params.get("param", "")
        cache = self.studies.cache(study_id)
        if kind == "pareto":
            objectives = cache.record.objectives
            return _computed(cache, kind, param, lambda ts: views.pareto(ts, objectives, param))
        compute = {**payloads.PLOTS, "relationship": views.relationship}.get(kind)
        if compute is None:
            kinds = [*payloads.PLOTS, "relationship", "pareto"]
            return _json({"error": f"kind must be one of {kinds}, but got kind={kind[:100]!r}"}, 404)
        direction = cache.record.direction
        if kind == "slices":
            data = cache.computed(kind, param, lambda ts: compute(ts, direction, param))
            return _json(views.hints_on_slices(data, self.storage.get_hints(study_id)))
        return _computed(cache, kind, param, lambda ts: compute(ts, direction, param))

    def artifact(self, request: Request) -> Response:
        from starlette.responses import Response

        ids, name = _ids(request), request.path_params["name"]
        trial = self.storage.get_trial(ids["study_id"], ids["number"])
        entry, why = payloads.artifact_entry(trial, name, served=self.artifacts is not None)
        if entry is None or self.artifacts is None:
            return _json({"error": why}, 404)
        study = self.studies.record(ids["study_id"]).name
        content = stored_artifacts.load(self.artifacts, study, ids["number"], entry)
        # an attachment, never shown in the dashboard's origin: an HTML artifact cannot run there
        headers = {"Content-Disposition": f'attachment; filename="{entry["name"]}"', "Content-Security-Policy": "sandbox"}
        return Response(content, media_type="application/octet-stream", headers=headers)

    def hints(self, request: Request) -> Response:
        found = self.storage.get_hints(_ids(request)["study_id"])
        return _json({"hints": [views.hint_row(h) for h in found]})

    def notes(self, request: Request) -> Response:
        found = self.storage.get_notes(self.studies.record(_ids(request)["study_id"]).study_id)
        return _json({"notes": [payloads.note_json(n) for n in found]})

    def asked(self, request: Request) -> Response:
        record = self.studies.record(_ids(request)["study_id"])
        return _json({"asked": [] if self.writer is None else self.writer.asked(record)})

    def compare(self, request: Request) -> Response:
        chosen = []
        for study_id in payloads.study_ids(request.query_params.get("studies", "")):
            cache = self.studies.cache(study_id)
            chosen.append((cache.record.name, cache.record.direction, cache.trials()[1]))
        return _json(views.comparison(chosen))

    # ----------------------------------------------------------------- writes
    async def write(self, request: Request, action: Action) -> Response:
        """Run ``action`` for a POST: refused without writes or without access, and for a
        body over :data:`~.writes.MAX_BODY`; one write at a time, in the thread pool."""
        from starlette.concurrency import run_in_threadpool

        if self.writer is None or self.access is None:
            return _json({"error": READ_ONLY}, 403)
        refusal = self.access.refusal(request.headers)
        if refusal is not None:
            return _json({"error": refusal}, 403)
        raw = bytearray()
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                return _json({"error": f"a request body must be at most {MAX_BODY} bytes"}, 413)
        body, ids = parse_body(bytes(raw)), _ids(request)
        record = await run_in_threadpool(self.studies.record, ids["study_id"])
        return _json(await run_in_threadpool(self._locked, action, self.writer, record, body, ids))

    def _locked(self, action: Action, *args: Any) -> dict[str, Any]:
        with self._one_write:
            return action(*args)

    # ------------------------------------------------------------ the server
    async def error(self, request: Request, exc: Exception) -> Response:
        return _json({"error": str(exc)}, 404 if isinstance(exc, KeyError) else 400)

    async def secure(self, request: Request, call_next: Any) -> Response:
        access = self.access
        hosts = None if access is None else access.hosts  # None: served beyond the loopback, any Host
        if access is not None and hosts is not None and request.headers.get("host") not in hosts:  # DNS rebinding
            return _json({"error": access.refusal(request.headers)}, 403, headers={"Content-Security-Policy": POLICY})
        unread = None if self.reads is None else self.reads.refusal(request.url.path, request.headers, request.query_params)
        if unread is not None:
            return _json({"error": unread}, 401, headers={"Content-Security-Policy": POLICY})
        response: Response = await call_next(request)
        response.headers.setdefault("Content-Security-Policy", POLICY)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    def routes(self) -> list[Any]:
        """The routes of :data:`READS` and :data:`WRITES`, and the static files."""
        from starlette.routing import Mount, Route
        from starlette.staticfiles import StaticFiles

        reads = [Route(path, getattr(self, method)) for path, method in READS]
        writes = [Route(path, self._poster(action), methods=["POST"]) for path, action in WRITES]
        return [*reads, *writes, Mount("/static", StaticFiles(directory=STATIC), name="static")]

    def _poster(self, action: Action) -> Callable[[Request], Any]:
        async def endpoint(request: Request) -> Response:
            return await self.write(request, action)

        return endpoint

    def app(self) -> Any:
        """The Starlette application."""
        from starlette.applications import Starlette
        from starlette.middleware import Middleware
        from starlette.middleware.base import BaseHTTPMiddleware

        return Starlette(
            routes=self.routes(),
            middleware=[Middleware(BaseHTTPMiddleware, dispatch=self.secure)],
            exception_handlers={TreefarmError: self.error, WriteError: self.error},
        )


def _json(content: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    from starlette.responses import JSONResponse

    return JSONResponse(content, status, headers=headers)


def _computed(cache: StudyCache, kind: str, key: str, compute: Callable[[list[Any]], Any]) -> Response:
    """``compute``'s JSON for the study's current version, encoded once per version and key."""
    from starlette.responses import JSONResponse, Response

    body = cache.computed(kind, key, lambda ts: JSONResponse(compute(ts)).body)
    return Response(body, media_type="application/json")


STUDY = "/api/studies/{study_id:int}"
READS: tuple[tuple[str, str], ...] = (
    ("/", "index"),
    ("/api/config", "config"),
    ("/api/studies", "list_studies"),
    ("/api/compare", "compare"),
    (f"{STUDY}/version", "version"),
    (f"{STUDY}/trials", "trials"),
    (f"{STUDY}/trials/{{number:int}}", "trial"),
    (f"{STUDY}/trials/{{number:int}}/posterior", "posterior"),
    (f"{STUDY}/trials/{{number:int}}/artifacts/{{name}}", "artifact"),
    (f"{STUDY}/plots/{{kind}}", "plot"),
    (f"{STUDY}/hints", "hints"),
    (f"{STUDY}/notes", "notes"),
    (f"{STUDY}/asked", "asked"),
)
"""The GET routes: path -> the :class:`DashboardAPI` method that answers it."""
WRITES: tuple[tuple[str, Action], ...] = (
    (f"{STUDY}/hints", lambda w, r, b, i: w.hint(r, b)),
    (f"{STUDY}/hints/{{hint_id:int}}/remove", lambda w, r, b, i: w.remove_hint(r, i["hint_id"])),
    (f"{STUDY}/enqueue", lambda w, r, b, i: w.enqueue(r, b)),
    (f"{STUDY}/notes", lambda w, r, b, i: w.note(r, b)),
    (f"{STUDY}/trials/{{number:int}}/notes", lambda w, r, b, i: w.note(r, b, i["number"])),
    (f"{STUDY}/ask", lambda w, r, b, i: w.ask(r, b)),
    (f"{STUDY}/trials/{{number:int}}/tell", lambda w, r, b, i: w.tell(r, i["number"], b)),
)
"""The POST routes: path -> what the :class:`~.writes.Writer` does (see :meth:`DashboardAPI.write`)."""


def create_app(
    storage: Storage,
    *,
    writer: Writer | None = None,
    access: WriteAccess | None = None,
    artifacts: str | None = None,
    reads: ReadAccess | None = None,
) -> Any:
    """The Starlette application serving ``storage`` (see :class:`DashboardAPI`): read-only
    (open it with :func:`~.readonly.open_read_only`) unless given a ``writer`` and the
    ``access`` every write must show; with ``reads``, every API read shows a token (a
    dashboard serving beyond its machine)."""
    return DashboardAPI(storage, writer=writer, access=access, artifacts=artifacts, reads=reads).app()
