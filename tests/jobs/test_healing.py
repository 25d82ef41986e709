"""Jobs that heal: attempts counted where a worker claims them and capped (JOB_MAX_ATTEMPTS),
dead workers and lost messages handled by the scheduler (``jobs_heal``), a lost database treated
as transient, restarting a job whose message was lost, and a queue that cannot be reached
answered as a service that is away."""

import uuid
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import OperationalError
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from analysis.models import AnalysisRun
from jobs import healing, services
from jobs.healing import jobs_heal, jobs_reap, jobs_resend
from jobs.live import live_key
from jobs.services import (
    JobBusy,
    JobOutcome,
    TransientFault,
    job_claim,
    job_execute,
    job_restart,
)
from runtime.unavailable import ServiceUnavailable
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = AnalysisRun.Status


@pytest.fixture
def sent(monkeypatch):
    """The runs sent to the job queue (the Celery task's ``delay``), by id."""
    from analysis import tasks

    ids: list[int] = []
    monkeypatch.setattr(tasks.run_analysis, "delay", ids.append)
    return ids


def queued(**fields):
    return AnalysisRun.objects.create(project=ProjectFactory(), kind="agreement", **fields)


def dead(attempts: int, settings) -> AnalysisRun:
    long_ago = timezone.now() - timedelta(seconds=settings.JOB_DEAD_SECONDS + 60)
    return queued(status=Status.RUNNING, attempts=attempts, started_at=long_ago, heartbeat_at=long_ago)


def fresh(run: AnalysisRun) -> AnalysisRun:
    run.refresh_from_db()
    return run


def never(job, attempt):
    raise AssertionError("a job out of attempts must not run")


# --- the attempt cap ---------------------------------------------------------------------------


def test_attempts_are_counted_where_they_are_claimed_and_capped(settings):
    settings.JOB_MAX_ATTEMPTS = 3
    run = queued()
    for n in (1, 2, 3):
        claimed = job_claim(model=AnalysisRun, pk=run.pk)
        assert claimed.attempts == n and claimed.status == Status.RUNNING
        # The broker delivers the message again: the last attempt's worker is gone.
        AnalysisRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1),
                                                     started_at=timezone.now() - timedelta(hours=1))
    # A fourth delivery finds the attempts used: the job fails saying where its worker stopped.
    assert job_execute(model=AnalysisRun, pk=run.pk, work=never) is None
    run = fresh(run)
    assert run.status == Status.FAILED and run.attempts == 3 and run.finished_at is not None
    assert run.error.startswith("The job worker stopped: no heartbeat for more than")
    assert "during attempt 3 of 3; the job was given up" in run.error


def test_a_queued_job_out_of_attempts_fails_with_the_last_error(settings):
    settings.JOB_MAX_ATTEMPTS = 2
    run = queued(attempts=2, error="Attempt 2 of 3 ended: OperationalError: the database system is starting up")
    assert job_execute(model=AnalysisRun, pk=run.pk, work=never) is None
    run = fresh(run)
    assert run.status == Status.FAILED
    assert run.error == ("The job used its 2 attempts; the last one ended: Attempt 2 of 3 ended: "
                         "OperationalError: the database system is starting up")


def test_a_transient_fault_in_the_last_attempt_fails_the_job_with_it(settings):
    settings.JOB_MAX_ATTEMPTS = 2
    run = queued(attempts=1)

    def gone(job, attempt):
        raise OperationalError("terminating connection due to administrator command")

    after = job_execute(model=AnalysisRun, pk=run.pk, work=gone)
    assert after.status == Status.FAILED and after.attempts == 2
    assert after.error == ("Attempt 2 of 2 ended: OperationalError: terminating connection due to administrator "
                           "command. The job was given up; restart it once the cause is fixed.")


# --- a lost database ---------------------------------------------------------------------------


