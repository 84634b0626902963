"""The viewer's web server: the pages, the fixed JSON API and the pages' own API.

Routes name runs by id, never by path; an unknown id answers 404. Agent and judge text
reaches the page only as JSON, which the page's script puts into text nodes. The page
allows no network but this server (Content-Security-Policy), and answers only its own
addresses; a label is written only from a JSON request whose Origin, when sent, is one
of them (evalkit.view.guard).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.middleware import Middleware
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from evalkit.foundation.redaction import mask_secrets
from evalkit.results.media_folder import shown_as
from evalkit.view import coverage
from evalkit.view.data import ViewData
from evalkit.view.guard import Addresses, ViewerGuard
from evalkit.view.page import render_page

_JSON = "application/json"


def create_app(data: ViewData, addresses: Addresses | None = None) -> Starlette:
    """The app; `addresses`: the names and port it answers to (evalkit.view.guard), None for any Host."""
    async def page(request: Request) -> Response:
        return HTMLResponse(render_page(static=False), headers=_SECURITY)

    def runs(request: Request) -> Response:
        return _json(data.runs())

    def run(request: Request) -> Response:
        found = data.find(request.path_params["run_id"])
        if found is None:
            return _missing("no such run")
        if hasattr(found, "document"):
            return _json(found.document())
        return FileResponse(found.path, media_type=_JSON, headers=_SECURITY)

    def cases(request: Request) -> Response:
        page = data.cases(request.path_params["run_id"], dict(request.query_params))
        return _missing("no such run") if page is None else _json(page)

    def case(request: Request) -> Response:
        found = data.case(request.path_params["run_id"], request.path_params["index"])
        return _missing("no such case") if found is None else _json(found)

    def locate(request: Request) -> Response:
        params = request.query_params
        index = data.locate(request.path_params["run_id"], params.get("eval_set_id", ""), params.get("eval_id", ""))
        return _missing("no such case") if index is None else _json({"index": index})

    def history(request: Request) -> Response:
        eval_set_id, eval_id = _case_ids(request)
        found = data.history(eval_set_id, eval_id)
        return _missing("no run of the history has this case") if found is None else _json(found)

    def run_coverage(request: Request) -> Response:
        found = data.find(request.path_params["run_id"])
        return _missing("no such run") if found is None else _json(coverage.run_coverage(found))

    def history_coverage(request: Request) -> Response:
        last = request.query_params.get("last", "")
        return _json(coverage.history_coverage(data.index.runs(), int(last) if last.isdigit() else coverage.HISTORY_RUNS))

    def compare(request: Request) -> Response:
        found = data.compare(request.query_params.get("base", ""), request.query_params.get("new", ""))
        return _missing("no such run (compare takes two finished runs)") if found is None else _json(found)

    async def label(request: Request) -> Response:
        if request.headers.get("content-type", "").split(";")[0].strip() != _JSON:
            return _json({"error": "send the label as application/json"}, 415)
        try:
            saved = data.save_label(await request.json())
        except PermissionError as error:
            return _json({"error": str(error)}, 409)
        except ValueError as error:
            return _json({"error": f"not a label: {error}"}, 400)
        return _json({"label": saved})

    def media(request: Request) -> Response:
        # Served only as a type the page may show (results/media_folder.py), whatever the file declared; any
        # medium also as a download (`?download`): bytes to save, never something the browser opens itself.
        if "download" in request.query_params:
            found = data.medium(request.path_params["sha256"])
            if found is None:
                return _missing("no such media (runs keep them in .evalkit/media)")
            return Response(found, media_type="application/octet-stream",
                            headers={**_SECURITY, "Content-Disposition": "attachment"})
        shown = shown_as(request.query_params.get("type"))
        found = None if shown is None else data.medium(request.path_params["sha256"])
        if found is None or shown is None:
            return _missing("no such media (runs keep them in .evalkit/media), or not a type the viewer shows")
        return Response(found, media_type=shown[1], headers=_SECURITY)

    static = StaticFiles(directory=str(resources.files("evalkit.view") / "static"))
    routes = [
        Route("/", page),
        Route("/api/runs", runs),
        Route("/api/runs/{run_id}", run),
        Route("/api/runs/{run_id}/cases", cases),
        Route("/api/runs/{run_id}/cases/{index:int}", case),
        Route("/api/runs/{run_id}/locate", locate),
        Route("/api/runs/{run_id}/coverage", run_coverage),
        Route("/api/coverage", history_coverage),
        Route("/api/compare", compare),
        Route("/api/cases/{ids:path}/history", history),
        Route("/api/labels", label, methods=["POST"]),
        Route("/api/media/{sha256}", media),
        Mount("/static", static),
    ]
    return Starlette(routes=routes, exception_handlers={404: _not_found},
                     middleware=[Middleware(ViewerGuard, addresses=addresses)])


_SECURITY = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}


def _json(body: Any, status: int = 200) -> Response:
    """A JSON answer, its secrets masked as in every file (evalkit.foundation.redaction): history files
    written before the masking may hold them."""
    text = json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return Response(mask_secrets(text), status_code=status, headers=_SECURITY, media_type=_JSON)


def _case_ids(request: Request) -> tuple[str, str]:
    """The eval set id and the case id of `/api/cases/SET/CASE/history`, each percent-decoded on its own:
    the routed path is decoded whole first, and a set id with a `/` (sent as `%2F`) would lose its place."""
    raw = request.scope.get("raw_path") or request.url.path.encode("utf-8")
    inner = raw.decode("latin-1").split("/api/cases/", 1)[-1].removesuffix("/history")
    eval_set_id, _, eval_id = inner.partition("/")
    return unquote(eval_set_id), unquote(eval_id)


def _missing(what: str) -> Response:
    return _json({"error": what}, 404)


async def _not_found(request: Request, exc: Exception) -> Response:
    return _missing("not found")
