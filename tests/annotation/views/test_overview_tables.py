"""The staff overview at size: paged and searchable worker table, item table with texts and
votes, counts-only refresh, and a fixed number of queries whatever the project's size."""

import statistics

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotation.models import Annotation, Assignment, WorkerProfile
from annotation.selectors.progress import project_progress
from annotation.selectors.staff import item_table, worker_table
from annotation.task_types import get_task_type
from annotation.task_types.base import shorten
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
S = Assignment.Status


def answered(item, worker, label="a1", seconds=10.0, status=S.SUBMITTED, when=None):
    when = when or timezone.now()
    a = AssignmentFactory(item=item, worker=worker, status=status, assigned_at=when - timezone.timedelta(minutes=5),
                          submitted_at=when)
    Annotation.objects.create(assignment=a, answer={"label": label, "standpoint": "none"}, reason="r" * 30, seconds=seconds)
    return a


@pytest.fixture
def project():
    return ProjectFactory(redundancy=3)


@pytest.fixture
def staff_client(client):
    client.force_login(UserFactory(role="admin"))
    return client


def test_worker_rows_count_statuses_and_take_the_median_time(project):
    items = ItemFactory.create_batch(6, project=project)
    even, odd = UserFactory(username="even"), UserFactory(username="odd")
    for item, s in zip(items, [4.0, 1.0, 9.0, 100.0], strict=False):
        answered(item, even, seconds=s)
    for item, s in zip(items, [3.0, 50.0, 7.0], strict=False):
        answered(item, odd, seconds=s)
    answered(items[4], odd, status=S.REJECTED, seconds=1000.0)  # rejected work is not timed
    AssignmentFactory(item=items[5], worker=odd, status=S.ASSIGNED)
    AssignmentFactory(item=items[5], worker=even, status=S.EXPIRED)
    rows = {r.username: r for r in worker_table(project=project).rows}
    assert rows["even"].median_seconds == statistics.median([4.0, 1.0, 9.0, 100.0]) == 6.5
    assert rows["odd"].median_seconds == 7.0
    assert (rows["odd"].submitted, rows["odd"].rejected, rows["odd"].open) == (3, 1, 1)
    assert (rows["even"].submitted, rows["even"].expired) == (4, 1)
    assert [r.username for r in worker_table(project=project).rows] == ["even", "odd"]  # most submitted first
    assert [r.username for r in worker_table(project=project, sort="-rejected").rows][0] == "odd"
    assert [r.username for r in worker_table(project=project, sort="worker").rows] == ["even", "odd"]
    assert [r.username for r in worker_table(project=project, sort="-worker").rows] == ["odd", "even"]
    assert worker_table(project=project, sort="nonsense").rows[0].username == "even"


def test_worker_table_pages_and_searches_names_and_marketplace_ids(project):
    item = ItemFactory(project=project)
    for n in range(7):
        user = UserFactory(username=f"crowd{n}")
        WorkerProfile.objects.filter(user=user).update(source="prolific", external_id=f"PID{n:03d}X")
        answered(item if n < 3 else ItemFactory(project=project), user)
    first = worker_table(project=project, sort="worker", per_page=3)
    assert first.page.paginator.count == 7 and first.page.paginator.num_pages == 3
    assert [r.username for r in first.rows] == ["crowd0", "crowd1", "crowd2"]
    assert [r.username for r in worker_table(project=project, sort="worker", page=3, per_page=3).rows] == ["crowd6"]
    by_id = worker_table(project=project, search="pid004")
    assert [(r.username, r.source, r.external_id) for r in by_id.rows] == [("crowd4", "prolific", "PID004X")]
    assert [r.username for r in worker_table(project=project, search="CROWD5").rows] == ["crowd5"]
    assert worker_table(project=project, search="nobody").page.paginator.count == 0


