"""Analysis runs: idempotent execution, failures, retries, stuck runs, versions."""

from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from analysis.models import AnalysisRun
from analysis.reports import ParamError
from analysis.selectors import annotations_since
from analysis.services import (
    RunBusy,
    TransientFault,
    analysis_run_create,
    analysis_run_execute,
    analysis_run_restart,
    analysis_runs_reap,
)
from annotation.services import annotation_submit, assignment_next
from tests.factories import ItemFactory, UserFactory, answer

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
                                     status=Status.RUNNING, deadline_at=timezone.now() + timedelta(minutes=2))
    with pytest.raises(RunBusy):
        analysis_run_execute(run_id=run.pk)
    # Once its deadline has passed, the run is taken over.
    AnalysisRun.objects.filter(pk=run.pk).update(deadline_at=timezone.now() - timedelta(seconds=1))
    assert analysis_run_execute(run_id=run.pk).status == Status.DONE


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
    with pytest.raises(ValueError, match="only failed runs"):
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


def test_stuck_runs_are_reaped(annotated_project):
    stuck = AnalysisRun.objects.create(project=annotated_project, kind="agreement", status=Status.RUNNING,
                                       deadline_at=timezone.now() - timedelta(seconds=1))
    alive = AnalysisRun.objects.create(project=annotated_project, kind="agreement", status=Status.RUNNING,
                                       deadline_at=timezone.now() + timedelta(minutes=5))
    assert analysis_runs_reap() == 1
    stuck.refresh_from_db()
    alive.refresh_from_db()
    assert stuck.status == Status.FAILED and "no progress" in stuck.error
    assert alive.status == Status.RUNNING


def test_bad_parameters_create_no_run(annotated_project):
    with pytest.raises(ParamError):
        analysis_run_create(project=annotated_project, kind="agreement", params={"curve_points": 1})
    assert not AnalysisRun.objects.exists()
