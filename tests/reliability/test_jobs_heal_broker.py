"""Queueing a job while the broker (Redis) is away: the request answers 503 with Retry-After
within seconds (the enqueue path raises ServiceUnavailable), never a 500, and the job's row stays, failed with the reason, ready to be restarted once the
broker is back. The broker is a redis-server of the test's own on a free port."""

from __future__ import annotations

import socket
import subprocess
import time

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from analysis.models import AnalysisRun
from tests.factories import ProjectFactory, UserFactory
from tests.reliability.outage_servers import require_redis_server

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]
Status = AnalysisRun.Status


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class OwnRedis:
    """A redis-server of this test's own, which it stops and starts again."""

    def __init__(self, tmp_path) -> None:
        self.port, self.dir = free_port(), tmp_path
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.dir)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)

    def size(self) -> int:
        import redis

        return int(redis.Redis(port=self.port).dbsize())


@pytest.fixture
def broker(tmp_path, monkeypatch):
    """Analysis runs are sent to the test's own Redis, through a real Celery producer."""
    require_redis_server()
    from analysis import tasks
    from config.celery import app

    own = OwnRedis(tmp_path)
    own.start()
    url = f"redis://127.0.0.1:{own.port}/0"

    def delay(*args):
        with app.connection_for_write(url) as connection:
            return tasks.run_analysis.apply_async(args, connection=connection)

    monkeypatch.setattr(tasks.run_analysis, "delay", delay)
    # Really sent, not run in the test (which the suite does for tests without a worker).
    before, app.conf.task_always_eager = app.conf.task_always_eager, False
    yield own
    app.conf.task_always_eager = before
    own.stop()


def test_queueing_while_the_broker_is_away_answers_unavailable_and_keeps_the_job(broker):
    project = ProjectFactory()
    api = APIClient()
    api.force_authenticate(UserFactory(role="admin"))
    create = reverse("api-analysis-create", args=[project.slug])

    assert api.post(create, {"kind": "agreement"}, format="json").status_code == 201
    first = AnalysisRun.objects.get()
    assert first.status == Status.QUEUED and broker.size() > 0  # the message reached Redis

    broker.stop()
    started = time.monotonic()
    response = api.post(create, {"kind": "agreement"}, format="json")
    waited = time.monotonic() - started
    assert waited < 20, f"the request hung {waited:.1f} s on the broker"
    assert response.status_code == 503 and int(response["Retry-After"]) > 0
    assert "The job queue could not be reached" in response.json()["detail"]
    second = AnalysisRun.objects.exclude(pk=first.pk).get()
    assert second.status == Status.FAILED and second.error.startswith("The job queue could not be reached (")
    assert "restart the job once the broker is back" in second.error
    assert AnalysisRun.objects.get(pk=first.pk).status == Status.QUEUED  # nothing else touched

    broker.start()
    response = api.post(reverse("api-analysis-restart", args=[second.pk]))
    assert response.status_code == 200 and response.json()["status"] == "queued"
    assert broker.size() > 0
