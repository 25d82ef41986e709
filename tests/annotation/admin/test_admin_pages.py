"""Every model page of the admin opens for an admin, with data in it (lists and a record); the
import page names the generic columns."""

import pytest
from django.contrib import admin
from django.urls import reverse

from annotation.services import annotation_submit, assignment_next
from annotation.services.revisions import annotation_revise
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_every_admin_list_and_an_annotation_with_its_versions(client):
    project = ProjectFactory()
    ItemFactory(project=project)
    worker = UserFactory()
    a = assignment_next(project=project, worker=worker).assignment
    stored = annotation_submit(assignment=a, worker=worker, data=answer("a1")).annotation
    annotation_revise(assignment=a, worker=worker, data=answer("a2"))
    client.force_login(UserFactory(role="admin", is_superuser=True))
    for model in admin.site._registry:
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert client.get(url).status_code == 200, url
    page = client.get(reverse("admin:annotation_annotation_change", args=[stored.pk])).content.decode()
    # The current version and the earlier one beside it.
    assert "a2" in page and "Annotation revisions" in page and "a1" in page


def test_pages_that_add_items_come_from_the_task_type(client):
    project = ProjectFactory()
    client.force_login(UserFactory(role="admin", is_superuser=True))
    pairs = reverse("admin:annotation_project_pairs", args=[project.pk])
    assert pairs in client.get(reverse("admin:annotation_project_change", args=[project.pk])).content.decode()
    assert pairs in client.get(reverse("overview", args=[project.slug])).content.decode()
    # A researcher, who may not add items, is not offered the page.
    client.force_login(UserFactory(role="researcher"))
    assert pairs not in client.get(reverse("overview", args=[project.slug])).content.decode()


def test_the_import_page_names_the_generic_columns(client):
    project = ProjectFactory()
    client.force_login(UserFactory(role="admin", is_superuser=True))
    page = client.get(reverse("admin:annotation_project_import", args=[project.pk])).content.decode()
    for column in ("item_kind", "gold_answer", "gold_explanation"):
        assert f"<code>{column}</code>" in page
