"""What an update import may do to an existing item's kind (``annotation.services.items``): the
answers to a real item are its annotations, a gold question's or training item's are scored for
the worker and are never data, so a kind changes only where no answer would change meaning."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from annotation.importers import ParsedItem, RowError
from annotation.models import Assignment, Item, ItemKind, Project, Purpose

CHECK_KINDS = (ItemKind.GOLD, ItemKind.TRAINING)


def check_kind_problems(*, project: Project, parsed: Sequence[ParsedItem], existing: Mapping[str, Item],
                        unit: str) -> list[RowError]:
    """Why an update import may not change these existing items' kinds, row by row: a withdrawn
    item stays withdrawn; a real item whose answers count as data (or with an open assignment
    that will) becomes a gold question only by promotion; a check item already answered stays a
    check item (its known answer may still change)."""
    moving = [(p, existing[p.item.external_id]) for p in parsed if p.item.external_id in existing
              and existing[p.item.external_id].kind != ItemKind.WITHDRAWN
              and (existing[p.item.external_id].kind in CHECK_KINDS) != p.is_check]
    withdrawn = [p for p in parsed if p.is_check and p.item.external_id in existing
                 and existing[p.item.external_id].kind == ItemKind.WITHDRAWN]
    errors = [RowError(p.line, "item_kind", f"item {p.item.external_id!r} was withdrawn; it stays withdrawn", unit=unit)
              for p in withdrawn]
    if not moving:
        return errors
    answered: dict[int, set[str]] = defaultdict(set)
    for item_id, purpose in (Assignment.objects.filter(item_id__in=[i.pk for _, i in moving],
                                                       status__in=Assignment.SLOT_STATUSES)
                             .values_list("item_id", "purpose").distinct()):
        answered[item_id].add(purpose)
    for p, item in moving:
        if p.is_check and Purpose.TASK in answered[item.pk]:
            errors.append(RowError(p.line, "item_kind", (
                f"item {p.item.external_id!r} already has answers counted as data, so it cannot become a {p.kind} "
                "item here; promote it to a gold question instead (it must be answered unanimously)"), unit=unit))
        elif not p.is_check and answered[item.pk]:
            errors.append(RowError(p.line, "item_kind", (
                f"item {p.item.external_id!r} was already answered as a {item.kind} item, so it stays one "
                "(its gold_answer may change)"), unit=unit))
    return errors
