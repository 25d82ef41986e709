"""Answers of the marketplace's API are read as carefully as requests to this server: a body that is
not JSON, or one nested past Python's parser, is the transport's MarketplaceError (which jobs and
pages report), never a RecursionError that would end a sync job in a traceback."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from recruiting.providers.prolific.http import MarketplaceError, prolific_call

DEEP = b"[" * 5000 + b"]" * 5000
ANSWERS = {  # path: (status, body)
    "deep/": (200, DEEP),
    "garbage/": (200, b"<html>not json</html>"),
    "deep-error/": (500, DEEP),
}


class Answers(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        status, body = ANSWERS[self.path.strip("/") + "/"]
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        """Quiet: the test reads the answers, not the server's log."""


@pytest.fixture
def marketplace(settings):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Answers)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.PROLIFIC_API_URL = f"http://127.0.0.1:{server.server_address[1]}/"
    settings.PROLIFIC_API_TOKEN = "token-for-the-test"
    yield
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("path", ["deep/", "garbage/"])
def test_an_answer_that_does_not_read_as_json_is_a_marketplace_error(marketplace, path):
    with pytest.raises(MarketplaceError) as raised:
        prolific_call(method="GET", path=path)
    assert raised.value.status == 200 and "not JSON" in str(raised.value)
    assert "token-for-the-test" not in str(raised.value)


def test_an_error_answer_nested_too_deeply_keeps_its_status_and_a_short_detail(marketplace):
    with pytest.raises(MarketplaceError) as raised:
        prolific_call(method="GET", path="deep-error/")
    assert raised.value.status == 500
    assert isinstance(raised.value.detail, str) and len(raised.value.detail) <= 500
