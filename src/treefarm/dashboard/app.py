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
same functions as the static figures (:mod:`treefarm.viz`). Read endpoints are
plain functions, run by Starlette in its thread pool. Every response carries a
Content-Security-Policy that allows the page's own scripts only and no framing.
With writes on, a request whose ``Host`` is not the bound address is refused,
reads too (a rebound DNS name cannot read the studies through a person's browser).
"""

from __future__ import annotations

import getpass
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..exceptions import TreefarmError, format_values
from ..storage import Storage, StudyRecord
from ..study import artifacts as stored_artifacts
from . import payloads, views
from .cache import StudyCache, marker
from .security import ReadAccess, WriteAccess
from .writes import MAX_BODY, WriteError, Writer, parse_body

__all__ = ["STATIC", "create_app"]

STATIC = Path(__file__).resolve().parent / "static"
POLL_SECONDS = 1.0
"""How often the page asks whether a study changed (updates appear within about twice that)."""
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The page runs its own scripts only (no inline script, so injected markup cannot run) and is never framed."""
READ_ONLY = "the dashboard was started read-only: start it with --allow-writes to act from the page"


class _Studies:
    """The storage's studies by id, each with its cache (created on first use)."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._lock = threading.Lock()
        self._caches: dict[int, StudyCache] = {}

    def record(self, study_id: int) -> StudyRecord:
        for r in self.storage.list_studies():
            if r.study_id == study_id:
                return r
        from ..storage import NotFoundError

        raise NotFoundError(f"no study has study_id={study_id}")

    def cache(self, study_id: int) -> StudyCache:
        with self._lock:
            if study_id not in self._caches:
                self._caches[study_id] = StudyCache(self.storage, self.record(study_id))
            return self._caches[study_id]


def _int(params: Any, name: str, default: int) -> int:
    text = params.get(name)
    try:
        return default if text in (None, "") else int(text)
    except ValueError:
        raise TreefarmError(f"{name} must be an integer, but got {name}={text!r}") from None


def _float(params: Any, name: str) -> float | None:
    text = params.get(name)
    try:
        return None if text in (None, "") else float(text)
    except ValueError:
        raise TreefarmError(f"{name} must be a number, but got {name}={text!r}") from None


def _flag(params: Any, name: str) -> bool:
    text = params.get(name) or "false"
    if text not in ("true", "false"):
        raise TreefarmError(f"{name} must be true or false, but got {format_values(**{name: text[:100]})}")
    return text == "true"


def _ids(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part]
    except ValueError:
        raise TreefarmError(
            f"studies must be study ids separated by commas, but got studies={text[:100]!r}"
        ) from None


def create_app(
    storage: Storage,
    *,
    writer: Writer | None = None,
    access: WriteAccess | None = None,
    artifacts: str | None = None,
    reads: ReadAccess | None = None,
) -> Any:
    """The Starlette application serving ``storage``: read-only (open it with
    :func:`~.readonly.open_read_only`) unless given a ``writer`` and the ``access``
    every write must show; a trial's artifacts are served from the store at
    ``artifacts`` (listed only, without it); with ``reads``, every API read shows a
    token (a dashboard serving beyond its machine)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    if (writer is None) != (access is None):
        raise TreefarmError("writes need both a writer and the access rule, or neither")
    studies = _Studies(storage)
    one_write = threading.Lock()  # writes run one at a time: a Study object is not shared across threads

    def locked(action: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
        with one_write:
            return action(*args)

    def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    def config(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "writes": writer is not None,
                "author": getpass.getuser(),
                "poll_seconds": POLL_SECONDS,
                "read_token": None if reads is None else reads.tokens[0],  # for download links
            }
        )

    def list_studies(request: Request) -> JSONResponse:
        out = []
        for r in storage.list_studies():
            s = storage.trial_summary(r.study_id)
            best = s.min_value if r.direction == "minimize" else s.max_value
            out.append(
                {
                    "id": r.study_id,
                    "name": r.name,
                    "direction": r.direction,
                    "directions": list(r.directions),
                    "counts": s.counts,
                    "total": s.total,
                    "best": best,
                }
            )
        return JSONResponse({"studies": out, "poll_seconds": POLL_SECONDS})

    def version(request: Request) -> JSONResponse:
        record = studies.record(int(request.path_params["study_id"]))
        return JSONResponse({"version": marker(studies.cache(record.study_id), record)})

    def trials(request: Request) -> JSONResponse:
        study_id = int(request.path_params["study_id"])
        q = request.query_params
        state = q.get("state") or None
        total, page = storage.trial_page(
            study_id,
            offset=_int(q, "offset", 0),
            limit=_int(q, "limit", 50),
            order_by=q.get("order_by", "number"),
            descending=_flag(q, "descending"),
            states=None if state is None else state.split(","),
            value_min=_float(q, "value_min"),
            value_max=_float(q, "value_max"),
        )
        return JSONResponse({"total": total, "rows": [payloads.trial_row(t) for t in page]})

    def trial(request: Request) -> JSONResponse:
        study_id, number = int(request.path_params["study_id"]), int(request.path_params["number"])
        notes = [payloads.note_json(n) for n in storage.get_notes(study_id) if n.trial == number]
        return JSONResponse({**payloads.trial_detail(storage.get_trial(study_id, number)), "notes": notes})

    def posterior(request: Request) -> Response:
        study_id, number = int(request.path_params["study_id"]), int(request.path_params["number"])
        cache = studies.cache(study_id)
        direction = cache.record.direction
        body = cache.computed(
            "posterior",
            str(number),
            lambda ts: JSONResponse(views.trial_posterior(ts, direction, number)).body,
        )
        return Response(body, media_type="application/json")

    def plot(request: Request) -> Response:
        study_id, kind = int(request.path_params["study_id"]), request.path_params["kind"]
        param = request.query_params.get("param", "")
        if kind == "pareto":
            cache = studies.cache(study_id)
            directions = cache.record.directions
            body = cache.computed(kind, param, lambda ts: JSONResponse(views.pareto(ts, directions, param)).body)
            return Response(body, media_type="application/json")
        compute = {**payloads.PLOTS, "relationship": views.relationship}.get(kind)
        if compute is None:
            kinds = [*payloads.PLOTS, "relationship", "pareto"]
            return JSONResponse({"error": f"kind must be one of {kinds}, but got kind={kind[:100]!r}"}, 404)
        cache = studies.cache(study_id)
        direction = cache.record.direction
        if kind == "slices":
            data = cache.computed(kind, param, lambda ts: compute(ts, direction, param))
            return JSONResponse(views.hints_on_slices(data, storage.get_hints(study_id)))
        body = cache.computed(kind, param, lambda ts: JSONResponse(compute(ts, direction, param)).body)
        return Response(body, media_type="application/json")

    def artifact(request: Request) -> Response:
        study_id, number = int(request.path_params["study_id"]), int(request.path_params["number"])
        name = request.path_params["name"]
        entry = next((e for e in stored_artifacts.records(storage.get_trial(study_id, number).user_attrs) if e.get("name") == name), None)
        if entry is None or artifacts is None:
            why = "the dashboard was not given the artifact store" if entry is not None else "the trial lists no artifact of that name"
            return JSONResponse({"error": f"{why}, but got {format_values(number=number, name=name[:200])}"}, 404)
        content = stored_artifacts.load(artifacts, studies.record(study_id).name, number, entry)
        # an attachment, never shown in the dashboard's origin: an HTML artifact cannot run there
        headers = {"Content-Disposition": f'attachment; filename="{entry["name"]}"', "Content-Security-Policy": "sandbox"}
        return Response(content, media_type="application/octet-stream", headers=headers)

    def hints(request: Request) -> JSONResponse:
        study_id = int(request.path_params["study_id"])
        return JSONResponse({"hints": [views.hint_row(h) for h in storage.get_hints(study_id)]})

    def notes(request: Request) -> JSONResponse:
        found = storage.get_notes(studies.record(int(request.path_params["study_id"])).study_id)
        return JSONResponse({"notes": [payloads.note_json(n) for n in found]})

    def asked(request: Request) -> JSONResponse:
        record = studies.record(int(request.path_params["study_id"]))
        return JSONResponse({"asked": [] if writer is None else writer.asked(record)})

    def compare(request: Request) -> JSONResponse:
        chosen = []
        for study_id in _ids(request.query_params.get("studies", "")):
            cache = studies.cache(study_id)
            chosen.append((cache.record.name, cache.record.direction, cache.trials()[1]))
        return JSONResponse(views.comparison(chosen))

    def write(action: Callable[[Writer, StudyRecord, dict[str, Any], dict[str, int]], dict[str, Any]]) -> Any:
        async def endpoint(request: Request) -> JSONResponse:
            if writer is None or access is None:
                return JSONResponse({"error": READ_ONLY}, 403)
            refusal = access.refusal(request.headers)
            if refusal is not None:
                return JSONResponse({"error": refusal}, 403)
            raw = bytearray()
            async for chunk in request.stream():
                raw += chunk
                if len(raw) > MAX_BODY:
                    return JSONResponse({"error": f"a request body must be at most {MAX_BODY} bytes"}, 413)
            body = parse_body(bytes(raw))
            ids = {k: int(v) for k, v in request.path_params.items()}
            record = await run_in_threadpool(studies.record, ids["study_id"])
            return JSONResponse(await run_in_threadpool(locked, action, writer, record, body, ids))

        return endpoint

    async def error(request: Request, exc: Exception) -> JSONResponse:
        status = 404 if isinstance(exc, KeyError) else 400
        return JSONResponse({"error": str(exc)}, status)

    async def secure(request: Request, call_next: Any) -> Response:
        hosts = None if access is None else access.hosts
        if access is not None and hosts is not None and request.headers.get("host") not in hosts:  # DNS rebinding
            return JSONResponse({"error": access.refusal(request.headers)}, 403, headers={"Content-Security-Policy": POLICY})
        unread = None if reads is None else reads.refusal(request.url.path, request.headers, request.query_params)
        if unread is not None:
            return JSONResponse({"error": unread}, 401, headers={"Content-Security-Policy": POLICY})
        response: Response = await call_next(request)
        response.headers.setdefault("Content-Security-Policy", POLICY)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    base = "/api/studies/{study_id:int}"
    post = ["POST"]
    routes = [
        Route("/", index),
        Route("/api/config", config),
        Route("/api/studies", list_studies),
        Route("/api/compare", compare),
        Route(f"{base}/version", version),
        Route(f"{base}/trials", trials),
        Route(f"{base}/trials/{{number:int}}", trial),
        Route(f"{base}/trials/{{number:int}}/posterior", posterior),
        Route(f"{base}/trials/{{number:int}}/artifacts/{{name}}", artifact),
        Route(f"{base}/plots/{{kind}}", plot),
        Route(f"{base}/hints", hints),
        Route(f"{base}/notes", notes),
        Route(f"{base}/asked", asked),
        Route(f"{base}/hints", write(lambda w, r, b, i: w.hint(r, b)), methods=post),
        Route(
            f"{base}/hints/{{hint_id:int}}/remove",
            write(lambda w, r, b, i: w.remove_hint(r, i["hint_id"])),
            methods=post,
        ),
        Route(f"{base}/enqueue", write(lambda w, r, b, i: w.enqueue(r, b)), methods=post),
        Route(f"{base}/notes", write(lambda w, r, b, i: w.note(r, b)), methods=post),
        Route(
            f"{base}/trials/{{number:int}}/notes",
            write(lambda w, r, b, i: w.note(r, b, i["number"])),
            methods=post,
        ),
        Route(f"{base}/ask", write(lambda w, r, b, i: w.ask(r, b)), methods=post),
        Route(
            f"{base}/trials/{{number:int}}/tell",
            write(lambda w, r, b, i: w.tell(r, i["number"], b)),
            methods=post,
        ),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    from starlette.middleware.base import BaseHTTPMiddleware

    return Starlette(
        routes=routes,
        middleware=[Middleware(BaseHTTPMiddleware, dispatch=secure)],
        exception_handlers={TreefarmError: error, WriteError: error},
    )
