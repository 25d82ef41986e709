"""The overview's export line says when the exports leave blocked workers' answers out, and
links the downloads that keep them (to audit)."""

import pytest
from django.urls import reverse

from annotation.models import Standing
from quality.services.standing import standing_set
from tests.annotation.quality_helpers import answered
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_the_overview_says_the_exports_leave_blocked_workers_out(client):
    project = ProjectFactory()
    cheater = UserFactory(username="cheater")
    answered(ItemFactory(project=project), "a1", worker=cheater)
    client.force_login(UserFactory(role="researcher"))
    url = reverse("overview", args=[project.slug])
    page = client.get(url).content.decode()
    assert 'data-testid="blocked-excluded"' not in page
    standing_set(project=project, worker=cheater, state=Standing.BLOCKED)
    page = client.get(url).content.decode()
    assert 'data-testid="blocked-excluded"' in page and "1 worker blocked" in page
    assert f"/projects/{project.slug}/export/annotations.csv?include_blocked=1" in page
    export = reverse("export", args=[project.slug, "csv"])
    assert "cheater" not in b"".join(client.get(export).streaming_content).decode()
    assert "cheater,,,blocked," in b"".join(client.get(export, {"include_blocked": "1"}).streaming_content).decode()