def test_a_database_still_away_leaves_the_attempt_to_the_retry_and_keeps_the_upload(monkeypatch):
    """The write that would put the attempt back in the queue cannot reach the database either:
    the task must still retry (TransientFault), the job's upload must stay, and the attempt's
    live heartbeat is dropped so that the retry can take the job at once."""
    run = queued()
    cleaned, keys = [], []

    def gone(job, attempt):
        keys.append(live_key(job))
        raise OperationalError("server closed the connection unexpectedly")

    def still_away(**kwargs):
        raise OperationalError("could not connect to server: Connection refused")

    monkeypatch.setattr(services, "job_requeue", still_away)
    with pytest.raises(TransientFault, match="server closed"):
        job_execute(model=AnalysisRun, pk=run.pk, work=gone, cleanup=cleaned.append)
    assert cleaned == [] and cache.get(keys[0]) is None
    run = fresh(run)
    # As the database left it; the retry claims a new attempt (its heartbeat stopped long ago).
    assert run.status == Status.RUNNING and run.attempts == 1


def test_a_job_resumes_after_the_database_came_back(sent):
    run = queued()
    calls = []

    def flaky(job, attempt):
        calls.append(job.attempts)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return JobOutcome(fields={"result": {"ok": True}})

    with pytest.raises(TransientFault):
        job_execute(model=AnalysisRun, pk=run.pk, work=flaky)
    assert fresh(run).status == Status.QUEUED and "it will be tried again" in run.error
    done = job_execute(model=AnalysisRun, pk=run.pk, work=flaky)
    assert done.status == Status.DONE and done.attempts == 2 and calls == [1, 2] and done.error == ""


# --- the scheduler: dead workers and lost messages ---------------------------------------------


def test_a_dead_worker_sends_the_job_back_while_it_has_attempts(settings, sent, django_capture_on_commit_callbacks):
    settings.JOB_MAX_ATTEMPTS = 3
    again, spent = dead(1, settings), dead(3, settings)
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs_reap(model=AnalysisRun) == 2
    again, spent = fresh(again), fresh(spent)
    assert again.status == Status.QUEUED and sent == [again.pk]
    assert "during attempt 1 of 3; it was sent to the queue again" in again.error
    assert spent.status == Status.FAILED and "during attempt 3 of 3; the job was given up" in spent.error


def test_a_job_is_not_taken_for_dead_while_the_shared_cache_is_away(settings, sent, monkeypatch):
    """Heartbeats travel through the cache: while it is away (Redis down, each process on its
    own memory), an old heartbeat says nothing of the worker, so nothing is reaped, and a page
    does not offer to restart a job that may well be running."""
    from jobs import selectors

    class Away:
        on_fallback = True

        def get(self, key, default=None):
            return default

    run = dead(1, settings)
    assert selectors.is_dead(job=run)
    monkeypatch.setattr(selectors, "cache", Away())
    assert not selectors.is_dead(job=run)
    assert jobs_reap(model=AnalysisRun) == 0
    assert fresh(run).status == Status.RUNNING and sent == []


def test_a_lost_message_is_sent_again_then_the_job_fails_with_the_reason(settings, sent,
                                                                       django_capture_on_commit_callbacks):
    settings.JOB_MAX_ATTEMPTS, settings.JOB_QUEUED_SECONDS = 2, 60
    run = queued()
    assert jobs_heal() == (0, 0) and sent == []  # not stale yet
    for n in (1, 2):
        AnalysisRun.objects.filter(pk=run.pk).update(queued_at=timezone.now() - timedelta(seconds=61))
        with django_capture_on_commit_callbacks(execute=True):
            assert jobs_heal() == (0, 1)
        run = fresh(run)
        assert run.status == Status.QUEUED and run.sends == n and sent == [run.pk] * n
        assert f"sent to the queue again ({n} of 2)" in run.error
        assert timezone.now() - run.queued_at < timedelta(seconds=5)
    AnalysisRun.objects.filter(pk=run.pk).update(queued_at=timezone.now() - timedelta(seconds=61))
    assert jobs_heal() == (0, 1)
    run = fresh(run)
    assert run.status == Status.FAILED and len(sent) == 2
    assert run.error.startswith("No job worker took this job: it was sent to the job queue 3 times, 60 s apart.")


