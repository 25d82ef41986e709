"""What every job's Celery task shares: queueing by name; retries of busy and transient jobs,
then giving up."""

import time

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
def test_a_job_task_retries_busy_and_transient_jobs_then_leaves_them_to_the_scheduler():
    from django.db import OperationalError

    from annotation.models import ImportJob
    from jobs.services import JobBusy, TransientFault
    from jobs.tasks import RETRY_WAIT_MAX, TRANSIENT_RETRIES, run_as_task

    def busy():
        raise JobBusy(12.0)

    def flaky():
        raise TransientFault("server closed the connection")

    def unreachable():
        # The database is away before an attempt could even be claimed.
        raise OperationalError("connection refused")

    task = FakeTask(retries=0)
    with pytest.raises(RuntimeError):
        run_as_task(task, busy, model=ImportJob, pk=1)
    # A busy job is looked at again for as long as its holder lives: each retry is allowed.
    assert task.retried == [{"countdown": 12.0, "max_retries": 1}]
    task = FakeTask(retries=40)
    with pytest.raises(RuntimeError):
        run_as_task(task, busy, model=ImportJob, pk=1)
    assert task.retried == [{"countdown": 12.0, "max_retries": 41}]
    task = FakeTask(retries=2)
    with pytest.raises(RuntimeError):
        run_as_task(task, flaky, model=ImportJob, pk=1)
    assert task.retried == [{"countdown": 4, "max_retries": TRANSIENT_RETRIES}]
    task = FakeTask(retries=9)
    with pytest.raises(RuntimeError):
        run_as_task(task, unreachable, model=ImportJob, pk=1)
    assert task.retried == [{"countdown": RETRY_WAIT_MAX, "max_retries": TRANSIENT_RETRIES}]

    # Past its retries the task drops the message and writes nothing: the job stays as the
    # attempt left it, queued, and the scheduler sends it again (jobs.services.jobs_resend).
    project = ProjectFactory()
    job = ImportJob.objects.create(project=project, kind="items", filename="x.csv", size=1)
    assert run_as_task(FakeTask(retries=TRANSIENT_RETRIES), flaky, model=ImportJob, pk=job.pk) == "left to the scheduler"
    job.refresh_from_db()
    assert job.status == "queued"


def test_services_queue_a_task_by_its_name_and_an_unknown_name_lists_the_known_ones(monkeypatch):
    from annotation import tasks
    from jobs.tasks import task_send

    sent = []
    monkeypatch.setattr(tasks.refresh_tally, "delay", lambda *args: sent.append(args))
    task_send("annotation.refresh_tally", 7)
    assert sent == [(7,)]
    with pytest.raises(KeyError, match=r"'no\.such\.task'; known: .*annotation\.import"):
        task_send("no.such.task")


def test_first_sends_from_many_threads_discover_the_tasks_once(monkeypatch):
    """A web process's threads that send their first job at the same moment: one discovers the
    tasks modules, the others wait for it and find the task (none gives up and answers 503)."""
    import threading
    import time

    from celery import current_app

    from jobs.tasks import task_send

    name = "annotation.refresh_tally"
    task = current_app.tasks[name]  # the task itself, not the module's proxy that looks it up by name
    sent, discoveries = [], []

    def slow_discovery(*args, **kwargs):
        discoveries.append(1)
        time.sleep(0.05)  # the imports take a while; meanwhile the other threads look
        current_app.tasks.register(task)

    monkeypatch.setattr(task, "delay", lambda *args: sent.append(args))
    monkeypatch.setattr(current_app, "autodiscover_tasks", slow_discovery)
    current_app.tasks.pop(name)
    try:
        threads = [threading.Thread(target=task_send, args=(name, n)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        current_app.tasks.register(task)
    assert sorted(sent) == [(n,) for n in range(8)]
    assert len(discoveries) == 1


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_second_message_keeps_retrying_while_a_live_worker_holds_the_job_then_runs_it(
        worker_processes, own_queue, annotated_project, settings):
    """Two real workers: one runs a job; a second message for the same job (a redelivery, a
    resend) meets it busy and retries past the task's own limit of 3 retries, for as long as
    the holder lives. Once the holder is killed, that message runs the job: no scheduler sends it
    again (nothing here calls jobs_heal)."""
    from analysis.models import AnalysisRun
    from analysis.reports import _REPORTS, register
    from analysis.services import RUN_TASK, analysis_run_create
    from jobs.queue import task_send
    from tests.support.slow_report import SlowReport
    from tests.support.waiting import wait_for

    beats = {"JOB_HEARTBEAT_SECONDS": "0.5", "JOB_DEAD_SECONDS": "3", "JOB_MAX_ATTEMPTS": "3"}
    settings.JOB_HEARTBEAT_SECONDS, settings.JOB_DEAD_SECONDS, settings.JOB_MAX_ATTEMPTS = 0.5, 3, 3
    register(SlowReport)
    try:
        start = {"extra_env": beats, "include": "tests.support.slow_report", "queue": own_queue}
        holder = worker_processes.start(**start)
        run = analysis_run_create(project=annotated_project, kind=SlowReport.kind, params={"seconds": 120})
        wait_for(run, lambda r: r.status == AnalysisRun.Status.RUNNING, timeout=60, step=0.25)
        log = worker_processes.log_dir / f"worker-{len(worker_processes.started)}.log"
        worker_processes.start(**start)
        task_send(RUN_TASK, run.pk)

        def retries() -> int:
            return log.read_text().count("retry: Retry in")

        deadline = time.monotonic() + 90
        while retries() < 5:  # more than the task's max_retries=3
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            assert "MaxRetriesExceeded" not in log.read_text(), "the second message was dropped"
            time.sleep(0.5)
        assert AnalysisRun.objects.get(pk=run.pk).status == AnalysisRun.Status.RUNNING
        # The holder dies; its run's second attempt only needs to be short.
        holder.kill()
        holder.wait(timeout=20)
        AnalysisRun.objects.filter(pk=run.pk).update(params={"seconds": 0.2})
        run = wait_for(run, lambda r: r.is_finished, timeout=90, step=0.5)
        assert run.status == AnalysisRun.Status.DONE and run.attempts == 2 and run.sends == 0, run.error
        assert "MaxRetriesExceeded" not in log.read_text()
    finally:
        _REPORTS.pop(SlowReport.kind, None)
