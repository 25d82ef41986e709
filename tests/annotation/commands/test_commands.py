"""Generic management commands: importing items, the demo and exports."""

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Item, Project
from annotation.task_types import task_types
from annotation.task_types.base import TaskType
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db


def run(*args):
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_import_items_command(tmp_path):
    project = ProjectFactory()
    good = tmp_path / "items.jsonl"
    good.write_text('{"topic": "t", "prompt": "P", "stance": "s", "arg1_id": "a", "arg1_text": "x", "arg2_id": "b", "arg2_text": "y"}\n')
    assert "1 new" in run("import_items", project.slug, str(good))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"topic": "t"}\n')
    with pytest.raises(CommandError, match="line 1, field 'prompt': is missing"):
        run("import_items", project.slug, str(bad))
    with pytest.raises(CommandError, match="no project with slug 'nope'"):
        run("import_items", "nope", str(good))


def demo_types() -> set[str]:
    """The registered types that have a demo."""
    return {t.slug for t in task_types() if type(t).demo is not TaskType.demo}


def test_load_demo_from_the_shared_data_is_idempotent(shared_data):
    first = run("load_demo", "--data", str(shared_data))
    assert "annotator1 / annotator1" in first
    items, projects = Item.objects.count(), Project.objects.count()
    second = run("load_demo", "--data", str(shared_data))
    assert "already there" in second and (Item.objects.count(), Project.objects.count()) == (items, projects)
    assert set(Project.objects.values_list("task_type", flat=True)) == demo_types()
    for project in Project.objects.all():
        assert project.items.exists() and project.members.count() == 3, project.slug


def test_load_demo_falls_back_to_what_the_types_ship(tmp_path):
    run("load_demo", "--data", str(tmp_path / "missing"))
    items = Item.objects.count()
    run("load_demo", "--data", str(tmp_path / "missing"))
    assert Item.objects.count() == items
    assert set(Project.objects.values_list("task_type", flat=True)) <= demo_types()


def test_export_annotations_command(tmp_path):
    project = ProjectFactory()
    out = tmp_path / "a.csv"
    call_command("export_annotations", project.slug, "--out", str(out), stderr=io.StringIO())
    header = next(csv.reader(out.open()))
    assert header[:3] == ["project", "item", "assignment"] and header[-3:] == ["label", "reason", "worker_stance"]
    text = run("export_annotations", project.slug, "--format", "json")
    assert json.loads(text) == []
