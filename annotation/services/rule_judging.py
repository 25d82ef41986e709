"""The rules that read single answers, judged as each answer arrives: too fast, position bias
and automated browsers (gold accuracy is judged in the submit's own transaction, where its
counts move: ``annotation.services.checks``), and the request of a fresh agreement run every
``RUN_EVERY`` answers of a worker for the competence rule.

A submit registers ``answer_rules_judge`` to run once its transaction has committed
(``transaction.on_commit``): the answer is stored whatever the rules find, and a fault in a
rule never loses it. Each rule keeps its running evidence about the worker in one ``RuleState``
row, so judging an answer reads the project's enabled rules (one query) and, per rule the answer
tells something, one row; the project's median time comes from the cache (recounted at most
once a minute). After a decision the rule's state starts again from nothing: a worker whom staff
move back to active is judged afresh on new answers only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.models import (
    Annotation,
    Assignment,
    Project,
    Purpose,
    QualityRule,
    RuleDecision,
    RuleState,
)
from annotation.selectors.counted import counted_as_data
from annotation.services.rule_verdicts import (
    position_bias_increment,
    position_bias_observation,
    state_evidence,
)
from annotation.services.rules import rule_decide
from annotation.task_types.base import TaskType

logger = logging.getLogger(__name__)
Kind = QualityRule.Kind
PER_ANSWER = (Kind.TOO_FAST, Kind.POSITION_BIAS, Kind.AUTOMATION, Kind.COMPETENCE)
# The competence rule reads MACE over everyone's answers: an agreement run is requested after
# every this many answers of a worker (one at a time per project).
RUN_EVERY = 20
# The project's median time is recounted at most this often, and judged on only once this many
# answers to real items were timed: a median of a handful of answers says nothing.
MEDIAN_SECONDS = 60
MEDIAN_MIN_ANSWERS = 20

# Apps above the engine (analysis) register what requests a run: the engine never imports them.
RunRequest = Callable[[int], object]
_RUN_REQUESTS: list[RunRequest] = []


def run_request_register(request: RunRequest) -> RunRequest:
    """``request(project_id)`` queues an agreement run unless one is queued or running."""
    _RUN_REQUESTS[:] = [request]
    return request


@dataclass(frozen=True)
class ArrivedAnswer:
    """What the rules read of one stored answer: taken from the submit, never read again."""

    project_id: int
    worker_id: int
    purpose: str
    seconds: float | None
    automated: bool
    keep_import_order: bool
    task: TaskType
    shown: Mapping[str, Any] | None
    payload: Mapping[str, Any]
    answer: Mapping[str, Any]


def answer_arrived(*, assignment: Assignment, annotation: Annotation, task: TaskType) -> ArrivedAnswer:
    signals = (annotation.client or {}).get("signals")
    return ArrivedAnswer(project_id=assignment.project_id, worker_id=assignment.worker_id, purpose=assignment.purpose,
                         seconds=annotation.seconds, automated=isinstance(signals, dict) and signals.get("webdriver") is True,
                         keep_import_order=assignment.project.keep_import_order, task=task,
                         shown=assignment.shown_order, payload=assignment.item.payload, answer=annotation.answer)


def median_seconds(*, project_id: int) -> float | None:
    """The median time of the project's counted answers to real items (server time), from the
    cache; None while fewer than ``MEDIAN_MIN_ANSWERS`` are timed."""
    key = f"quality:median-seconds:{project_id}"
    found = cache.get(key)
    if found is None:
        project = Project(pk=project_id)
        timed = (Annotation.objects.filter(counted_as_data(project=project, prefix="assignment__"),
                                           assignment__project_id=project_id, seconds__isnull=False)
                 .order_by("seconds").values_list("seconds", flat=True))
        n = timed.count()
        found = float(timed[n // 2]) if n >= MEDIAN_MIN_ANSWERS else -1.0
        cache.set(key, found, MEDIAN_SECONDS)
    return None if found < 0 else float(found)


def _increments(rule: QualityRule, arrived: ArrivedAnswer, *, cutoff: float | None) -> tuple[int, int, float] | None:
    """What the answer adds to the rule's state (answers, hits, ratio), or None: nothing."""
    task_answer = arrived.purpose == Purpose.TASK
    if rule.kind == Kind.AUTOMATION:
        return (1, 1, 0.0) if arrived.automated else None
    if rule.kind == Kind.COMPETENCE:
        return (1, 0, 0.0) if task_answer else None
    if rule.kind == Kind.TOO_FAST:
        if not task_answer or cutoff is None or arrived.seconds is None:
            return None
        return 1, int(arrived.seconds < cutoff), 0.0
    if rule.kind == Kind.POSITION_BIAS:
        if not task_answer or arrived.keep_import_order:
            return None
        seen = position_bias_observation(arrived.task, shown=arrived.shown, payload=arrived.payload,
                                         answer=arrived.answer)
        if seen is None:
            return None
        options, first = seen
        return 1, int(first), position_bias_increment(rule=rule, options=options, chose_first=first)
    return None


