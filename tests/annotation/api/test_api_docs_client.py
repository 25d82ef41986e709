"""The scripted annotator of docs/api.md works as printed: run against a live server, it gets a
token and answers every item of a project of each task type with one ``submit?next=1`` per item,
taking a qualification round (failed, retried, passed) where the project has one; against a
server that is briefly away or throttling, it waits as ``Retry-After`` says and retries, and on
a dropped connection it retries after a pause."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from annotation.models import Annotation, ItemKind
from annotation.task_types import get_task_type, task_types
from quality.models import TrainingRound
from tests.annotation.api.test_schema_conformance import _project
from tests.factories import UserFactory
from tests.quality_factories import check_item, quality_policy

DOC = Path(__file__).resolve().parents[3] / "docs" / "api.md"


def client_code() -> str:
    section = DOC.read_text(encoding="utf-8").split("## A scripted annotator", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    return blocks[0]


def load_client(base: str, project: str = "") -> dict:
    namespace: dict = {"__name__": "docs_client"}
    exec(compile(client_code(), str(DOC), "exec"), namespace)  # noqa: S102 - the manual's own example
    namespace.update(BASE=base, PROJECT=project)
    return namespace


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("slug", [t.slug for t in task_types()])
def test_the_scripted_annotator_answers_every_item(slug, live_server):
    project, _ = _project(slug, redundancy=1, records=1)
    user = UserFactory(username=f"scripted-{slug}")
    user.set_password("pw-for-tests")
    user.save()
    project.members.add(user)
    client = load_client(live_server.url, project.slug)
    example = get_task_type(slug).example()
    client["answer_for"] = lambda assignment: example.answer
    answered, reason = client["annotate"](user.username, "pw-for-tests")
    assert (answered, reason) == (1, "done")
    assert Annotation.objects.filter(assignment__worker=user, assignment__project=project).count() == 1


class _Flaky(BaseHTTPRequestHandler):
    """Answers 503, then 429, then 200, each away answer with Retry-After: 0."""

    answers = [(503, {"detail": "away", "retry_after": 0}), (429, {"detail": "slow down"}), (200, {"ok": True})]
    seen: list[str] = []

    def do_POST(self) -> None:  # noqa: N802 - the handler's name
        self.seen.append(self.headers.get("Authorization", ""))
        status, body = self.answers[min(len(self.seen), len(self.answers)) - 1]
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if status != 200:
            self.send_header("Retry-After", "0")
        self.end_headers()
        self.wfile.write(json.dumps(body).encode())

    def log_message(self, *args) -> None:
        pass


def test_the_client_waits_and_retries_on_503_and_429():
    server = HTTPServer(("127.0.0.1", 0), _Flaky)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        _Flaky.seen = []
        client = load_client(f"http://127.0.0.1:{server.server_port}")
        waits: list[float] = []
        client["time"] = type("Clock", (), {"sleep": staticmethod(waits.append)})
        assert client["call"]("POST", "/api/x/", {"a": 1}, token="k") == (200, {"ok": True})
        assert waits == [0, 0] and _Flaky.seen == ["Token k"] * 3
    finally:
        server.shutdown()


@pytest.mark.django_db(transaction=True)
def test_the_scripted_annotator_fails_the_qualification_retries_and_passes(live_server):
    """Two training items a round, all right to pass, two attempts: the first round is answered
    wrong, the client starts another, answers it right and goes on to the real item."""
    example = get_task_type("pairwise").example()
    project, _ = _project("pairwise", redundancy=1, records=1)
    for n in range(4):
        check_item(project, kind=ItemKind.TRAINING, external_id=f"training-{n}")
    quality_policy(project, qualification_items=2, qualification_pass=1.0, qualification_attempts=2)
    user = UserFactory(username="scripted-qualifier")
    user.set_password("pw-for-tests")
    user.save()
    project.members.add(user)
    client = load_client(live_server.url, project.slug)
    right = example.answer
    wrong = {**right, "label": next(label for label in ("a1", "a2", "equal") if label != right["label"])}
    given: list[int] = []

    def answer_for(assignment):
        given.append(assignment["id"])
        return wrong if len(given) <= 2 else right

    client["answer_for"] = answer_for
    answered, reason = client["annotate"](user.username, "pw-for-tests")
    assert (answered, reason) == (5, "done")
    rounds = list(TrainingRound.objects.filter(project=project, worker=user).order_by("number")
                  .values_list("number", "answered", "right"))
    assert rounds == [(1, 2, 0), (2, 2, 2)]
    assert Annotation.objects.filter(assignment__worker=user, assignment__item__kind=ItemKind.REAL).count() == 1


class _Dropping(BaseHTTPRequestHandler):
    """Drops the first connection without an answer, then answers 200."""

    seen: list[str] = []

    def do_POST(self) -> None:  # noqa: N802 - the handler's name
        self.seen.append(self.path)
        if len(self.seen) == 1:
            self.close_connection = True
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"ok": true}')

    def log_message(self, *args) -> None:
        pass


def test_the_client_retries_after_a_dropped_connection():
    server = HTTPServer(("127.0.0.1", 0), _Dropping)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        _Dropping.seen = []
        client = load_client(f"http://127.0.0.1:{server.server_port}")
        waits: list[float] = []
        client["time"] = type("Clock", (), {"sleep": staticmethod(waits.append)})
        assert client["call"]("POST", "/api/assignments/1/submit/", {"label": "a1"}, token="k") == (200, {"ok": True})
        assert waits == [1] and _Dropping.seen == ["/api/assignments/1/submit/"] * 2
    finally:
        server.shutdown()


def test_the_client_gives_up_on_a_server_that_is_not_there():
    client = load_client("http://127.0.0.1:9")  # the discard port: nothing listens
    waits: list[float] = []
    client["time"] = type("Clock", (), {"sleep": staticmethod(waits.append)})
    with pytest.raises(OSError):
        client["call"]("POST", "/api/token/", {"username": "u", "password": "p"})
    assert waits == [1, 2, 4, 8]