def running_live() -> AnalysisRun:
    """A long job that a live worker runs (its heartbeat is fresh), sent two hours ago."""
    return queued(status=Status.RUNNING, attempts=1, queued_at=timezone.now() - timedelta(hours=2),
                  started_at=timezone.now(), heartbeat_at=timezone.now())


def test_a_job_waiting_behind_a_running_job_is_sent_again_but_never_failed_for_it(
        settings, sent, django_capture_on_commit_callbacks):
    """While a job runs on a live worker, a queued job may be waiting its turn, or its message
    may be lost: it is sent again every JOB_QUEUED_SECONDS (so a lost message waits no longer),
    and those sends do not count toward "No job worker took this job"."""
    settings.JOB_MAX_ATTEMPTS, settings.JOB_QUEUED_SECONDS = 2, 60
    running_live()
    waiting = queued(queued_at=timezone.now() - timedelta(hours=1))
    for n in range(1, 6):  # more rounds than the cap allows counted sends
        with django_capture_on_commit_callbacks(execute=True):
            assert jobs_heal() == (0, 1)
        waiting = fresh(waiting)
        assert waiting.status == Status.QUEUED and waiting.sends == 0 and sent == [waiting.pk] * n
        assert "sent to the queue again in case its message was lost" in waiting.error
        assert timezone.now() - waiting.queued_at < timedelta(seconds=5)
        with django_capture_on_commit_callbacks(execute=True):
            assert jobs_heal() == (0, 0)  # sent again only once it is stale again
        AnalysisRun.objects.filter(pk=waiting.pk).update(queued_at=timezone.now() - timedelta(seconds=61))


def test_a_job_sent_after_it_being_claimed_shows_its_message_was_lost(settings, sent,
                                                                     django_capture_on_commit_callbacks):
    """The queue is first in, first out: once a job sent after it was claimed, a stale queued job
    lost its message, even while other jobs run. Those sends count, and the job fails at the cap."""
    settings.JOB_MAX_ATTEMPTS, settings.JOB_QUEUED_SECONDS = 1, 60
    long_ago = timezone.now() - timedelta(minutes=10)
    lost = queued(queued_at=long_ago)
    AnalysisRun.objects.filter(pk=lost.pk).update(created_at=long_ago)
    running_live()  # sent before the one that was lost: says nothing
    assert not healing.message_lost(job=fresh(lost))
    later = queued(queued_at=long_ago + timedelta(seconds=1))
    job_claim(model=AnalysisRun, pk=later.pk)
    assert healing.message_lost(job=fresh(lost))
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs_heal() == (0, 1)
    lost = fresh(lost)
    assert lost.sends == 1 and sent == [lost.pk] and "sent to the queue again (1 of 1)" in lost.error
    # Sent again now: the claim of a job sent before this new message says nothing.
    assert not healing.message_lost(job=lost)
    AnalysisRun.objects.filter(pk=lost.pk).update(queued_at=timezone.now() - timedelta(seconds=61))
    after = queued()
    job_claim(model=AnalysisRun, pk=after.pk)
    assert jobs_heal() == (0, 1)
    assert fresh(lost).status == Status.FAILED and lost.error.startswith("No job worker took this job")


