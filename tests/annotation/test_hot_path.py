"""The annotator's hot path reads and writes with hand-written, prepared SQL: the rows it makes
and the instances it reads are the ORM's own, and token authentication fails as DRF's does."""

import uuid

import pytest
from django.conf import settings as django_settings
from django.core.cache import caches
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation import raw_sql
from annotation.cache import RedisCache
from annotation.models import Annotation, Assignment, Item, Project
from annotation.services import annotation_submit, assignment_next
from annotation.services.submission import _locked_read
from annotation.throttles import UserThrottle, _count
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.task_types.pairwise.factories import answer

pytestmark = pytest.mark.django_db


def field_values(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def read(model, pk):
    table = connection.ops.quote_name(model._meta.db_table)
    row = raw_sql.fetchone(f"SELECT {raw_sql.columns(model, 'x')} FROM {table} x WHERE x.id = %s", [pk])
    return raw_sql.instance(model, row, "x")


def test_instances_read_by_hand_equal_the_orms():
    project = ProjectFactory(options={"nested": {"list": [1, "two", None]}})
    item = ItemFactory(project=project, payload={"topic": "ü ✓", "arg1": {"id": "a", "text": "x"}, "n": [1.5]})
    worker = UserFactory()
    a = assignment_next(project=project, worker=worker).assignment
    done = annotation_submit(assignment=a, worker=worker, data=answer("a2"), client={"elapsed_ms": 1200})
    for model, pk in ((Project, project.pk), (Item, item.pk), (Assignment, a.pk), (Annotation, done.annotation.pk)):
        by_hand, orm = read(model, pk), model.objects.get(pk=pk)
        assert field_values(by_hand) == field_values(orm), model.__name__
        assert not by_hand._state.adding and by_hand._state.db == "default"


def test_the_locked_read_brings_item_project_answer_and_block_flag():
    project = ProjectFactory()
    ItemFactory(project=project)
    worker = UserFactory()
    a = assignment_next(project=project, worker=worker).assignment
    fresh, blocked = _locked_read(a.pk)
    assert fresh.item == a.item and fresh.item.payload == Item.objects.get(pk=a.item_id).payload
    assert fresh.project.options == project.options and blocked is False
    assert getattr(fresh, "annotation", None) is None
    stored = annotation_submit(assignment=a, worker=worker, data=answer()).annotation
    again, _ = _locked_read(a.pk)
    assert again.annotation == stored and field_values(again.annotation) == field_values(stored)
    with pytest.raises(Assignment.DoesNotExist):
        _locked_read(a.pk + 10_000)


def test_a_submit_writes_the_row_the_orm_writes():
    project = ProjectFactory(redundancy=2)
    ItemFactory(project=project)
    worker = UserFactory()
    a = assignment_next(project=project, worker=worker).assignment
    result = annotation_submit(assignment=a, worker=worker, data=answer("equal"), client={"elapsed_ms": 900, "ua": "x"})
    stored = Annotation.objects.get(pk=result.annotation.pk)
    assert field_values(stored) == field_values(result.annotation)
    assert stored.answer == {"label": "equal", "standpoint": "none"} and stored.version == 1
    assert stored.client == {"ua": "x"} and stored.seconds == pytest.approx(0.9) and stored.revised_at is None
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


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's")
def test_the_hot_path_statements_are_prepared_once_per_connection():
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(3, project=project)
    worker = UserFactory()
    for _ in range(3):
        a = assignment_next(project=project, worker=worker).assignment
        annotation_submit(assignment=a, worker=worker, data=answer())
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [s for (s,) in cursor.fetchall()]
    assert any("WITH picked AS" in s for s in prepared)  # the claim
    assert any("WITH moved AS" in s for s in prepared)  # the submit's write
    assert any("FOR UPDATE OF a" in s for s in prepared)  # the submit's locked read
    # Only the hot path's statements: the ORM's are neither prepared nor counted towards it.
    assert not any("annotation_project" in s and "FOR UPDATE" not in s and "WITH" not in s for s in prepared)
    assert connection.connection.prepare_threshold is None
    assert len(connection.connection._prepared._counts) == 0


@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's")
def test_nothing_is_prepared_when_turned_off(settings):
    settings.DATABASE_PREPARED = False
    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    worker = UserFactory()
    a = assignment_next(project=project, worker=worker).assignment
    annotation_submit(assignment=a, worker=worker, data=answer())
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_prepared_statements")
        assert cursor.fetchone() == (0,)


def test_hot_path_statements_are_seen_by_django_query_logging():
    from django.test.utils import CaptureQueriesContext

    project = ProjectFactory(redundancy=1)
    ItemFactory(project=project)
    worker = UserFactory()
    with CaptureQueriesContext(connection) as seen:
        a = assignment_next(project=project, worker=worker).assignment
        annotation_submit(assignment=a, worker=worker, data=answer())
    logged = " ".join(q["sql"] for q in seen.captured_queries)
    assert "annotation_annotation" in logged and "annotation_item" in logged


redis_only = pytest.mark.skipif(not django_settings.REDIS_URL, reason="the Redis cache needs REDIS_URL")


@redis_only
def test_the_redis_cache_reuses_one_client_and_behaves_as_djangos():
    cache = caches["default"]
    assert isinstance(cache, RedisCache)
    assert cache._cache.get_client("a", write=True) is cache._cache.get_client("b")
    cache.set("hot-path-value", {"n": [1, 2]}, 30)
    assert cache.get("hot-path-value") == {"n": [1, 2]}
    cache.set("hot-path-count", 5, 30)
    assert cache.incr("hot-path-count") == 6
    assert cache.add("hot-path-count", 1) is False
    cache.delete_many(["hot-path-value", "hot-path-count"])
    assert cache.get("hot-path-value") is None


@redis_only
def test_a_throttle_count_is_one_atomic_round_trip_that_expires():
    cache = caches["default"]
    key = f"hot-path-throttle-{uuid.uuid4().hex}"
    full = cache.make_and_validate_key(key)
    client = cache._cache.get_client(full, write=True)
    assert [_count(cache, key, 7) for _ in range(3)] == [1, 2, 3]
    assert 0 < client.ttl(full) <= 7
    # Redis forgot its scripts (a restart, SCRIPT FLUSH): the script is loaded again.
    client.script_flush()
    assert _count(cache, key, 7) == 4
    # A throttle counts in the backend itself, not through Django's proxy for it.
    assert UserThrottle().cache is cache


def test_a_throttle_count_on_the_embedded_cache(tmp_path):
    from django.core.cache.backends.filebased import FileBasedCache

    cache = FileBasedCache(str(tmp_path), {})
    assert [_count(cache, "k", 60) for _ in range(3)] == [1, 2, 3]
