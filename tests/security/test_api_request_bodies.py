"""No request body makes the server answer 500: every route of the URLconf (the task types'
mounted ones included) gets a 5,000-deep JSON document, a huge flat one and deep JSON in form
fields, as an annotator and as staff. A body that reaches the JSON parser is refused with a 400."""

from __future__ import annotations

import json
import time

import pytest
from django.test import Client
from rest_framework.parsers import JSONParser

from annotation.api.parsers import SafeJSONParser
from annotation.services import annotation_submit, assignment_next
from recruiting.models import ProlificSubmission, ProlificWebhookEvent
from recruiting.services.prolific.webhook import webhook_signature
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.support.url_routes import Route, routes

pytestmark = pytest.mark.django_db

ROUTES = list(routes())
BODY_METHODS = ("post", "put", "patch")
DEPTH = 5000
DEEP_ARRAY = "[" * DEPTH + "]" * DEPTH
DEEP_OBJECT = '{"label":' * DEPTH + "1" + "}" * DEPTH
# Under the (lowered) size limit: every one of its keys is checked; over it: refused unread.
LIMIT = 1024 * 1024
FLAT_OBJECT = json.dumps({f"field{i}": i for i in range(40_000)})
FLAT_ARRAY = json.dumps([0] * (LIMIT // 2 + 1))
# Form fields a view may decode as JSON (the answer fields of the types, and the API's own).
FORM_FIELDS = ("label", "answer", "choice", "choices", "reason", "standpoint", "key", "play", "problem", "version",
               "predictions", "options", "gold", "note", "why", "matches", "scores", "transcript", "signals")


def test_every_api_view_parses_json_with_the_safe_parser():
    checked = 0
    for route in ROUTES:
        if not route.is_drf:
            continue
        checked += 1
        for parser in route.view_class.parser_classes:
            if issubclass(parser, JSONParser):
                assert issubclass(parser, SafeJSONParser), f"{route.route}: {parser.__name__} is not SafeJSONParser"
    assert checked >= 40, "the walk found the API"


def _methods(route: Route) -> list[str]:
    if route.is_drf:
        return [m for m in BODY_METHODS if hasattr(route.view_class, m)]
    return ["post", "put"]


@pytest.fixture
def world(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = LIMIT
    project = ProjectFactory(redundancy=1)
    items = [ItemFactory(project=project) for _ in range(3)]
    worker = UserFactory()
    done = assignment_next(project=project, worker=worker).assignment
    annotation_submit(assignment=done, worker=worker, data=answer(), client={})
    assignment_next(project=project, worker=worker)
    return {"project": project, "item": items[0], "worker": worker, "assignment": done,
            "staff": UserFactory(role="admin")}


def _values(world) -> dict:
    a = world["assignment"]
    return {"slug": world["project"].slug, "pk": a.pk, "assignment_id": a.pk, "item_id": world["item"].pk,
            "worker_id": world["worker"].pk, "run_id": 1, "rule_id": 1, "ref": "x", "key": "x.mp3",
            "kind": "agreement", "fmt": "csv", "name": "x", "action": "block", "token": "x", "uidb64": "x",
            "submission_id": "x", "task_type": "pairwise"}


@pytest.fixture
def parsed(monkeypatch):
    """How many bodies the safe parser was given (a 400 is then due)."""
    calls = []
    original = SafeJSONParser.parse

    def parse(self, stream, media_type=None, parser_context=None):
        calls.append(1)
        return original(self, stream, media_type, parser_context)

    monkeypatch.setattr(SafeJSONParser, "parse", parse)
    return calls


@pytest.mark.parametrize("route", [r for r in ROUTES if _methods(r)], ids=lambda r: r.route)
@pytest.mark.parametrize("who", ["worker", "staff"])
def test_no_body_gives_a_500(route, who, world, parsed):
    url = route.url(_values(world))
    sent = []
    for method in _methods(route):
        for body in (DEEP_ARRAY, DEEP_OBJECT, FLAT_OBJECT, FLAT_ARRAY):
            client = Client(raise_request_exception=False)
            client.force_login(world[who])
            before = len(parsed)
            response = getattr(client, method)(url, body, content_type="application/json")
            assert response.status_code < 500, f"{method.upper()} {url}: {response.status_code}"
            if len(parsed) > before and body is not FLAT_OBJECT:
                assert response.status_code == 400, f"{method.upper()} {url}: {response.status_code}"
            sent.append(response.status_code)
        client = Client(raise_request_exception=False)
        client.force_login(world[who])
        form = {name: DEEP_ARRAY for name in FORM_FIELDS}
        response = (client.post(url, form) if method == "post" else
                    getattr(client, method)(url, "&".join(f"{n}={DEEP_ARRAY}" for n in FORM_FIELDS),
                                            content_type="application/x-www-form-urlencoded"))
        assert response.status_code < 500, f"{method.upper()} {url} (form): {response.status_code}"
    assert sent


def test_the_answer_endpoints_refuse_deep_and_oversized_bodies_with_a_400(world, settings):
    """The two endpoints that answered 500 before: changing an answer, and a key-point
    evaluation (staff)."""
    client = Client(raise_request_exception=False)
    client.force_login(world["worker"])
    url = f"/api/assignments/{world['assignment'].pk}/annotation/"
    for body in (DEEP_ARRAY, DEEP_OBJECT):
        response = client.put(url, body, content_type="application/json")
        assert response.status_code == 400 and "nested" in response.json()["detail"]
    # Over the size limit: Django refuses the body before any parser reads it, and the API
    # says so in JSON like its other errors.
    too_big = client.put(url, FLAT_ARRAY, content_type="application/json")
    assert too_big.status_code == 400 and "too large" in too_big.json()["detail"]
    client.force_login(world["staff"])
    kp = ProjectFactory(task_type="key_points")
    for body in (DEEP_ARRAY, DEEP_OBJECT):
        response = client.post(f"/api/projects/{kp.slug}/key-points/evaluations/", body,
                               content_type="application/json")
        assert response.status_code == 400


@pytest.mark.parametrize("slug", [t.slug for t in __import__("annotation.task_types", fromlist=["task_types"]).task_types()])
def test_deep_json_text_in_an_imported_field_is_a_row_error(slug, world):
    """A type decodes some imported fields from JSON text (a CSV cell holds a list): text
    nested thousands deep is refused with the row and field, like any bad JSON (a plain text
    field may take it as text)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from annotation.task_types import get_task_type

    task = get_task_type(slug)
    project = ProjectFactory(task_type=slug, options=task.clean_options(task.example().options))
    client = Client(raise_request_exception=False)
    client.force_login(world["staff"])
    refused = 0
    for n, field in enumerate(task.import_fields):
        record = {**task.example().records[0], field.name: DEEP_ARRAY}
        if field.name != "id" and "id" in record:
            record["id"] = f"deep{n}"
        upload = SimpleUploadedFile("items.json", json.dumps([record]).encode())
        response = client.post(f"/api/projects/{project.slug}/items/import/", {"file": upload})
        assert response.status_code in (200, 201, 400), (field.name, response.status_code)
        refused += response.status_code == 400
    assert refused, "at least the id field refuses it"


WEBHOOK = "/api/prolific/webhook/"


def _deliver(body: bytes, signature: str):
    """A delivery to Prolific's webhook, anonymous as Prolific's are, with a current timestamp."""
    stamp = str(int(time.time()))
    return Client(raise_request_exception=False).post(
        WEBHOOK, body, content_type="application/json", HTTP_X_PROLIFIC_REQUEST_TIMESTAMP=stamp,
        HTTP_X_PROLIFIC_REQUEST_SIGNATURE=signature(stamp) if callable(signature) else signature)


@pytest.mark.parametrize("body", [DEEP_ARRAY, DEEP_OBJECT, '{"event_type": "x", "deep": ' + "[" * 40 + "]" * 40 + "}",
                                  '{"event_type": "submission.status.change", "resource_id": "a\\u0000b"}'],
                         ids=["deep array", "deep object", "40 deep field", "NUL"])
def test_the_webhook_checks_the_signature_before_it_reads_the_body(settings, body):
    """With a secret set, the webhook reads the raw bytes itself (to check their signature): an
    unsigned body that Python cannot parse is refused as unsigned (403), a signed one as
    unreadable (400), and neither is a 500 or stores anything."""
    settings.PROLIFIC_WEBHOOK_SECRET = secret = "whsec-bodies"
    raw = body.encode()
    unsigned = _deliver(raw, "c2lnbmF0dXJl")
    assert unsigned.status_code == 403 and "signature" in unsigned.json()["detail"]
    signed = _deliver(raw, lambda stamp: webhook_signature(secret=secret, timestamp=stamp, body=raw))
    assert signed.status_code == 400, signed.content
    assert "cannot be read" in signed.json()["detail"]
    assert not ProlificWebhookEvent.objects.exists() and not ProlificSubmission.objects.exists()
