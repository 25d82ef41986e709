"""Analysis runs: idempotent execution, failures, retries, stuck runs, versions."""

import time
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from analysis.models import AnalysisRun
from analysis.reports import ParamError
from analysis.selectors import annotations_since
from analysis.services import (
    analysis_run_cancel,
    analysis_run_create,
    analysis_run_execute,
    analysis_run_restart,
    analysis_runs_reap,
)
from annotation.services import annotation_submit, assignment_next
from jobs.services import JobBusy, TransientFault
from runtime.unavailable import ServiceUnavailable
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, UserFactory

pytestmark = pytest.mark.django_db
Status = AnalysisRun.Status


def test_run_executes_in_process_and_is_versioned(annotated_project, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        run = analysis_run_create(project=annotated_project, kind="agreement", params={"n_boot": 20})
    run.refresh_from_db()
    assert run.status == Status.DONE and run.progress == 1.0 and run.attempts == 1
    assert run.annotations_seen == 18 and run.result["figures"]["n_annotations"] == 18
    assert run.params["n_boot"] == 20 and run.params["mace_restarts"] == 10
    assert annotations_since(run=run) == 0
    ItemFactory(project=annotated_project)
    w = UserFactory()
    a = assignment_next(project=annotated_project, worker=w).assignment
    annotation_submit(assignment=a, worker=w, data=answer())
    assert annotations_since(run=run) == 1
    # A worker changing an answer the run saw makes it out of date too.
    from annotation.models import Annotation
    from annotation.services.revisions import annotation_revise

    seen = Annotation.objects.filter(pk__lte=run.last_annotation_id).select_related("assignment").first()
    annotation_revise(assignment=seen.assignment, worker=seen.assignment.worker,
                      data=answer(label="a2" if seen.answer["label"] != "a2" else "a1"))
    assert annotations_since(run=run) == 2


def test_executing_a_finished_run_does_nothing(annotated_project):
    run = AnalysisRun.objects.create(project=annotated_project, kind="agreement",
                                     params={"n_boot": 0, **_defaults()})
    assert analysis_run_execute(run_id=run.pk).status == Status.DONE
    finished_at = AnalysisRun.objects.get(pk=run.pk).finished_at
    assert analysis_run_execute(run_id=run.pk) is None
    assert AnalysisRun.objects.get(pk=run.pk).finished_at == finished_at


def _defaults():
    from analysis.reports import get_report

    return get_report("agreement").clean_params({})


def test_run_held_by_a_live_worker_is_left_alone(annotated_project):
    run = AnalysisRun.objects.create(project=annotated_project, kind="agreement", params=_defaults(),
                                     status=Status.RUNNING, heartbeat_at=timezone.now(), started_at=timezone.now())
    with pytest.raises(JobBusy):
        analysis_run_execute(run_id=run.pk)
    # Once its heartbeat is older than JOB_DEAD_SECONDS, its worker is dead: the run is taken over.
    AnalysisRun.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=1))
    done = analysis_run_execute(run_id=run.pk)
    assert done.status == Status.DONE and done.attempts == 1


def test_a_failure_is_stored_with_its_message(annotated_project, monkeypatch):
    from analysis.reports import agreement

    def broken(*args, **kwargs):
        raise ValueError("labels are not comparable")

    monkeypatch.setattr(agreement, "agreement_report", broken)
    run = AnalysisRun.objects.create(project=annotated_project, kind="agreement", params=_defaults())
    done = analysis_run_execute(run_id=run.pk)
    assert done.status == Status.FAILED and done.error == "ValueError: labels are not comparable"
    monkeypatch.undo()
    restarted = analysis_run_restart(run=done)
    assert restarted.status == Status.QUEUED and restarted.error == ""
    assert analysis_run_execute(run_id=run.pk).status == Status.DONE
    with pytest.raises(ValueError, match="only failed or cancelled"):
        analysis_run_restart(run=run)


