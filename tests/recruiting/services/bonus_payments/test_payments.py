"""Paying the ledger through (the fake) Prolific: one set-up and one pay call per bulk payment,
amounts as Prolific takes them, refusals with the marketplace's message, and no second pay call
whatever fails."""

from decimal import Decimal

import pytest

from annotation.models import AuditEntry
from recruiting.models import Bonus, BonusPayJob, BonusPayment, PaymentState, ProjectPay
from recruiting.services.bonus_payments.payments import (
    PaymentRefused,
    bonus_payment_confirm,
    bonus_payment_release,
    bonuses_pay,
    bonuses_reconcile,
)
from recruiting.services.bonuses import bonus_grant, bonus_remove, bonuses_mark_paid
from tests.factories import UserFactory
from tests.support.bonus_pay import prolific_ledger, states
from tests.support.fake_prolific_bonuses import paid_to

pytestmark = pytest.mark.django_db
State = PaymentState
PAY = r"bulk-bonus-payments/[^/]+/pay/"
SETUP = r"submissions/bonus-payments/"
_capture = None


@pytest.fixture(autouse=True)
def jobs_run_on_commit(django_capture_on_commit_callbacks):
    """The job a payment queues runs when its transaction commits (eager Celery, in-process)."""
    global _capture
    _capture = django_capture_on_commit_callbacks
    yield


def pay(**kwargs):
    with _capture(execute=True):
        return bonuses_pay(**kwargs)


def reconcile(**kwargs):
    with _capture(execute=True):
        return bonuses_reconcile(**kwargs)


def test_paying_owed_bonuses_makes_one_bulk_payment_and_pays_it_once(fake_prolific):
    project, bonuses, pids = prolific_ledger(fake_prolific)
    job = pay(project=project, bonuses=None, actor=UserFactory(role="admin"))
    job.refresh_from_db()
    assert job.status == "done", job.error
    payment = BonusPayment.objects.get()
    assert payment.state == State.PAID and payment.bulk_id in fake_prolific.bulk_bonuses
    # The amounts go as decimals in the study's currency, one line per participant.
    setup = [b for m, p, b in fake_prolific.calls if m == "POST" and p == SETUP][0]
    assert setup == {"study_id": project.prolific_study.study_id,
                     "csv_bonuses": f"{pids[0]},1.50\n{pids[1]},0.25\n{pids[2]},2.00\n"}
    assert fake_prolific.count("POST", PAY) == 1
    assert [paid_to(fake_prolific, p) for p in pids] == [[150], [25], [200]]
    assert states(bonuses) == [State.PAID] * 3
    assert all(b.paid_note.endswith(payment.bulk_id) for b in Bonus.objects.all())
    actions = list(AuditEntry.objects.filter(action__startswith="bonus:").order_by("pk").values_list("action", flat=True))
    assert actions == ["bonus:pay", "bonus:batched", "bonus:paying", "bonus:paid"]
    # Nothing is owed any more: paying again is refused and calls nobody.
    with pytest.raises(PaymentRefused, match="No owed bonus"):
        pay(project=project, bonuses=None, actor=None)
    assert fake_prolific.count("POST", PAY) == 1


def test_a_participants_bonuses_add_up_to_one_line(fake_prolific):
    project, bonuses, pids = prolific_ledger(fake_prolific, amounts=("1.10",))
    bonus_grant(project=project, worker=bonuses[0].worker, amount="0.40", reason="more", currency="GBP")
    pay(project=project, bonuses=None, actor=None)
    assert paid_to(fake_prolific, pids[0]) == [150]
    assert Bonus.objects.filter(payment_state=State.PAID).count() == 2


def test_selected_bonuses_only(fake_prolific):
    project, bonuses, pids = prolific_ledger(fake_prolific)
    pay(project=project, bonuses=[bonuses[1]], actor=None)
    assert states(bonuses) == [State.OWED, State.PAID, State.OWED]
    assert [paid_to(fake_prolific, p) for p in pids] == [[], [25], []]
    with pytest.raises(PaymentRefused, match=f"not: {bonuses[1].pk}"):
        pay(project=project, bonuses=bonuses[:2], actor=None)
    assert BonusPayment.objects.count() == 1


