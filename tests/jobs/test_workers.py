"""Analysis runs on real Celery workers: they run, a killed worker is seen as dead within a
minute and its run restarts at once, a cancelled run stops."""

import os
import signal
import time

import pytest
from django.test import override_settings

from analysis.models import AnalysisRun
from analysis.reports import _REPORTS, register
from analysis.services import (
    analysis_run_cancel,
    analysis_run_create,
    analysis_run_restart,
    analysis_runs_reap,
)
from jobs.selectors import live_state
from tests.support.waiting import wait_for as wait_until

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
Status = AnalysisRun.Status
# Fast heartbeats so that the test sees a dead worker in seconds; the worker gets the same.
BEATS = {"JOB_HEARTBEAT_SECONDS": "0.5", "JOB_DEAD_SECONDS": "4"}


@pytest.fixture
def wait_report():
    from tests.support.slow_report import SlowReport

    register(SlowReport)
    yield SlowReport.kind
    _REPORTS.pop(SlowReport.kind, None)


def wait_for(run, condition, timeout=60.0):
    return wait_until(run, condition, timeout=timeout, describe=lambda r: f"{r.status} ({live_state(job=r)})")


def test_run_on_a_real_worker(celery_worker_process, annotated_project):
    run = analysis_run_create(project=annotated_project, kind="agreement", params={"n_boot": 20})
    run = wait_for(run, lambda r: r.is_finished, timeout=120)
    assert run.status == Status.DONE, run.error
    assert run.attempts == 1 and run.annotations_seen == 18
    assert run.result["figures"]["n_workers"] == 4


@override_settings(JOB_HEARTBEAT_SECONDS=0.5, JOB_DEAD_SECONDS=4)
def test_a_killed_worker_is_seen_dead_and_its_run_goes_back_to_the_queue(worker_processes, own_queue,
                                                                        annotated_project, wait_report):
    worker = worker_processes.start(extra_env=BEATS, include="tests.support.slow_report", queue=own_queue)
    run = analysis_run_create(project=annotated_project, kind=wait_report, params={"seconds": 60})
    run = wait_for(run, lambda r: r.status == Status.RUNNING and live_state(job=r).progress > 0)
    os.kill(worker.pid, signal.SIGKILL)
    killed = time.monotonic()
    # What the scheduler does (and a new run of the project): once its heartbeat is stale, the
    # run goes back to the queue, attempts being left, and is sent again.
    AnalysisRun.objects.filter(pk=run.pk).update(params={"seconds": 0.3})
    while not analysis_runs_reap(project=annotated_project):
        assert time.monotonic() - killed < 60, "a dead worker must be seen within a minute"
        time.sleep(0.2)
    run.refresh_from_db()
    assert run.status == Status.QUEUED and "no heartbeat" in run.error and "attempt 1 of 3" in run.error
    assert time.monotonic() - killed < 4 + 5

    # A new worker takes it from the queue and it goes through (shorter this time).
    worker_processes.start(extra_env=BEATS, include="tests.support.slow_report", queue=own_queue)
    run = wait_for(run, lambda r: r.is_finished)
    assert run.status == Status.DONE and run.attempts == 2 and run.result["waited"] == 0.3
    # Restarting a finished run is refused; restarting gives a run its attempts again.
    with pytest.raises(ValueError, match="only failed or cancelled"):
        analysis_run_restart(run=run)


@override_settings(JOB_HEARTBEAT_SECONDS=0.5, JOB_DEAD_SECONDS=4)
def test_a_cancelled_run_stops_and_writes_nothing(worker_processes, own_queue, annotated_project, wait_report):
    worker_processes.start(extra_env=BEATS, include="tests.support.slow_report", queue=own_queue)
    run = analysis_run_create(project=annotated_project, kind=wait_report, params={"seconds": 3})
    run = wait_for(run, lambda r: r.status == Status.RUNNING and live_state(job=r).progress > 0)
    run = analysis_run_cancel(run=run)
    assert run.status == Status.CANCELLED
    # The attempt would have finished by now; it stopped, and its result never landed.
    time.sleep(4)
    run.refresh_from_db()
    assert run.status == Status.CANCELLED and run.result is None
    # The worker is free again: a new run goes through.
    second = analysis_run_create(project=annotated_project, kind=wait_report, params={"seconds": 0.2})
    assert wait_for(second, lambda r: r.is_finished).status == Status.DONE
