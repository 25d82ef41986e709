"""Prolific's webhook: a signed delivery frees a returning participant's slot at once; a replayed,
forged, stale or garbled delivery changes nothing and never answers 500."""

import json
import time

import pytest
from rest_framework.test import APIClient

from annotation.models import Assignment
from annotation.services import assignment_next
from recruiting.models import ProlificSubmission, ProlificWebhookEvent
from recruiting.services.prolific.sync import prolific_submissions_sync
from recruiting.services.prolific.webhook import webhook_signature
from tests.recruiting.prolific_helpers import arrive, linked_project

pytestmark = pytest.mark.django_db
URL = "/api/prolific/webhook/"
SECRET = "whsec-for-tests"


@pytest.fixture
def secret(settings):
    settings.PROLIFIC_WEBHOOK_SECRET = SECRET
    return SECRET


def deliver(body: dict | bytes, *, stamp: int | None = None, key: str = SECRET, event_id: str | None = "ev-1",
            signature: str | None = None):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    ts = str(stamp if stamp is not None else int(time.time()))
    headers = {"HTTP_X_PROLIFIC_REQUEST_TIMESTAMP": ts,
               "HTTP_X_PROLIFIC_REQUEST_SIGNATURE": signature or webhook_signature(secret=key, timestamp=ts, body=raw)}
    if event_id:
        headers["HTTP_X_EVENT_ID"] = event_id
    return APIClient().post(URL, data=raw, content_type="application/json", **headers)


def returning(fake, project, pid="pid-1"):
    sid, worker = arrive(fake, project, pid)
    prolific_submissions_sync(study=project.prolific_study)
    open_one = assignment_next(project=project, worker=worker).assignment
    return sid, worker, open_one


def event(sid, status="RETURNED"):
    return {"event_type": "submission.status.change", "resource_id": sid, "status": status}


def test_a_signed_return_frees_the_slot_at_once(fake_prolific, secret):
    project = linked_project(items=1)
    sid, worker, open_one = returning(fake_prolific, project)
    answer = deliver(event(sid))
    assert answer.status_code == 200, answer.content
    open_one.refresh_from_db()
    assert open_one.status == Assignment.Status.RETURNED and open_one.item.__class__.objects.get().n_active == 0
    assert ProlificSubmission.objects.get(submission_id=sid).status == "RETURNED"
    assert assignment_next(project=project, worker=worker).reason == "left_study"


def test_a_replayed_delivery_changes_nothing(fake_prolific, secret):
    project = linked_project(items=2)
    sid, worker, _ = returning(fake_prolific, project)
    assert deliver(event(sid)).status_code == 200
    record = ProlificSubmission.objects.get(submission_id=sid)
    again = deliver(event(sid, status="AWAITING REVIEW"), event_id="ev-1")
    assert again.status_code == 200 and "received before" in again.json()["detail"]
    assert ProlificSubmission.objects.get(submission_id=sid).seen_at == record.seen_at
    assert ProlificWebhookEvent.objects.count() == 1


@pytest.mark.parametrize("how", ["wrong key", "tampered body", "no signature"])
def test_a_forged_delivery_is_refused(fake_prolific, secret, how):
    project = linked_project(items=1)
    sid, _, open_one = returning(fake_prolific, project)
    if how == "wrong key":
        answer = deliver(event(sid), key="someone-else")
    elif how == "tampered body":
        ts = str(int(time.time()))
        good = webhook_signature(secret=SECRET, timestamp=ts, body=json.dumps(event(sid, "APPROVED")).encode())
        answer = deliver(event(sid), stamp=int(ts), signature=good)
    else:
        answer = APIClient().post(URL, data=event(sid), format="json")
    assert answer.status_code == 403
    open_one.refresh_from_db()
    assert open_one.status == Assignment.Status.ASSIGNED and not ProlificWebhookEvent.objects.exists()


def test_a_stale_timestamp_is_refused(fake_prolific, secret):
    project = linked_project(items=1)
    sid, _, open_one = returning(fake_prolific, project)
    answer = deliver(event(sid), stamp=int(time.time()) - 3600)
    assert answer.status_code == 403 and "stale" in answer.json()["detail"]
    open_one.refresh_from_db()
    assert open_one.status == Assignment.Status.ASSIGNED


