"""Answers, gold answers and check results for the adjudication and flag tests."""

from __future__ import annotations

from django.utils import timezone

from annotation.models import Annotation, Assignment, ItemKind, Purpose
from quality.models import CheckResult
from tests.factories import AssignmentFactory, ItemFactory, UserFactory

S = Assignment.Status
REASON = "A1 gives a concrete example, A2 only repeats its claim."


def answered(item, label: str, *, worker=None, purpose: str = Purpose.TASK, seconds: float = 7.5,
             status: str = S.SUBMITTED) -> Annotation:
    """A counted answer ``label`` to a pairwise item by ``worker`` (a new one when None)."""
    now = timezone.now()
    a = AssignmentFactory(item=item, worker=worker or UserFactory(), status=status, submitted_at=now, purpose=purpose)
    return Annotation.objects.create(assignment=a, answer={"label": label, "standpoint": "none"}, reason=REASON,
                                     seconds=seconds)


def split_item(project, labels=("a1", "a2")):
    item = ItemFactory(project=project)
    for label in labels:
        answered(item, label)
    return item


def gold_item(project, *, right: int, wrong: int, expected: str = "a1"):
    """A gold question answered ``right`` + ``wrong`` times, each answer scored."""
    item = ItemFactory(project=project, kind=ItemKind.GOLD)
    for n in range(right + wrong):
        label = expected if n < right else "a2"
        annotation = answered(item, label, purpose=Purpose.GOLD)
        a = annotation.assignment
        CheckResult.objects.create(assignment=a, project=project, worker=a.worker, purpose=Purpose.GOLD,
                                   score=1.0 if n < right else 0.0, right=n < right, method="exact",
                                   expected={"label": expected}, scored_at=timezone.now())
    return item
