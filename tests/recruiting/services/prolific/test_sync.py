"""Polling a linked study: a full study on the fake Prolific (arrival by link, consent, the
qualification passed by one participant and failed by another who is screened out on Prolific,
work, completion read by a poll, approval, a bonus paid once), returns and time-outs freeing slots, and Prolific's
errors failing the job with a clear message."""

from decimal import Decimal

import pytest
from django.test import Client

from annotation.models import Assignment, AuditEntry, Standing
from annotation.services import annotation_submit, assignment_next
from quality.models import WorkerStanding
from recruiting.models import PaymentState, ProjectPay, ProlificSubmission, ProlificSyncJob
from recruiting.services.bonus_payments.payments import bonuses_pay
from recruiting.services.bonuses import bonus_grant
from recruiting.services.prolific.decisions import prolific_submission_decide
from recruiting.services.prolific.sync import (
    prolific_polls_due,
    prolific_submissions_sync,
    prolific_sync_job_execute,
    prolific_sync_queue,
)
from task_types.pairwise.tests.factories import answer
from tests.recruiting.prolific_helpers import RIGHT, WRONG, arrive, linked_project
from tests.support.fake_prolific_submissions import participant_set

pytestmark = pytest.mark.django_db


def work(project, worker, labels):
    for label in labels:
        result = assignment_next(project=project, worker=worker)
        assert result.assignment is not None, result
        annotation_submit(assignment=result.assignment, worker=worker, data=answer(label=label))


def test_a_full_study_from_the_link_to_the_paid_bonus(fake_prolific, django_capture_on_commit_callbacks):
    project = linked_project(qualification=1)
    study = project.prolific_study
    good_sid, good = arrive(fake_prolific, project, "pid-good", client=Client())
    bad_sid, bad = arrive(fake_prolific, project, "pid-bad", client=Client())
    work(project, good, [RIGHT])  # the qualification round: passed
    work(project, bad, [WRONG])  # failed, with no attempt left: screened out
    assert WorkerStanding.objects.get(project=project, worker=bad).state == Standing.SCREENED_OUT
    work(project, good, [RIGHT, RIGHT])  # two real items

    prolific_submissions_sync(study=study)
    records = {s.participant_id: s for s in ProlificSubmission.objects.all()}
    assert records["pid-good"].worker == good and records["pid-good"].status == "ACTIVE"
    # The screened-out participant is screened out on Prolific, once.
    assert fake_prolific.submissions[bad_sid]["status"] == "SCREENED OUT"
    assert records["pid-bad"].status == "SCREENED OUT" and records["pid-bad"].screen_out_sent_at is not None
    prolific_submissions_sync(study=study)
    assert fake_prolific.count("POST", r"studies/study-1/screen-out-submissions/") == 1

    participant_set(fake_prolific, good_sid, "AWAITING REVIEW")  # completed on Prolific
    prolific_submissions_sync(study=study)
    record = ProlificSubmission.objects.get(submission_id=good_sid)
    assert record.status == "AWAITING REVIEW" and record.completed_at is not None

    prolific_submission_decide(submission=record, approve=True, actor=None)
    assert fake_prolific.submissions[good_sid]["status"] == "APPROVED"
    record.refresh_from_db()
    assert record.status == "APPROVED" and record.decided_how == "staff" and record.decided_at is not None
    # The platform's review follows: the worker's submitted answers are approved.
    statuses = set(Assignment.objects.filter(project=project, worker=good, purpose="task").values_list("status", flat=True))
    assert statuses == {"approved"}
    assert AuditEntry.objects.filter(action="prolific_approve", target=f"submission {good_sid}").exists()

    # The approved participant's bonus, paid through Prolific's bulk bonus payment, once.
    ProjectPay.objects.create(project=project, reward_per_item="0.20", currency="GBP")
    bonus = bonus_grant(project=project, worker=good, amount=Decimal("0.75"), reason="gold answers right",
                        currency="GBP")
    with django_capture_on_commit_callbacks(execute=True):
        job = bonuses_pay(project=project, bonuses=None, actor=None)
    job.refresh_from_db()
    assert job.status == "done", job.error
    bonus.refresh_from_db()
    assert bonus.payment_state == PaymentState.PAID and bonus.paid_at is not None
    assert fake_prolific.count("POST", r"bulk-bonus-payments/[^/]+/pay/") == 1
    assert fake_prolific.submissions[good_sid]["bonus_payments"] == [75]
    assert fake_prolific.submissions[bad_sid]["bonus_payments"] == []


