"""The project's add form shows the options of the task type chosen: after choosing it (the
page asks the server for that type's fieldset) or, without JavaScript, when saving with a type
whose options were not on the page (they come back with their defaults, to check)."""

import pytest
from django.urls import reverse

from annotation.models import Project
from annotation.task_types import task_types
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
ADD = "admin:annotation_project_add"
# Generic code names no type: the first registered type that has options stands for all.
TASK = next(t for t in task_types() if t.options_form is not None)
PLAIN = next((t for t in task_types() if t.options_form is None), None)


@pytest.fixture
def admin_client(client):
    client.force_login(UserFactory(role="admin", is_superuser=True))
    return client


def base_data(**extra) -> dict:
    return {"name": "New study", "slug": "new-study", "task_type": TASK.slug, "redundancy": 3,
            "lease_minutes": 30, "state": "draft", "assignment_order": "sequential",
            "panel": "prolific", "worker_param": "worker_id", "custom_source": "link", **extra}


def option_data(task, **changed) -> dict:
    """The option fields as the form posts them: the defaults, with ``changed`` applied."""
    data: dict = {}
    for name, value in {**task.option_defaults(), **changed}.items():
        if value is True:
            data[f"option_{name}"] = "on"
        elif value not in (None, False):
            data[f"option_{name}"] = str(value)
    return data


def test_the_add_form_without_a_type_says_where_the_options_will_come(admin_client):
    body = admin_client.get(reverse(ADD)).content.decode()
    assert 'class="module aligned task-options"' in body and "Choose a task type" in body
    # Choosing a type fetches its options' fieldset and swaps it in.
    assert 'hx-get="' + reverse(ADD) + '"' in body and 'hx-select="fieldset.task-options"' in body
    assert "vendor/htmx.min.js" in body
    # No box for the raw options record: the options are typed into their own fields.
    assert 'name="options"' not in body and "field-options" not in body


def test_the_add_form_for_a_chosen_type_shows_its_options_with_their_defaults(admin_client):
    response = admin_client.get(reverse(ADD), {"task_type": TASK.slug})
    body = response.content.decode()
    form = response.context["adminform"].form
    for name, default in TASK.option_defaults().items():
        assert f'name="option_{name}"' in body
        assert form[f"option_{name}"].value() == default
    assert response.context["adminform"].form["task_type"].value() == TASK.slug


def test_saving_the_add_form_stores_the_options_chosen(admin_client):
    name, field = next((n, f) for n, f in TASK.options_form().fields.items() if getattr(f, "choices", None))
    choice = [value for value, _ in field.choices if value != TASK.option_defaults()[name]][0]
    data = {**base_data(), **option_data(TASK, **{name: choice}), "options_of": TASK.slug}
    response = admin_client.post(reverse(ADD), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    project = Project.objects.get(slug="new-study")
    assert project.options == {**TASK.option_defaults(), name: choice}


def test_without_javascript_options_not_shown_come_back_with_their_defaults_to_check(admin_client):
    # The page was opened without a type, so its options were not on it.
    response = admin_client.post(reverse(ADD), base_data())
    assert response.status_code == 200 and not Project.objects.exists()
    body = response.content.decode()
    assert "check them and save again" in body
    form = response.context["adminform"].form
    assert all(form[f"option_{n}"].value() in (v, str(v)) for n, v in TASK.option_defaults().items())
    # Saved as they are shown, the second time.
    again = {**base_data(), **option_data(TASK), "options_of": TASK.slug}
    assert admin_client.post(reverse(ADD), again).status_code == 302
    assert Project.objects.get(slug="new-study").options == TASK.option_defaults()


@pytest.mark.skipif(PLAIN is None, reason="every registered type has options")
def test_a_type_without_options_says_so_and_saves_at_once(admin_client):
    body = admin_client.get(reverse(ADD), {"task_type": PLAIN.slug}).content.decode()
    assert "has no options" in body
    response = admin_client.post(reverse(ADD), base_data(task_type=PLAIN.slug))
    assert response.status_code == 302 and Project.objects.get(slug="new-study").task_type == PLAIN.slug


def test_the_change_form_keeps_its_options_in_their_fieldset(admin_client):
    project = Project.objects.create(name="Old", slug="old", task_type=TASK.slug, options=TASK.option_defaults())
    body = admin_client.get(reverse("admin:annotation_project_change", args=[project.pk])).content.decode()
    fieldset = body.split('class="module aligned task-options"')[1].split("</fieldset>")[0]
    assert all(f'name="option_{name}"' in fieldset for name in TASK.option_defaults())


def test_the_add_form_refuses_a_custom_panel_named_like_a_preset_naming_the_field(admin_client):
    data = {**base_data(panel="custom", custom_source="prolific", external_entry="on"), **option_data(TASK),
            "options_of": TASK.slug}
    response = admin_client.post(reverse(ADD), data)
    assert response.status_code == 200 and not Project.objects.exists()
    assert "is a preset's name" in response.context["adminform"].form.errors["custom_source"][0]
    data["custom_source"] = "lab-pool"
    assert admin_client.post(reverse(ADD), data).status_code == 302
    assert Project.objects.get(slug="new-study").custom_source == "lab-pool"
