"""The task-type registry: types register from their apps, unknown slugs name the known ones."""

import pytest
from django.apps import apps

from annotation.task_types import (
    UnknownTaskType,
    get_task_type,
    register,
    task_type_choices,
    task_types,
)


def test_unknown_task_type_names_the_known_ones():
    known = ", ".join(sorted(t.slug for t in task_types()))
    with pytest.raises(UnknownTaskType) as exc:
        get_task_type("no-such-type")
    assert str(exc.value) == f"unknown task type 'no-such-type'; known task types: {known}"


def test_every_registered_type_comes_from_an_installed_app_of_its_own():
    modules = {type(t).__module__ for t in task_types()}
    assert len(modules) == len(task_types())
    for task in task_types():
        app = apps.get_containing_app_config(type(task).__module__)
        # (Where the app lives is the layout's rule: tests/test_layout.py.)
        assert app is not None, type(task).__module__
        # Each app holds one type and is named after it.
        assert app.label == task.slug


def test_a_slug_cannot_be_taken_twice():
    task = task_types()[0]
    register(type(task))  # the same class again: nothing changes
    assert type(get_task_type(task.slug)) is type(task)
    impostor = type("Impostor", (type(task),), {})
    with pytest.raises(ValueError, match="registered twice"):
        register(impostor)
    assert [slug for slug, _ in task_type_choices()] == sorted(t.slug for t in task_types())
