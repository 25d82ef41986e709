"""Adjudication: a staff member decides the answer of a contested item, with why.

One decision per item (``Adjudication``); a later one replaces it, and the audit log keeps
every one (action ``adjudicate``, with the answer, the reason and the decision it replaced).
The decided answer holds the task type's gold fields and is validated as a known answer is
(``TaskType.clean_gold``). For a gold question the decision may also become its gold answer:
every answer already given to it is then scored again against the corrected answer and the
workers' gold counts are counted again (``quality.services.gold_counts``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from annotation.models import Item, ItemKind
from annotation.services.audit import audit_record
from annotation.task_types import get_task_type
from annotation.task_types.base import FieldError
from quality.models import Adjudication, GoldAnswer
from quality.services.gold_counts import gold_item_rescore

WHY_MAX = 2000


class AdjudicationInvalid(ValueError):
    """A decision refused, with a message per field (``answer.<field>``, ``why``, ``make_gold``)."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = dict(errors)


def clean_why(*, why: Any) -> str:
    text = why.strip() if isinstance(why, str) else ""
    if not text:
        raise AdjudicationInvalid({"why": "Say why you decided so (required)."})
    if len(text) > WHY_MAX:
        raise AdjudicationInvalid({"why": f"At most {WHY_MAX} characters (this has {len(text)})."})
    if "\x00" in text:
        raise AdjudicationInvalid({"why": "The text holds a NUL character."})
    return text


def clean_decision(*, item: Item, answer: Any) -> dict[str, Any]:
    """The decided answer's gold fields, validated by the item's task type; raises
    AdjudicationInvalid naming the field."""
    task = get_task_type(item.project.task_type)
    if not isinstance(answer, Mapping):
        raise AdjudicationInvalid({"answer": "must be a JSON object of the answer's fields"})
    if "accept" in answer:
        raise AdjudicationInvalid({"answer.accept": "an adjudication decides one answer; leave out accept"})
    try:
        clean = task.clean_gold(answer, payload=item.payload)
    except FieldError as exc:
        where = (exc.field or "answer").replace("gold_answer", "answer", 1)
        raise AdjudicationInvalid({where: exc.message}) from None
    return clean.answer


def item_adjudicate(*, item: Item, answer: Mapping[str, Any] | Any, why: str, actor: User | None,
                    contested: Sequence[str] = (), make_gold: bool = False) -> Adjudication:
    """Record the decided ``answer`` of ``item`` (replacing an earlier decision) and audit it.
    ``contested`` says why the item was in the queue; with ``make_gold`` a gold question's gold
    answer becomes the decided one (its accepted alternatives and explanation stay)."""
    why = clean_why(why=why)
    decided = clean_decision(item=item, answer=answer)
    if make_gold and item.kind != ItemKind.GOLD:
        raise AdjudicationInvalid({"make_gold": "Only a gold question has a gold answer to correct."})
    now = timezone.now()
    with transaction.atomic():
        # The item's row is the lock: two decisions on one item are made one after the other.
        locked = Item.objects.select_for_update().select_related("project").get(pk=item.pk)
        earlier = Adjudication.objects.filter(item=locked).first()
        previous = None if earlier is None else {
            "answer": earlier.answer, "why": earlier.why, "decided_at": earlier.decided_at.isoformat(),
            "decided_by": earlier.decided_by.get_username() if earlier.decided_by else None}
        decided_by = actor if actor is not None and actor.is_authenticated else None
        fields = {"project": locked.project, "answer": decided, "why": why, "contested": list(contested),
                  "decided_by": decided_by, "decided_at": now}
        if earlier is None:
            adjudication = Adjudication.objects.create(item=locked, **fields)
        else:
            for name, value in fields.items():
                setattr(earlier, name, value)
            earlier.save()
            adjudication = earlier
        gold_before, rescored = None, 0
        if make_gold:
            gold = GoldAnswer.objects.select_for_update().filter(item=locked).first()
            if gold is None:
                GoldAnswer.objects.create(item=locked, answer=decided, created_by=decided_by)
            else:
                gold_before = gold.answer
                gold.answer = decided
                gold.save(update_fields=["answer"])
            # The answers already given are scored again against the corrected answer.
            rescored = gold_item_rescore(item=Item.objects.select_related("project", "gold_answer").get(pk=locked.pk))
        audit_record(actor=actor, action="adjudicate", project=locked.project, target=f"item {locked.external_id}",
                     details={"item": locked.pk, "answer": decided, "why": why, "contested": list(contested),
                              "previous": previous, "gold_corrected": make_gold,
                              **({"gold_before": gold_before, "rescored": rescored} if make_gold else {})})
    return adjudication
