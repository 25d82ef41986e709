"""One attempt's lifecycle, as every kind of job runs it (``job_execute``): the outcome and the
job's own writes commit together or not at all, explained and unexpected failures, transient
faults, cancelling, and the cleanup of what a job keeps."""

import inspect
import uuid

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import OperationalError

from analysis.models import AnalysisRun, RunPart
from annotation.models import ImportJob
from jobs import services
from jobs.services import (
    JobFailed,
    JobOutcome,
    TransientFault,
    job_cancel,
    job_execute,
    job_upload_forget,
)
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db
Status = AnalysisRun.Status


@pytest.fixture
def run():
    return AnalysisRun.objects.create(project=ProjectFactory(), kind="agreement")


def execute(run, work, **kwargs):
    return job_execute(model=AnalysisRun, pk=run.pk, work=work, **kwargs)


def write_a_part(job, more):
    def write():
        RunPart.objects.create(run=job, name="p", key="k", position=0)
        return more

    return write


def test_the_outcome_and_the_jobs_own_writes_commit_together(run):
    def work(job, attempt):
        attempt.progress(0.5, "halfway")
        return JobOutcome(fields={"result": {"n": 1}}, write=write_a_part(job, {"annotations_seen": 3}))

    done = execute(run, work)
    assert done.status == Status.DONE and done.progress == 1.0 and done.attempts == 1
    assert done.result == {"n": 1} and done.annotations_seen == 3
    assert RunPart.objects.filter(run=run).count() == 1
    assert execute(run, work) is None  # a second delivery does nothing


def test_the_writes_of_an_attempt_given_up_meanwhile_are_rolled_back(run):
    def work(job, attempt):
        # Restarted elsewhere while this attempt computed: its token is no longer the job's.
        AnalysisRun.objects.filter(pk=job.pk).update(token=uuid.uuid4())
        return JobOutcome(fields={"result": {"n": 1}}, write=write_a_part(job, {}))

    after = execute(run, work)
    assert after.status == Status.RUNNING and after.result is None
    assert not RunPart.objects.exists()


def test_a_cancelled_attempt_stops_and_stores_nothing(run):
    def work(job, attempt):
        job_cancel(job=job, by="ada")
        attempt.progress(0.5, "computing")
        raise AssertionError("the attempt should have stopped at its progress report")

    after = execute(run, work)
    assert after.status == Status.CANCELLED and after.error == "Cancelled by ada." and after.result is None


def test_explained_and_unexpected_failures(run):
    def refused(job, attempt):
        raise JobFailed("Nothing was imported: 2 problems in the file.", annotations_seen=0)

    after = execute(run, refused, failure="Never shown: ")
    assert after.status == Status.FAILED and after.error == "Nothing was imported: 2 problems in the file."
    assert after.annotations_seen == 0

    second = AnalysisRun.objects.create(project=run.project, kind="agreement")

    def broken(job, attempt):
        raise KeyError("label")

    after = execute(second, broken, failure="The run could not finish: ")
    assert after.status == Status.FAILED and after.error == "The run could not finish: KeyError: 'label'"


def test_a_transient_fault_requeues_the_job_and_keeps_what_it_needs(run):
    cleaned = []

    def gone(job, attempt):
        raise OperationalError("server closed the connection unexpectedly")

    with pytest.raises(TransientFault, match="server closed"):
        execute(run, gone, cleanup=cleaned.append)
    run.refresh_from_db()
    assert run.status == Status.QUEUED and "Attempt 1 of 3 ended: OperationalError: server closed" in run.error
    assert cleaned == []  # the next attempt needs what the job keeps

    done = execute(run, lambda job, attempt: JobOutcome(), cleanup=cleaned.append)
    assert done.status == Status.DONE and [j.pk for j in cleaned] == [run.pk]
    assert execute(run, lambda job, attempt: JobOutcome(), cleanup=cleaned.append) is None
    assert [j.pk for j in cleaned] == [run.pk, run.pk]  # a finished job is tidied again, harmlessly


def test_a_stored_upload_is_deleted_and_forgotten_once():
    name = default_storage.save(f"imports/{uuid.uuid4().hex}", ContentFile(b"id,text\n"))
    job = ImportJob.objects.create(project=ProjectFactory(), kind="items", filename="x.csv", size=8,
                                   stored_name=name)
    job_upload_forget(job=job)
    assert job.stored_name == "" and not default_storage.exists(name)
    assert ImportJob.objects.get(pk=job.pk).stored_name == ""
    job_upload_forget(job=job)  # nothing left to delete


def test_every_public_function_of_the_services_is_keyword_only():
    from jobs import healing

    functions = [f for module in (services, healing) for name, f in inspect.getmembers(module, inspect.isfunction)
                 if f.__module__ == module.__name__ and not name.startswith("_")]
    assert len(functions) >= 14
    for function in functions:
        positional = [p.name for p in inspect.signature(function).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        assert positional == [], f"{function.__name__} takes {positional} by position"
