"""The staff actions of the worker page, one entry point for the page and the API (the same
checks, the same audit entries): block or unblock the worker in the project, approve or reject
all of their submitted work with a note, send them to a training round, and the actions the
apps above add (``worker_action_register``: the bonus ledger's "bonus").

Each action checks its own permission and its input, and raises ``ActionRefused`` naming the
field at fault; nothing is written then.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User

from annotation.models import Project, Standing
from annotation.services.audit import audit_record
from annotation.services.errors import WorkflowError
from annotation.services.review import NOTE_LENGTH, worker_work_approve, worker_work_reject
from quality.models import TrainingRound, WorkerStanding
from quality.services.standing import policy_for, standing_set
from quality.services.training import training_round_start

# The permission each action needs, besides seeing the project.
ACTION_PERMS = {
    "block": "quality.change_workerstanding",
    "unblock": "quality.change_workerstanding",
    "approve": "annotation.change_assignment",
    "reject": "annotation.change_assignment",
    "training": "quality.add_traininground",
}


@dataclass(frozen=True)
class ActionDone:
    action: str
    message: str
    count: int = 0


@dataclass(frozen=True)
class ExtraAction:
    """An action another app adds: the permission it needs, what it does (called with
    ``project``, ``worker``, ``actor`` and ``data``; it raises ``ActionRefused`` naming the field
    at fault) and the template of its form on the worker page."""

    perm: str
    do: Callable[..., ActionDone]
    form: str


_EXTRA: dict[str, ExtraAction] = {}


def worker_action_register(name: str, action: ExtraAction) -> None:
    """Add an action to the worker page and its API (again: it replaces itself)."""
    _EXTRA[name] = action
    ACTION_PERMS[name] = action.perm


def action_forms() -> list[tuple[str, str]]:
    """(action, form template) of the actions other apps added, in the order they registered."""
    return [(name, a.form) for name, a in _EXTRA.items()]


class ActionRefused(Exception):
    """An action that cannot be done: ``field`` names the input at fault (``action`` when it is
    the action itself), ``status`` the HTTP status that says so."""

    def __init__(self, field: str, message: str, status: int = 400):
        super().__init__(message)
        self.field, self.message, self.status = field, message, status


def action_text(data: Mapping[str, Any], name: str, length: int) -> str:
    value = data.get(name, "")
    if not isinstance(value, str):
        raise ActionRefused(name, f"{name} must be text")
    return " ".join(value.split())[:length]


def _unblocked_state(*, project: Project, worker: User) -> str:
    """Where unblocking leads: back to work, or back to the qualification when the project asks
    for one that the worker has not passed (unblocking is no way round it). Unblocking a worker
    sent to review is the staff's decision that ends the review (and its pause)."""
    standing = WorkerStanding.objects.filter(project=project, worker=worker).first()
    if standing is None or standing.state not in (Standing.BLOCKED, Standing.REVIEW):
        raise ActionRefused("action", "this worker is neither blocked nor to review in this project", status=409)
    if policy_for(project=project).qualification_items and not TrainingRound.objects.filter(
            project=project, worker=worker, kind=TrainingRound.Kind.QUALIFICATION, passed=True).exists():
        return Standing.QUALIFYING
    return Standing.ACTIVE


def worker_action(*, project: Project, worker: User, action: str, actor: User,
                  data: Mapping[str, Any]) -> ActionDone:
    """Do ``action`` to ``worker`` in ``project`` for ``actor`` with the request's fields."""
    if action not in ACTION_PERMS:
        raise ActionRefused("action", f"unknown action {action!r}; known: {', '.join(ACTION_PERMS)}", status=404)
    if not actor.has_perm(ACTION_PERMS[action]):
        raise ActionRefused("action", f"you need the permission {ACTION_PERMS[action]} to {action}", status=403)
    name = worker.get_username()
    note = action_text(data, "note", NOTE_LENGTH)
    if action in ("block", "unblock"):
        state = Standing.BLOCKED if action == "block" else _unblocked_state(project=project, worker=worker)
        standing_set(project=project, worker=worker, state=state, actor=actor,
                     reason=note or f"{action}ed on the worker page")
        return ActionDone(action, f"{name} is {Standing(state).label.lower()} in this project.")
    if action in ("approve", "reject"):
        if not note:
            raise ActionRefused("note", f"say why you {action} this work: the note is kept with each assignment")
        if action == "approve":
            n = worker_work_approve(project=project, worker=worker, note=note, reviewer=actor)
        else:
            n = worker_work_reject(project=project, worker=worker, note=note, reviewer=actor)
        verb = "Approved" if action == "approve" else "Rejected"
        return ActionDone(action, f"{verb} {n} assignment{'s' if n != 1 else ''} of {name}.", n)
    if action in _EXTRA:
        return _EXTRA[action].do(project=project, worker=worker, actor=actor, data=data)
    try:
        training_round_start(project=project, worker=worker, kind=TrainingRound.Kind.RECALIBRATION, actor=actor,
                             note=note)
    except WorkflowError as exc:
        raise ActionRefused("action", str(exc), status=409) from None
    audit_record(actor=actor, action="send_to_training", project=project, target=f"worker {name}",
                 details={"rounds": 1, "workers": [name], "note": note})
    return ActionDone(action, f"{name} was sent to a training round.")
