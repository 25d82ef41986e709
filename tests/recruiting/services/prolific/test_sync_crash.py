"""A process syncing a Prolific study is killed (SIGKILL) halfway through the submissions; the
job's next attempt (as the scheduler sends a job whose worker died) finishes the sync, and every
effect happens once: each submission recorded once, a returned participant's slot freed once,
a screen-out sent once."""

import subprocess
import sys
import time

import pytest
from django.test import override_settings

from annotation.models import Assignment
from annotation.services import assignment_next
from jobs.models import JobStatus
from recruiting.models import ProlificSubmission, ProlificSyncJob
from recruiting.services.prolific.sync import prolific_sync_job_execute
from tests.recruiting.prolific_helpers import linked_project
from tests.support.fake_prolific_submissions import participant_join, participant_set
from tests.support.runtime import ROOT

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
BEATS = {"JOB_HEARTBEAT_SECONDS": "0.2", "JOB_DEAD_SECONDS": "1"}


@override_settings(JOB_HEARTBEAT_SECONDS=0.2, JOB_DEAD_SECONDS=1)
def test_a_sync_killed_halfway_is_finished_by_its_next_attempt_once(worker_processes, fake_prolific):
    from recruiting.services.marketplace import worker_from_marketplace

    project = linked_project(items=3)
    study = project.prolific_study
    sids = []
    for n in range(6):
        pid = f"pid-{n}"
        sids.append(participant_join(fake_prolific, study_id=study.study_id, participant_id=pid))
        worker = worker_from_marketplace(project=project, source="prolific", external_id=pid)
        if n == 4:  # the one who returns holds an item
            held = assignment_next(project=project, worker=worker).assignment
    participant_set(fake_prolific, sids[4], "RETURNED")
    job = ProlificSyncJob.objects.create(study=study)  # queued; no worker of the session's takes it

    env = {**worker_processes.env, **BEATS, "PROLIFIC_API_URL": fake_prolific.url,
           "PROLIFIC_API_TOKEN": fake_prolific.token}
    done = subprocess.run([sys.executable, "-m", "tests.support.prolific_sync_crash", str(job.pk), "3"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == -9, done.stderr[-2000:]
    assert ProlificSubmission.objects.filter(study=study).count() == 3  # applied before the kill, kept
    assert ProlificSyncJob.objects.get(pk=job.pk).status == JobStatus.RUNNING
    time.sleep(1.5)  # its heartbeat goes stale: the job's worker is dead

    prolific_sync_job_execute(job_id=job.pk)  # the next attempt
    job.refresh_from_db()
    assert job.status == JobStatus.DONE, job.error
    records = ProlificSubmission.objects.filter(study=study)
    assert sorted(records.values_list("submission_id", flat=True)) == sorted(sids)
    returned = records.get(submission_id=sids[4])
    assert returned.status == "RETURNED" and returned.freed_assignments == 1
    held.refresh_from_db()
    assert held.status == "returned" and Assignment.objects.filter(item=held.item, status="assigned").count() == 0

    # Syncing again changes nothing.
    freed_at = returned.freed_at
    prolific_sync_job_execute(job_id=ProlificSyncJob.objects.create(study=study).pk)
    returned.refresh_from_db()
    assert returned.freed_at == freed_at and records.count() == 6
