"""Submitting answers: validated, stored once (a repeat returns the first and says whether it
was the same answer), counted or not, on time or late."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone

from annotation.ledger_port import answer_stored
from annotation.models import (
    Annotation,
    Assignment,
    Item,
    Project,
    Purpose,
    RefusedAnswer,
    WorkerProfile,
)
from annotation.quality_port import (
    CheckOutcome,
    answer_rules_after_commit,
    check_score,
    worker_stopped,
)
from annotation.selectors.media import media_facts
from annotation.services.engine import set_status
from annotation.services.errors import NotYours, WorkflowError
from annotation.task_types import project_task_type
from annotation.task_types.base import AnswerContext, AnswerInvalid, TaskType
from annotation.value_checks import field_problems, scrubbed

Status = Assignment.Status


@dataclass(frozen=True)
class SubmitResult:
    annotation: Annotation
    # Read with its item and project.
    assignment: Assignment
    created: bool
    # False when the lease had expired and the item was completed by others meanwhile: the answer
    # is kept but does not count toward the item's N.
    counted: bool
    # For a repeat (``created`` False): whether what was sent equals the stored answer. False
    # when a different answer came for an item already answered (a second tab): it is not
    # stored, and the worker must be told so.
    same_answer: bool = True
    # Sent after the lease's end (``expires_at``); it counts only if a slot was free.
    late: bool = False
    # A gold or training answer's score (``quality.services.checks``); None for a task answer
    # and for a repeat. Show it to the worker only when ``check.feedback`` says so.
    check: CheckOutcome | None = None

    @property
    def feedback(self) -> CheckOutcome | None:
        """What the worker is shown about their answer: the check, when they are to see it."""
        return self.check if self.check is not None and self.check.feedback else None


def _same_answer(task: TaskType, a: Assignment, existing: Annotation, data: Mapping[str, Any]) -> bool:
    """Whether ``data`` is the answer already stored for ``a`` (an invalid one is not)."""
    try:
        clean = task.clean_answer(data, payload=a.item.payload, context=answer_context(task=task, assignment=a))
    except AnswerInvalid:
        return False
    return clean.answer == existing.answer and clean.reason == existing.reason


def answer_seconds(*, client_ms: Any, since: datetime, now: datetime) -> tuple[float, float | None]:
    """The time spent as the server saw it (from ``since`` to the answer's arrival, ``now``:
    for a submit ``since`` is the lease's start, for a change the previous version's storing),
    and the client's own count of it (None when it sent none that reads as a time). Rules judge
    the server's: a client can claim any time it likes. The client's is kept as evidence beside
    it (a claim far from the server's time is a signal in itself)."""
    server = round(max((now - since).total_seconds(), 0.0), 3)
    try:
        client = float(client_ms) / 1000.0
    except (TypeError, ValueError, OverflowError):
        return server, None
    if client != client or client in (float("inf"), float("-inf")) or client < 0:
        return server, None
    # A week covers any real lease; a larger claim is kept as that bound, not as a number to trust.
    return server, round(min(client, 7 * 24 * 3600.0), 3)


def answer_context(*, task: TaskType, assignment: Assignment, revising: bool = False,
                   now: datetime | None = None) -> AnswerContext:
    """The project's options and the worker's variant, as the task type validates with them, and
    what the server saw: when the item was handed out, when the answer arrived (``now``), and
    the item's media files (their lengths, and their fetches and plays for this assignment)."""
    options = task.clean_options(assignment.project.options)
    variant = task.variant(options=options, project_id=assignment.project_id, worker_id=assignment.worker_id)
    media = media_facts(assignment=assignment, keys=task.media_keys(assignment.item.payload))
    return AnswerContext(options=options, variant=variant, revising=revising, handed_out_at=assignment.assigned_at,
                         received_at=now or timezone.now(), media=media)


# Refusals kept per assignment: enough to show a pattern, bounded against a client that loops.
MAX_REFUSALS = 50


def answer_refusal_record(*, assignment_id: int, errors: Mapping[str, str], now: datetime) -> None:
    """Keep a refused answer's messages with its assignment (at most MAX_REFUSALS of them)."""
    if RefusedAnswer.objects.filter(assignment_id=assignment_id).count() < MAX_REFUSALS:
        RefusedAnswer.objects.create(assignment_id=assignment_id, at=now, errors=scrubbed(dict(errors)))


def _refusals(assignment_id: int) -> list[dict[str, Any]]:
    rows = RefusedAnswer.objects.filter(assignment_id=assignment_id).order_by("at", "pk").values_list("at", "errors")
    return [{"at": at.isoformat(), "errors": errors} for at, errors in rows]


def _locked_read(*, assignment_id: int, project: Project | None) -> tuple[Assignment, bool, bool, bool]:
    """The assignment with its item, project and stored answer (if any), its own row locked on
    PostgreSQL (SQLite serialises writers), so that answers to other items of the project never
    wait on each other; with whether its worker is blocked and whether answers were refused for
    it before, and whether they are blocked or screened out in the project. With ``project``,
    only an assignment of that project is found."""
    found = (Assignment.objects.select_related("item", "project", "annotation")
             .select_for_update(of=("self",))
             .annotate(worker_blocked=Exists(WorkerProfile.objects.filter(user_id=OuterRef("worker_id"), blocked=True)),
                       refused_before=Exists(RefusedAnswer.objects.filter(assignment_id=OuterRef("pk"))),
                       worker_stopped=worker_stopped(project_id=OuterRef("project_id"),
                                                     worker_id=OuterRef("worker_id"))))
    if project is not None:
        found = found.filter(project=project)
    a = found.get(pk=assignment_id)
    # The two flags are read once, here; the instance keeps only its fields.
    return (a, bool(a.__dict__.pop("worker_blocked")), bool(a.__dict__.pop("refused_before")),
            bool(a.__dict__.pop("worker_stopped")))


def annotation_submit(
    *,
    assignment: Assignment,
    worker: User,
    data: Mapping[str, Any],
    client: Mapping[str, Any] | None = None,
    project: Project | None = None,
    now: datetime | None = None,
) -> SubmitResult:
    """Validate and store an answer. Idempotent: a repeated submission returns the first one.

    Only ``assignment.pk`` is read (``Assignment(pk=…)`` will do): the row is read here, once,
    under a lock, with its item and its project (``project`` when given: then only an
    assignment of that project is found). Raises ``Assignment.DoesNotExist`` for an unknown
    one, ``NotYours`` for another worker's."""
    now = now or timezone.now()
    try:
        return _submit(assignment_id=assignment.pk, worker=worker, data=data, client=client, project=project,
                       now=now)
    except AnswerInvalid as exc:
        # Kept outside the refused answer's transaction, which rolled back.
        answer_refusal_record(assignment_id=assignment.pk, errors=exc.errors, now=now)
        raise


def _submit(*, assignment_id: int, worker: User, data: Mapping[str, Any], client: Mapping[str, Any] | None,
            project: Project | None, now: datetime) -> SubmitResult:
    with transaction.atomic():
        a, worker_blocked, refused_before, stopped = _locked_read(assignment_id=assignment_id, project=project)
        if a.worker_id != worker.pk:
            raise NotYours("This assignment belongs to someone else.")
        existing = getattr(a, "annotation", None)
        if existing is not None:
            same = _same_answer(project_task_type(a.project), a, existing, data)
            return SubmitResult(existing, a, created=False, counted=a.status in Assignment.COUNTED_STATUSES,
                                same_answer=same)
        if stopped:
            raise WorkflowError("You can no longer take part in this project; submissions are not accepted.")
        if a.status == Status.RETURNED:
            raise WorkflowError("You skipped this item, so it can no longer be answered.")
        if worker_blocked:
            raise WorkflowError("Your account is blocked; submissions are not accepted.")
        if a.purpose == Purpose.TRAINING and (a.status == Status.EXPIRED or now >= a.expires_at):
            # A training item's time is part of the test: once it ran out the item counts as
            # not answered (``check_serving.round_count_unanswered``), and a late answer, which
            # could come after the expected answer was learnt elsewhere, is neither stored nor scored.
            raise WorkflowError("The time for this training item ran out, so it counts as not answered; "
                                "your answer was not stored.")
        task = project_task_type(a.project)
        clean = task.clean_answer(data, payload=a.item.payload, context=answer_context(task=task, assignment=a, now=now))
        # What is stored obeys one rule on both databases (annotation.value_checks): an answer that
        # breaks it is refused naming the field; client details are our own record, so cleaned.
        problems = field_problems({**clean.answer, "reason": clean.reason, **clean.metrics})
        if problems:
            raise AnswerInvalid(problems)
        recorded: dict[str, Any] = scrubbed(dict(client or {}))
        if clean.metrics:
            recorded["metrics"] = clean.metrics
        refused = _refusals(a.pk) if refused_before else []
        if refused:
            # The answers refused before this one stay with it, in exports too.
            recorded["refused"] = refused
        seconds, client_seconds = answer_seconds(client_ms=recorded.pop("elapsed_ms", None), since=a.assigned_at,
                                                 now=now)
        counted = True
        annotation = Annotation(assignment=a, answer=clean.answer, reason=clean.reason, seconds=seconds,
                                client_seconds=client_seconds, client=recorded)
        if a.status == Status.ASSIGNED:
            # The slot stays held (assigned and submitted both hold it): no item row is touched.
            set_status(assignments=[a], new=Status.SUBMITTED, now=now, submitted_at=now)
        elif a.status == Status.EXPIRED:
            # A late answer still counts if a slot is free; otherwise it is kept but not counted.
            took = Item.objects.filter(pk=a.item_id, n_active__lt=F("redundancy")).update(n_active=F("n_active") + 1)
            if took:
                Assignment.objects.filter(pk=a.pk).update(status=Status.SUBMITTED, submitted_at=now)
                a.status, a.submitted_at = Status.SUBMITTED, now
            else:
                Assignment.objects.filter(pk=a.pk).update(submitted_at=now)
                counted = False
        else:
            raise WorkflowError(f"This assignment is {a.status} and takes no answer.")
        annotation.save(force_insert=True)
        # In the same transaction: an answer is never stored without the bonus it earned.
        answer_stored(annotation=annotation, assignment=a, task=task, counted=counted)
        # A gold or training answer is scored with it: never stored without its score.
        check = check_score(assignment=a, annotation=annotation, task=task, now=now)
        # The rules that read single answers judge this one once it is stored for good.
        answer_rules_after_commit(assignment=a, annotation=annotation, task=task)
    return SubmitResult(annotation, a, created=True, counted=counted, late=now >= a.expires_at, check=check)
