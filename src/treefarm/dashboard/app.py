"""The dashboard's web application: a Starlette app over a read-only storage.

Routes (all GET; the app has no route that writes):

    /                                   the page (static/index.html)
    /static/...                         its script, styles and the vendored uPlot
    /api/studies                        every study with its summary
    /api/studies/{id}/version           a cheap change marker, polled by the page each second
    /api/studies/{id}/trials            one page: offset, limit, order_by, descending, state, value_min, value_max
    /api/studies/{id}/trials/{number}   one trial in full
    /api/studies/{id}/plots/{kind}      the data of a plot (param: its parameter or axis)

The table is paged, sorted and filtered by the storage (:meth:`Storage.trial_page`);
plots are computed from :class:`~treefarm.dashboard.cache.StudyCache` by the
same functions as the static figures (:mod:`treefarm.viz`). Endpoints are
plain functions, run by Starlette in its thread pool.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from ..exceptions import TreefarmError
from ..storage import Storage, StudyRecord
from . import payloads
from .cache import StudyCache, version_of

__all__ = ["STATIC", "create_app"]

STATIC = Path(__file__).resolve().parent / "static"
POLL_SECONDS = 1.0
"""How often the page asks whether a study changed (updates appear within about twice that)."""


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


def create_app(storage: Storage) -> Any:
    """The Starlette application serving ``storage`` (open it read-only: :func:`open_read_only`)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    studies = _Studies(storage)

    def index(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

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
                    "counts": s.counts,
                    "total": s.total,
                    "best": best,
                }
            )
        return JSONResponse({"studies": out, "poll_seconds": POLL_SECONDS})

    def version(request: Request) -> JSONResponse:
        study_id = int(request.path_params["study_id"])
        return JSONResponse({"version": list(version_of(storage, study_id))})

    def trials(request: Request) -> JSONResponse:
        study_id = int(request.path_params["study_id"])
        q = request.query_params
        state = q.get("state") or None
        total, page = storage.trial_page(
            study_id,
            offset=_int(q, "offset", 0),
            limit=_int(q, "limit", 50),
            order_by=q.get("order_by", "number"),
            descending=q.get("descending", "false") == "true",
            states=None if state is None else state.split(","),
            value_min=_float(q, "value_min"),
            value_max=_float(q, "value_max"),
        )
        return JSONResponse({"total": total, "rows": [payloads.trial_row(t) for t in page]})

    def trial(request: Request) -> JSONResponse:
        study_id, number = int(request.path_params["study_id"]), int(request.path_params["number"])
        return JSONResponse(payloads.trial_detail(storage.get_trial(study_id, number)))

    def plot(request: Request) -> Response:
        study_id, kind = int(request.path_params["study_id"]), request.path_params["kind"]
        if kind not in payloads.PLOTS:
            return JSONResponse(
                {"error": f"kind must be one of {list(payloads.PLOTS)}, but got kind={kind!r}"}, 404
            )
        cache = studies.cache(study_id)
        param = request.query_params.get("param", "")
        direction = cache.record.direction
        body = cache.computed(
            kind, param, lambda ts: JSONResponse(payloads.PLOTS[kind](ts, direction, param)).body
        )
        return Response(body, media_type="application/json")

    async def error(request: Request, exc: Exception) -> JSONResponse:
        status = 404 if isinstance(exc, KeyError) else 400
        return JSONResponse({"error": str(exc)}, status)

    routes = [
        Route("/", index),
        Route("/api/studies", list_studies),
        Route("/api/studies/{study_id:int}/version", version),
        Route("/api/studies/{study_id:int}/trials", trials),
        Route("/api/studies/{study_id:int}/trials/{number:int}", trial),
        Route("/api/studies/{study_id:int}/plots/{kind}", plot),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, exception_handlers={TreefarmError: error})
