"""`manage.py serve` keeps a job worker beside the web server: started with it, started again
when it dies, stopped with it."""

import os
import signal
import sys
import time

import pytest

from annotation.management.commands.serve import Supervisor, worker_command


def wait_until(condition, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.integration
def test_a_killed_worker_is_started_again_and_stopped_with_the_server(tmp_path):
    stand_in = [sys.executable, "-c", "import time; print('worker up', flush=True); time.sleep(120)"]
    supervisor = Supervisor(stand_in, tmp_path / "worker.log", check_every=0.1)
    supervisor.start()
    try:
        first = supervisor.process
        assert wait_until(lambda: "worker up" in (tmp_path / "worker.log").read_text())
        os.kill(first.pid, signal.SIGKILL)
        assert wait_until(lambda: supervisor.process is not first and supervisor.process.poll() is None)
        assert supervisor.restarts == 1 and first.poll() == -signal.SIGKILL
    finally:
        supervisor.stop()
    assert supervisor.process.poll() is not None
    time.sleep(0.3)  # no restart after a deliberate stop
    assert supervisor.restarts == 1


def test_the_worker_takes_the_projects_queue_and_runs_the_scheduler(settings):
    command = worker_command(concurrency=2)
    assert command[command.index("-Q") + 1] == settings.CELERY_TASK_DEFAULT_QUEUE
    assert command[command.index("--concurrency") + 1] == "2" and "--beat" in command
    assert "--beat" not in worker_command(beat=False)