def test_paging_links_keep_the_search_and_the_other_table(staff_client, project):
    item = ItemFactory(project=project)
    for n in range(60):
        answered(item if n < 3 else ItemFactory(project=project), UserFactory(username=f"match{n:02d}"))
    answered(ItemFactory(project=project), UserFactory(username="other"))
    url = reverse("overview", args=[project.slug])
    response = staff_client.get(url, {"wq": "match", "istate": "complete", "wsort": "worker"})
    body = response.content.decode()
    assert response.context["workers"].page.paginator.count == 60
    assert "60 workers match “match”." in body
    assert "?wq=match&amp;istate=complete&amp;wsort=worker&amp;wpage=2#workers" in body
    second = staff_client.get(url, {"wq": "match", "wsort": "worker", "wpage": "2"})
    assert [r.username for r in second.context["workers"].rows] == [f"match{n}" for n in range(50, 60)]
    # The item form carries the worker search along, and the other way round.
    assert '<input type="hidden" name="wq" value="match">' in second.content.decode()
    assert '<input type="hidden" name="wpage" value="2">' in second.content.decode()


def test_item_rows_show_the_text_and_the_votes(project):
    item = ItemFactory(project=project, payload={
        "topic": "t", "prompt": "p", "stance": "s",
        "arg1": {"id": "x", "text": "Uniforms <b>save</b> money for families with many children, every single year."},
        "arg2": {"id": "y", "text": "Bullying drops."},
    })
    for label in ("a2", "a1", "a2"):
        answered(item, UserFactory(), label=label)
    answered(item, UserFactory(), label="equal", status=S.REJECTED)  # rejected: not a vote
    row = item_table(project=project).rows[0]
    assert row.votes == [("a1", 1), ("a2", 2)]
    assert row.summary.startswith("A1: Uniforms <b>save</b> money") and "A2: Bullying drops." in row.summary
    assert (row.submitted, row.rejected, row.redundancy) == (3, 1, 3)


def test_item_text_is_escaped_and_votes_shown_on_the_page(staff_client, project):
    item = ItemFactory(project=project, payload={
        "topic": "t", "prompt": "p", "stance": "s",
        "arg1": {"id": "x", "text": "<script>alert(1)</script> is an argument"}, "arg2": {"id": "y", "text": "B"},
    })
    answered(item, UserFactory(), label="a2")
    body = staff_client.get(reverse("overview", args=[project.slug])).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; is an argument" in body and "<script>alert" not in body
    assert '<span class="vote">a2 <b>1</b></span>' in body


def test_votes_of_a_type_without_fixed_answer_keys_come_from_its_labels(project, monkeypatch):
    task = get_task_type("pairwise")
    item = ItemFactory(project=project)
    for label in ("a1", "a1", "equal"):
        answered(item, UserFactory(), label=label)
    monkeypatch.setattr(type(task), "answer_columns", ())
    assert item_table(project=project).rows[0].votes == [
        ("A1 and A2 are equally convincing", 1), ("A1 is more convincing", 2)]


def test_item_filters_by_state_and_id(project):
    complete, partial, untouched, held = (ItemFactory(project=project, external_id=name)
                                          for name in ("done-1", "half-2", "none-3", "held-4"))
    for _ in range(3):
        answered(complete, UserFactory())
    answered(partial, UserFactory())
    AssignmentFactory(item=held, worker=UserFactory(), status=S.ASSIGNED)

    def ids(**kw):
        return [r.external_id for r in item_table(project=project, **kw).rows]

    assert ids(state="complete") == ["done-1"]
    assert ids(state="partial") == ["half-2"]
    assert ids(state="untouched") == ["none-3", "held-4"]
    assert ids(state="open") == ["held-4"]
    assert ids(search="HALF") == ["half-2"]
    assert ids(state="bogus") == ["done-1", "half-2", "none-3", "held-4"]


def test_project_progress_sums_targets_in_the_database(project):
    items = ItemFactory.create_batch(3, project=project)
    items[2].redundancy = 5
    items[2].save()
    for _ in range(3):
        answered(items[0], UserFactory())
    answered(items[1], UserFactory())
    p = project_progress(project=project)
    assert (p.items, p.complete, p.partial, p.untouched, p.submitted, p.target) == (3, 1, 1, 1, 4, 11)


