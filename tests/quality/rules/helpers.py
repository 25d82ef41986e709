"""Answers and rules for the tests of the quality rules."""

from __future__ import annotations

from django.utils import timezone

from annotation.models import Annotation, Assignment
from quality.models import QualityRule
from task_types.pairwise.tests.factories import answer
from tests.factories import AssignmentFactory, ItemFactory


def answered(project, worker, *, seconds: float | None = 10.0, purpose: str = "task", client=None,
             item=None, label: str = "a1") -> Annotation:
    """A submitted answer of ``worker`` to a new item of the project (or ``item``)."""
    assignment = AssignmentFactory(item=item or ItemFactory(project=project), worker=worker,
                                   status=Assignment.Status.SUBMITTED, submitted_at=timezone.now(), purpose=purpose)
    return Annotation.objects.create(assignment=assignment, answer=answer(label), seconds=seconds, client=client or {})


def rule(project, kind: str, **settings) -> QualityRule:
    return QualityRule.objects.create(project=project, kind=kind, **{"threshold": 0.5, **settings})
