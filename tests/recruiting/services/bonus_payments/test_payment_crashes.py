"""A process paying bonuses is killed (SIGKILL) between the steps; what it left is settled by
reconciliation, or by the job's next attempt, with exactly one pay call per bulk payment and
every participant paid once, or, where the pay call may have gone out, left for a person."""

import subprocess
import sys
import time

import pytest
from django.test import override_settings

from recruiting.models import BonusPayJob, BonusPayment, PaymentState
from recruiting.services.bonus_payments.payments import (
    bonus_pay_job_execute,
    bonuses_pay,
    bonuses_reconcile,
)
from tests.support.bonus_pay import prolific_ledger, states
from tests.support.fake_prolific_bonuses import paid_to
from tests.support.runtime import ROOT
from tests.support.waiting import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
State = PaymentState
PAY = r"bulk-bonus-payments/[^/]+/pay/"
BEATS = {"JOB_HEARTBEAT_SECONDS": "0.2", "JOB_DEAD_SECONDS": "1"}


def killed_at(where, worker_processes, fake, job):
    env = {**worker_processes.env, **BEATS, "PROLIFIC_API_URL": fake.url, "PROLIFIC_API_TOKEN": fake.token}
    done = subprocess.run([sys.executable, "-m", "tests.support.bonus_pay_crash", str(job.pk), where], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == -9, done.stderr[-2000:]
    time.sleep(1.5)  # its heartbeat goes stale: the job's worker is dead


def settle(how, project, pay_job):
    if how == "reconcile":
        job = bonuses_reconcile(project=project, actor=None, send=lambda pk: None)
        bonus_pay_job_execute(job_id=job.pk)
    else:  # the job's next attempt, as the scheduler sends a job whose worker died
        bonus_pay_job_execute(job_id=pay_job.pk)


@override_settings(JOB_HEARTBEAT_SECONDS=0.2, JOB_DEAD_SECONDS=1)
@pytest.mark.parametrize("how", ["reconcile", "next attempt"])
@pytest.mark.parametrize("where", ["after_batch", "after_pay"])
def test_a_killed_payment_is_settled_with_one_pay_call(where, how, worker_processes, fake_prolific):
    project, bonuses, pids = prolific_ledger(fake_prolific)
    job = bonuses_pay(project=project, bonuses=None, actor=None, send=lambda pk: None)
    killed_at(where, worker_processes, fake_prolific, job)
    left = BonusPayment.objects.get()
    assert left.state == (State.BATCHED if where == "after_batch" else State.PAYING) and left.bulk_id
    assert states(bonuses) == [left.state] * 3
    assert fake_prolific.count("POST", PAY) == (0 if where == "after_batch" else 1)

    settle(how, project, job)
    payment = BonusPayment.objects.get()
    assert payment.state == State.PAID and states(bonuses) == [State.PAID] * 3
    assert fake_prolific.count("POST", PAY) == 1
    assert fake_prolific.bulk_bonuses[payment.bulk_id]["pay_calls"] == 1
    assert [paid_to(fake_prolific, p) for p in pids] == [[150], [25], [200]]
    # Settling again changes nothing and calls no pay.
    settle("reconcile", project, job)
    assert fake_prolific.count("POST", PAY) == 1 and BonusPayment.objects.get().state == State.PAID


@override_settings(JOB_HEARTBEAT_SECONDS=0.2, JOB_DEAD_SECONDS=1)
def test_killed_after_paying_was_committed_but_before_the_call_waits_for_a_person(worker_processes, fake_prolific):
    project, bonuses, pids = prolific_ledger(fake_prolific, amounts=("1.00",))
    job = bonuses_pay(project=project, bonuses=None, actor=None, send=lambda pk: None)
    killed_at("before_pay", worker_processes, fake_prolific, job)
    settle("reconcile", project, job)
    payment = BonusPayment.objects.get()
    # Prolific shows nothing paid, but the call might have gone: never sent again automatically.
    assert payment.state == State.UNCONFIRMED and states(bonuses) == [State.UNCONFIRMED]
    assert payment.evidence["participants"] == [{"participant": pids[0], "expected_cents": 100, "shown_cents": [],
                                                 "explained_by_other_payments": [], "found": False}]
    settle("next attempt", project, job)
    assert fake_prolific.count("POST", PAY) == 0 and paid_to(fake_prolific, pids[0]) == []
    assert BonusPayJob.objects.get(pk=job.pk).status == "done"


def test_a_real_worker_pays_once(worker_processes, own_queue, fake_prolific):
    worker_processes.start(extra_env={"PROLIFIC_API_URL": fake_prolific.url, "PROLIFIC_API_TOKEN": fake_prolific.token},
                           queue=own_queue)
    project, bonuses, pids = prolific_ledger(fake_prolific)
    job = bonuses_pay(project=project, bonuses=None, actor=None)
    job = wait_for(job, lambda j: j.is_finished, timeout=60)
    assert job.status == "done", job.error
    assert states(bonuses) == [State.PAID] * 3 and fake_prolific.count("POST", PAY) == 1
    assert [paid_to(fake_prolific, p) for p in pids] == [[150], [25], [200]]


@override_settings(JOB_HEARTBEAT_SECONDS=0.2, JOB_DEAD_SECONDS=1)
@pytest.mark.parametrize("where", ["after_batch", "after_pay"])
def test_a_killed_celery_worker_then_reconciliation_on_another_pays_once(where, worker_processes, own_queue,
                                                                        fake_prolific):
    prolific = {"PROLIFIC_API_URL": fake_prolific.url, "PROLIFIC_API_TOKEN": fake_prolific.token, **BEATS}
    doomed = worker_processes.start(extra_env={**prolific, "BONUS_PAY_KILL_AT": where},
                                    include="tests.support.bonus_pay_worker_kill", queue=own_queue)
    project, bonuses, pids = prolific_ledger(fake_prolific)
    bonuses_pay(project=project, bonuses=None, actor=None)
    assert doomed.wait(timeout=60) == -9
    left = BonusPayment.objects.get()
    assert left.state == (State.BATCHED if where == "after_batch" else State.PAYING)
    time.sleep(1.5)
    worker_processes.start(extra_env=prolific, queue=own_queue)
    job = wait_for(bonuses_reconcile(project=project, actor=None), lambda j: j.is_finished, timeout=60)
    assert job.status == "done", job.error
    assert BonusPayment.objects.get().state == State.PAID and states(bonuses) == [State.PAID] * 3
    assert fake_prolific.count("POST", PAY) == 1
    assert [paid_to(fake_prolific, p) for p in pids] == [[150], [25], [200]]
