"""What a block does to the data: a worker blocked in a project has their answers leave it at
once (``QualityPolicy.blocked_answers_excluded``; the readers apply the rule in
``annotation.selectors.counted``), and an unblock brings them back. Both are recorded in the
audit log with how many answers moved.

Each item the worker answered is opened for one more answer, or closed again, by the engine's
``item_slots_refresh`` (``annotation.services.item_slots``, which says why). After an unblock an
item that was answered again meanwhile keeps the extra answer: both are data, and nothing is
thrown away.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from annotation.models import Assignment, Project, Purpose, Standing
from annotation.selectors.counted import excluded_answer_count
from annotation.services.audit import audit_record
from annotation.services.item_slots import item_slots_refresh
from quality.models import WorkerStanding


def _answered_items(*, project: Project, worker_id: int) -> list[int]:
    return list(Assignment.objects.filter(project=project, worker_id=worker_id, purpose=Purpose.TASK,
                                          status__in=Assignment.COUNTED_STATUSES)
                .values_list("item_id", flat=True).order_by("item_id"))


def blocked_answers_move(*, project: Project, worker: User, excluded: bool, actor: User | None,
                         reason: str = "") -> dict[str, int]:
    """After the worker's block (``excluded``) or unblock is stored: open or close the extra slot
    on each item they answered, and record in the audit log how many answers left the data or
    came back. Call only while the project leaves blocked workers' answers out. Returns the
    figures recorded."""
    with transaction.atomic():
        answers = excluded_answer_count(project=project, worker_id=worker.pk)
        changed = item_slots_refresh(project=project, item_ids=_answered_items(project=project, worker_id=worker.pk))
        figures = {"answers": answers, "items_changed": changed}
        audit_record(actor=actor, project=project, action="answers_excluded" if excluded else "answers_restored",
                     target=f"worker {worker.get_username()}",
                     details={**figures, "worker": worker.pk, "reason": reason[:500]})
    return figures


def blocked_answers_policy_changed(*, project: Project, excluded: bool, actor: User | None) -> dict[str, int]:
    """The project turned ``blocked_answers_excluded`` on (``excluded``) or off: the answers of
    every worker blocked in it leave the data or come back, the items' N follow, and one audit
    entry says how many."""
    with transaction.atomic():
        blocked = list(WorkerStanding.objects.filter(project=project, state=Standing.BLOCKED)
                       .values_list("worker_id", flat=True))
        answers = sum(excluded_answer_count(project=project, worker_id=w) for w in blocked)
        changed = item_slots_refresh(project=project)
        figures = {"workers": len(blocked), "answers": answers, "items_changed": changed}
        if blocked:
            audit_record(actor=actor, project=project, action="answers_excluded" if excluded else "answers_restored",
                         target=f"{len(blocked)} blocked worker{'s' if len(blocked) != 1 else ''}",
                         details={**figures, "reason": "the project's option on blocked workers' answers changed"})
    return figures
