"""Creating a project: the type and its options are checked through the registry, the model's
rules before anything is written, and every field a caller leaves out takes its default."""

import ast
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from annotation.models import Project
from annotation.services.projects import project_create
from annotation.task_types import UnknownTaskType, task_types
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def typed() -> tuple[str, str, object]:
    """A registered type with an options form, one of its options and that option's default."""
    task = next(t for t in task_types() if t.option_defaults())
    name, default = next(iter(task.option_defaults().items()))
    return task.slug, name, default


def test_a_project_gets_its_types_options_with_their_defaults():
    slug, option, default = typed()
    owner = UserFactory(role="admin")
    project = project_create(name="Study", slug="study", task_type=slug, created_by=owner, redundancy=3,
                             state=Project.State.ACTIVE, join_code="STUDY-1")
    stored = Project.objects.get(slug="study")
    assert stored == project and stored.options[option] == default
    assert (stored.task_type, stored.redundancy, stored.state, stored.created_by, stored.join_code) == (
        slug, 3, "active", owner, "STUDY-1")
    # Fields left out keep the model's defaults.
    assert stored.lease_minutes == Project._meta.get_field("lease_minutes").default
    assert stored.panel == Project._meta.get_field("panel").default
    # Keys the options form does not know (records other tools keep) pass through.
    kept = project_create(name="Other", slug="other", task_type=slug, options={"note": "kept"})
    assert kept.options["note"] == "kept" and kept.options[option] == default


def test_an_unknown_type_or_refused_options_write_nothing():
    with pytest.raises(UnknownTaskType, match="unknown task type 'no-such-type'; known task types: "):
        project_create(name="X", slug="x", task_type="no-such-type")
    task = next(t for t in task_types() if t.options_form is not None
                and any(hasattr(f, "choices") for f in t.options_form().fields.values()))
    choice = next(n for n, f in task.options_form().fields.items() if hasattr(f, "choices"))
    with pytest.raises(ValueError, match=f"project options of the {task.name} task type: {choice}"):
        project_create(name="X", slug="x", task_type=task.slug, options={choice: "not a choice"})
    assert not Project.objects.exists()


def test_the_models_rules_are_checked_before_writing():
    slug = task_types()[0].slug
    project_create(name="First", slug="first", task_type=slug, join_code="Code-1")
    with pytest.raises(ValidationError) as taken:
        project_create(name="Second", slug="first", task_type=slug)
    assert "slug" in taken.value.message_dict
    with pytest.raises(ValidationError, match="Another project has this join code"):
        project_create(name="Third", slug="third", task_type=slug, join_code="code-1")
    with pytest.raises(ValidationError) as low:
        project_create(name="Fourth", slug="fourth", task_type=slug, redundancy=0)
    assert "redundancy" in str(low.value)
    assert list(Project.objects.values_list("slug", flat=True)) == ["first"]


def test_code_creates_projects_only_through_the_service():
    """Outside the tests, no module writes a new project with the ORM: demos and commands call
    project_create, so every project's type and options are checked."""
    root = Path(__file__).resolve().parents[3]
    wrong = []
    for package in ("config", "jobs", "annotation", "analysis", "quality", "task_types"):
        for path in (root / package).rglob("*.py"):
            if {"migrations", "tests"} & set(path.relative_to(root).parts):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                func = node.func if isinstance(node, ast.Call) else None
                if (isinstance(func, ast.Attribute) and func.attr in ("create", "get_or_create", "update_or_create")
                        and isinstance(func.value, ast.Attribute) and func.value.attr == "objects"
                        and isinstance(func.value.value, ast.Name) and func.value.value.id == "Project"):
                    wrong.append(f"{path.relative_to(root)}:{node.lineno}")
    assert wrong == []