def test_refusals_write_nothing(fake_prolific):
    project, bonuses, _ = prolific_ledger(fake_prolific, amounts=("1.00",))
    outsider = UserFactory()
    bonus_grant(project=project, worker=outsider, amount="1.00", reason="x", currency="GBP")
    with pytest.raises(PaymentRefused, match=outsider.username):
        pay(project=project, bonuses=None, actor=None)
    usd, _, _ = prolific_ledger(fake_prolific, amounts=("1.00",), currency="USD")
    ProjectPay.objects.filter(project=usd).update(currency="GBP")
    with pytest.raises(PaymentRefused, match="study pays in GBP"):
        pay(project=usd, bonuses=None, actor=None)
    ProjectPay.objects.filter(project=usd).delete()
    with pytest.raises(PaymentRefused, match="reward per item and its currency"):
        pay(project=usd, bonuses=None, actor=None)
    project.prolific_study.delete()
    project.refresh_from_db()
    with pytest.raises(PaymentRefused, match="not linked to a Prolific study") as refused:
        pay(project=project, bonuses=None, actor=None)
    assert refused.value.field == "project"
    assert BonusPayment.objects.count() == 0 and BonusPayJob.objects.count() == 0 and fake_prolific.calls == []


def test_a_4xx_on_set_up_fails_with_the_marketplaces_message_and_pays_nothing(fake_prolific):
    project, bonuses, _ = prolific_ledger(fake_prolific, amounts=("1.00",))
    fake_prolific.submissions.clear()  # the participant never took part: Prolific answers 400
    pay(project=project, bonuses=None, actor=None)
    payment = BonusPayment.objects.get()
    assert payment.state == State.FAILED and "400" in payment.error and "Invalid participant" in payment.error
    assert states(bonuses) == [State.FAILED] and fake_prolific.count("POST", PAY) == 0


def test_a_4xx_on_pay_fails_and_the_rows_can_be_paid_again(fake_prolific):
    project, bonuses, pids = prolific_ledger(fake_prolific, amounts=("1.00", "2.00"))
    fake_prolific.failures[("POST", PAY)] = 400
    pay(project=project, bonuses=None, actor=None)
    first = BonusPayment.objects.get()
    assert first.state == State.FAILED and "answered 400" in first.error and "injected failure" in first.error
    assert states(bonuses) == [State.FAILED] * 2 and paid_to(fake_prolific, pids[0]) == []
    pay(project=project, bonuses=None, actor=None)
    assert states(bonuses) == [State.PAID] * 2
    assert [paid_to(fake_prolific, p) for p in pids] == [[100], [200]]
    assert BonusPayment.objects.filter(state=State.PAID).exclude(pk=first.pk).count() == 1


def test_a_500_on_pay_is_never_sent_again_and_waits_for_a_person(fake_prolific):
    project, bonuses, pids = prolific_ledger(fake_prolific, amounts=("1.00",))
    fake_prolific.failures[("POST", PAY)] = 500
    job = pay(project=project, bonuses=None, actor=None)
    payment = BonusPayment.objects.get()
    assert payment.state == State.UNCONFIRMED and states(bonuses) == [State.UNCONFIRMED]
    assert payment.evidence["participants"][0] == {"participant": pids[0], "expected_cents": 100, "shown_cents": [],
                                                   "explained_by_other_payments": [], "found": False}
    job.refresh_from_db()
    assert job.status == "done" and job.attempts == 1
    # Reconciling reads back again, and never pays.
    reconcile(project=project, actor=None)
    assert fake_prolific.count("POST", PAY) == 1 and BonusPayment.objects.get().state == State.UNCONFIRMED
    # Neither removed nor marked paid by the old tools while unconfirmed is pending a decision …
    with pytest.raises(PaymentRefused, match="note is required"):
        bonus_payment_release(payment=payment, actor=None, note=" ")
    # … a person who checked Prolific releases it, and it is paid in a new bulk payment.
    assert bonus_payment_release(payment=payment, actor=None, note="no bonus on Prolific's submission page") == 1
    assert states(bonuses) == [State.OWED]
    pay(project=project, bonuses=None, actor=None)
    assert paid_to(fake_prolific, pids[0]) == [100] and states(bonuses) == [State.PAID]
    assert fake_prolific.count("POST", PAY) == 2 and len(fake_prolific.bulk_bonuses) == 2
    # The injected 500 answered before the fake paid: the first bulk payment was never paid.
    assert sorted(b["pay_calls"] for b in fake_prolific.bulk_bonuses.values()) == [0, 1]


