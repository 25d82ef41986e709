"""What every job's Celery task shares: queueing by name; retries of busy and transient jobs,
then giving up."""

import pytest

from tests.factories import ProjectFactory


class FakeTask:
    """What run_as_task uses of a bound Celery task."""

    max_retries = 3

    def __init__(self, retries: int) -> None:
        self.request = type("Request", (), {"retries": retries})()
        self.retried: list[dict] = []

    def retry(self, **kwargs):
        self.retried.append(kwargs)
        return RuntimeError("retry")


@pytest.mark.django_db
def test_a_job_task_retries_busy_and_transient_jobs_then_gives_up():
    from annotation.models import ImportJob
    from jobs.services import JobBusy, TransientFault
    from jobs.tasks import run_as_task

    def busy():
        raise JobBusy(12.0)

    def flaky():
        raise TransientFault("server closed the connection")

    task = FakeTask(retries=0)
    with pytest.raises(RuntimeError):
        run_as_task(task, busy, model=ImportJob, pk=1)
    assert task.retried == [{"countdown": 12.0, "max_retries": None}]
    task = FakeTask(retries=2)
    with pytest.raises(RuntimeError):
        run_as_task(task, flaky, model=ImportJob, pk=1)
    assert task.retried == [{"countdown": 4}]

    project = ProjectFactory()
    job = ImportJob.objects.create(project=project, kind="items", filename="x.csv", size=1)
    assert run_as_task(FakeTask(retries=3), flaky, model=ImportJob, pk=job.pk) == "failed"
    job.refresh_from_db()
    assert job.status == "failed" and "gave up after 3 retries: server closed" in job.error


def test_services_queue_a_task_by_its_name_and_an_unknown_name_lists_the_known_ones(monkeypatch):
    from annotation import tasks
    from jobs.tasks import task_send

    sent = []
    monkeypatch.setattr(tasks.refresh_tally, "delay", lambda *args: sent.append(args))
    task_send("annotation.refresh_tally", 7)
    assert sent == [(7,)]
    with pytest.raises(KeyError, match=r"'no\.such\.task'; known: .*annotation\.import"):
        task_send("no.such.task")