def test_without_a_secret_every_delivery_is_refused(fake_prolific, settings):
    settings.PROLIFIC_WEBHOOK_SECRET = ""
    answer = deliver(event("x"))
    assert answer.status_code == 403 and "not configured" in answer.json()["detail"]


@pytest.mark.parametrize("body", [b"", b"not json", b"[1, 2]", b"\xff\xfe", b'{"event_type": 5}',
                                  b'{"event_type": "submission.status.change", "resource_id": "nope"}'])
def test_garbage_never_answers_500(secret, body):
    signed = deliver(body, event_id=None)
    assert signed.status_code in (200, 400)
    unsigned = APIClient().post(URL, data=body, content_type="application/json",
                                HTTP_X_PROLIFIC_REQUEST_TIMESTAMP="zz", HTTP_X_PROLIFIC_REQUEST_SIGNATURE="zz")
    assert unsigned.status_code == 403
    assert not ProlificSubmission.objects.exists()


# "now" is read when the test runs: collection must give the same ids in every process (pytest -n).
@pytest.mark.parametrize(("stamp", "signature"), [("²", "x"), ("999999999999", "x"), ("1", "ü-not-ascii"),
                                                   ("now", "ü-not-ascii")])
def test_odd_headers_are_refused_not_a_500(secret, stamp, signature):
    stamp = str(int(time.time())) if stamp == "now" else stamp
    answer = APIClient().post(URL, data=b"{}", content_type="application/json",
                              HTTP_X_PROLIFIC_REQUEST_TIMESTAMP=stamp, HTTP_X_PROLIFIC_REQUEST_SIGNATURE=signature)
    assert answer.status_code == 403


def test_only_the_raw_bytes_are_signed_and_a_forged_body_is_never_read(fake_prolific, secret, monkeypatch):
    """Prolific signs the bytes it sends (its example's json.dumps gives them back): a body sent
    in another form than the one signed is refused, and no form of a forged body is parsed."""
    from recruiting.services.prolific import webhook as prolific_webhook

    project = linked_project(items=1)
    sid, _, open_one = returning(fake_prolific, project)
    document = event(sid)
    ts = str(int(time.time()))
    signed_form = webhook_signature(secret=SECRET, timestamp=ts, body=json.dumps(document).encode())

    def unread(*args, **kwargs):
        raise AssertionError("a forged body was parsed")

    monkeypatch.setattr(prolific_webhook, "json_document", unread)
    compact = json.dumps(document, separators=(",", ":")).encode()
    assert deliver(compact, stamp=int(ts), signature=signed_form).status_code == 403
    assert deliver(document, key="someone-else").status_code == 403
    monkeypatch.undo()
    open_one.refresh_from_db()
    assert open_one.status == Assignment.Status.ASSIGNED and not ProlificWebhookEvent.objects.exists()
    # Sent as Prolific sends it, the same document is applied.
    assert deliver(document, stamp=int(ts), signature=signed_form).status_code == 200


def _rates(settings, **rates):
    rest = settings.REST_FRAMEWORK
    settings.REST_FRAMEWORK = {**rest, "DEFAULT_THROTTLE_RATES": {**rest["DEFAULT_THROTTLE_RATES"], **rates}}


def test_forged_deliveries_cannot_use_up_the_limit_of_signed_ones(fake_prolific, secret, settings):
    _rates(settings, anon="5/min", signed_delivery="3/min")
    project = linked_project(items=3)
    sids = [returning(fake_prolific, project, pid=f"pid-{i}")[0] for i in range(3)]
    forged = [deliver(event(sids[0]), key="someone-else", event_id=f"f-{i}").status_code for i in range(12)]
    assert forged[:5] == [403] * 5 and set(forged[5:]) == {429}
    # From the same address, signed deliveries are counted apart: all three are applied ...
    signed = [deliver(event(sid), event_id=f"s-{i}") for i, sid in enumerate(sids)]
    assert [a.status_code for a in signed] == [200, 200, 200], [a.content for a in signed]
    assert ProlificSubmission.objects.filter(status="RETURNED").count() == 3
    # ... up to their own limit.
    over = deliver(event(sids[0]), event_id="s-3")
    assert over.status_code == 429 and int(over["Retry-After"]) >= 1