def test_a_message_sent_twice_runs_the_job_once(settings, sent, django_capture_on_commit_callbacks):
    """Sending a job again while its first message only waited is harmless: the first delivery
    runs it, a delivery while it runs is told to retry later (JobBusy, no attempt used), and one
    after it finished does nothing."""
    settings.JOB_QUEUED_SECONDS = 60
    running_live()
    run = queued(queued_at=timezone.now() - timedelta(seconds=61))
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs_heal() == (0, 1)
    assert sent == [run.pk]  # the second message; the first one still waits in the queue
    calls = []

    def work(job, attempt):
        calls.append(job.attempts)
        with pytest.raises(JobBusy):  # the second message, delivered meanwhile
            job_execute(model=AnalysisRun, pk=job.pk, work=work)
        return JobOutcome(fields={"result": {"ok": True}})

    done = job_execute(model=AnalysisRun, pk=run.pk, work=work)
    assert done.status == Status.DONE and calls == [1]
    assert job_execute(model=AnalysisRun, pk=run.pk, work=work) is None  # delivered after it finished
    run = fresh(run)
    assert run.status == Status.DONE and run.attempts == 1 and calls == [1] and run.result == {"ok": True}


def test_a_claim_resets_the_sends(settings):
    run = queued(sends=2, error="No job worker took it …")
    claimed = job_claim(model=AnalysisRun, pk=run.pk)
    assert claimed.sends == 0 and claimed.error == "" and claimed.attempts == 1


# --- restart -----------------------------------------------------------------------------------


def test_restart_works_on_a_stale_queued_job_and_gives_it_its_attempts_again(settings, sent,
                                                                            django_capture_on_commit_callbacks):
    settings.JOB_QUEUED_SECONDS = 60
    run = queued(attempts=2, sends=1, queued_at=timezone.now() - timedelta(seconds=30))
    with pytest.raises(ValueError, match="queued ones that no worker took within 60 s; this one is queued"):
        job_restart(job=run)
    AnalysisRun.objects.filter(pk=run.pk).update(queued_at=timezone.now() - timedelta(seconds=61))
    before = fresh(run).token
    with django_capture_on_commit_callbacks(execute=True):
        restarted = job_restart(job=run)
    assert restarted.status == Status.QUEUED and restarted.attempts == 0 and restarted.sends == 0
    assert restarted.token != before and sent == [run.pk]


def test_the_api_restarts_a_stale_queued_run_and_refuses_a_fresh_one(settings, sent):
    settings.JOB_QUEUED_SECONDS = 60
    api = APIClient()
    api.force_authenticate(UserFactory(role="admin"))
    run = queued()
    url = reverse("api-analysis-restart", args=[run.pk])
    assert api.post(url).status_code == 409
    AnalysisRun.objects.filter(pk=run.pk).update(queued_at=timezone.now() - timedelta(seconds=61))
    response = api.post(url)
    assert response.status_code == 200 and response.json()["status"] == "queued"


def test_the_progress_partial_says_what_is_true_of_a_queued_job(settings, rf):
    from django.template.loader import render_to_string

    settings.JOB_QUEUED_SECONDS = 60
    cache.set("jobs:worker", {"host": "w", "at": timezone.now().timestamp()}, None)
    run = queued(queued_at=timezone.now() - timedelta(minutes=5), attempts=1,
                 error="Attempt 1 of 3 ended: OperationalError: server closed the connection unexpectedly; "
                       "it will be tried again.")
    request = rf.get("/")
    request.htmx = False
    page = render_to_string("jobs/progress.html", {"job": run, "cancel_url": "/run/", "cancel_action": "cancel"},
                            request=request)
    assert "Queued for 5\xa0minutes, after attempt 1 of 3." in page
    assert "it will be tried again" in page and 'data-testid="job-stale"' in page
    assert 'data-testid="job-restart"' in page and "Waiting for a job worker" not in page
    run.queued_at = timezone.now()
    page = render_to_string("jobs/progress.html", {"job": run}, request=request)
    assert 'data-testid="job-stale"' not in page and "A job worker is running" in page


