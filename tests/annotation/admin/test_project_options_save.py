"""The project admin's change form saves for every registered task type, its options included
(a decimal option once made the save fail: the options are stored as JSON)."""

from decimal import Decimal

import pytest
from django.urls import reverse

from annotation.admin.task_options import PREFIX
from annotation.models import Project
from annotation.task_types import task_types
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def _post_data(response) -> dict:
    """The change form's fields as the browser would send them back, inline formsets included."""
    data: dict = {}
    form = response.context["adminform"].form
    for name, field in form.fields.items():
        if field.disabled:
            continue
        value = form[name].value()
        if value is None:
            continue
        if isinstance(value, bool):
            if value:
                data[name] = "on"
        elif isinstance(value, list | tuple):
            data[name] = [str(v) for v in value]
        else:
            data[name] = str(value)
    for inline in response.context["inline_admin_formsets"]:
        management = inline.formset.management_form
        for name in management.fields:
            data[f"{management.prefix}-{name}"] = management[name].value()
    return data


@pytest.mark.parametrize("slug", [t.slug for t in task_types()])
def test_the_change_form_saves_for_every_type(client, slug):
    task = next(t for t in task_types() if t.slug == slug)
    project = ProjectFactory(task_type=slug, options=task.clean_options({}))
    member = UserFactory()
    client.force_login(UserFactory(role="admin", is_superuser=True))
    url = reverse("admin:annotation_project_change", args=[project.pk])
    data = _post_data(client.get(url))
    data["lease_minutes"] = "45"
    data["members"] = [str(member.pk)]
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    project.refresh_from_db()
    assert project.lease_minutes == 45
    assert list(project.members.all()) == [member]
    # The options stay plain JSON values the task type reads back.
    assert task.clean_options(project.options).keys() >= task.option_defaults().keys()


def test_a_decimal_option_is_saved_and_read_back(client):
    decimal_types = [t for t in task_types() if t.options_form is not None and any(
        isinstance(f.initial, Decimal) or f.__class__.__name__ == "DecimalField" for f in t.options_form().fields.values())]
    assert decimal_types, "no registered type has a decimal option"
    client.force_login(UserFactory(role="admin", is_superuser=True))
    for task in decimal_types:
        project = ProjectFactory(task_type=task.slug, options=task.clean_options({}))
        url = reverse("admin:annotation_project_change", args=[project.pk])
        data = _post_data(client.get(url))
        name = next(n for n, f in task.options_form().fields.items() if f.__class__.__name__ == "DecimalField")
        data[f"{PREFIX}{name}"] = "0.25"
        assert client.post(url, data).status_code == 302
        options = Project.objects.get(pk=project.pk).options
        assert Decimal(str(options[name])) == Decimal("0.25")
