"""The project's admin page offers the platform's tools a type declares (``TaskType.admin_tools``:
audio uploads for types whose items use audio, crowd-result imports for types that read them)
and no others; a type that declares neither gets neither link nor page."""

from collections.abc import Mapping
from typing import Any

import pytest
from django.urls import reverse

import annotation.task_types as registry
from annotation.task_types import task_types
from annotation.task_types.base import (
    AnswerData,
    AnswerField,
    CleanAnswer,
    CleanItem,
    Example,
    ExportContext,
    ImportField,
    TaskType,
    record_text,
)
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
TOOLS = {"media": ("admin:annotation_project_media", "Upload audio"),
         "crowd": ("admin:annotation_project_crowd", "Import crowd results")}


class Statement(TaskType):
    """A type with text items only: no media, no results collected elsewhere."""

    slug = "statement_check"
    name = "Statement check"
    template = "statement_check/item.html"
    import_fields = (ImportField("id", True, "Id."), ImportField("text", True, "The statement."))
    answer_fields = (AnswerField("label", "choice", "yes or no."),)
    export_columns = ("label",)

    def clean_item(self, record: Mapping[str, Any]) -> CleanItem:
        return CleanItem(external_id=record_text(record, "id"), payload={"text": record_text(record, "text")})

    def clean_answer(self, data, *, payload, context=None) -> CleanAnswer:
        return CleanAnswer(answer={"label": AnswerData.wrap(data).text("label")})

    def long_rows(self, *, payload, answer) -> list[dict[str, Any]]:
        return [{"label": answer["label"]}]

    def export_row(self, ctx: ExportContext, answer, reason) -> dict[str, Any]:
        return {"label": answer["label"]}

    def example(self) -> Example:
        return Example(records=[{"id": "s1", "text": "Yes."}, {"id": "s2", "text": "No."}], answer={"label": "yes"},
                       form=[("label", "yes")], invalid={}, invalid_field="label")


@pytest.fixture
def statement_type(monkeypatch):
    # Registered for this test only: the registry is as the apps left it afterwards.
    monkeypatch.setitem(registry._REGISTRY, Statement.slug, Statement())
    return Statement.slug


def change_page(client, project) -> str:
    client.force_login(UserFactory(role="admin", is_superuser=True))
    response = client.get(reverse("admin:annotation_project_change", args=[project.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_a_type_without_media_or_crowd_results_is_offered_neither(client, statement_type):
    project = ProjectFactory(task_type=statement_type)
    assert Statement().admin_tools() == frozenset()
    page = change_page(client, project)
    for url_name, label in TOOLS.values():
        assert reverse(url_name, args=[project.pk]) not in page and label not in page
        assert client.get(reverse(url_name, args=[project.pk])).status_code == 404
    # The tools every type has are still there.
    assert reverse("admin:annotation_project_import", args=[project.pk]) in page
    assert reverse("admin:annotation_project_annotators", args=[project.pk]) in page


@pytest.mark.parametrize("slug", [t.slug for t in task_types()])
def test_each_type_is_offered_the_tools_it_declares(client, slug):
    task = registry.get_task_type(slug)
    project = ProjectFactory(task_type=slug)
    page = change_page(client, project)
    for tool, (url_name, label) in TOOLS.items():
        url = reverse(url_name, args=[project.pk])
        assert (url in page) == (label in page) == (tool in task.admin_tools()), (slug, tool)
        assert client.get(url).status_code == (200 if tool in task.admin_tools() else 404), (slug, tool)


def test_the_declarations_are_what_the_types_do():
    """A type that names media files declares the media it uses; a type that builds items from
    crowd results declares their columns (so each is offered its tool, and only those are)."""
    for task in task_types():
        names_media = type(task).media_keys is not TaskType.media_keys
        reads_results = type(task).crowd_items is not TaskType.crowd_items
        assert names_media == bool(task.media), task.slug
        assert reads_results == bool(task.crowd_fields), task.slug
    assert {"media", "crowd"} <= {tool for task in task_types() for tool in task.admin_tools()}
