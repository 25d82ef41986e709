"""The annotator's hot path, all of it the ORM's: the reads give the instances the ORM reads for
their keys, each request reads its rows once, the statements are prepared on PostgreSQL, token authentication
fails as DRF's does, and throttles count in one atomic step on Redis and on the embedded cache."""

import re
import uuid

import pytest
from django.conf import settings as django_settings
from django.core.cache import caches
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import (
    Annotation,
    Assignment,
    Item,
    Project,
    RefusedAnswer,
    Standing,
    WorkerProfile,
)
from annotation.services import annotation_submit, assignment_next
from annotation.services.engine import _claim, _profile_and_open
from annotation.services.submission import _locked_read
from annotation.throttles import UserThrottle, _count
from quality.models import WorkerStanding
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def field_values(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def same_as_orms(instance) -> None:
    """The instance equals, field by field, the one the ORM reads for its primary key."""
    orm = type(instance).objects.get(pk=instance.pk)
    assert field_values(instance) == field_values(orm), type(instance).__name__
    assert not instance._state.adding and instance._state.db == "default"


def test_the_locked_read_brings_item_project_answer_and_flags_as_the_orm_reads_them():
    project = ProjectFactory()
    ItemFactory(project=project, payload={"topic": "t", "n": [1, 2]})
    worker = UserFactory()
    a = assignment_next(project=project, worker=worker).assignment
    with transaction.atomic():
        fresh, blocked, refused, stopped = _locked_read(assignment_id=a.pk, project=None)
    for instance in (fresh, fresh.item, fresh.project):
        same_as_orms(instance)
    assert (blocked, refused, stopped) == (False, False, False) and getattr(fresh, "annotation", None) is None
    RefusedAnswer.objects.create(assignment=a, at=a.assigned_at, errors={"label": "x"})
    WorkerProfile.objects.filter(user=worker).update(blocked=True)
    WorkerStanding.objects.filter(project=project, worker=worker).update(state=Standing.SCREENED_OUT)
    _, blocked, refused, stopped = _locked_read(assignment_id=a.pk, project=project)
    assert (blocked, refused, stopped) == (True, True, True)
    WorkerStanding.objects.filter(project=project, worker=worker).update(state=Standing.ACTIVE)
    WorkerProfile.objects.filter(user=worker).update(blocked=False)
    stored = annotation_submit(assignment=a, worker=worker, data=answer()).annotation
    again, _, _, _ = _locked_read(assignment_id=a.pk, project=project)
    same_as_orms(again.annotation)
    assert again.annotation == stored and again.annotation.assignment is again
    # Only an assignment of the project named, when one is named.
    with pytest.raises(Assignment.DoesNotExist):
        _locked_read(assignment_id=a.pk, project=ProjectFactory())
    with pytest.raises(Assignment.DoesNotExist):
        _locked_read(assignment_id=a.pk + 10_000, project=None)


@pytest.mark.parametrize("order", list(Project.Order))
def test_the_profile_read_and_the_claim_give_the_orms_instances(order):
    """The claim, in every assignment order, takes one slot of an item this worker never had and
    returns it as it is stored."""
    project = ProjectFactory(redundancy=2, assignment_order=order)
    ItemFactory(project=project, payload={"topic": "ü ✓", "arg1": {"id": "a", "text": "x"}, "n": [1.5, None]},
                gold={"label": "a1"})
    worker = UserFactory()
    with transaction.atomic():
        # A worker without a profile gets one, and nothing open yet.
        assert _profile_and_open(project=project, worker=worker) == (False, None)
        claimed = _claim(project=project, worker=worker, now=project.created_at)
    same_as_orms(claimed)
    same_as_orms(claimed.item)
    assert claimed.item.n_active == 1 and claimed.project is project
    blocked, open_one = _profile_and_open(project=project, worker=worker)
    assert blocked is False and open_one.pk == claimed.pk and open_one.project is project
    same_as_orms(open_one)
    same_as_orms(open_one.item)


def test_a_submit_writes_the_row_the_orm_writes():
    project = ProjectFactory(redundancy=2)
    ItemFactory(project=project)
    worker = UserFactory()
    a = assignment_next(project=project, worker=worker).assignment
    result = annotation_submit(assignment=a, worker=worker, data=answer("equal"), client={"elapsed_ms": 900, "ua": "x"})
    stored = Annotation.objects.get(pk=result.annotation.pk)
    assert field_values(stored) == field_values(result.annotation)
    assert stored.answer == {"label": "equal", "standpoint": "none"} and stored.version == 1
    # The time is the server's (lease start to arrival); the client's claim is kept beside it.
    assert stored.client == {"ua": "x"} and stored.client_seconds == pytest.approx(0.9) and stored.revised_at is None
    assert stored.seconds == pytest.approx((stored.assignment.submitted_at - stored.assignment.assigned_at).total_seconds(),
                                           abs=0.001)
    a.refresh_from_db()
    assert a.status == Assignment.Status.SUBMITTED and a.submitted_at is not None
    assert Item.objects.get(pk=a.item_id).n_active == 1
    # Idempotent: the same answer again is the stored one, not a second row.
    again = annotation_submit(assignment=a, worker=worker, data=answer("a1"))
    assert not again.created and again.annotation.pk == stored.pk and Annotation.objects.count() == 1


def token_client(key: str) -> APIClient:
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return c


def test_token_authentication_accepts_and_refuses_as_drf_does():
    project = ProjectFactory(open_to_all=True)
    ItemFactory(project=project)
    worker = UserFactory(role="annotator")
    key = Token.objects.create(user=worker).key
    url = f"/api/projects/{project.slug}/assignments/next/"
    ok = token_client(key).post(url)
    assert ok.status_code == 200 and ok.json()["assignment"]["id"]
    # 403, not 401: session authentication comes first and names no WWW-Authenticate scheme.
    unknown = token_client("0" * 40).post(url)
    assert unknown.status_code == 403 and unknown.json() == {"detail": "Invalid token."}
    worker.is_active = False
    worker.save()
    inactive = token_client(key).post(url)
    assert inactive.status_code == 403 and inactive.json() == {"detail": "User inactive or deleted."}
    spaced = token_client(f"{key} extra").post(url)
    assert spaced.status_code == 403 and "should not contain spaces" in spaced.json()["detail"]


def statements_on(table: str, queries: list[dict]) -> list[str]:
    """The SELECT statements that read ``table`` (named after FROM or JOIN), not in a subquery
    (the ORM names a subquery's tables U0, U1, …: the claim asks whether the worker ever had
    the item without reading an assignment)."""
    reads = re.compile(rf'\b(FROM|JOIN) "?{table}"?(?! U\d)(?=[ ,)\n]|$)')
    return [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith("SELECT") and reads.search(q["sql"])]


def test_each_request_reads_the_assignment_once():
    project = ProjectFactory(open_to_all=True, redundancy=1)
    ItemFactory.create_batch(2, project=project)
    worker = UserFactory(role="annotator")
    client = token_client(Token.objects.create(user=worker).key)
    with CaptureQueriesContext(connection) as seen:
        nxt = client.post(f"/api/projects/{project.slug}/assignments/next/").json()
    # The worker's open assignment is looked for within the read of their profile (a
    # subquery), and read only when there is one; the claim opens a new one.
    assert len(statements_on(Assignment._meta.db_table, seen.captured_queries)) == 0
    # (This first request makes the profile before it reads it.)
    profile_reads = statements_on(WorkerProfile._meta.db_table, seen.captured_queries)
    assert '"annotation_assignment" U0' in profile_reads[-1]
    with CaptureQueriesContext(connection) as seen:
        done = client.post(f"/api/assignments/{nxt['assignment']['id']}/submit/?next=1", answer(), format="json")
    assert done.status_code == 201 and done.json()["next"]["assignment"]["id"] != nxt["assignment"]["id"]
    # The submit's locked read; the next assignment's look for an open one is the profile's.
    assert len(statements_on(Assignment._meta.db_table, seen.captured_queries)) == 1
    # The web page's submit too: the service reads the row, the view does not read it first.
    client.force_login(worker)
    page = client.post(f"/projects/{project.slug}/annotate/{done.json()['next']['assignment']['id']}/submit/",
                       {"label": "a1", "standpoint": "none", "reason": "A reason long enough to be accepted here."})
    assert page.status_code in (200, 302)
    with CaptureQueriesContext(connection) as seen:
        client.post(f"/projects/{project.slug}/annotate/{done.json()['next']['assignment']['id']}/submit/",
                    {"label": "a1", "standpoint": "none", "reason": "A reason long enough to be accepted here."})
    assert len(statements_on(Assignment._meta.db_table, seen.captured_queries)) == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's")
def test_the_loop_statements_are_prepared_once_per_connection():
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(8, project=project)
    worker = UserFactory()
    for _ in range(8):
        a = assignment_next(project=project, worker=worker).assignment
        annotation_submit(assignment=a, worker=worker, data=answer())
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [s for (s,) in cursor.fetchall()]
    # Each statement of the loop, once.
    assert any("NOT EXISTS" in s and "SKIP LOCKED" in s for s in prepared)  # the claim's pick
    assert any('FOR UPDATE OF "annotation_assignment"' in s for s in prepared)  # the locked read
    assert any(s.startswith('INSERT INTO "annotation_annotation"') for s in prepared)  # the ORM's insert
    assert len(prepared) == len(set(prepared))
    assert connection.connection.prepare_threshold == 5


def test_hot_path_statements_are_seen_by_django_query_logging():
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    worker = UserFactory()
    with CaptureQueriesContext(connection) as seen:
        a = assignment_next(project=project, worker=worker).assignment
        annotation_submit(assignment=a, worker=worker, data=answer())
    logged = " ".join(q["sql"] for q in seen.captured_queries)
    assert "annotation_annotation" in logged and "annotation_item" in logged and "NOT EXISTS" in logged


redis_only = pytest.mark.skipif(not django_settings.REDIS_URL, reason="the Redis cache needs REDIS_URL")


@redis_only
def test_the_redis_cache_is_django_redis_with_one_client_per_pool():
    from django_redis import get_redis_connection

    cache = caches["default"]
    assert get_redis_connection() is get_redis_connection()
    cache.set("hot-path-value", {"n": [1, 2]}, 30)
    assert cache.get("hot-path-value") == {"n": [1, 2]}
    cache.set("hot-path-count", 5, 30)
    assert cache.incr("hot-path-count") == 6
    assert cache.add("hot-path-count", 1) is False
    cache.delete_many(["hot-path-value", "hot-path-count"])
    assert cache.get("hot-path-value") is None


@redis_only
def test_a_throttle_count_is_one_atomic_round_trip_that_expires():
    from django_redis import get_redis_connection

    cache = caches["default"]
    key = f"hot-path-throttle-{uuid.uuid4().hex}"
    client = get_redis_connection()
    assert [_count(cache, key, 7) for _ in range(3)] == [1, 2, 3]
    assert 0 < client.ttl(cache.make_key(key)) <= 7
    # Redis forgot its scripts (a restart, SCRIPT FLUSH): the script is loaded again.
    client.script_flush()
    assert _count(cache, key, 7) == 4
    assert UserThrottle().cache is cache


def test_a_throttle_count_on_the_embedded_cache_is_one_transaction_that_expires(tmp_path, monkeypatch):
    import time

    from runtime.sqlite_cache import SQLiteCache

    cache = SQLiteCache(str(tmp_path), {})
    clock = [1_000_000.0]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    assert [_count(cache, "k", 60) for _ in range(3)] == [1, 2, 3]
    clock[0] += 59  # the count keeps the expiry of its first count
    assert _count(cache, "k", 60) == 4
    clock[0] += 1
    assert _count(cache, "k", 60) == 1


def test_the_embedded_cache_forgets_expired_counters_as_it_writes(tmp_path, monkeypatch):
    """A window's counters expire, and the embedded cache drops expired entries as it writes:
    what it holds stays the live windows' counters, however many windows have passed (a file
    cache kept every counter until it held 100,000, and listed them all on every write)."""
    import sqlite3
    import time

    from runtime.sqlite_cache import SQLiteCache

    cache = SQLiteCache(str(tmp_path), {})
    clock = [1_000_000.0]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    for window in range(200):
        for user in range(50):  # 50 annotators, each counted once or twice per window
            _count(cache, f"throttle_user_{user}:{window}", 61)
            _count(cache, f"throttle_user_{user}:{window}", 61)
        clock[0] += 60
    # 10,000 counters were written; the cache holds about one window's worth (the expired ones
    # of the last windows wait for the next writes).
    with sqlite3.connect(cache.path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM cache_entry").fetchone()[0] <= 50 * 3