def test_a_transient_fault_puts_the_run_back_in_the_queue(annotated_project, monkeypatch):
    from analysis import services

    def gone(**kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(services, "annotation_frame", gone)
    run = AnalysisRun.objects.create(project=annotated_project, kind="agreement", params=_defaults())
    with pytest.raises(TransientFault):
        analysis_run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == Status.QUEUED and "server closed" in run.error


def test_runs_whose_worker_died_are_reaped(annotated_project):
    long_ago = timezone.now() - timedelta(seconds=46)
    dead = AnalysisRun.objects.create(project=annotated_project, kind="agreement", status=Status.RUNNING,
                                      started_at=long_ago, heartbeat_at=long_ago)
    alive = AnalysisRun.objects.create(project=annotated_project, kind="agreement", status=Status.RUNNING,
                                       started_at=long_ago, heartbeat_at=timezone.now() - timedelta(seconds=30))
    spent = AnalysisRun.objects.create(project=annotated_project, kind="agreement", status=Status.RUNNING,
                                       started_at=long_ago, heartbeat_at=long_ago, attempts=3)
    assert analysis_runs_reap() == 2
    dead.refresh_from_db()
    alive.refresh_from_db()
    spent.refresh_from_db()
    # With attempts left, a dead run goes back to the queue; without, it fails saying so.
    assert dead.status == Status.QUEUED and "no heartbeat for more than 45 s" in dead.error
    assert spent.status == Status.FAILED and "during attempt 3 of 3; the job was given up" in spent.error
    assert alive.status == Status.RUNNING
    # A dead run restarts at once, as a new attempt.
    assert analysis_run_restart(run=spent).status == Status.QUEUED


def test_the_heartbeat_of_a_running_attempt_keeps_it_alive(annotated_project, settings):
    from jobs.live import Attempt
    from jobs.selectors import is_dead
    from jobs.services import job_claim

    settings.JOB_HEARTBEAT_SECONDS, settings.JOB_DEAD_SECONDS = 0.05, 0.5
    run = AnalysisRun.objects.create(project=annotated_project, kind="agreement", params=_defaults())
    claimed = job_claim(model=AnalysisRun, pk=run.pk)
    with Attempt(claimed):
        # One long computation that reports nothing: the heartbeat thread beats for it.
        time.sleep(1.0)
        assert not is_dead(job=claimed)
        assert analysis_runs_reap() == 0
    time.sleep(0.7)
    assert is_dead(job=claimed) and analysis_runs_reap() == 1


def test_cancelling_a_queued_run_and_a_running_one(annotated_project, monkeypatch):
    from analysis.reports import agreement

    queued = AnalysisRun.objects.create(project=annotated_project, kind="agreement", params=_defaults())
    assert analysis_run_cancel(run=queued).status == Status.CANCELLED
    assert analysis_run_execute(run_id=queued.pk) is None  # a late delivery does nothing

    running = AnalysisRun.objects.create(project=annotated_project, kind="agreement", params=_defaults())
    real = agreement.agreement_report

    def cancelled_meanwhile(*args, **kwargs):
        analysis_run_cancel(run=AnalysisRun.objects.get(pk=running.pk))
        return real(*args, **kwargs)

    monkeypatch.setattr(agreement, "agreement_report", cancelled_meanwhile)
    after = analysis_run_execute(run_id=running.pk)
    # The attempt stopped at its next progress report and its result was never stored.
    assert after.status == Status.CANCELLED and after.result is None and after.progress < 1.0
    with pytest.raises(ValueError, match="only queued or running"):
        analysis_run_cancel(run=after)
    assert analysis_run_restart(run=after).status == Status.QUEUED


def test_an_unreachable_broker_fails_the_run_with_the_reason(annotated_project, monkeypatch,
                                                            django_capture_on_commit_callbacks):
    from analysis import tasks

    def down(*args, **kwargs):
        raise ConnectionRefusedError("[Errno 111] Connection refused")

    monkeypatch.setattr(tasks.run_analysis, "delay", down)
    with pytest.raises(ServiceUnavailable) as raised, django_capture_on_commit_callbacks(execute=True):
        analysis_run_create(project=annotated_project, kind="agreement", params={})
    assert raised.value.retry_after > 0 and "job queue" in raised.value.detail
    run = AnalysisRun.objects.get()
    assert run.status == Status.FAILED and "job queue could not be reached" in run.error


def test_bad_parameters_create_no_run(annotated_project):
    with pytest.raises(ParamError):
        analysis_run_create(project=annotated_project, kind="agreement", params={"curve_points": 1})
    assert not AnalysisRun.objects.exists()
