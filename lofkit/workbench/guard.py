"""What stands between the network and the workbench: two pure ASGI middlewares.

`RequestLimits` (always): "uploads limited in size and type" and "no traceback to the browser or the terminal" — a
body larger than MAX_BODY answers 413 and a body sent to `/api` that is not JSON answers 415, both before anything
reads it; an unexpected error answers 500 `{"error", "problems"}` and prints one line, not a traceback.

`ShareToken` (`lofkit serve --share`): "every request needs the random token printed in that URL (`?token=...`, or
the cookie the first page sets); without it: 403" — pages, `/api`, assets, socket.io and websockets alike.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import traceback
from urllib.parse import parse_qs

from starlette.requests import cookie_parser

MAX_BODY = 1024 * 1024
"""The largest request body the workbench reads (1 MiB: a scene change is a few hundred bytes); larger answers 413."""
TOKEN_COOKIE = "lofkit_token"
"""The cookie that carries `--share`'s token once a page was opened with `?token=...`."""
JSON_TYPES = ("application/json",)
"""The media types an `/api` request body may have; any other answers 415."""


async def answer(send, status: int, error: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    """Send an HTTP answer `{"error": error, "problems": []}` with `status`."""
    body = json.dumps({"error": error, "problems": []}).encode()
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *(headers or [])]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body})


def header(scope: dict, name: bytes) -> str | None:
    """A request header's value (several of the same name joined by "; ", as cookies are), or None."""
    values = [value.decode("latin-1") for key, value in scope.get("headers", []) if key.lower() == name]
    return "; ".join(values) if values else None


class RequestLimits:
    """Bodies of at most MAX_BODY bytes (checked from Content-Length, then while reading, before the application
    parses anything), JSON bodies only under `/api`, and unexpected errors as a 500 answer without a traceback."""

    def __init__(self, app, max_body: int = MAX_BODY):
        self.app, self.max_body = app, max_body

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self._declared_too_large(scope):
            await self._refuse_size(send)
            return
        messages = await self._read_body(receive)
        if messages is None:
            await self._refuse_size(send)
            return
        if scope["path"].startswith("/api/") and _has_body(messages) and not _is_json(scope):
            await answer(send, 415, "a request body to the workbench's API must be JSON (Content-Type: "
                                    "application/json)")
            return
        await self._answer_without_traceback(scope, _replay(messages, receive), send)

    def _declared_too_large(self, scope: dict) -> bool:
        length = header(scope, b"content-length")
        return length is not None and length.strip().isdigit() and int(length) > self.max_body

    async def _read_body(self, receive) -> list[dict] | None:
        """The request's messages up to the end of its body; None as soon as the body is larger than allowed."""
        messages, size = [], 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                return messages  # the client went away
            size += len(message.get("body", b""))
            if size > self.max_body:
                return None
            if not message.get("more_body", False):
                return messages

    async def _refuse_size(self, send) -> None:
        await answer(send, 413, f"the request's body is larger than the workbench reads ({self.max_body} bytes)")

    async def _answer_without_traceback(self, scope, receive, send) -> None:
        started = False

        async def watched(message: dict) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:  # noqa: BLE001 - "no traceback to the browser or the terminal"
            report_unexpected(scope, exc)
            if not started:
                await answer(send, 500, f"the workbench could not answer: {type(exc).__name__}")


def report_unexpected(scope: dict, exc: Exception) -> None:
    """One line on stderr for an error the workbench did not expect (the traceback with LOFKIT_DEBUG=1, as the CLI)."""
    if os.environ.get("LOFKIT_DEBUG"):
        traceback.print_exception(exc)
    print(f"internal error in lofkit answering {scope.get('method', '')} {scope['path']}: {type(exc).__name__}; "
          "run again with LOFKIT_DEBUG=1 for the traceback", file=sys.stderr, flush=True)


def _has_body(messages: list[dict]) -> bool:
    return any(message.get("body") for message in messages)


def _is_json(scope: dict) -> bool:
    media_type = (header(scope, b"content-type") or "").partition(";")[0].strip().lower()
    return media_type in JSON_TYPES


def _replay(messages: list[dict], receive):
    """A `receive` that gives the messages already read, then whatever the client sends next (a disconnect)."""
    pending = list(messages)

    async def replayed() -> dict:
        return pending.pop(0) if pending else await receive()

    return replayed


class ShareToken:
    """`--share`: every request, of any kind, carries `token` in its query (`?token=...`) or in the TOKEN_COOKIE
    cookie, or answers 403; an HTTP answer to a request with the token in its query sets that cookie (HttpOnly,
    SameSite=Strict), so that the page's own later requests pass. Tokens are compared in constant time."""

    def __init__(self, app, token: str):
        self.app, self.token = app, token.encode()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        in_query = self._matches(_query_token(scope))
        if not (in_query or self._matches(cookie_parser(header(scope, b"cookie") or "").get(TOKEN_COOKIE))):
            await self._refuse(scope, send)
            return
        await self.app(scope, receive, self._setting_cookie(send) if in_query and scope["type"] == "http" else send)

    def _matches(self, given: str | None) -> bool:
        return given is not None and secrets.compare_digest(given.encode(), self.token)

    def _setting_cookie(self, send):
        cookie = f"{TOKEN_COOKIE}={self.token.decode()}; HttpOnly; SameSite=Strict; Path=/".encode()

        async def with_cookie(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)

        return with_cookie

    @staticmethod
    async def _refuse(scope: dict, send) -> None:
        if scope["type"] == "websocket":  # closed before it is accepted: the server answers the handshake 403
            await send({"type": "websocket.close", "code": 1008})
            return
        await answer(send, 403, "this workbench is shared with a token: open the link `lofkit serve --share` "
                                "printed (with its ?token=...)")


def _query_token(scope: dict) -> str | None:
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
    return values[0] if values else None