def test_refresh_renders_the_counts_only(staff_client, project):
    answered(ItemFactory(project=project), UserFactory(username="visible"))
    url = reverse("overview", args=[project.slug])
    with CaptureQueriesContext(connection) as queries:
        live = staff_client.get(url, **HTMX).content.decode()
    assert live.lstrip().startswith('<div id="live"') and 'hx-trigger="every 10s"' in live
    assert 'data-testid="submitted">1<' in live
    assert "<table" not in live and "visible" not in live
    # session, user, profile, permissions (2), project, then the two counting queries
    assert len(queries) <= 8, "\n".join(q["sql"][:90] for q in queries)
    page = staff_client.get(url).content.decode()
    assert f'hx-get="{url}"' in page and "visible" in page


def _page_queries(client, url):
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_the_page_makes_as_many_queries_for_many_rows_as_for_few(staff_client, project):
    url = reverse("overview", args=[project.slug])
    item = ItemFactory(project=project)
    answered(item, UserFactory())
    few = _page_queries(staff_client, url)
    for _ in range(40):
        answered(ItemFactory(project=project), UserFactory(), seconds=3.0)
    assert _page_queries(staff_client, url) == few


def test_report_pages_come_from_the_registry(staff_client, project):
    body = staff_client.get(reverse("overview", args=[project.slug])).content.decode()
    assert f'href="{reverse("analysis-dashboard", args=[project.slug])}">Agreement and workers</a>' in body
    assert f'href="{reverse("gold-page", args=[project.slug])}">Gold data</a>' in body


def test_researchers_see_the_overview_without_user_admin_links(client, project):
    answered(ItemFactory(project=project), UserFactory(username="someone"))
    client.force_login(UserFactory(role="researcher"))
    body = client.get(reverse("overview", args=[project.slug])).content.decode()
    assert "someone" in body and "/admin/auth/user/" not in body
    assert "1 worker has held an assignment." in body
    # Only the admin tools a researcher may use are offered.
    assert "import items" not in body and "create annotators" not in body and ">settings<" not in body
    client.force_login(UserFactory(role="admin"))
    body = client.get(reverse("overview", args=[project.slug])).content.decode()
    assert "import items" in body and "create annotators" in body and ">settings<" in body


def test_shorten_cuts_at_words_and_long_tokens():
    assert shorten("  a   b  ", 10) == "a b"
    assert shorten("one two three four five", 12) == "one two…"
    assert shorten("x" * 30, 10) == "x" * 9 + "…"
    summary = get_task_type("pairwise").item_summary(
        {"arg1": {"text": "word " * 100}, "arg2": {"text": "other " * 100}}, length=80)
    assert len(summary) <= 80 and summary.startswith("A1: word") and " · A2: other" in summary


def test_odd_query_parameters_never_break_the_page(staff_client, project):
    for n in range(3):
        answered(ItemFactory(project=project, external_id=f"it_{n}%"), UserFactory(username=f"odd_{n}"))
    url = reverse("overview", args=[project.slug])
    for params in ({"wpage": "abc", "ipage": "-3"}, {"wpage": "9999"}, {"wsort": "'; drop table x; --"},
                   {"istate": "<b>"}, {"wq": "%"}, {"wq": "_", "iq": "%"}):
        response = staff_client.get(url, params)
        assert response.status_code == 200, params
    assert staff_client.get(url, {"wq": "%"}).context["workers"].page.paginator.count == 0  # a literal %, not a wildcard
    assert staff_client.get(url, {"iq": "%"}).context["items"].page.paginator.count == 3
    assert staff_client.get(url, {"wq": "odd_1"}).context["workers"].page.paginator.count == 1
    body = staff_client.get(url, {"istate": "<b>", "wq": "<i>"}).content.decode()
    assert "<i>" not in body.split("<main>")[1] and "&lt;i&gt;" in body
