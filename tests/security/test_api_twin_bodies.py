"""The page actions' API twins answer bodies of the wrong shape (an array, a number, a list where
text belongs, numbers beyond 64 bits, unknown fields) with a 4xx, never a 500; a settings change
answers 200 or a 400 naming the field."""

import pytest
from rest_framework.test import APIClient

from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

BODIES = [[], "x", 5, {"a": {"b": [1, 2]}}, {"names": [{"x": 1}]}, {"assignments": [2**70]}, {"bonuses": [None]},
          {"verdict": ["approve"], "assignments": "1", "note": {"x": 1}}, {"code": ["a"]}, {"accept": [True]},
          {"topic": {"x": 1}, "seed": 2**70}, {"reason": ["a"]}, {"name": {"x": 1}, "slug": "a b"},
          {"state": ["active"], "redundancy": [], "options": {"bogus": 1}, "max_items_per_worker": "x",
           "join_code": ["x"]}, {"setting": [1], "min_candidates": "x"}, {"action": "score"}]


def test_wrong_shapes_are_refused_not_failed():
    project = ProjectFactory()
    staff = APIClient()
    staff.force_authenticate(UserFactory(role="admin", is_superuser=True))
    a = AssignmentFactory(item=ItemFactory(project=project), worker=UserFactory())
    urls = [f"/api/projects/{project.slug}/assignments/review/", f"/api/projects/{project.slug}/bonuses/mark-paid/",
            f"/api/projects/{project.slug}/annotators/", "/api/join/", f"/api/projects/{project.slug}/consent/",
            f"/api/assignments/{a.pk}/skip/", "/api/task-types/pairwise/projects/",
            f"/api/projects/{project.slug}/pairs/", f"/api/projects/{project.slug}/counter-speech/build/",
            f"/api/projects/{project.slug}/key-points/import/", f"/api/projects/{project.slug}/key-points/track2/",
            f"/api/projects/{project.slug}/key-point-sets/build/", f"/api/workers/{a.worker_id}/block/",
            f"/api/projects/{project.slug}/analysis/recompute/", f"/api/projects/{project.slug}/imports/1/restart/",
            f"/api/projects/{project.slug}/gold/workers/{a.worker_id}/reject/"]
    for url in urls:
        for body in BODIES:
            r = staff.post(url, body, format="json")
            assert r.status_code < 500, (url, body, r.status_code)
    for body in BODIES:
        r = staff.patch(f"/api/projects/{project.slug}/settings/", body, format="json")
        assert r.status_code < 500, (body, r.content)
        assert r.status_code in (200, 400), (body, r.status_code, r.content)
