"""Celery jobs of the crowd workflow, in-process and on a real worker."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import Assignment
from annotation.services import assignment_next
from annotation.tasks import expire_leases
from task_types.pairwise.tests.factories import items_file
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.support.waiting import wait_for


def overdue_assignment():
    project = ProjectFactory(lease_minutes=5)
    ItemFactory(project=project)
    a = assignment_next(project=project, worker=UserFactory()).assignment
    past = timezone.now() - timedelta(minutes=10)
    Assignment.objects.filter(pk=a.pk).update(assigned_at=past - timedelta(minutes=5), expires_at=past)
    return a


@pytest.mark.django_db
def test_expire_leases_job_in_process():
    a = overdue_assignment()
    assert expire_leases.apply().get() == 1
    a.refresh_from_db()
    assert a.status == Assignment.Status.EXPIRED and a.item.n_active == 0


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_expire_leases_job_on_a_real_worker(celery_worker_process):
    a = overdue_assignment()
    expire_leases.delay()
    wait_for(a, lambda x: x.status == Assignment.Status.EXPIRED)
    a.item.refresh_from_db()
    assert a.status == Assignment.Status.EXPIRED and a.item.n_active == 0


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_an_import_job_on_a_real_worker(celery_worker_process, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from annotation.models import ImportJob, Item
    from annotation.services.imports import import_upload

    settings.IMPORT_INLINE_MAX_BYTES = 1024
    project = ProjectFactory()
    job = import_upload(project=project, kind="items", upload=SimpleUploadedFile("items.csv", items_file(3000)),
                        options={}, user=None).job
    # The worker deletes the stored upload just after it marks the job finished.
    job = wait_for(job, lambda j: j.is_finished and j.stored_name == "", timeout=120)
    assert job.status == ImportJob.Status.DONE, job.error
    assert job.result["created"] == 3000 and Item.objects.filter(project=project).count() == 3000


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_an_import_cancelled_while_it_writes_leaves_nothing(celery_worker_process, settings):
    """On SQLite the import's writes hold the database's write lock; the cancel still reaches
    the attempt (through the cache) and the import rolls back at once."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from annotation.models import ImportJob, Item
    from annotation.services.imports import import_job_cancel, import_upload
    from jobs.selectors import live_state

    settings.IMPORT_INLINE_MAX_BYTES = 1024
    project = ProjectFactory()
    job = import_upload(project=project, kind="items", upload=SimpleUploadedFile("items.csv", items_file(150_000)),
                        options={}, user=None).job
    job = wait_for(job, lambda j: j.is_finished or live_state(job=j).stage == "writing items", timeout=180, step=0.05)
    assert live_state(job=job).stage == "writing items", (job.status, live_state(job=job))
    asked = time.monotonic()
    job = import_job_cancel(job=job)
    assert job.status == ImportJob.Status.CANCELLED and time.monotonic() - asked < 15
    time.sleep(2)  # what the attempt would have written meanwhile
    job.refresh_from_db()
    assert job.status == ImportJob.Status.CANCELLED and job.result is None
    assert not Item.objects.filter(project=project).exists()
