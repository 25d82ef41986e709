"""Jobs that heal, on real Celery workers: a job whose work kills its worker is tried at most
JOB_MAX_ATTEMPTS times and then fails saying so; a queued job whose message was lost is sent
again by the scheduler and completes, also while another job runs, or is restarted at once; a database that goes away in the
middle of a job sends the attempt back to the queue, and the job completes once it is back."""

from __future__ import annotations

import sqlite3
import time
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.db import connection
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from analysis.models import AnalysisRun
from analysis.reports import _REPORTS, register
from analysis.services import analysis_run_create
from jobs.healing import jobs_heal
from jobs.selectors import live_state
from tests.factories import UserFactory
from tests.support.runtime import is_postgres
from tests.support.waiting import wait_for as wait_until

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
Status = AnalysisRun.Status
# Fast heartbeats, so that a dead worker is seen in seconds; the workers get the same.
BEATS = {"JOB_HEARTBEAT_SECONDS": "0.5", "JOB_DEAD_SECONDS": "4", "JOB_MAX_ATTEMPTS": "3"}
FAST = {"JOB_HEARTBEAT_SECONDS": 0.5, "JOB_DEAD_SECONDS": 4, "JOB_MAX_ATTEMPTS": 3}
INCLUDE = "tests.support.slow_report,tests.support.jobs_heal_reports"


@pytest.fixture
def reports():
    from tests.support.jobs_heal_reports import CrashReport
    from tests.support.slow_report import SlowReport

    register(SlowReport)
    register(CrashReport)
    yield SlowReport.kind, CrashReport.kind
    _REPORTS.pop(SlowReport.kind, None)
    _REPORTS.pop(CrashReport.kind, None)


@pytest.fixture
def start_worker(worker_processes, own_queue):
    def start():
        return worker_processes.start(extra_env=BEATS, include=INCLUDE, queue=own_queue)

    return start


def wait_for(run, condition, timeout=60.0, heal=False):
    """Wait for the run; with ``heal``, doing meanwhile what the scheduler does every 15 s."""
    def check(r):
        if heal:
            jobs_heal()
        return condition(r)

    return wait_until(run, check, timeout=timeout, step=0.25,
                      describe=lambda r: f"{r.status}, attempt {r.attempts} ({live_state(job=r)}; {r.error!r})")


@override_settings(**FAST)
def test_a_job_that_kills_its_worker_is_tried_at_most_the_cap_then_fails_saying_so(start_worker, annotated_project,
                                                                                   reports):
    _, crash = reports
    worker = start_worker()
    run = analysis_run_create(project=annotated_project, kind=crash)
    deaths, deadline = 0, time.monotonic() + 180
    while run.status != Status.FAILED or deaths < 3:
        assert time.monotonic() < deadline, f"{run} is {run.status} after attempt {run.attempts}, {deaths} worker deaths"
        if worker.poll() is not None:
            # The worker died in the job's work; a supervisor (docker, systemd) starts a new one.
            # The new worker may get the message again from the broker (Redis gives back an
            # unacknowledged one), or the scheduler sends it again: either way it counts.
            deaths += 1
            worker = start_worker()
        jobs_heal()  # what the scheduler does every 15 s
        run.refresh_from_db()
        assert run.attempts <= 3 and deaths <= 3, "a job must not be tried more often than JOB_MAX_ATTEMPTS"
        if run.status == Status.QUEUED and run.attempts:
            assert f"during attempt {run.attempts} of 3; it was sent to the queue again" in run.error
        time.sleep(0.25)
    assert run.attempts == 3
    assert run.error == ("The job worker stopped: no heartbeat for more than 4 s, during attempt 3 of 3; the job was "
                         "given up. Restart it once the cause is fixed.")
    # The new worker is left alone, and the job's page (here the API) shows why it failed.
    time.sleep(2)
    assert worker.poll() is None
    api = APIClient()
    api.force_authenticate(UserFactory(role="researcher"))
    body = api.get(reverse("api-analysis-run", args=[run.pk])).json()
    assert body["status"] == "failed" and "during attempt 3 of 3" in body["error"]