@pytest.mark.parametrize("status", ["RETURNED", "TIMED-OUT"])
def test_a_return_mid_item_frees_the_slot_after_one_poll(fake_prolific, status):
    project = linked_project(items=1)
    sid, worker = arrive(fake_prolific, project, "pid-1")
    open_one = assignment_next(project=project, worker=worker).assignment
    assert open_one.item.n_active == 1
    participant_set(fake_prolific, sid, status)
    prolific_submissions_sync(study=project.prolific_study)
    open_one.refresh_from_db()
    open_one.item.refresh_from_db()
    assert open_one.status == "returned" and open_one.item.n_active == 0
    record = ProlificSubmission.objects.get(submission_id=sid)
    assert record.freed_at is not None and record.freed_assignments == 1
    # The participant gets no new item; another takes the freed slot.
    assert assignment_next(project=project, worker=worker).reason == "left_study"
    _, other = arrive(fake_prolific, project, "pid-2")
    assert assignment_next(project=project, worker=other).assignment.item_id == open_one.item_id


def test_submitted_answers_are_kept_when_the_participant_returns(fake_prolific):
    project = linked_project(items=2)
    sid, worker = arrive(fake_prolific, project, "pid-1")
    work(project, worker, [RIGHT])
    assignment_next(project=project, worker=worker)
    participant_set(fake_prolific, sid, "RETURNED")
    prolific_submissions_sync(study=project.prolific_study)
    statuses = sorted(Assignment.objects.filter(worker=worker).values_list("status", flat=True))
    assert statuses == ["returned", "submitted"]


@pytest.mark.parametrize(("status", "words"), [(401, "refused the API token"), (500, "error of its own")])
def test_marketplace_errors_fail_the_job_with_a_clear_message(fake_prolific, status, words):
    project = linked_project()
    fake_prolific.failures[("GET", r"submissions/")] = status
    job = ProlificSyncJob.objects.create(study=project.prolific_study)
    done = prolific_sync_job_execute(job_id=job.pk)
    assert done.status == "failed" and words in done.error


def test_an_unreachable_marketplace_fails_the_job_saying_so(settings, db):
    settings.PROLIFIC_API_URL, settings.PROLIFIC_API_TOKEN = "http://127.0.0.1:9/api/v1/", "t"
    settings.PROLIFIC_TIMEOUT_SECONDS = 1
    project = linked_project()
    job = ProlificSyncJob.objects.create(study=project.prolific_study)
    done = prolific_sync_job_execute(job_id=job.pk)
    assert done.status == "failed" and "could not be reached" in done.error


def test_a_marketplace_that_times_out_fails_the_job_saying_so(fake_prolific, settings):
    settings.PROLIFIC_TIMEOUT_SECONDS = 1
    project = linked_project()
    fake_prolific.studies["study-1"] = {"delay_seconds": 2}
    job = ProlificSyncJob.objects.create(study=project.prolific_study)
    done = prolific_sync_job_execute(job_id=job.pk)
    assert done.status == "failed" and "could not be reached" in done.error and "timed out" in done.error


def test_polls_are_queued_when_due_and_run_as_jobs(fake_prolific, django_capture_on_commit_callbacks):
    project = linked_project(poll_seconds=60)
    sid, _ = arrive(fake_prolific, project, "pid-1")
    with django_capture_on_commit_callbacks(execute=True):
        assert prolific_polls_due() == 1
    job = ProlificSyncJob.objects.get()
    assert job.status == "done" and job.result["submissions"] == 1
    assert ProlificSubmission.objects.filter(submission_id=sid).exists()
    assert prolific_polls_due() == 0  # polled just now: not due again for 60 s
    with django_capture_on_commit_callbacks(execute=False):
        first = prolific_sync_queue(study=project.prolific_study)
        assert prolific_sync_queue(study=project.prolific_study) == first  # one at a time


def test_failing_the_qualification_screens_out_on_prolific_at_once(fake_prolific, django_capture_on_commit_callbacks):
    project = linked_project(qualification=1)
    sid, worker = arrive(fake_prolific, project, "pid-bad")
    prolific_submissions_sync(study=project.prolific_study)
    with django_capture_on_commit_callbacks(execute=True):
        work(project, worker, [WRONG])
    assert fake_prolific.submissions[sid]["status"] == "SCREENED OUT"
    assert ProlificSyncJob.objects.get(study=project.prolific_study).status == "done"
    record = ProlificSubmission.objects.get(submission_id=sid)
    assert record.status == "SCREENED OUT" and record.screen_out_sent_at is not None
