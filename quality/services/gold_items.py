"""Writes of gold questions and training items: their known answers as an item file brings them
(``annotation.services.items.items_import`` calls these inside its transaction, through
``annotation.quality_port``), and the
promotion of unanimously answered real items to gold questions.

An item's kind decides what its answers are: the answers to a real item are its annotations;
a gold question's or training item's are scored for the worker and are never data. A promoted
item's earlier answers were given to a real item, so they stay data (their assignments keep the
purpose ``task``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from annotation.importers import ParsedItem
from annotation.models import CHECK_ITEM_REDUNDANCY, Item, ItemKind, Project
from annotation.services.audit import audit_record
from annotation.services.errors import WorkflowError
from annotation.task_types import get_task_type
from quality.models import GoldAnswer, QualityPolicy
from quality.selectors.adjudication import mace_posteriors
from quality.selectors.gold_candidates import unanimous_items

# Item ids an audit entry names (the count is always there).
AUDIT_IDS = 200
# Groups an import's warning names (the count is always there).
WARNING_GROUPS = 10


def gold_answers_import(*, project: Project, answers: Sequence[ParsedItem], now_real: Iterable[int]) -> None:
    """Store the known answers an item file brings (``answers``: gold and training items whose
    answer or explanation is new or changed) and drop those of items the file made real."""
    GoldAnswer.objects.filter(item_id__in=list(now_real)).delete()
    if not answers:
        return
    ids = dict(Item.objects.filter(project=project, external_id__in=[p.item.external_id for p in answers])
               .values_list("external_id", "pk"))
    rows = [GoldAnswer(item_id=ids[p.item.external_id], answer=p.gold_answer.answer, accept=p.gold_answer.accept,
                       explanation=p.explanation, source=GoldAnswer.Source.IMPORTED)
            for p in answers if p.gold_answer is not None]
    GoldAnswer.objects.bulk_create(rows, batch_size=1000, update_conflicts=True, unique_fields=["item"],
                                   update_fields=["answer", "accept", "explanation", "source"])


@transaction.atomic
def items_promote_gold(*, project: Project, actor: User | None, min_answers: int, limit: int | None = None,
                       posterior: float | None = None, posteriors: Mapping[str, float] | None = None) -> int:
    """Make gold questions of the project's real items whose counted answers are unanimous: at
    least ``min_answers`` answers (the admin action asks for the project's N), all with the same
    gold fields. Each becomes ``kind`` gold with the check items' N and a known answer (source
    promoted, the votes as evidence); its earlier answers stay data. ``limit``: at most that many,
    in import order. Returns how many were promoted; the audit log records it.

    ``posterior``: only items whose MACE posterior of the unanimous label is at least this, read
    from ``posteriors`` (item id → posterior) or else from the project's last finished agreement
    run, which keeps the posteriors under a bar (0.9): an item it does not list is above it."""
    task = get_task_type(project.task_type)
    if not task.gold_fields:
        raise WorkflowError(f"The {task.name} task type has no gold questions.")
    if min_answers < 1:
        raise WorkflowError("A gold question needs at least one answer to promote it from.")
    if limit is not None and limit < 1:
        raise WorkflowError("The limit must be at least 1.")
    unlisted = 0.0
    if posterior is not None and posteriors is None:
        stored = mace_posteriors(project=project)
        if stored is None:
            raise WorkflowError("No finished agreement analysis of this project holds MACE posteriors: run it first, "
                                "or promote on unanimity alone.")
        if posterior > stored.below:
            raise WorkflowError(f"The agreement analysis keeps posteriors only below {stored.below:g}: "
                                f"choose a posterior of at most {stored.below:g}.")
        posteriors, unlisted = stored.items, 1.0
    Project.objects.select_for_update().filter(pk=project.pk).first()
    found = unanimous_items(project=project, min_answers=min_answers,
                            limit=None if posterior is not None else limit)
    if posterior is not None and posteriors is not None:
        found = [f for f in found if posteriors.get(f[0].external_id, unlisted) >= posterior][:limit]
    if not found:
        return 0
    ids = [item.pk for item, _, _ in found]
    Item.objects.filter(pk__in=ids, kind=ItemKind.REAL).update(kind=ItemKind.GOLD, redundancy=CHECK_ITEM_REDUNDANCY)
    GoldAnswer.objects.filter(item_id__in=ids).delete()
    GoldAnswer.objects.bulk_create([
        GoldAnswer(item=item, answer=answer, source=GoldAnswer.Source.PROMOTED, created_by=actor,
                   evidence={**evidence, **({"posterior": posteriors.get(item.external_id)} if posteriors else {})})
        for item, answer, evidence in found], batch_size=1000)
    audit_record(actor=actor, action="promote_gold", project=project, target=f"{len(found)} items",
                 details={"promoted": len(found), "min_answers": min_answers, "limit": limit, "posterior": posterior,
                          "items": [item.external_id for item, _, _ in found[:AUDIT_IDS]]})
    return len(found)


def gold_coverage_warnings(*, project: Project) -> list[str]:
    """What the project's gold questions leave uncovered, as warnings shown with an import's
    result (nothing is refused): the groups of real items with no gold question (a gold question
    standing in for their items comes from the nearest group by position, whose topic may give
    it away), and a pool too small for the gold rate (a worker who has had every gold question
    gets real items only, so the share of gold they see falls below the rate). None when the
    project has no gold questions."""
    gold = Item.objects.filter(project=project, kind=ItemKind.GOLD)
    n_gold = gold.count()
    if not n_gold:
        return []
    warnings = []
    real = Item.objects.filter(project=project, kind=ItemKind.REAL)
    covered = {g for g in gold.values_list("group", flat=True).distinct() if g is not None}
    uncovered = sorted({g for g in real.values_list("group", flat=True).distinct() if g is not None} - covered)
    if uncovered:
        named = ", ".join(repr(g) for g in uncovered[:WARNING_GROUPS])
        more = f" and {len(uncovered) - WARNING_GROUPS} more" if len(uncovered) > WARNING_GROUPS else ""
        warnings.append(
            f"{len(uncovered)} group{'s' if len(uncovered) != 1 else ''} of real items {'have' if len(uncovered) != 1 else 'has'} "
            f"no gold question: {named}{more}. A gold question standing in for their items comes from the "
            "nearest group, whose topic may give it away: add gold questions from these groups.")
    rate = QualityPolicy.objects.filter(project=project).values_list("gold_rate", flat=True).first() or 0.0
    if 0 < rate < 1:
        # A worker's serves: every real item they may take, with gold at the rate among them,
        # up to the project's quota (which counts gold questions too).
        serves = real.count() / (1 - rate)
        if project.max_items_per_worker is not None:
            serves = min(serves, project.max_items_per_worker)
        due = rate * serves
        if n_gold < due:
            warnings.append(
                f"{n_gold} gold question{'s' if n_gold != 1 else ''} for a gold rate of {rate:.0%}: a worker who takes "
                f"every item they may is due about {due:.0f}. Each gold question is served to a worker once; "
                "once they have had all of them, they get real items only, below the rate.")
    return warnings


def known_answers(*, item_ids: Sequence[int]) -> dict[int, tuple[Any, Any, str]]:
    """The stored known answers of these items: item pk -> (answer, accept, explanation)."""
    return {pk: (answer, accept, explanation) for pk, answer, accept, explanation in
            GoldAnswer.objects.filter(item_id__in=list(item_ids)).values_list("item_id", "answer", "accept", "explanation")}