def _state(rule: QualityRule, worker_id: int, now: datetime) -> RuleState:
    rows = RuleState.objects.select_for_update().filter(rule=rule, worker_id=worker_id)
    found = rows.first()
    if found is None:
        try:
            with transaction.atomic():
                return RuleState.objects.create(rule=rule, worker_id=worker_id, updated_at=now)
        except IntegrityError:  # made meanwhile by another answer of the same worker
            found = rows.get()
    return found


def answer_rules_judge(*, arrived: ArrivedAnswer, now: datetime | None = None) -> list[RuleDecision]:
    """Move the running evidence of each enabled per-answer rule of the project by this answer,
    and decide where a rule's test now decides."""
    now = now or timezone.now()
    rules = list(QualityRule.objects.filter(project_id=arrived.project_id, enabled=True, kind__in=PER_ANSWER)
                 .order_by("pk"))
    if not rules:
        return []
    median = cutoff = None
    decisions: list[RuleDecision] = []
    for rule in rules:
        if rule.kind == Kind.TOO_FAST and arrived.purpose == Purpose.TASK:
            median = median_seconds(project_id=arrived.project_id) if median is None else median
            cutoff = None if median is None else median * rule.share_of_median
        step = _increments(rule, arrived, cutoff=cutoff)
        if step is None:
            continue
        with transaction.atomic():
            state = _state(rule, arrived.worker_id, now)
            state.answers += step[0]
            state.hits += step[1]
            state.llr += step[2]
            state.updated_at = now
            if rule.kind == Kind.COMPETENCE:
                if state.answers % RUN_EVERY == 0 and _RUN_REQUESTS:
                    transaction.on_commit(lambda: _RUN_REQUESTS[0](arrived.project_id))
                state.save(update_fields=["answers", "hits", "llr", "updated_at"])
                continue
            evidence = state_evidence(rule=rule, state=state, median=median, cutoff=cutoff)
            if evidence is not None:
                decision = rule_decide(rule=rule, project=Project(pk=arrived.project_id),
                                       worker=User(pk=arrived.worker_id), evidence=evidence,
                                       trigger=f"answer ({rule.get_kind_display().lower()})"[:100], now=now)
                if decision is not None:
                    decisions.append(decision)
                # The test starts again: new evidence only decides again.
                state.answers, state.hits, state.llr = 0, 0, 0.0
            state.save(update_fields=["answers", "hits", "llr", "updated_at"])
    return decisions


def answer_rules_judge_safely(*, arrived: ArrivedAnswer) -> None:
    """``answer_rules_judge`` after a submit's commit: a fault is logged, the answer stays."""
    try:
        answer_rules_judge(arrived=arrived)
    except Exception:
        logger.exception("the quality rules could not judge an answer of worker %s in project %s",
                         arrived.worker_id, arrived.project_id)


def answer_rules_after_commit(*, assignment: Assignment, annotation: Annotation, task: TaskType) -> None:
    """Have the per-answer rules judge this answer once the submit's transaction commits."""
    arrived = answer_arrived(assignment=assignment, annotation=annotation, task=task)
    transaction.on_commit(lambda: answer_rules_judge_safely(arrived=arrived))