@override_settings(**FAST, JOB_QUEUED_SECONDS=2)
def test_a_queued_job_whose_message_was_lost_is_sent_again_and_completes(start_worker, annotated_project, reports):
    wait, _ = reports
    start_worker()
    # Created without its message, as when the broker lost it (a Redis restart without
    # persistence, a queue purged by hand).
    run = analysis_run_create(project=annotated_project, kind=wait, params={"seconds": 0.2}, enqueue=False)
    time.sleep(1)
    assert AnalysisRun.objects.get(pk=run.pk).status == Status.QUEUED  # nothing takes it
    assert jobs_heal() == (0, 0)  # not yet stale
    run = wait_for(run, lambda r: r.is_finished, heal=True)
    assert run.status == Status.DONE and run.attempts == 1 and run.result["waited"] == 0.2


@override_settings(**FAST, JOB_QUEUED_SECONDS=2)
def test_a_lost_message_behind_a_long_job_is_sent_again_and_completes(start_worker, annotated_project, reports):
    """Two workers: one runs a long job, the other is free. A job whose message was lost is sent
    again after JOB_QUEUED_SECONDS although a job runs, and completes before the long one ends;
    a job whose first message only waited would run once all the same."""
    wait, _ = reports
    start_worker(), start_worker()
    long = analysis_run_create(project=annotated_project, kind=wait, params={"seconds": 15})
    wait_for(long, lambda r: r.status == Status.RUNNING)
    run = analysis_run_create(project=annotated_project, kind=wait, params={"seconds": 0.2}, enqueue=False)
    run = wait_for(run, lambda r: r.is_finished, timeout=30, heal=True)
    assert run.status == Status.DONE and run.attempts == 1 and run.sends == 0
    assert AnalysisRun.objects.get(pk=long.pk).status == Status.RUNNING  # it did not wait for the long job
    long = wait_for(long, lambda r: r.is_finished, timeout=60, heal=True)
    assert long.status == Status.DONE and long.attempts == 1


@override_settings(**FAST, JOB_QUEUED_SECONDS=2)
def test_a_stale_queued_job_restarts_at_once(start_worker, annotated_project, reports):
    wait, _ = reports
    start_worker()
    run = analysis_run_create(project=annotated_project, kind=wait, params={"seconds": 0.2}, enqueue=False)
    api = APIClient()
    api.force_authenticate(UserFactory(role="admin"))
    url = reverse("api-analysis-restart", args=[run.pk])
    assert api.post(url).status_code == 409  # queued for less than JOB_QUEUED_SECONDS
    AnalysisRun.objects.filter(pk=run.pk).update(queued_at=timezone.now() - timedelta(seconds=3))
    response = api.post(url)
    assert response.status_code == 200 and response.json()["status"] == "queued"
    run = wait_for(run, lambda r: r.is_finished)
    assert run.status == Status.DONE and run.attempts == 1


@contextmanager
def database_away():
    """The database goes away for the workers: on PostgreSQL, it refuses new connections and
    its open ones are ended (as in a restart); on SQLite, another process holds its write lock
    longer than a writer waits (``timeout``), so that writes fail with "database is locked"."""
    name = str(connection.settings_dict["NAME"])
    if is_postgres():
        import psycopg

        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            mine = cursor.fetchone()[0]
        s = connection.settings_dict
        # A database cannot be closed to connections from inside itself: from the server's own.
        admin = psycopg.connect(host=s["HOST"] or "127.0.0.1", port=s["PORT"] or 5432, user=s["USER"] or "postgres",
                                password=s["PASSWORD"] or None, dbname="postgres", autocommit=True)
        admin.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false')
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> %s",
                      [name, mine])
        try:
            yield 6.0
        finally:
            admin.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS true')
            admin.close()
    else:
        holder = sqlite3.connect(name, timeout=30, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            yield float(connection.settings_dict["OPTIONS"].get("timeout", 5)) + 5
        finally:
            holder.execute("ROLLBACK")
            holder.close()


@override_settings(**FAST)
def test_a_job_whose_database_went_away_goes_back_to_the_queue_and_completes(start_worker, annotated_project,
                                                                          reports):
    wait, _ = reports
    start_worker()
    run = analysis_run_create(project=annotated_project, kind=wait, params={"seconds": 2})
    run = wait_for(run, lambda r: r.status == Status.RUNNING and live_state(job=r).progress > 0)
    with database_away() as seconds:
        # The attempt finishes its work while the database is away: storing its outcome fails.
        time.sleep(seconds)
    # Back: the scheduler runs too, and must not fail the job as if its worker had died.
    run = wait_for(run, lambda r: r.is_finished, timeout=120, heal=True)
    assert run.status == Status.DONE and run.error == ""
    assert 2 <= run.attempts <= 3 and run.result["waited"] == 2
