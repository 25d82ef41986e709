"""A local fake of Prolific's API for tests: never the real one.

A threaded HTTP server on 127.0.0.1 that keeps its state in memory (``FakeProlific``) and answers
the routes registered with ``@route`` by the modules named in ``ROUTE_MODULES`` (one per area of
the API: submissions, bonuses …). Every request is logged in ``calls`` (method, path, body), so a
test can count, say, how many times a bulk bonus was paid. It checks the ``Authorization: Token``
header against ``token`` and answers 401 otherwise, as the real API does.

Use the ``fake_prolific`` fixture (the root conftest.py): it starts a server, points
``PROLIFIC_API_URL`` and ``PROLIFIC_API_TOKEN`` at it and stops it after the test.
"""

from __future__ import annotations

import importlib
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

# Modules whose @route handlers make up the fake API; each is imported when a server starts.
ROUTE_MODULES: list[str] = ["tests.support.fake_prolific_submissions", "tests.support.fake_prolific_bonuses"]
PREFIX = "/api/v1/"

Handler = Callable[["FakeProlific", "FakeRequest"], tuple[int, Any]]
_ROUTES: list[tuple[str, re.Pattern[str], Handler]] = []


def route(method: str, pattern: str) -> Callable[[Handler], Handler]:
    """Register a handler for ``METHOD /api/v1/<pattern>`` (a regex with named groups)."""
    def register(handler: Handler) -> Handler:
        _ROUTES.append((method.upper(), re.compile(f"^{pattern}$"), handler))
        return handler
    return register


@dataclass
class FakeRequest:
    method: str
    path: str  # relative to /api/v1/, e.g. "studies/S1/submissions/"
    query: dict[str, list[str]]
    body: Any
    args: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeProlific:
    """What the fake marketplace knows; handlers read and change it under ``lock``."""

    token: str = "fake-token"
    studies: dict[str, dict[str, Any]] = field(default_factory=dict)
    submissions: dict[str, dict[str, Any]] = field(default_factory=dict)
    bulk_bonuses: dict[str, dict[str, Any]] = field(default_factory=dict)
    payments: list[dict[str, Any]] = field(default_factory=list)
    calls: list[tuple[str, str, Any]] = field(default_factory=list)
    # Set by a test to make the next matching call fail: {("POST", regex): status}.
    failures: dict[tuple[str, str], int] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)
    url: str = ""
    _counter: int = 0

    def new_id(self, prefix: str) -> str:
        with self.lock:
            self._counter += 1
            return f"{prefix}{self._counter:08x}"

    def count(self, method: str, pattern: str) -> int:
        rx = re.compile(f"^{pattern}$")
        return sum(1 for m, p, _ in self.calls if m == method.upper() and rx.match(p))


def _handler_class(state: FakeProlific) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _answer(self, status: int, payload: Any) -> None:
            raw = b"" if payload is None else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def _dispatch(self) -> None:
            parts = urlsplit(self.path)
            if not parts.path.startswith(PREFIX):
                return self._answer(404, {"error": "not found"})
            if self.headers.get("Authorization") != f"Token {state.token}":
                return self._answer(401, {"error": {"title": "Unauthorised"}})
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            path = parts.path[len(PREFIX):]
            method = self.command
            with state.lock:
                state.calls.append((method, path, body))
                for (fail_method, fail_path), status in list(state.failures.items()):
                    if fail_method == method and re.match(f"^{fail_path}$", path):
                        del state.failures[(fail_method, fail_path)]
                        return self._answer(status, {"error": "injected failure"})
                for route_method, pattern, handler in _ROUTES:
                    match = pattern.match(path)
                    if route_method == method and match:
                        request = FakeRequest(method, path, parse_qs(parts.query), body, match.groupdict())
                        status, payload = handler(state, request)
                        return self._answer(status, payload)
            return self._answer(404, {"error": f"no fake route for {method} {path}"})

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _dispatch

    return Handler


class FakeProlificServer:
    def __init__(self, state: FakeProlific | None = None) -> None:
        for name in ROUTE_MODULES:
            importlib.import_module(name)
        self.state = state or FakeProlific()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_class(self.state))
        self.state.url = f"http://127.0.0.1:{self.httpd.server_address[1]}{PREFIX}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeProlific:
        self.thread.start()
        return self.state

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
