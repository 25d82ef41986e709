"""The data the API fuzzing run works on: the demo (every task type, every role), a private
project the fuzzing annotator is no member of, and for that annotator open and answered
assignments, a flag and a bonus; for staff a rule, an import job and an analysis run.

``fuzz_data_create`` returns the values that schemathesis draws path parameters from (besides
the random ones it makes up), so that requests reach real objects and not only 404s."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.authtoken.models import Token

from analysis.services import analysis_run_create
from annotation.models import Assignment, ImportJob, Item, Project
from annotation.services import annotation_submit, assignment_next
from annotation.task_types import get_task_type
from annotation.task_types.base import AnswerInvalid
from quality.services.flags import item_flag
from quality.services.rules.settings import rule_add
from quality.services.worker_actions import ACTION_PERMS
from recruiting.services.bonuses import bonus_grant
from tests.factories import ItemFactory, ProjectFactory, UserFactory

# The roles of load_demo, by the account that has each; anonymous sends no token.
ROLE_ACCOUNTS = {"annotator": "annotator1", "researcher": "researcher", "admin": "admin"}
PRIVATE_SLUG = "fuzz-private"


@dataclass
class FuzzData:
    tokens: dict[str, str] = field(default_factory=dict)
    slugs: list[str] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)
    # The annotator's assignments and another worker's, for the operations on an assignment.
    assignment_ids: list[int] = field(default_factory=list)
    item_ids: list[int] = field(default_factory=list)
    worker_ids: list[int] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)


def _answer_some(worker, projects: list[Project]) -> list[int]:
    """Take an assignment in each project and answer it with the type's worked example where it
    fits; take a second one and leave it open. The ids of all of them."""
    ids = []
    for project in projects:
        task = get_task_type(project.task_type)
        for keep_open in (False, True):
            held = assignment_next(project=project, worker=worker).assignment
            if held is None:
                break
            ids.append(held.pk)
            if keep_open:
                break
            try:
                annotation_submit(assignment=held, worker=worker, data=task.example().answer,
                                  client={"elapsed_ms": 4000})
            except AnswerInvalid:
                pass  # the example answers another item; the assignment stays open
    return ids


def fuzz_data_create() -> FuzzData:
    call_command("load_demo", verbosity=0)
    User = get_user_model()
    users = {role: User.objects.get(username=name) for role, name in ROLE_ACCOUNTS.items()}
    data = FuzzData(tokens={role: Token.objects.get_or_create(user=u)[0].key for role, u in users.items()})
    annotator, admin = users["annotator"], users["admin"]
    demo = list(Project.objects.order_by("slug"))
    for project in demo:
        project.members.add(annotator)

    # A private project the annotator is no member of, with its own worker's answers.
    outsider = UserFactory(username="fuzz-outsider")
    private = ProjectFactory(slug=PRIVATE_SLUG, name="Private to others", open_to_all=False)
    private.members.add(outsider)
    ItemFactory.create_batch(4, project=private)
    others = _answer_some(outsider, [private])

    mine = _answer_some(annotator, demo)
    answered = Assignment.objects.filter(pk__in=mine, status=Assignment.Status.SUBMITTED).select_related("project")
    first = answered.first() or Assignment.objects.get(pk=mine[0])
    flagged = Assignment.objects.filter(pk__in=mine, status=Assignment.Status.ASSIGNED).first()
    flags = []
    if flagged is not None:
        flags.append(item_flag(assignment=flagged, worker=annotator, problem="text", reason="garbled").pk)
    bonus_grant(project=first.project, worker=annotator, amount="0.50", reason="careful work", actor=admin)
    rule = rule_add(project=first.project, actor=admin, data={"kind": "gold_accuracy", "threshold": 0.7})
    job = ImportJob.objects.create(project=first.project, kind=ImportJob.Kind.ITEMS, filename="items.csv", size=10)
    run = analysis_run_create(project=first.project, kind="agreement", params={}, user=admin)

    data.slugs = [p.slug for p in demo] + [PRIVATE_SLUG]
    data.ids = sorted({*mine, *others, *flags, rule.pk, job.pk, run.pk})
    data.assignment_ids = sorted({*mine, *others})
    data.item_ids = list(Item.objects.filter(assignments__pk__in=mine + others).values_list("pk", flat=True).distinct())
    data.worker_ids = [annotator.pk, outsider.pk, users["researcher"].pk]
    data.actions = list(ACTION_PERMS)
    return data
