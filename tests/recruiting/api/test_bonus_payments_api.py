"""The API of paying bonuses through Prolific and of pay per hour: staff only, another
project's ids 404 and change nothing, bad input names its field."""

import pytest
from rest_framework.test import APIClient

from annotation.models import AuditEntry
from recruiting.models import Bonus, BonusPayment, PaymentState, ProjectPay
from tests.factories import UserFactory
from tests.support.bonus_pay import prolific_ledger, states
from tests.support.fake_prolific_bonuses import paid_to

pytestmark = pytest.mark.django_db
State = PaymentState
PAY = r"bulk-bonus-payments/[^/]+/pay/"


def client(role="admin"):
    c = APIClient()
    c.force_authenticate(UserFactory(role=role))
    return c


@pytest.fixture
def run_jobs(django_capture_on_commit_callbacks):
    return lambda: django_capture_on_commit_callbacks(execute=True)


def test_paying_selected_bonuses_and_reading_their_states(fake_prolific, run_jobs):
    project, bonuses, pids = prolific_ledger(fake_prolific)
    api = client()
    with run_jobs():
        r = api.post(f"/api/projects/{project.slug}/bonus-payments/pay/", {"bonuses": [bonuses[0].pk]}, format="json")
    assert r.status_code == 202, r.content
    assert r.json()["job"]["kind"] == "pay"
    r = api.get(f"/api/projects/{project.slug}/bonus-payments/")
    body = r.json()
    assert [b["state"] for b in body["bonuses"]] == ["paid", "owed", "owed"]
    assert body["payments"][0]["state"] == "paid" and body["payments"][0]["bulk_id"]
    assert body["jobs"][0]["status"] == "done"
    assert [b["id"] for b in api.get(f"/api/projects/{project.slug}/bonus-payments/?state=owed").json()["bonuses"]] \
        == [bonuses[1].pk, bonuses[2].pk]
    with run_jobs():
        r = api.post(f"/api/projects/{project.slug}/bonus-payments/pay/", {"all": True}, format="json")
    assert r.status_code == 202 and states(bonuses) == [State.PAID] * 3
    assert [paid_to(fake_prolific, p) for p in pids] == [[150], [25], [200]]


def test_another_projects_ids_are_not_found_and_change_nothing(fake_prolific):
    project, bonuses, _ = prolific_ledger(fake_prolific)
    other, theirs, _ = prolific_ledger(fake_prolific)
    api = client()
    r = api.post(f"/api/projects/{project.slug}/bonus-payments/pay/", {"bonuses": [bonuses[0].pk, theirs[0].pk]},
                 format="json")
    assert r.status_code == 404 and r.json() == {"detail": "Not found."}
    payment = BonusPayment.objects.create(project=other, study_id="s", currency="GBP", state=State.FAILED)
    r = api.post(f"/api/projects/{project.slug}/bonus-payments/{payment.pk}/release/", {"note": "x"}, format="json")
    assert r.status_code == 404
    assert api.post("/api/projects/nope/bonus-payments/reconcile/").status_code == 404
    assert BonusPayment.objects.count() == 1 and not AuditEntry.objects.filter(action__startswith="bonus:").exists()
    assert fake_prolific.calls == [] and set(states(bonuses + theirs)) == {State.OWED}


def test_permissions_and_bad_input(fake_prolific):
    project, bonuses, _ = prolific_ledger(fake_prolific)
    url = f"/api/projects/{project.slug}/bonus-payments/pay/"
    assert client("researcher").post(url, {"all": True}, format="json").status_code == 403
    assert client("annotator").get(f"/api/projects/{project.slug}/bonus-payments/").status_code == 403
    assert APIClient().post(url, {"all": True}, format="json").status_code in (401, 403)
    api = client()
    assert api.post(url, {}, format="json").json() == {"bonuses": ["Name the bonuses to pay, or send all: true."]}
    assert "bonuses" in api.post(url, {"bonuses": ["x"]}, format="json").json()
    assert api.post(url, "[1]", content_type="application/json").status_code == 400
    project.prolific_study.delete()
    r = api.post(url, {"all": True}, format="json")
    assert r.status_code == 400 and "not linked to a Prolific study" in r.json()["project"][0]
    assert Bonus.objects.exclude(payment=None).count() == 0


def test_settling_an_unconfirmed_payment(fake_prolific, run_jobs):
    project, bonuses, pids = prolific_ledger(fake_prolific, amounts=("1.00",))
    fake_prolific.failures[("POST", PAY)] = 500
    api = client()
    with run_jobs():
        api.post(f"/api/projects/{project.slug}/bonus-payments/pay/", {"all": True}, format="json")
    payment = BonusPayment.objects.get()
    assert payment.state == State.UNCONFIRMED
    url = f"/api/projects/{project.slug}/bonus-payments/{payment.pk}/"
    assert api.post(url + "confirm/", {}, format="json").json().keys() == {"note"}
    with run_jobs():
        r = api.post(f"/api/projects/{project.slug}/bonus-payments/reconcile/")
    assert r.status_code == 202 and fake_prolific.count("POST", PAY) == 1
    r = api.post(url + "release/", {"note": "nothing on Prolific"}, format="json")
    assert r.status_code == 200 and r.json()["bonuses"] == 1 and states(bonuses) == [State.OWED]
    r = api.post(url + "confirm/", {"note": "x"}, format="json")
    assert r.status_code == 400 and "only unconfirmed" in r.json()["payment"][0]


def test_pay_rate(fake_prolific):
    project, _, _ = prolific_ledger(fake_prolific, amounts=())
    ProjectPay.objects.filter(project=project).delete()
    api = client()
    url = f"/api/projects/{project.slug}/pay-rate/"
    assert api.get(url).json()["reward_per_item"] is None
    assert client("researcher").put(url, {"reward_per_item": "0.10", "currency": "GBP"}, format="json").status_code == 403
    assert api.put(url, {"reward_per_item": "-1", "currency": "GBP"}, format="json").json().keys() == {"reward_per_item"}
    assert api.put(url, {"reward_per_item": "0.10", "currency": "G1"}, format="json").json().keys() == {"currency"}
    r = api.put(url, {"reward_per_item": "0.10", "currency": "gbp"}, format="json")
    assert r.status_code == 200 and r.json()["reward_per_item"] == "0.10" and r.json()["currency"] == "GBP"
    assert r.json()["minimum_hourly"] == "6.00" and r.json()["hourly"] is None
    assert client("researcher").get(url).json()["currency"] == "GBP"
    assert api.get("/api/projects/nope/pay-rate/").status_code == 404
