"""An analysis run end to end on a real Celery worker."""

import time

import pytest

from analysis.models import AnalysisRun
from analysis.services import analysis_run_create

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_run_on_a_real_worker(celery_worker_process, annotated_project):
    run = analysis_run_create(project=annotated_project, kind="agreement", params={"n_boot": 20})
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.is_finished:
            break
        time.sleep(0.2)
    assert run.status == AnalysisRun.Status.DONE, run.error
    assert run.attempts == 1 and run.annotations_seen == 18
    assert run.result["figures"]["n_workers"] == 4