def test_the_import_page_restarts_a_stale_queued_import(settings, client, monkeypatch,
                                                       django_capture_on_commit_callbacks):
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from annotation import tasks
    from annotation.models import ImportJob

    settings.JOB_QUEUED_SECONDS = 60
    imports: list[int] = []
    monkeypatch.setattr(tasks.run_import, "delay", imports.append)
    client.force_login(UserFactory(role="admin"))
    stored = default_storage.save("imports/items.csv", ContentFile(b"prompt\nhello\n"))
    job = ImportJob.objects.create(project=ProjectFactory(), kind="items", filename="items.csv", size=10,
                                   stored_name=stored, attempts=1, sends=2)
    url = reverse("admin:annotation_project_import_job", args=[job.project.pk, job.pk])
    page = client.get(url).content.decode()
    assert 'data-testid="job-stale"' not in page and 'data-testid="job-restart"' not in page
    assert 'data-testid="job-cancel"' in page  # the page's own cancel, through the partial
    ImportJob.objects.filter(pk=job.pk).update(queued_at=timezone.now() - timedelta(seconds=61))
    for page in (client.get(url).content.decode(), client.get(url, HTTP_HX_REQUEST="true").content.decode()):
        assert 'data-testid="job-stale"' in page and 'data-testid="job-restart"' in page
        assert f'action="{url}"' in page and 'name="action" value="restart"' in page
    token = ImportJob.objects.get(pk=job.pk).token
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, {"action": "restart", "job": job.pk})
    assert response.status_code == 302 and response.url == url
    job.refresh_from_db()
    assert job.status == ImportJob.Status.QUEUED and job.token != token and imports == [job.pk]
    assert job.attempts == 0 and job.sends == 0 and timezone.now() - job.queued_at < timedelta(seconds=5)
    assert 'data-testid="job-restart"' not in client.get(url).content.decode()


# --- a queue that cannot be reached ------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_queue_that_cannot_be_reached_fails_the_job_and_answers_503(monkeypatch, settings):
    """The request that queues a job learns that the queue is away: ServiceUnavailable leaves
    the enqueue path and the project answers it with 503 and Retry-After; the job's row stays,
    failed with the reason, and can be restarted."""
    from kombu.exceptions import OperationalError as BrokerError

    from analysis import tasks

    def away(*args, **kwargs):
        raise BrokerError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    raised = []
    real = services.ServiceUnavailable

    def seen(*args, **kwargs):
        raised.append(real(*args, **kwargs))
        return raised[-1]

    monkeypatch.setattr(tasks.run_analysis, "delay", away)
    monkeypatch.setattr(services, "ServiceUnavailable", seen)
    project = ProjectFactory()
    api = APIClient()
    api.force_authenticate(UserFactory(role="admin"))
    response = api.post(reverse("api-analysis-create", args=[project.slug]), {"kind": "agreement"}, format="json")
    run = AnalysisRun.objects.get(project=project)
    assert raised and raised[0].what == "the job queue"
    assert response.status_code == 503 and int(response["Retry-After"]) == settings.UNAVAILABLE_RETRY_AFTER
    assert f"analysis run #{run.pk} was not queued and is marked failed" in response.json()["detail"]
    assert run.status == Status.FAILED and "The job queue could not be reached (OperationalError: Error 111" in run.error


def test_a_refused_send_never_touches_a_newer_attempt(monkeypatch, django_capture_on_commit_callbacks):
    """A failed send only fails the queueing it belongs to (the token it was queued with)."""
    run = queued()

    def away(pk):
        AnalysisRun.objects.filter(pk=pk).update(token=uuid.uuid4())  # restarted meanwhile
        raise ConnectionRefusedError("[Errno 111] Connection refused")

    with pytest.raises(ServiceUnavailable), django_capture_on_commit_callbacks(execute=True):
        services.job_enqueue(job=run, send=away)
    assert fresh(run).status == Status.QUEUED


def test_resend_only_touches_stale_queued_jobs(settings, sent):
    settings.JOB_QUEUED_SECONDS = 60
    queued(status=Status.DONE, queued_at=timezone.now() - timedelta(hours=1))
    queued(status=Status.FAILED, queued_at=timezone.now() - timedelta(hours=1))
    assert jobs_resend(model=AnalysisRun) == 0
