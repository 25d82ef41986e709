"""Keeping each worker's gold accuracy true when a gold question changes after it was answered:
withdrawn as broken (its answers stop counting for or against anyone), its gold answer corrected
by an adjudicator (its answers are scored again), or a gold answer rejected by staff.

The running counts on ``WorkerStanding`` (which the gold-accuracy rule reads on every gold
answer) are then counted again from the stored check results. A decision a rule made on the old
counts stays on record with the evidence it had; the worker page shows the counts as they are now.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Count, Q
from django.utils import timezone

from annotation.models import Assignment, Item, ItemKind, Project, Purpose
from annotation.task_types import get_task_type
from annotation.task_types.gold import CleanGold
from quality.models import CheckResult, WorkerStanding
from quality.selectors.settings import gold_policy, policy_for


def gold_counts_recount(*, project: Project, worker_ids: Iterable[int]) -> int:
    """Count the workers' gold answers again from their check results: gold questions not
    withdrawn, answers not rejected. Returns the standings updated."""
    ids = sorted(set(worker_ids))
    if not ids:
        return 0
    counted = (CheckResult.objects.filter(project=project, worker_id__in=ids, purpose=Purpose.GOLD)
               .exclude(assignment__item__kind=ItemKind.WITHDRAWN)
               .exclude(assignment__status=Assignment.Status.REJECTED)
               .values("worker_id").annotate(answered=Count("pk"), right=Count("pk", filter=Q(right=True))))
    by_worker = {row["worker_id"]: (row["answered"], row["right"]) for row in counted}
    updated = 0
    for standing in WorkerStanding.objects.select_for_update().filter(project=project, worker_id__in=ids):
        answered, right = by_worker.get(standing.worker_id, (0, 0))
        if (standing.gold_answered, standing.gold_right) != (answered, right):
            standing.gold_answered, standing.gold_right = answered, right
            standing.save(update_fields=["gold_answered", "gold_right"])
            updated += 1
    return updated


def gold_item_rescore(*, item: Item) -> int:
    """Score every answer to a gold question again against its gold answer as it is now (after
    a correction), then count its workers' gold answers again. Returns the results changed."""
    gold = item.gold_answer
    known = CleanGold(answer=dict(gold.answer), accept=list(gold.accept or []))
    task = get_task_type(item.project.task_type)
    policy = gold_policy(policy=policy_for(project=item.project))
    changed, workers = 0, set()
    now = timezone.now()
    for result in (CheckResult.objects.select_for_update(of=("self",)).select_related("assignment__annotation")
                   .filter(assignment__item=item, assignment__annotation__isnull=False)):
        workers.add(result.worker_id)
        score = task.score_gold(answer=result.assignment.annotation.answer, gold=known, policy=policy)
        if (result.score, result.right, result.expected) != (score.score, score.right, known.answer):
            result.score, result.right, result.method = score.score, score.right, score.method[:40]
            result.expected, result.scored_at = known.answer, now
            result.save(update_fields=["score", "right", "method", "expected", "scored_at"])
            changed += 1
    gold_counts_recount(project=item.project, worker_ids=workers)
    return changed


def gold_item_workers(*, item: Item) -> list[int]:
    """The workers whose gold answers to ``item`` are counted."""
    return list(CheckResult.objects.filter(assignment__item=item, purpose=Purpose.GOLD)
                .values_list("worker_id", flat=True).distinct())
