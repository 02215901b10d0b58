"""The workbench's HTTP API (JSON, lengths in mm): a thin layer over a `session.Session`, answering the same
documents as the CLI's `--json`.

Every change takes an optional `If-Match: <version>` header (a stale one answers 409). A refused request answers
400, 404, 409, 413, 415 or 422 with `{"error": ..., "problems": [{"where": ..., "message": ...}]}` and changes
nothing; no error reaches the client, or the terminal, as a traceback. A body larger than `guard.MAX_BODY` (413) or
not JSON (415) is refused before it is read (`guard.RequestLimits`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from fastapi import APIRouter, Body, FastAPI, Header, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from lofkit.errors import LofkitError, Problem
from lofkit.rules.aro import parse_path
from lofkit.workbench.guard import RequestLimits
from lofkit.workbench.session import Refused, Session


def _version(if_match: str | None) -> int | None:
    if if_match is None:
        return None
    try:
        return int(if_match.strip().strip('"'))
    except ValueError:
        raise Refused(400, f"If-Match {if_match!r}: give the scene's version, a whole number") from None


def router(session: Session, folder: Path, rulings: Path) -> APIRouter:
    """The API's routes over `session`; scenes are saved in `folder`, ruling pages written in `rulings`."""
    api = APIRouter(prefix="/api")

    @api.get("/scene")
    def scene() -> dict:
        return session.document()

    @api.put("/troopers/{trooper_id}")
    def change_trooper(trooper_id: str, changes: dict = Body(...), if_match: str | None = Header(None)) -> dict:
        return session.change_trooper(trooper_id, changes, _version(if_match))

    @api.post("/troopers", status_code=201)
    def add_trooper(fields: dict = Body(...), if_match: str | None = Header(None)) -> dict:
        return session.add_trooper(fields, _version(if_match))

    @api.delete("/troopers/{trooper_id}")
    def remove_trooper(trooper_id: str, if_match: str | None = Header(None)) -> dict:
        return {"version": session.remove_trooper(trooper_id, _version(if_match))}

    @api.post("/terrain", status_code=201)
    def add_terrain(fields: dict = Body(...), if_match: str | None = Header(None)) -> dict:
        return session.add_terrain(fields, _version(if_match))

    @api.put("/terrain/{piece_id}")
    def change_terrain(piece_id: str, changes: dict = Body(...), if_match: str | None = Header(None)) -> dict:
        return session.change_terrain(piece_id, changes, _version(if_match))

    @api.delete("/terrain/{piece_id}")
    def remove_terrain(piece_id: str, if_match: str | None = Header(None)) -> dict:
        return {"version": session.remove_terrain(piece_id, _version(if_match))}

    @api.get("/check")
    def check(shooter: str, target: str) -> dict:
        return session.check(shooter, target)

    @api.get("/matrix")
    def matrix(recompute: str | None = None) -> dict:
        if recompute not in (None, "all"):
            raise Refused(400, f"recompute={recompute!r}: the only choice is recompute=all")
        return session.matrix(recompute_all=recompute == "all")

    @api.get("/aro")
    def aro(trooper: str, path: str | None = None) -> dict:
        try:
            points = parse_path(path) if path else None
        except LofkitError as exc:
            raise Refused(400, str(exc)) from None
        return session.aro(trooper, points)

    @api.post("/undo")
    def undo() -> dict:
        return {"version": session.undo()}

    @api.post("/redo")
    def redo() -> dict:
        return {"version": session.redo()}

    @api.get("/picture.png")
    def picture(view: str = "top", shooter: str | None = None, target: str | None = None) -> Response:
        return Response(session.picture(view, shooter, target), media_type="image/png")

    @api.post("/report")
    def report(shooter: str, target: str) -> dict:
        index = session.report(shooter, target, Path(tempfile.mkdtemp(dir=rulings)))
        return {"url": f"/rulings/{index.relative_to(rulings).as_posix()}"}

    @api.post("/save")
    def save(request: dict = Body(...)) -> dict:
        name, force = request.get("path"), request.get("force", False)
        if not isinstance(name, str) or not isinstance(force, bool):
            raise Refused(400, 'give {"path": "name.yaml", "force": false}')
        return {"path": str(session.save(folder, name, force))}

    return api


def app(session: Session, folder: Path) -> FastAPI:
    """A FastAPI application serving the API over `session` (see `install`)."""
    application = FastAPI()
    install(application, session, folder)
    return application


def install(application: FastAPI, session: Session, folder: Path) -> None:
    """Serve the API over `session` on `application` (scenes saved in `folder`), the ruling pages it writes (in a
    folder of its own, removed at exit) under `/rulings`, the error answers and the limits on requests."""
    application.state.rulings = tempfile.TemporaryDirectory(prefix="lofkit-rulings-")
    rulings = Path(application.state.rulings.name)
    application.include_router(router(session, folder, rulings))
    application.mount("/rulings", StaticFiles(directory=rulings), name="rulings")
    add_error_answers(application)
    application.add_middleware(RequestLimits)


def add_error_answers(application: FastAPI) -> None:
    """Refusals and malformed requests answer `{"error", "problems"}`; nothing else escapes as a traceback."""

    @application.exception_handler(Refused)
    async def refused(_: Request, exc: Refused) -> JSONResponse:
        return JSONResponse(exc.to_dict(), status_code=exc.status)

    @application.exception_handler(RequestValidationError)
    async def malformed(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [Problem(".".join(str(part) for part in error.get("loc", ())), error.get("msg", ""))
                    for error in exc.errors()]
        return await refused(request, Refused(400, "malformed request", problems))

    @application.exception_handler(Exception)
    async def unexpected(_: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"error": f"the workbench could not answer: {type(exc).__name__}", "problems": []},
                            status_code=500)
