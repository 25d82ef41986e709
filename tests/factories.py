"""Factories for the crowd workflow's models."""

import factory
from django.contrib.auth import get_user_model
from django.db.models import F
from django.utils import timezone

from annotation.models import Argument, Assignment, Item, Project, Topic
from annotation.services.accounts import role_set
from annotation.task_types import get_task_type

REASON = "A1 gives a concrete example, A2 only repeats its claim."


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


def pair_payload(n: int, topic: str = "uniforms_good") -> dict:
    return {
        "topic": topic,
        "prompt": "Is the school uniform a good idea?",
        "stance": "Good",
        "arg1": {"id": f"a{n}x", "text": f"Uniforms save families money, argument {n}."},
        "arg2": {"id": f"a{n}y", "text": f"Uniforms reduce bullying over clothes, argument {n}."},
    }


class ProjectFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Project

    name = factory.Sequence(lambda n: f"Project {n}")
    slug = factory.Sequence(lambda n: f"project-{n}")
    task_type = "pairwise"
    redundancy = 3
    state = Project.State.ACTIVE
    open_to_all = True


def item_payload(project: Project, n: int) -> dict:
    """A payload of the project's task type: the pairwise ones numbered, any other type's taken
    from the first record of its worked example."""
    if project.task_type == "pairwise":
        return pair_payload(n)
    task = get_task_type(project.task_type)
    return task.clean_item(task.example().records[0]).payload


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


class TopicFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Topic

    external_id = factory.Sequence(lambda n: f"topic-{n}")
    prompt = "Is the school uniform a good idea?"
    stance = "Good"


class ArgumentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Argument

    external_id = factory.Sequence(lambda n: f"arg{n}")
    topic = factory.SubFactory(TopicFactory)
    text = factory.Sequence(lambda n: " ".join(["word"] * 12) + f" number {n}")


def answer(label: str = "a1", standpoint: str = "none", reason: str = REASON) -> dict:
    return {"label": label, "standpoint": standpoint, "reason": reason}


def items_file(n: int, *, bad_line: int | None = None) -> bytes:
    """A CSV of ``n`` pairwise items; ``bad_line`` (a file line number) lacks its prompt."""
    lines = ["id,topic,prompt,stance,arg1_id,arg1_text,arg2_id,arg2_text"]
    for i in range(n):
        prompt = "" if bad_line == i + 2 else "Is the school uniform a good idea?"
        lines.append(f"p{i},uniforms,{prompt},Good,a{i},Uniforms save money number {i},b{i},They stop bullying {i}")
    return ("\n".join(lines) + "\n").encode()
