"""What workers were shown, as frames beside the long frame (``analysis.frames``): the option each
annotation's worker saw first, from the order drawn for its assignment."""

from __future__ import annotations

import pandas as pd

from analysis.frames import annotations_queryset
from annotation.models import Item, Project
from annotation.task_types import get_task_type


def shown_first_frame(*, project: Project, counted_only: bool = True) -> pd.DataFrame:
    """One row per annotation: ``annotation`` (id) and ``first``, the id of the option its worker
    was shown first in the task type's first reorderable part (``TaskType.shown_order_parts``):
    from the order stored with the assignment, or the import order where none was drawn. Empty
    for a type that shows no options in a drawn order."""
    task = get_task_type(project.task_type)
    if not task.shown_order_parts:
        return pd.DataFrame(columns=["annotation", "first"])
    part = task.shown_order_parts[0]
    rows = list(annotations_queryset(project=project, counted_only=counted_only)
                .values_list("pk", "assignment__item_id", "assignment__shown_order").iterator(chunk_size=20000))
    # Answers given in import order: their item's first option, each payload read once.
    unordered = {item for _, item, order in rows if not (order or {}).get(part)}
    items = Item.objects.filter(pk__in=unordered) if len(unordered) <= 1000 else Item.objects.filter(project=project)
    imported = {pk: (task.order_parts(payload).get(part) or [None])[0]
                for pk, payload in items.values_list("pk", "payload").iterator(chunk_size=5000) if pk in unordered}
    firsts = [((order or {}).get(part) or [imported.get(item)])[0] for _, item, order in rows]
    return pd.DataFrame({"annotation": [pk for pk, _, _ in rows], "first": firsts})
