"""The bonuses page: states of each row, paying through Prolific (all or ticked), reconciling,
settling an unconfirmed payment with its evidence, and pay per hour on it and the overview."""

import pytest
from django.test import Client

from annotation.models import Annotation, Assignment
from recruiting.models import BonusPayment, PaymentState
from tests.factories import AssignmentFactory, ItemFactory, UserFactory
from tests.support.bonus_pay import prolific_ledger, states
from tests.support.fake_prolific_bonuses import paid_to

pytestmark = pytest.mark.django_db
State = PaymentState
PAY = r"bulk-bonus-payments/[^/]+/pay/"


def logged_in(role="admin"):
    c = Client()
    c.force_login(UserFactory(role=role))
    return c


def test_paying_the_ticked_then_all_owed(fake_prolific, django_capture_on_commit_callbacks):
    project, bonuses, pids = prolific_ledger(fake_prolific)
    c = logged_in()
    page = c.get(f"/projects/{project.slug}/bonuses/").content.decode()
    assert "Pay all 3 owed through Prolific" in page and page.count('name="bonus"') == 3
    with django_capture_on_commit_callbacks(execute=True):
        r = c.post(f"/projects/{project.slug}/bonuses/pay/", {"bonus": [bonuses[2].pk]}, follow=True)
    assert "Payment queued" in r.content.decode() and states(bonuses) == [State.OWED, State.OWED, State.PAID]
    with django_capture_on_commit_callbacks(execute=True):
        c.post(f"/projects/{project.slug}/bonuses/pay/", {"all": "1"})
    assert states(bonuses) == [State.PAID] * 3 and [paid_to(fake_prolific, p) for p in pids] == [[150], [25], [200]]
    page = c.get(f"/projects/{project.slug}/bonuses/?state=paid").content.decode()
    assert page.count('data-testid="state">Paid<') == 3 and 'name="bonus"' not in page


def test_another_projects_bonus_is_not_found_and_nothing_is_paid(fake_prolific):
    project, bonuses, _ = prolific_ledger(fake_prolific)
    _, theirs, _ = prolific_ledger(fake_prolific)
    c = logged_in()
    assert c.post(f"/projects/{project.slug}/bonuses/pay/", {"bonus": [bonuses[0].pk, theirs[0].pk]}).status_code == 404
    assert BonusPayment.objects.count() == 0 and fake_prolific.calls == []
    r = c.post(f"/projects/{project.slug}/bonuses/pay/", {}, follow=True)
    assert "tick the bonuses to pay" in r.content.decode()


def test_researchers_see_but_do_not_pay(fake_prolific):
    project, _, _ = prolific_ledger(fake_prolific)
    c = logged_in("researcher")
    page = c.get(f"/projects/{project.slug}/bonuses/")
    assert page.status_code == 200 and "Pay all" not in page.content.decode()
    assert c.post(f"/projects/{project.slug}/bonuses/pay/", {"all": "1"}).status_code == 403
    assert c.post(f"/projects/{project.slug}/bonuses/reconcile/").status_code == 403
    assert logged_in("annotator").get(f"/projects/{project.slug}/bonuses/").status_code == 403


def test_an_unconfirmed_payment_shows_its_evidence_and_is_settled_by_hand(fake_prolific,
                                                                          django_capture_on_commit_callbacks):
    project, bonuses, pids = prolific_ledger(fake_prolific, amounts=("1.00",))
    fake_prolific.failures[("POST", PAY)] = 500
    c = logged_in()
    with django_capture_on_commit_callbacks(execute=True):
        c.post(f"/projects/{project.slug}/bonuses/pay/", {"all": "1"})
    payment = BonusPayment.objects.get()
    page = c.get(f"/projects/{project.slug}/bonuses/").content.decode()
    assert "Unconfirmed" in page and pids[0] in page and "It was paid" in page and "answered 500" in page
    with django_capture_on_commit_callbacks(execute=True):
        c.post(f"/projects/{project.slug}/bonuses/reconcile/")
    assert fake_prolific.count("POST", PAY) == 1
    r = c.post(f"/projects/{project.slug}/bonuses/payments/{payment.pk}/confirm/", {"note": ""}, follow=True)
    assert "a note is required" in r.content.decode() and states(bonuses) == [State.UNCONFIRMED]
    c.post(f"/projects/{project.slug}/bonuses/payments/{payment.pk}/confirm/", {"note": "on Prolific's page"})
    assert states(bonuses) == [State.PAID]


def test_pay_per_hour_on_the_overview_warns_below_the_minimum(fake_prolific):
    project, _, _ = prolific_ledger(fake_prolific, amounts=())
    for seconds in (30, 60, 90):
        a = AssignmentFactory(item=ItemFactory(project=project), status=Assignment.Status.SUBMITTED)
        Annotation.objects.create(assignment=a, answer={"label": "a1"}, seconds=seconds)
    c = logged_in()
    r = c.post(f"/projects/{project.slug}/pay/", {"reward_per_item": "0.05", "currency": "GBP", "next": "overview"},
               follow=True)
    page = r.content.decode()
    assert r.redirect_chain[-1][0].endswith(f"/projects/{project.slug}/overview/")
    assert "3.00 GBP per hour" in page and "below Prolific&#x27;s minimum of 6.00 GBP" in page
    assert "at least 0.10 GBP" in page
    r = c.post(f"/projects/{project.slug}/pay/", {"reward_per_item": "x", "currency": "GBP"}, follow=True)
    assert "Not saved (reward per item)" in r.content.decode()
    assert logged_in("researcher").post(f"/projects/{project.slug}/pay/", {"reward_per_item": "1"}).status_code == 403
