"""Staff pages of large projects: the worker table and the answers per hour come from a tally a
job counts; the admin's long lists count up to a limit."""

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from analysis.selectors import annotations_per_hour
from annotation.admin.paging import LargeTablePaginator
from annotation.models import Annotation, Assignment, WorkerProfile
from annotation.selectors.staff import WORKER_SORTS, worker_table
from annotation.selectors.tallies import project_is_large, tally_key
from annotation.services.tallies import tally_refresh
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
S = Assignment.Status


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def queued(monkeypatch):
    """The projects whose tally refresh was queued (the job itself is not run)."""
    from annotation import tasks

    calls = []
    monkeypatch.setattr(tasks.refresh_tally, "delay", lambda project_id: calls.append(project_id))
    return calls


def busy_project():
    project = ProjectFactory(redundancy=3)
    items = ItemFactory.create_batch(4, project=project)
    workers = [UserFactory(username=name) for name in ("ann", "bob", "cy", "dee")]
    WorkerProfile.objects.filter(user=workers[3]).update(source="prolific", external_id="PRO-77")
    start = timezone.now() - timedelta(hours=5)
    statuses = [S.SUBMITTED, S.APPROVED, S.EXPIRED, S.REJECTED, S.RETURNED, S.ASSIGNED]
    n = 0
    for w_index, worker in enumerate(workers):
        for i_index, item in enumerate(items[: w_index + 1]):
            status = statuses[(w_index + i_index) % len(statuses)]
            if status in Assignment.SLOT_STATUSES and item.assignments.filter(status__in=Assignment.SLOT_STATUSES).count() >= 3:
                status = S.EXPIRED
            when = start + timedelta(minutes=37 * n)
            a = AssignmentFactory(item=item, worker=worker, status=status, assigned_at=when - timedelta(minutes=1),
                                  submitted_at=when if status in (S.SUBMITTED, S.APPROVED, S.REJECTED) else None)
            if a.submitted_at:
                Annotation.objects.create(assignment=a, answer={"label": "a1", "standpoint": "none"}, reason="r" * 30,
                                          seconds=float(3 + n))
            n += 1
    return project


def table(project, **kw):
    page = worker_table(project=project, **kw)
    return [(r.username, r.submitted, r.open, r.expired, r.returned, r.rejected, r.median_seconds, r.last_at)
            for r in page.rows], page


def test_the_tally_gives_the_table_the_live_counts_give(settings, queued):
    project = busy_project()
    settings.STAFF_LIVE_ASSIGNMENTS = 1
    rows, page = table(project, large=True)
    assert page.pending and rows == [] and queued == [project.pk]
    table(project, large=True)
    assert queued == [project.pk]  # one refresh queued, however many pages ask
    tally_refresh(project_id=project.pk)
    for sort in [*WORKER_SORTS, *(f"-{key}" for key in WORKER_SORTS)]:
        for search in ("", "b", "PRO-7"):
            live, _ = table(project, sort=sort, search=search)
            tallied, page = table(project, sort=sort, search=search, large=True)
            assert tallied == live, (sort, search)
            assert not page.pending and page.counted_at is not None
    assert table(project, search="PRO-7", large=True)[0][0][0] == "dee"


def test_a_stale_tally_is_shown_while_a_new_one_is_counted(settings, queued):
    project = busy_project()
    settings.STAFF_LIVE_ASSIGNMENTS = 1
    settings.STAFF_TALLY_SECONDS = 0
    tally_refresh(project_id=project.pk)
    assert table(project, large=True)[1].counted_at is not None
    assert queued == [project.pk]


def test_the_overview_of_a_large_project_says_where_its_counts_come_from(settings, queued, client):
    project = busy_project()
    client.force_login(UserFactory(role="admin"))
    url = f"/projects/{project.slug}/overview/"
    assert b"tally-pending" not in client.get(url).content  # small: counted live
    settings.STAFF_LIVE_ASSIGNMENTS = 1
    pending = client.get(url).content
    # While counting, no worker count or empty table that would read as "nobody worked".
    assert b"tally-pending" in pending and b'data-testid="worker-count"' not in pending
    tally_refresh(project_id=project.pk)
    body = client.get(url).content.decode()
    assert 'data-testid="tally-time"' in body and "bob" in body and "dee" in body


def test_answers_per_hour_of_a_large_project_come_from_its_tally(settings, queued):
    project = busy_project()
    live = annotations_per_hour(project=project)
    assert sum(n for _, n in live) == Assignment.objects.filter(
        project=project, status__in=Assignment.COUNTED_STATUSES).count() > 0
    settings.STAFF_LIVE_ASSIGNMENTS = 1
    assert project_is_large(project=project)
    assert annotations_per_hour(project=project) == []  # counting
    tally_refresh(project_id=project.pk)
    assert annotations_per_hour(project=project) == live


def test_the_refresh_job_counts_into_the_cache(settings):
    from annotation.tasks import refresh_tally

    project = busy_project()
    assert refresh_tally(project.pk) == 4
    assert cache.get(tally_key(project_id=project.pk)).workers
    assert refresh_tally(10**9) == 0  # a project deleted meanwhile


def test_long_admin_lists_count_up_to_a_limit(monkeypatch, client):
    from annotation.admin import paging as admin_paging

    project = ProjectFactory(redundancy=10)
    item = ItemFactory(project=project)
    for _ in range(6):
        AssignmentFactory(item=item, status=S.EXPIRED)
    rows = Assignment.objects.filter(project=project).order_by("-id")
    assert LargeTablePaginator(rows, 2).count == 6
    monkeypatch.setattr(admin_paging, "EXACT_COUNT_LIMIT", 3)
    counted = LargeTablePaginator(rows, 2).count
    assert counted >= 4  # the limit passed: the planner's estimate (PostgreSQL) or the limit
    client.force_login(UserFactory(role="admin", is_staff=True, is_superuser=True))
    for url in (f"/admin/annotation/assignment/?project__id__exact={project.pk}",
                f"/admin/annotation/annotation/?assignment__project__id__exact={project.pk}",
                f"/admin/annotation/item/?project__id__exact={project.pk}"):
        assert client.get(url).status_code == 200, url