def test_a_lost_answer_after_paying_is_confirmed_by_reading_back(fake_prolific):
    project, bonuses, pids = prolific_ledger(fake_prolific, amounts=("0.75", "0.75"))

    def setup_then_fail(state, request):  # the pay call goes through, its answer is lost
        for bulk in state.bulk_bonuses.values():
            bulk["answer_after_pay"] = 502
    from tests.support import fake_prolific_bonuses as routes

    original = routes.setup_bonus_payments

    def setup(state, request):
        status, body = original(state, request)
        setup_then_fail(state, request)
        return status, body
    import tests.support.fake_prolific as fake_module
    fake_module._ROUTES[:] = [(m, p, setup if h is original else h) for m, p, h in fake_module._ROUTES]
    try:
        pay(project=project, bonuses=None, actor=None)
    finally:
        fake_module._ROUTES[:] = [(m, p, original if h is setup else h) for m, p, h in fake_module._ROUTES]
    payment = BonusPayment.objects.get()
    assert payment.state == State.PAID and states(bonuses) == [State.PAID] * 2
    assert "answered 502" in payment.error and all(p["found"] for p in payment.evidence["participants"])
    assert fake_prolific.count("POST", PAY) == 1 and [paid_to(fake_prolific, p) for p in pids] == [[75], [75]]


def test_confirming_by_hand_and_the_old_tools_respect_payments_in_flight(fake_prolific):
    project, bonuses, _ = prolific_ledger(fake_prolific, amounts=("1.00",))
    fake_prolific.failures[("POST", PAY)] = 503
    pay(project=project, bonuses=None, actor=None)
    payment = BonusPayment.objects.get()
    with pytest.raises(ValueError, match="unconfirmed through the marketplace"):
        bonus_remove(bonus=bonuses[0], actor=None)
    with pytest.raises(PaymentRefused, match="only unconfirmed"):
        bonus_payment_confirm(payment=BonusPayment.objects.create(project=project, study_id="s", currency="GBP"),
                              actor=None, note="x")
    assert bonus_payment_confirm(payment=payment, actor=None, note="seen on Prolific") == 1
    row = Bonus.objects.get(pk=bonuses[0].pk)
    assert row.payment_state == State.PAID and row.paid_at is not None and "seen on Prolific" in row.paid_note
    assert AuditEntry.objects.filter(action="bonus:confirm", details__note="seen on Prolific").exists()
    assert bonuses_mark_paid(bonuses=[row]) == 0


def test_marking_paid_by_hand_sets_the_state(fake_prolific):
    project, bonuses, _ = prolific_ledger(fake_prolific, amounts=("1.00", "2.00"))
    assert bonuses_mark_paid(bonuses=bonuses[:1], note="paid on the site") == 1
    assert states(bonuses) == [State.PAID, State.OWED]
    pay(project=project, bonuses=None, actor=None)
    assert fake_prolific.bulk_bonuses[BonusPayment.objects.get().bulk_id]["amount"] == 200
    assert Decimal("2.00") == Bonus.objects.get(pk=bonuses[1].pk).amount
