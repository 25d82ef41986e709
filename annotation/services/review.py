"""Reviewing work: approving, rejecting (which frees the slot and removes an unpaid bonus),
rejecting all of a worker's."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation.models import Annotation, Assignment, Item, Project
from annotation.services.bonuses import bonus_grant_for, bonus_revoke_for
from annotation.services.engine import set_status
from annotation.services.errors import WorkflowError

Status = Assignment.Status


def assignment_review(*, assignment: Assignment, approve: bool, note: str = "") -> Assignment:
    """Approve or reject a submitted assignment. A rejection frees the slot for another worker."""
    now = timezone.now()
    target = Status.APPROVED if approve else Status.REJECTED
    with transaction.atomic():
        a = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if a.status == target:
            return a
        if a.status not in (Status.SUBMITTED, Status.APPROVED, Status.REJECTED):
            raise WorkflowError(f"Only submitted work can be reviewed; this assignment is {a.status}.")
        if a.status == Status.REJECTED:
            # Approving after a rejection takes a slot back, if one is free.
            took = Item.objects.filter(pk=a.item_id, n_active__lt=F("redundancy")).update(n_active=F("n_active") + 1)
            if not took:
                raise WorkflowError("The item's slots were filled again after the rejection.")
            Assignment.objects.filter(pk=a.pk).update(status=target, reviewed_at=now, review_note=note)
            a.status = target
        else:
            set_status(assignments=[a], new=target, now=now, reviewed_at=now, review_note=note)
        if target == Status.REJECTED:
            bonus_revoke_for(assignment=a)
        else:
            # Approving rejected work makes its answer count again, and with it its bonus.
            annotation = Annotation.objects.filter(assignment=a).first()
            if annotation is not None:
                bonus_grant_for(annotation=annotation)
    return a


def assignments_review(*, assignments: Sequence[Assignment], approve: bool, note: str = "") -> int:
    done = 0
    for a in assignments:
        try:
            assignment_review(assignment=a, approve=approve, note=note)
            done += 1
        except WorkflowError:
            continue
    return done


def worker_work_reject(*, project: Project, worker: User, note: str = "") -> int:
    """Reject every submitted or approved assignment of a worker in a project: their labels
    leave the data and the slots reopen for others."""
    with transaction.atomic():
        work = list(Assignment.objects.filter(project=project, worker=worker,
                                              status__in=Assignment.COUNTED_STATUSES).order_by("pk"))
        for a in work:
            assignment_review(assignment=a, approve=False, note=note)
    return len(work)
