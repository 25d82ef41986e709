"""Factories for the crowd workflow's models, for every task type.

Tests of the generic workflow need answers of some concrete type: they use the pairwise type
(``GENERIC_TESTS_TYPE``) and its helpers in ``task_types.pairwise.tests.factories``.
"""

from importlib import import_module
from pathlib import Path

import factory
from django.contrib.auth import get_user_model
from django.db.models import F
from django.utils import timezone

from annotation.models import Assignment, Item, Project
from annotation.services.accounts import role_set
from annotation.task_types import get_task_type
from annotation.task_types.base import DemoContext

# The type a project gets when a test does not name one.
GENERIC_TESTS_TYPE = "pairwise"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"worker{n}")
    password = factory.PostGenerationMethodCall("set_password", "pw-for-tests")

    @factory.post_generation
    def role(obj, create, extracted, **kwargs):
        obj.save()
        role_set(user=obj, role=extracted or "annotator")


class ProjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Project

    name = factory.Sequence(lambda n: f"Project {n}")
    slug = factory.Sequence(lambda n: f"project-{n}")
    task_type = GENERIC_TESTS_TYPE
    redundancy = 3
    state = Project.State.ACTIVE
    open_to_all = True


def item_payload(project: Project, n: int) -> dict:
    """A payload of the project's task type: from the type's own test factories when they offer
    numbered ones (``task_types/<slug>/tests/factories.py``: ``item_payload(n)``), else the first
    record of the type's worked example."""
    try:
        numbered = import_module(f"task_types.{project.task_type}.tests.factories").item_payload
    except (ModuleNotFoundError, AttributeError):
        task = get_task_type(project.task_type)
        return task.clean_item(task.example().records[0]).payload
    return numbered(n)


class ItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Item

    project = factory.SubFactory(ProjectFactory)
    external_id = factory.Sequence(lambda n: f"pair{n}")
    payload = factory.LazyAttributeSequence(lambda o, n: item_payload(o.project, n))
    position = factory.Sequence(lambda n: n + 1)
    redundancy = factory.SelfAttribute("project.redundancy")


class AssignmentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Assignment

    item = factory.SubFactory(ItemFactory)
    project = factory.SelfAttribute("item.project")
    worker = factory.SubFactory(UserFactory)
    status = Assignment.Status.ASSIGNED
    assigned_at = factory.LazyFunction(timezone.now)
    expires_at = factory.LazyAttribute(lambda o: o.assigned_at + timezone.timedelta(minutes=30))

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        """Keep the item's slot counter as the engine does: an assignment that holds a slot
        (assigned, submitted, approved) takes one."""
        assignment = super()._create(model_class, *args, **kwargs)
        if assignment.status in Assignment.SLOT_STATUSES:
            Item.objects.filter(pk=assignment.item_id).update(n_active=F("n_active") + 1)
            assignment.item.refresh_from_db(fields=["n_active"])
        return assignment


class DemoLog:
    """Collects what a demo hook logs."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, line: str) -> None:
        self.lines.append(line)


def demo_context(data_dir) -> DemoContext:
    """What ``load_demo`` hands a task type's demo hook: an admin, three annotators, a log."""
    owner = UserFactory(username="demo-admin", role="admin")
    annotators = [UserFactory(username=f"demo-annotator{n}") for n in (1, 2, 3)]
    return DemoContext(data_dir=Path(data_dir), owner=owner, annotators=annotators, log=DemoLog())
